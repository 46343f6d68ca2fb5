package paco

// The whole analysis, as `vkstat paco` and a survey run it: star centre,
// maps, detections, Algorithm 3, contrast curve and its injection check.

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/vkstat/vkstat/engine"
	"github.com/vkstat/vkstat/internal/par"
	"github.com/vkstat/vkstat/pipelines/synth"
	"github.com/vkstat/vkstat/tensor"
)

// CenterChoice is how Run places the star (PACO.md, "Star centre").
type CenterChoice int

const (
	// CenterDefault takes Options.HeaderCenter when there is one (warning
	// when the measurement rules it out by more than half a pixel), else
	// does as CenterAuto without its warnings.
	CenterDefault CenterChoice = iota
	// CenterAuto measures the star on the data (EstimateCenter) and uses
	// the measurement when it rules out the geometric centre (H/2, W/2),
	// which the data cannot tell from it otherwise; the header is ignored.
	CenterAuto
	// CenterHeader takes Options.HeaderCenter, which must be set.
	CenterHeader
	// CenterGiven takes Options.CenterYX.
	CenterGiven
)

// ParseCenter reads a centre as the command line and survey manifests
// give it: "" (CenterDefault), "auto", "header" or "y,x" (pixels, 0-based).
func ParseCenter(spec string) (CenterChoice, [2]float64, error) {
	s := strings.ToLower(strings.TrimSpace(spec))
	switch s {
	case "":
		return CenterDefault, [2]float64{}, nil
	case "auto":
		return CenterAuto, [2]float64{}, nil
	case "header":
		return CenterHeader, [2]float64{}, nil
	}
	if a, b, ok := strings.Cut(s, ","); ok {
		y, err1 := strconv.ParseFloat(strings.TrimSpace(a), 64)
		x, err2 := strconv.ParseFloat(strings.TrimSpace(b), 64)
		if err1 == nil && err2 == nil && finite(y) && finite(x) {
			return CenterGiven, [2]float64{y, x}, nil
		}
	}
	return 0, [2]float64{}, fmt.Errorf("want y,x (pixels, 0-based), auto or header, got %q", spec)
}

// ParseStarFlux reads the star's flux as the command line and survey
// manifests give it: a flux in the flux map's units (Options.Check
// refuses one below 0), or "psf" (the stamp's, Options.StarFluxPSF).
func ParseStarFlux(spec string) (flux float64, psf bool, err error) {
	s := strings.TrimSpace(spec)
	if strings.EqualFold(s, "psf") {
		return 0, true, nil
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil || !finite(f) {
		return 0, false, fmt.Errorf("want psf (the PSF stamp's flux) or a flux ≥ 0 in the cube's counts, got %q", spec)
	}
	return f, false, nil // Options.Check refuses a negative one
}

// ParseCompat reads "none" (or "") and "vip".
func ParseCompat(s string) (Compat, error) {
	switch s {
	case "none", "":
		return CompatNone, nil
	case "vip":
		return CompatVIP, nil
	}
	return 0, fmt.Errorf("want none or vip, got %q", s)
}

// UnmarshalText is ParseCompat, for engine.Param.SetText.
func (c *Compat) UnmarshalText(b []byte) (err error) {
	*c, err = ParseCompat(string(b))
	return err
}

// Choices are the compat modes' names.
func (Compat) Choices() []string { return []string{"none", "vip"} }

// String is the compat mode's name: none or vip.
func (c Compat) String() string {
	if c == CompatVIP {
		return "vip"
	}
	return "none"
}

// ContrastCheckRuns is how many runs of the maps the contrast check adds:
// each injects its own set of fakes, a third of a turn and a third of the
// spacing on from the last.
const ContrastCheckRuns = 3

// Options are one analysis' settings: its contract with every front end
// (the command line, survey manifests, the C ABI and Python), which take
// their defaults from DefaultOptions and leave the checks to Check. Start
// from DefaultOptions (PACO.md's defaults) and set PSF or FWHM: the zero
// value has no patch radius. The fields' parameter names, which
// Check's *engine.FieldError and Defaults use, are in their `param` tags,
// beside their help and what a 0 default means: Params, from which the
// front ends make their flags, columns and keys.
type Options struct {
	// PSF is the off-axis PSF stamp, odd-sized, square and centred on its
	// middle pixel. nil: the Gaussian of FWHM that synth injects
	// (synth.PSF).
	PSF *tensor.Tensor
	// FWHM is the Gaussian PSF's full width at half maximum in pixels,
	// (0, 100], used when PSF is nil.
	FWHM float64 `param:"fwhm" help:"use a Gaussian PSF of this FWHM in pixels instead of --psf"`
	// PSFNorm is how the stamp is normalised: "sum" (the default; "" is
	// the same), "peak" or "none". Fluxes are in units of the normalised
	// stamp.
	PSFNorm string `param:"psf_norm" choices:"sum,peak,none" help:"PSF normalisation: sum, peak or none"`
	// Radius is the patch radius in pixels, at least 1 (DefaultRadius).
	Radius int `param:"radius" help:"patch radius in pixels (R=4: 49-pixel patches)"`
	// StarFlux is the star's flux in the flux map's units, for the contrast
	// curve's contrast and magnitudes; 0: unknown. The flux map is in the
	// cube's counts whatever the stamp's own scale (the stamp is
	// normalised): with PSFNorm "sum" the star's flux is the total, in the
	// cube's counts, of its unsaturated image taken as the cube was. With
	// StarFluxPSF the star's flux is the stamp's own, as the flux map
	// counts it (its total with PSFNorm "sum", its peak with "peak", 1
	// with "none"): the stamp is the star's unsaturated image. Either is
	// multiplied by StarFluxScale (0: 1), the exposure-time or
	// neutral-density ratio between the stamp's exposure and the cube's.
	// As text (SetText) StarFlux is a flux or "psf" (ParseStarFlux), and
	// StarFluxScale may not be 0.
	StarFlux      float64 `param:"star_flux" kind:"text" default:"unknown" help:"the star's flux for the contrast curve (contrast = flux limit / star flux, in magnitudes), in the flux map's units, which are the cube's counts whatever the stamp's scale: the total of the star's unsaturated image in the cube's counts; psf: the PSF stamp's total (its peak with --psf-norm peak), when the stamp is that image; not given or 0: flux limits only. A Δmag below 0 warns"`
	StarFluxPSF   bool
	StarFluxScale float64 `param:"star_flux_scale" help:"multiplies --star-flux: the exposure-time or neutral-density ratio of the cube's frames to the stamp's (a stamp taken through an ND of transmission 1/100 with the same exposure: 100)"`
	// Threshold is the SNR above which local maxima of the SNR map are
	// detections (0: every positive local maximum).
	Threshold float64 `param:"threshold" help:"SNR above which local maxima are detections"`
	// MinSep is the least distance in pixels between two detections;
	// 0 means 2×Radius (MinSeparation).
	MinSep    float64   `param:"min_sep" default:"2×radius" help:"minimum distance in pixels between two detections"`
	Compat    Compat    `param:"compat" help:"none, or vip to reproduce VIP/PynPoint's numerics"`
	Placement Placement `param:"placement" flag:"psf-placement" help:"PSF model in each frame: nearest (centred on the pixel the trajectory rounds to) or subpixel (interpolated at the exact position: a few per cent more SNR off the pixel grid, 3-4x the time and far more memory)"`
	// PixelScale is arcseconds per pixel (detections' SepArcsec); 0: none.
	// As text (SetText) it must be above 0: 0 is only the default's none.
	PixelScale float64 `param:"pixel_scale" help:"arcseconds per pixel: separations in arcsec beside pixels (detections, contrast curve) and a WCS of offsets from the star in arcsec in the maps' FITS headers"`
	// NorthOffset is the true-north correction in degrees, added to the
	// position angles.
	NorthOffset float64 `param:"north_offset" help:"true-north correction in degrees, added to the detections' position angles (east of north)"`
	// Unbiased adds Algorithm 3's flux, σ, SNR and refined position to
	// every detection.
	Unbiased bool `param:"unbiased" help:"also estimate each detection's flux, σ, SNR and sub-pixel position with PACO's Algorithm 3 (statistics re-learnt without the source, iterated; about 0.5 s per detection for 252 frames on 2 cores, on the CPU): extra columns beside Algorithm 2's"`
	// QuickContrast keeps the contrast curve threshold × σ_flux, without
	// its calibration by injection and recovery (CalibrationPasses ×
	// CalibrationRuns more runs of the maps, which its help names),
	// optimistic by the inverse of the throughput.
	QuickContrast bool `param:"quick_contrast" help:"keep the contrast curve threshold × σ_flux, without its calibration by injection–recovery (8 more runs of the maps with fake companions, whose SNR throughput divides the limit): faster, and optimistic by the inverse of the throughput"`
	// ContrastCheck injects fake companions at the contrast curve's limit
	// in ContrastCheckRuns (its help names them) more runs of the maps and
	// reports what came back.
	ContrastCheck bool `param:"contrast_check" help:"check the contrast curve by injection–recovery: fake companions at the curve's limit, spread over separations and angles, in 3 more runs of the maps; their recovered SNR and flux go to contrast_check.csv"`
	// Center chooses the star centre; CenterYX is the centre CenterGiven
	// takes ((y, x), 0-based, rounded for the maps) and HeaderCenter the
	// one the cube's header records (FITS: CRPIX2−1, CRPIX1−1), nil when
	// it records none.
	Center       CenterChoice
	CenterYX     [2]float64
	HeaderCenter *[2]float64
	// Convert computes the maps in DType (tensor.F32 or F64) instead of the
	// cube's own type. The CPU path (dev nil) computes in float64 only and
	// refuses anything else (ErrCPUFloat64).
	Convert bool
	DType   tensor.DType
	// Warn, when set, hears each warning as it arises (they are also in
	// Result.Warnings).
	Warn func(engine.Warning)
	// Note hears what a person watching would want to know (a
	// contrast-check run starting, Algorithm 3 moving to the CPU).
	Note func(msg string)
}

// DefaultRadius is PACO.md's patch radius: 49-pixel patches.
const DefaultRadius = 4

// DefaultOptions are PACO.md's defaults: radius 4, threshold 5, the PSF
// normalised to unit sum, placed on the nearest pixel, no compatibility
// mode, the minimum separation 2×radius. Set PSF or FWHM.
func DefaultOptions() Options {
	return Options{Radius: DefaultRadius, Threshold: 5, PSFNorm: "sum", Compat: CompatNone, Placement: PlacementNearest, StarFluxScale: 1}
}

// Defaults are DefaultOptions by parameter name (engine.Defaults): what
// the front ends show and the C ABI hands to Python.
func Defaults() map[string]any { return engine.Defaults(DefaultOptions()) }

// Params describe the options every front end takes (engine.Describe),
// with DefaultOptions' defaults.
func Params() []engine.Param { return engine.Describe(DefaultOptions()) }

// SetText reads the parameters whose text their type cannot: star_flux,
// a flux or "psf" (ParseStarFlux), and pixel_scale and star_flux_scale,
// whose 0 means none (or 1) in Options but given is a mistake; their
// other values are Check's.
// It is engine.TextSetter, for engine.Param.SetText.
func (o *Options) SetText(param, text string) (bool, error) {
	var err error
	switch param {
	case "star_flux":
		o.StarFlux, o.StarFluxPSF, err = ParseStarFlux(text)
		return true, err
	case "pixel_scale":
		o.PixelScale, err = notZero(text, "arcseconds per pixel, a number")
		return true, err
	case "star_flux_scale":
		o.StarFluxScale, err = notZero(text, "a ratio")
		return true, err
	}
	return false, nil
}

// notZero reads a finite number other than 0 (one below 0 is Check's),
// or says it wants what above 0.
func notZero(text, what string) (float64, error) {
	x, err := strconv.ParseFloat(strings.TrimSpace(text), 64)
	if err != nil || x == 0 || !finite(x) {
		return 0, fmt.Errorf("want %s above 0, got %s", what, text)
	}
	return x, nil
}

// MinSeparation is the least distance in pixels between two detections
// that MinSep asks for: MinSep, or 2×Radius when it is 0.
func (o Options) MinSeparation() float64 {
	if o.MinSep > 0 {
		return o.MinSep
	}
	return float64(2 * o.Radius)
}

// ErrCPUFloat64 is Run's error for Convert to anything but float64 on the
// CPU path, which computes in float64 only.
var ErrCPUFloat64 = errors.New("the PACO CPU path computes in float64 only")

// PSFError is a PSF given as neither or both of a stamp (psf) and a
// Gaussian's FWHM (fwhm), which the front ends check (PSFGiven) before
// they read a stamp; Words words it with their names for the two.
type PSFError struct{ Both bool }

// ErrNoPSF and ErrBothPSF are PSFGiven's errors.
var (
	ErrNoPSF   = &PSFError{}
	ErrBothPSF = &PSFError{Both: true}
)

// Error words the error with the library's names.
func (e *PSFError) Error() string { return e.Words(engine.LibrarySetting) }

// Words words the error with the caller's names for psf and fwhm.
func (e *PSFError) Words(set engine.Setting) string {
	name := func(field string) string { return set(field, "") }
	if e.Both {
		return "give " + name("psf") + " or " + name("fwhm") + ", not both: a stamp is the PSF (its FWHM is measured on it)"
	}
	return "give " + name("psf") + " (the off-axis PSF stamp) or " + name("fwhm") + " (a Gaussian PSF of that FWHM, pixels)"
}

// PSFGiven refuses a PSF given as neither or both of a stamp and a FWHM
// (fwhm 0: none), as ErrNoPSF or ErrBothPSF.
func PSFGiven(stamp bool, fwhm float64) error {
	switch {
	case stamp && fwhm != 0:
		return ErrBothPSF
	case !stamp && fwhm == 0:
		return ErrNoPSF
	}
	return nil
}

// ErrNoHeaderCenter is Run's error for CenterHeader without HeaderCenter.
var ErrNoHeaderCenter = errors.New("the centre from the header: the cube's header records none (FITS: CRPIX1 and CRPIX2)")

func finite(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }

// Check reports the first option Run cannot use, as an
// *engine.FieldError naming its parameter ("radius", "psf_norm", ...).
func (o Options) Check() error {
	bad := engine.Fieldf
	switch {
	case o.PSF == nil && (!(o.FWHM > 0) || o.FWHM > 100):
		return bad("fwhm", " must be between 0 and 100 pixels, got %g", o.FWHM)
	case o.PSFNorm != "" && o.PSFNorm != "sum" && o.PSFNorm != "peak" && o.PSFNorm != "none":
		return bad("psf_norm", ": want sum, peak or none, got %q", o.PSFNorm)
	case !(o.StarFlux >= 0) || math.IsInf(o.StarFlux, 0):
		return bad("star_flux", " must be a finite number ≥ 0, got %g", o.StarFlux)
	case !(o.StarFluxScale >= 0) || math.IsInf(o.StarFluxScale, 0):
		return bad("star_flux_scale", " must be a finite number above 0 (the stamp's exposure or neutral-density ratio to the cube's), got %g", o.StarFluxScale)
	case o.StarFluxPSF && o.StarFlux != 0:
		return bad("star_flux", ": give a flux or psf (the stamp's), not both")
	case o.StarFluxPSF && o.PSF == nil && o.FWHM > 0:
		return bad("star_flux", " psf: the star's flux from the PSF stamp needs a stamp (psf), not a Gaussian of fwhm, whose scale is not the star's")
	case o.Radius < 1:
		return radiusError(o.Radius)
	case !(o.PixelScale >= 0 && o.PixelScale < 3600):
		return bad("pixel_scale", ": want arcseconds per pixel, a number above 0, got %g", o.PixelScale)
	case !(o.MinSep >= 0) || math.IsInf(o.MinSep, 0):
		return bad("min_sep", ": want a distance in pixels of 0 (2×radius) or more, got %g", o.MinSep)
	case !finite(o.NorthOffset):
		return bad("north_offset", ": want a finite angle in degrees, got %g", o.NorthOffset)
	case !finite(o.Threshold) || o.Threshold < 0:
		return bad("threshold", ": want an SNR of 0 or more (detections are the SNR map's local maxima above it; below 0 every local maximum of the background is one), got %g", o.Threshold)
	case o.Center == CenterGiven && !(finite(o.CenterYX[0]) && finite(o.CenterYX[1])):
		return bad("center", ": want finite pixel coordinates, got %v", o.CenterYX)
	case o.Center < CenterDefault || o.Center > CenterGiven:
		return bad("center", ": unknown choice %d", o.Center)
	case o.Compat != CompatNone && o.Compat != CompatVIP:
		return bad("compat", ": unknown mode %d", o.Compat)
	case o.Placement != PlacementNearest && o.Placement != PlacementSubpixel:
		return bad("placement", ": unknown PSF placement %d", o.Placement)
	}
	return nil
}

// radiusError refuses a patch radius below 1, for Check and Prepare.
func radiusError(r int) error {
	return engine.Fieldf("radius", " must be at least 1, got %d", r)
}

// CenterInfo is how Run chose the star centre (written beside the
// detections and the contrast curve).
type CenterInfo struct {
	// Source is "option" (CenterGiven), "header" (HeaderCenter),
	// "estimated" (measured on the data) or "geometric" ((H/2, W/2): no
	// header, and no measurement that rules it out).
	Source string `json:"source"`
	// Y and X are the centre as given or measured, sub-pixel, 0-based.
	Y float64 `json:"y"`
	X float64 `json:"x"`
	// Used is the pixel the maps use: (Y, X) rounded.
	Used [2]int `json:"used"`
	// Geometric is (H/2, W/2), the default before the centre was measured.
	Geometric [2]int `json:"geometric"`
	// Estimate is the measurement on the data, when one was made.
	Estimate *CenterMeasurement `json:"estimate,omitempty"`
}

// String says which centre was used and why: the source, and the
// measurement or header values behind it.
func (i CenterInfo) String() string {
	s := fmt.Sprintf("(%d, %d), %s", i.Used[0], i.Used[1], i.Source)
	switch i.Source {
	case "estimated":
		s += fmt.Sprintf(" %s centre (%.3f, %.3f) ± %.2f px (95 %%) over %d frames, which rules out (H/2, W/2)", i.Estimate.Method, i.Y, i.X, i.Estimate.Uncertainty, i.Estimate.Frames)
	case "header":
		s += fmt.Sprintf(" CRPIX (%.3f, %.3f) 0-based", i.Y, i.X)
	case "geometric":
		if e := i.Estimate; e != nil && e.Error == "" {
			s += fmt.Sprintf(" (H/2, W/2); the star measured at (%.2f, %.2f) ± %.2f px (95 %%), which does not rule it out", e.Y, e.X, e.Uncertainty)
		} else {
			s += " (H/2, W/2); no star to measure"
		}
	}
	return s
}

// CenterMeasurement is EstimateCenter's result as CenterInfo records it.
type CenterMeasurement struct {
	Y      float64 `json:"y"`
	X      float64 `json:"x"`
	Method string  `json:"method"`
	// Uncertainty is the 95 % radius of the measurement, pixels.
	Uncertainty float64 `json:"uncertainty_px"`
	Frames      int     `json:"frames"`
	// RulesOutGeometric: (H/2, W/2) lies beyond the uncertainty, so the
	// measurement is the better centre.
	RulesOutGeometric bool `json:"rules_out_geometric"`
	// Error says why the centre could not be measured ("" when it was).
	Error string `json:"error,omitempty"`
	est   CenterEstimate
}

// chooseCenter decides the star centre of a (T, H, W) cube, PACO.md's
// "Star centre": CenterDefault takes the header's centre when there is
// one, else the better of the measured centre and (H/2, W/2): the
// measurement when it rules the geometric centre out (it lies beyond the
// measurement's 95 % uncertainty), else the geometric centre, which the
// data cannot tell from the measurement and where cubes are usually
// centred (a faint star's measurement, 0.7 px off with ±0.9 px, had moved
// the maps to the wrong pixel). It warns when the centre it takes is more
// than half a pixel from (H/2, W/2), and when the measurement rules out a
// header's centre by more than that.
func chooseCenter(cube, psf *tensor.Tensor, o Options, warn func(code string, data map[string]float64, format string, args ...any)) (CenterInfo, error) {
	H, W := cube.Shape[1], cube.Shape[2]
	info := CenterInfo{Geometric: [2]int{H / 2, W / 2}}
	estimate := func() *CenterMeasurement {
		est, err := EstimateCenter(cube, FWHMOfStamp(psf))
		if err != nil {
			return &CenterMeasurement{Error: err.Error()}
		}
		return &CenterMeasurement{Y: est.Y, X: est.X, Method: est.Method, Uncertainty: est.Uncertainty, Frames: est.Frames,
			RulesOutGeometric: est.RulesOut(float64(H/2), float64(W/2)), est: est}
	}
	hdr := o.HeaderCenter
	switch o.Center {
	case CenterDefault, CenterAuto:
		if o.Center == CenterDefault && hdr != nil {
			info.Source, info.Y, info.X = "header", hdr[0], hdr[1]
			if e := estimate(); e.Error == "" {
				info.Estimate = e
				if d := math.Hypot(e.Y-info.Y, e.X-info.X); d > 0.5 && e.est.RulesOut(info.Y, info.X) {
					warn(WarnCenterHeader, map[string]float64{"y": e.Y, "x": e.X, "uncertainty_px": e.Uncertainty, "header_y": info.Y, "header_x": info.X},
						"the star measured at (%.2f, %.2f) ± %.2f px (95 %%) is %.2f px from the header's centre (CRPIX2−1, CRPIX1−1) = (%.2f, %.2f), which is used; ask for {center=auto} to use the measurement", e.Y, e.X, e.Uncertainty, d, info.Y, info.X)
				}
			}
			break
		}
		info.Estimate = estimate()
		if e := info.Estimate; e.RulesOutGeometric {
			info.Source, info.Y, info.X = "estimated", e.Y, e.X
		} else {
			info.Source, info.Y, info.X = "geometric", float64(H/2), float64(W/2)
			if o.Center == CenterAuto {
				if e.Error != "" {
					warn(WarnCenterUnmeasured, nil, "{center=auto}: could not measure the star centre (%s); using the geometric centre (%d, %d); give {center=y,x}", e.Error, H/2, W/2)
				} else {
					warn(WarnCenterKept, map[string]float64{"y": e.Y, "x": e.X, "uncertainty_px": e.Uncertainty}, "{center=auto}: the star measured at (%.2f, %.2f) ± %.2f px (95 %%) does not rule out the geometric centre (%d, %d), which is used; give {center=y,x} to choose", e.Y, e.X, e.Uncertainty, H/2, W/2)
				}
			}
		}
	case CenterHeader:
		if hdr == nil {
			return info, ErrNoHeaderCenter
		}
		info.Source, info.Y, info.X = "header", hdr[0], hdr[1]
	case CenterGiven:
		info.Source, info.Y, info.X = "option", o.CenterYX[0], o.CenterYX[1]
	}
	// Outside the frame is refused here, in the centre's own numbers: as
	// ints, 1e30 printed as −9223372036854775808.
	if !(info.Y > -0.5 && info.Y < float64(H)-0.5 && info.X > -0.5 && info.X < float64(W)-0.5) {
		from := map[string]string{"option": "given", "header": "the header's CRPIX2−1, CRPIX1−1", "estimated": "measured"}[info.Source]
		return info, engine.Fieldf("center", " (%g, %g) is outside the %d×%d frame (%s)", info.Y, info.X, H, W, from)
	}
	info.Used = [2]int{int(math.Round(info.Y)), int(math.Round(info.X))}
	if info.Source == "estimated" || info.Source == "header" {
		if d := math.Hypot(info.Y-float64(H/2), info.X-float64(W/2)); d > 0.5 {
			warn(WarnCenterMoved, map[string]float64{"y": info.Y, "x": info.X, "distance_px": d}, "the star centre (%.2f, %.2f, %s) is %.2f px from the geometric centre (%d, %d) that PACO assumed by default before: the maps use (%d, %d)",
				info.Y, info.X, info.Source, d, H/2, W/2, info.Used[0], info.Used[1])
		}
	}
	return info, nil
}

// CheckRow is one fake companion of the contrast check and what came back
// of it.
type CheckRow struct {
	Run int `json:"run"` // 1-based
	Recovery
	PA float64 `json:"pa_east_of_north_deg"` // east of north
	// Expected is the SNR the injected flux would have at the
	// uncalibrated curve's σ_flux: Injected / σ_flux. SNR / Expected is
	// the fake's throughput in SNR.
	Expected float64 `json:"snr_expected"`
}

// Result is what Run found.
type Result struct {
	// Timing is what the call cost: its Wall, on a device the engine's
	// counts, the maps' uploads, kernels and downloads (their Timing's;
	// not the calibration's or the check's), and in Phases Run's steps in wall-clock time, in order,
	// adding up to its wall: the cube's scan, the star centre, the
	// preparation (Prepared's Phases), the maps' own (their Timing's),
	// the detections, Algorithm 3, the contrast curve, its calibration
	// and its check.
	Timing engine.Timing
	// Maps are the SNR, flux and σ maps in the sky frame, with their
	// invalid counts, stages' times, device and precision.
	Maps *Maps
	// Detections are the local maxima above the threshold, strongest
	// first, with separations (and arcsec with a pixel scale) and position
	// angles east of north (PAConvention), and Algorithm 3's estimate with
	// Options.Unbiased.
	Detections []Detection
	// T, H, W are the cube's shape, P the pixels per patch, Radius the
	// patch radius used.
	T, H, W, P, Radius int
	Center             CenterInfo
	// PSF is the stamp the maps used, before normalisation (Options.PSF, or
	// the Gaussian of Options.FWHM).
	PSF *tensor.Tensor
	// Contrast is the contrast curve (ContrastCurve) from the inner
	// working angle out, with separations in arcsec given a pixel scale,
	// calibrated by injection and recovery unless Options.QuickContrast;
	// Calibration says how (nil without).
	Contrast    []ContrastPoint
	Calibration *Calibration
	// Checks are the contrast check's fakes, by separation (nil without
	// Options.ContrastCheck).
	Checks []CheckRow
	// NaNs counts the cube's NaN values.
	NaNs int
	// Warnings are the warnings given, in order.
	Warnings []engine.Warning
	// StarFlux is the star's flux the contrast used, in the flux map's
	// units (Options.StarFlux, or the stamp's with StarFluxPSF, times
	// StarFluxScale); 0: not known.
	StarFlux float64
	// FWHM is the PSF's, pixels: Options.FWHM, or measured on the stamp
	// (FWHMOfStamp). InnerWorkingAngle (the function of that name) is
	// where the contrast curve starts.
	FWHM, InnerWorkingAngle float64
	// UnbiasedOn is where Algorithm 3 ran ("CPU" or the device's name);
	// UnbiasedTime, CalibrationTime and CheckTime are the times of
	// Algorithm 3, of the contrast curve's calibration and of the
	// contrast check.
	UnbiasedOn                               string
	UnbiasedTime, CalibrationTime, CheckTime time.Duration
}

// scanCube counts the cube's NaN values and finds the range of the
// others, over every core, reading the cube as it is stored (no float64
// copy of a float32 cube). It is the first to read the cube after it
// was read from its file, which on a VM costs 4–5 µs a page where the
// reading itself takes 1 ns a value: in pieces of 64 Ki values, a cube
// of 64×64×48 is shared among the cores (1 ms on one).
func scanCube(cube *tensor.Tensor) (nans int, lo, hi float64) {
	n := cube.Len()
	if !cube.HasData() {
		return 0, math.Inf(1), math.Inf(-1)
	}
	const grain = 1 << 16
	type part struct {
		nans   int
		lo, hi float64
	}
	parts := make([]part, (n+grain-1)/grain)
	widen := cube.DType.Widen()
	par.Range(n, grain, func(a, b int) {
		pt := part{lo: math.Inf(1), hi: math.Inf(-1)}
		switch {
		case cube.DType == tensor.F64:
			pt.nans, pt.lo, pt.hi = scanRange(cube.F64[a:b])
		case widen != nil:
			for _, u := range cube.U16[a:b] {
				if v := float64(widen(u)); v != v {
					pt.nans++
				} else {
					pt.lo, pt.hi = min(pt.lo, v), max(pt.hi, v)
				}
			}
		default:
			var lo, hi float32
			pt.nans, lo, hi = scanRange(cube.F32[a:b])
			pt.lo, pt.hi = float64(lo), float64(hi)
		}
		parts[a/grain] = pt
	})
	lo, hi = math.Inf(1), math.Inf(-1)
	for _, pt := range parts {
		nans += pt.nans
		lo, hi = min(lo, pt.lo), max(hi, pt.hi)
	}
	return nans, lo, hi
}

// scanRange counts v's NaN values and finds the range of the others
// (+Inf, −Inf when there are none).
func scanRange[F float32 | float64](v []F) (nans int, lo, hi F) {
	lo, hi = F(math.Inf(1)), F(math.Inf(-1))
	for _, x := range v {
		switch {
		case x != x:
			nans++
		case x < lo:
			lo = x
			if x > hi { // the first value
				hi = x
			}
		case x > hi:
			hi = x
		}
	}
	return nans, lo, hi
}

// Prepare checks opt and in and makes the analysis ready for the maps:
// the PSF (opt.PSF, or the Gaussian of opt.FWHM), the cube's scan for NaN
// values, the star centre (opt.Center), the PSF's width against the
// pixel, stamp and patch, the field's rotation, the cube in the maps' type
// and the mask, h and rotation table. It is the one door of every stage
// (RunMaps, UnbiasedFlux, Inject; Run calls it once). Warnings (a NaN or
// constant cube, a field that does not rotate, a centre away from (H/2,
// W/2)) go to opt.Warn and do not stop it; what it refuses is an
// *engine.FieldError naming the option or input at fault where there is
// one.
func Prepare(in ADI, opt Options) (*Prepared, error) {
	return prepareAlong(context.Background(), false, in, opt)
}

// prepareAlong is Prepare; along (the CPU path's run), where the
// star centre is measured, the maps' first stages (mapsHead: the centred
// cube, the lagged products, the statistics, which the centre does not
// enter) run alongside the measurement, under ctx, and the
// Prepared holds them for CPU: the measurement's serial steps and its
// wait for its draws no longer leave cores idle. Its "star centre" phase
// is then the measurement's time beyond those stages, which CPU lists.
func prepareAlong(ctx context.Context, along bool, in ADI, opt Options) (*Prepared, error) {
	var tm engine.Timing
	lap := tm.Clock().Lap
	if err := opt.Check(); err != nil {
		return nil, err
	}
	cube, angles := in.Cube, in.Angles
	if cube == nil {
		return nil, errors.New("no cube given")
	}
	psf := opt.PSF
	if psf == nil {
		var err error
		if psf, err = synth.PSF(opt.FWHM); err != nil {
			return nil, err
		}
	}
	warn := func(w engine.Warning) {
		if opt.Warn != nil {
			opt.Warn(w)
		}
	}
	warnf := func(code string, data map[string]float64, format string, args ...any) {
		warn(engine.Warn(code, data, format, args...))
	}
	nans, lo, hi := scanCube(cube)
	lap("scan cube")
	switch {
	case nans == cube.Len():
		warnf(WarnAllNaN, nil, "every value of the cube is NaN: the maps will be all NaN")
	case lo == hi:
		warnf(WarnConstant, map[string]float64{"value": lo}, "the cube is constant (%g wherever it is not NaN): no background variation to learn, the maps will be NaN or meaningless", lo)
	}
	if len(angles) > 0 {
		amin, amax := angles[0], angles[0]
		for _, a := range angles {
			amin, amax = min(amin, a), max(amax, a)
		}
		if amax == amin {
			warnf(WarnNoRotation, map[string]float64{"angle_deg": amin}, "the field does not rotate (every angle is %g°): PACO cannot tell a companion from the static background, the maps are meaningless", amin)
		}
	}
	dt := cube.DType
	if opt.Convert {
		dt = opt.DType
	}
	mapsCube := cube.As(dt)
	input := func(center *[2]int) Input {
		return Input{Cube: mapsCube, Angles: angles, PSF: psf, PSFNorm: opt.PSFNorm, Radius: opt.Radius, Center: center, Compat: opt.Compat, Placement: opt.Placement}
	}
	var head *mapsHead
	measured := opt.Center == CenterDefault || opt.Center == CenterAuto // chooseCenter's estimate
	if along && measured && len(cube.Shape) == 3 && !(opt.Convert && dt != tensor.F64) {
		// What prepare refuses it refuses with any centre inside the
		// frame (and the measured one is): then the run stops as before,
		// after the centre's warnings, with no head.
		if p0, err := prepare(input(nil)); err == nil {
			hctx, cancel := context.WithCancel(ctx)
			head = newMapsHead(mapsCube)
			go head.run(hctx, p0)
			defer func() {
				cancel() // Prepare refused: the head stops at its next stage
				<-head.done
			}()
		}
	}
	var star CenterInfo
	var center *[2]int
	if len(cube.Shape) == 3 {
		var err error
		if star, err = chooseCenter(cube, psf, opt, warnf); err != nil {
			return nil, err
		}
		center = &star.Used
	}
	// The PSF's width against a pixel, its stamp and the patch, and the
	// field's rotation at the inner working angle.
	fwhm := opt.FWHM
	if opt.PSF != nil {
		fwhm = FWHMOfStamp(psf)
		if len(psf.Shape) == 2 {
			for _, w := range fwhmWarnings(stampFWHM(psf), true, psf.Shape[0], opt.Radius, opt.PixelScale) {
				warn(w)
			}
		}
	} else {
		for _, w := range fwhmWarnings(opt.FWHM, false, psf.Shape[0], opt.Radius, opt.PixelScale) {
			warn(w)
		}
	}
	iwa := InnerWorkingAngle(fwhm, opt.Radius)
	if center != nil && len(angles) > 0 {
		H, W := cube.Shape[1], cube.Shape[2]
		cy, cx := float64(center[0]), float64(center[1])
		maxSep := math.Hypot(max(cy, float64(H-1)-cy), max(cx, float64(W-1)-cx))
		for _, w := range rotationWarnings(angles, fwhm, iwa, maxSep) {
			warn(w)
		}
	}
	if head != nil {
		<-head.done
	}
	lap("star centre")
	if head != nil {
		tm.AddPhase("star centre", -head.total()) // CPU lists the head's stages
	}
	p, err := prepare(input(center))
	if err != nil {
		return nil, err
	}
	p.Star, p.FWHM, p.InnerWorkingAngle, p.NaNs, p.convert, p.head = star, fwhm, iwa, nans, opt.Convert, head
	lap("prepare")
	p.Phases = tm.Phases
	return p, nil
}

// run is Run.
func run(ctx context.Context, dev *engine.Device, in ADI, opt Options) (*Result, error) {
	res := &Result{}
	heard := opt.Warn
	warn := func(w engine.Warning) {
		res.Warnings = append(res.Warnings, w)
		if heard != nil {
			heard(w)
		}
	}
	opt.Warn = warn
	warnf := func(code string, data map[string]float64, format string, args ...any) {
		warn(engine.Warn(code, data, format, args...))
	}
	note := func(format string, args ...any) {
		if opt.Note != nil {
			opt.Note(fmt.Sprintf(format, args...))
		}
	}
	clock := res.Timing.Clock()
	lap := clock.Lap
	prep, err := prepareAlong(ctx, dev == nil, in, opt)
	if err != nil {
		return nil, err
	}
	clock.Include(prep.Phases)
	res.PSF, res.NaNs, res.Center, res.FWHM, res.InnerWorkingAngle = prep.PSF, prep.NaNs, prep.Star, prep.FWHM, prep.InnerWorkingAngle
	res.T, res.H, res.W, res.P, res.Radius = prep.T, prep.H, prep.W, prep.P(), prep.Radius
	if res.Maps, err = runMaps(ctx, dev, prep); err != nil {
		return nil, err
	}
	mt := res.Maps.Timing
	res.Timing.Upload, res.Timing.Kernel, res.Timing.Download, res.Timing.GPUTimed = mt.Upload, mt.Kernel, mt.Download, mt.GPUTimed
	clock.Include(res.Maps.Timing.Phases)
	// What follows (Algorithm 3, the contrast check's injections) tells
	// no progress: the bar ends with the detection map.
	ctx = engine.WithProgress(ctx, nil)
	dets := Detect(res.Maps, opt.Threshold, prep.CY, prep.CX, opt.MinSeparation())
	for i := range dets {
		if opt.PixelScale > 0 {
			dets[i].SepArcsec = dets[i].Sep * opt.PixelScale
		}
		dets[i].PAEastOfNorth = PositionAngle(float64(dets[i].Y-prep.CY), float64(dets[i].X-prep.CX), opt.NorthOffset)
	}
	res.Detections = dets
	lap("detections")
	if opt.Unbiased {
		if res.UnbiasedOn, err = addUnbiased(ctx, dev, prep, in.Cube, dets, note); err != nil {
			return nil, err
		}
		lap("unbiased flux")
		res.UnbiasedTime = res.Timing.Phase("unbiased flux")
	}
	res.StarFlux = starFlux(opt, prep.PSF)
	res.Contrast = From(ContrastCurve(res.Maps.Sigma, prep.H, prep.W, prep.CY, prep.CX, opt.Threshold, res.StarFlux), res.InnerWorkingAngle)
	for i := range res.Contrast {
		res.Contrast[i].SepArcsec = res.Contrast[i].Sep * opt.PixelScale
	}
	lap("contrast curve")
	rotation := Rotation(in.Angles)
	if !opt.QuickContrast && len(res.Contrast) > 0 {
		res.Calibration, err = calibrate(ctx, dev, prep, res.Contrast, dets, res.Contrast[0].Sep, rotation, opt.Threshold, res.StarFlux, opt.NorthOffset, note)
		if errors.Is(err, errNoFakes) {
			warnf(WarnUncalibrated, nil, "the contrast curve is not calibrated (%v): its limits are threshold × σ_flux, optimistic by the inverse of the throughput", err)
		} else if err != nil {
			return nil, err
		}
		lap("contrast calibration")
		res.CalibrationTime = res.Timing.Phase("contrast calibration")
	}
	if w, ok := brighterThanStar(res.Contrast, res.StarFlux); ok {
		warn(w)
	}
	if opt.ContrastCheck {
		gap, err := fakeGap(prep)
		if err != nil {
			return nil, fmt.Errorf("contrast check: %w", err)
		}
		if res.Checks, err = injectFakes(ctx, dev, prep, res.Contrast, dets, 2*res.FWHM, gap, rotation, ContrastCheckRuns, 0, opt.Threshold, opt.NorthOffset, "contrast check", note); err != nil {
			return nil, err
		}
		lap("contrast check")
		res.CheckTime = res.Timing.Phase("contrast check")
	}
	return res, nil
}

// addUnbiased runs Algorithm 3 for dets on the GPU that made the maps, in
// the maps' precision (its moments there, the iteration on the host), else
// on the host in float64 on the cube as given; it returns where it ran.
func addUnbiased(ctx context.Context, dev *engine.Device, p *Prepared, cube *tensor.Tensor, dets []Detection, note func(string, ...any)) (string, error) {
	if dev != nil && dev.Info.IsCPU() {
		// A software device (lavapipe, SwiftShader) is the host's own
		// cores, and on them Algorithm 3's moments run about 10× faster
		// in native Go (docs/paco.md).
		dev = nil
	}
	if dev != nil {
		err := AddUnbiased(ctx, dev, p, dets, true)
		if errors.Is(err, engine.ErrTooLarge) || errors.Is(err, engine.ErrBudget) || errors.Is(err, engine.ErrNoFit) {
			note("note: %v; Algorithm 3 runs on the CPU instead", err)
		} else if err != nil {
			return "", err
		} else {
			return dev.Info.Name, nil
		}
	}
	return "CPU", AddUnbiased(ctx, nil, p.withCube(cube), dets, true)
}

// starFlux is the star's flux in the flux map's units that o gives: its
// StarFlux, or with StarFluxPSF the stamp's as the flux map counts it
// (the normalisation's divisor: the total for "sum", the peak for "peak",
// 1 for "none"), times StarFluxScale (0: 1); 0 when not known.
func starFlux(o Options, psf *tensor.Tensor) float64 {
	f := o.StarFlux
	if o.StarFluxPSF {
		f = 1
		v := psf.Float64s()
		switch o.PSFNorm {
		case "", "sum":
			f = 0
			for _, x := range v {
				f += x
			}
		case "peak":
			f = slices.Max(v)
		}
	}
	if o.StarFluxScale > 0 {
		f *= o.StarFluxScale
	}
	return f
}

// brighterThanStar is the warning for a curve whose limit is brighter
// than the star somewhere (Δmag < 0: a companion brighter than its star),
// which says the star's flux is not in the flux map's units.
func brighterThanStar(curve []ContrastPoint, star float64) (engine.Warning, bool) {
	lo, hi, least := math.Inf(1), math.Inf(-1), math.Inf(1)
	for _, p := range curve {
		if p.Mag < 0 {
			lo, hi, least = min(lo, p.Sep), max(hi, p.Sep), min(least, p.Mag)
		}
	}
	if math.IsInf(least, 1) {
		return engine.Warning{}, false
	}
	return engine.Warn(WarnBrighterStar, map[string]float64{"star_flux": star, "delta_mag": least, "from_px": lo, "to_px": hi},
		"the contrast curve's limit is brighter than the star (Δmag %.2f, below 0 from %g to %g px): the star's flux %.4g is not in the flux map's units, the cube's counts; "+
			"give the total of the star's unsaturated image in the cube's counts, or {star_flux=psf} when the stamp is that image, times {star_flux_scale} for its exposure or neutral-density ratio to the cube's",
		least, lo, hi, star), true
}
