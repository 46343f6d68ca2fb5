package paco

// Run's warnings: doubts about the inputs that do not stop a run, as
// engine.Warning values with a code and the figures behind them, which
// callers word.

import (
	"fmt"
	"math"

	"github.com/vkstat/vkstat/engine"
	"github.com/vkstat/vkstat/pipelines/synth"
	"github.com/vkstat/vkstat/tensor"
)

// The warnings' codes.
const (
	WarnAllNaN      = "cube-all-nan"   // every value of the cube is NaN
	WarnConstant    = "cube-constant"  // the cube holds one value
	WarnNoRotation  = "no-rotation"    // every angle is the same
	WarnRotation    = "small-rotation" // a companion at the inner working angle moves less than 1 FWHM
	WarnRadians     = "angles-radians" // the angles look like radians
	WarnFWHMPixel   = "fwhm-below-pixel"
	WarnFWHMStamp   = "fwhm-stamp"   // the PSF's FWHM is more than half its stamp
	WarnFWHMPatch   = "fwhm-patch"   // the PSF is wider than the patch
	WarnTruthAngles = "truth-angles" // the angles are not the truth file's (negated, in radians, other)
	// The contrast curve's: not calibrated (no room for fakes), and a
	// limit brighter than the star (Δmag < 0).
	WarnUncalibrated = "contrast-uncalibrated"
	WarnBrighterStar = "contrast-above-star"
	// The star centre's (chooseCenter).
	WarnCenterUnmeasured = "centre-unmeasured"    // centre auto could not measure the star
	WarnCenterKept       = "centre-geometric"     // centre auto: the measurement does not rule out (H/2, W/2)
	WarnCenterHeader     = "centre-header-off"    // the measurement rules out the header's centre
	WarnCenterMoved      = "centre-not-geometric" // the centre used is more than 0.5 px from (H/2, W/2)
)

// InnerWorkingAngle is the smallest separation, in pixels, at which Run
// reports a contrast and judges the field rotation: the larger of the
// PSF's FWHM and the patch radius. Closer in, a companion's patch holds
// the star's core.
func InnerWorkingAngle(fwhm float64, radius int) float64 {
	return max(fwhm, float64(radius))
}

// Rotation is the field rotation of a sequence of angles in degrees: the
// range of the angles unwrapped across ±180° (consecutive frames taken
// less than 180° apart).
func Rotation(angles []float64) float64 {
	if len(angles) == 0 {
		return 0
	}
	a := angles[0]
	lo, hi := a, a
	for i := 1; i < len(angles); i++ {
		a += math.Remainder(angles[i]-angles[i-1], 360)
		lo, hi = min(lo, a), max(hi, a)
	}
	return hi - lo
}

// rotationWarnings judges whether the field rotation separates a companion
// from its own background statistics (ADI practice: it must move at least
// one FWHM across the sequence, r·Δθ ≥ FWHM, at separation r) at the inner
// working angle iwa; and whether the angles look like radians: many frames
// (10 or more), every angle within ±2π, too little rotation read as
// degrees and enough read as radians. A rotation of 0 is WarnNoRotation's,
// not these. maxSep is the largest separation in the frame.
func rotationWarnings(angles []float64, fwhm, iwa, maxSep float64) []engine.Warning {
	rot := Rotation(angles)
	if !(rot > 0) || !(fwhm > 0) {
		return nil
	}
	moves := func(rotDeg float64) float64 { return iwa * rotDeg * math.Pi / 180 / fwhm } // in FWHM
	if moves(rot) >= 1 {
		return nil
	}
	at1 := fwhm / (rot * math.Pi / 180) // where it moves 1 FWHM
	where := fmt.Sprintf("only from %.3g px out", at1)
	if at1 > maxSep {
		where = fmt.Sprintf("nowhere in the frame (it would be %.3g px out)", at1)
	}
	out := []engine.Warning{{Code: WarnRotation, Message: fmt.Sprintf("the field rotates %.3g° in all: at the inner working angle (%.3g px) a companion moves %.2g FWHM across the sequence, and 1 FWHM %s; "+
		"where it moves less it stays in its own background statistics, and PACO loses most of its flux and SNR there (the contrast curve is optimistic)", rot, iwa, moves(rot), where),
		Data: map[string]float64{"rotation_deg": rot, "fwhm_px": fwhm, "inner_working_angle_px": iwa, "motion_fwhm": moves(rot), "separation_1fwhm_px": at1}}}
	maxAbs := 0.0
	for _, a := range angles {
		maxAbs = max(maxAbs, math.Abs(a))
	}
	if asRad := rot * 180 / math.Pi; len(angles) >= 10 && maxAbs <= 2*math.Pi && moves(asRad) >= 1 {
		out = append(out, engine.Warning{Code: WarnRadians, Message: fmt.Sprintf("the angles look like radians: all %d lie within ±2π and turn %.3g, too little in degrees; "+
			"read as radians the field would rotate %.3g°: give the parallactic angles in degrees", len(angles), rot, asRad),
			Data: map[string]float64{"max_abs": maxAbs, "rotation": rot, "rotation_if_radians_deg": asRad}})
	}
	return out
}

// fwhmWarnings judges the PSF's width: fwhm (pixels: the option's, or
// measured on the stamp when given) below a pixel (an FWHM in arcseconds,
// say: pixelScale, when known, converts it), more than half the stamp's
// side n (the stamp cuts the PSF off), or wider than the patch of radius r
// (each patch sees only its core).
func fwhmWarnings(fwhm float64, stamp bool, n, r int, pixelScale float64) []engine.Warning {
	what := fmt.Sprintf("the FWHM, %.3g px,", fwhm)
	if stamp {
		what = fmt.Sprintf("the PSF stamp's FWHM, measured at %.3g px,", fwhm)
	}
	data := map[string]float64{"fwhm_px": fwhm, "stamp_px": float64(n), "patch_radius_px": float64(r)}
	switch {
	case !(fwhm > 0) || math.IsInf(fwhm, 0):
		return nil
	case fwhm < 1:
		msg := fmt.Sprintf("%s is below a pixel: PACO then looks for single-pixel sources; FWHMs are in pixels", what)
		if pixelScale > 0 && !stamp {
			msg += fmt.Sprintf(" (if %.3g is in arcseconds, at %.4g″ per pixel it is %.3g px)", fwhm, pixelScale, fwhm/pixelScale)
			data["fwhm_if_arcsec_px"] = fwhm / pixelScale
		}
		return []engine.Warning{{Code: WarnFWHMPixel, Message: msg, Data: data}}
	case 2*fwhm > float64(n):
		return []engine.Warning{{Code: WarnFWHMStamp, Message: fmt.Sprintf("%s is more than half the %d-pixel stamp: the stamp cuts the PSF off, or is not a PSF centred on its middle pixel", what, n), Data: data}}
	case fwhm > float64(2*r+1):
		return []engine.Warning{engine.Warn(WarnFWHMPatch, data, "%s is wider than the patch (%d px across, radius %d): each patch sees only the PSF's core, hard to tell from a smooth background; a {radius} near the FWHM suits it better",
			what, 2*r+1, r)}
	}
	return nil
}

// stampFWHM is FWHMOfStamp without its bounds: the FWHM of a Gaussian
// with the stamp's peak-to-sum ratio, NaN when the stamp has no positive
// peak below its sum.
func stampFWHM(psf *tensor.Tensor) float64 {
	var sum, peak float64
	for _, x := range psf.Float64s() {
		if !math.IsNaN(x) {
			sum += x
			peak = max(peak, x)
		}
	}
	if !(sum > 0) || !(peak > 0) || peak >= sum {
		return math.NaN()
	}
	return math.Sqrt(sum/(2*math.Pi*peak)) * 2 * math.Sqrt(2*math.Ln2)
}

// TruthAngleWarnings compares angles with those of the synthetic
// sequence truth describes (synth.Angles of its configuration): a
// sequence negated, in radians, or another one altogether is a
// WarnTruthAngles warning. Without a truth file nothing tells a negated
// sequence from a right one: both are rotations, and only a source of
// known position (a companion, a background star) shows which way the sky
// turned.
func TruthAngleWarnings(truth *synth.TruthFile, angles []float64) []engine.Warning {
	if truth == nil || truth.Config.Frames != len(angles) || len(angles) == 0 {
		return nil
	}
	want := synth.Angles(len(angles), truth.Config.StartDeg, truth.Config.RotationDeg)
	same := func(f func(float64) float64) bool {
		for i, a := range angles {
			if math.Abs(a-f(want[i])) > 1e-6*max(1, math.Abs(want[i])) {
				return false
			}
		}
		return true
	}
	data := map[string]float64{"truth_start_deg": truth.Config.StartDeg, "truth_rotation_deg": truth.Config.RotationDeg}
	switch {
	case same(func(a float64) float64 { return a }):
		return nil
	case same(func(a float64) float64 { return -a }):
		return []engine.Warning{{Code: WarnTruthAngles, Message: "the angles are the truth file's negated: PACO derotates the wrong way and loses every companion that moves more than a FWHM", Data: data}}
	case same(func(a float64) float64 { return a * math.Pi / 180 }):
		return []engine.Warning{{Code: WarnTruthAngles, Message: "the angles are the truth file's in radians: give them in degrees", Data: data}}
	}
	return []engine.Warning{{Code: WarnTruthAngles, Message: fmt.Sprintf("the angles are not the truth file's (%.4g° to %.4g°, linear): the companions will not be where it says", want[0], want[len(want)-1]), Data: data}}
}
