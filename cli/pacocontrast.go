package cli

// The summary lines of PACO's contrast curve and of its injection–recovery
// check.

import (
	"fmt"
	"math"
	"slices"
	"sort"

	"github.com/vkstat/vkstat/pipelines/paco"
	"github.com/vkstat/vkstat/survey"
)

// contrastSummary is the contrast curve's lines in the summary: the flux
// limit (in the units the PSF's normalisation gives) at the inner working
// angle and a few separations beyond, with arcsec given a pixel scale,
// and its calibration (calibrationSummary).
func contrastSummary(res *paco.Result, o paco.Options, quick string) string {
	curve := res.Contrast
	arcsec := func(sep float64) string {
		if o.PixelScale > 0 {
			return fmt.Sprintf(" (%.3g″)", sep*o.PixelScale)
		}
		return ""
	}
	s := fmt.Sprintf("%g-σ flux limit (units: %s) from the inner working angle, %.3g px%s = max(FWHM, patch radius):", o.Threshold, survey.FluxUnits(o.PSFNorm), res.InnerWorkingAngle, arcsec(res.InnerWorkingAngle))
	n := 0
	for _, p := range curve {
		if math.IsNaN(p.Flux) || !(p.Sep == curve[0].Sep || p.Sep == 5 || p.Sep == 10 || p.Sep == 20 || p.Sep == 40) {
			continue
		}
		if n > 0 {
			s += ","
		}
		n++
		s += fmt.Sprintf(" %.3g at %g px%s", p.Flux, p.Sep, arcsec(p.Sep))
		if !math.IsNaN(p.Mag) {
			s += fmt.Sprintf(" (Δmag %.2f)", p.Mag)
		}
	}
	if n == 0 {
		s += " nowhere finite"
	}
	return s + " (contrast.csv)\n            " + calibrationSummary(res, o, quick)
}

// calibrationSummary says how the curve was calibrated, what it cost and
// how to skip it (quick, the option that does, as the user gives it), or
// that it was not.
func calibrationSummary(res *paco.Result, o paco.Options, quick string) string {
	c := res.Calibration
	if c == nil {
		if o.QuickContrast {
			return "not calibrated (" + quick + "): threshold × σ_flux, optimistic by the inverse of the throughput (about 1.2–2.2× on synthetic sequences)"
		}
		return "not calibrated: no room for fake companions (a warning says why)"
	}
	var tp []float64
	for _, p := range res.Contrast {
		if !math.IsNaN(p.Throughput) {
			tp = append(tp, p.Throughput)
		}
	}
	s := fmt.Sprintf("calibrated by injection–recovery: %d passes × %d runs of the maps with fakes (%d fakes in the last), %.2f s; ", c.Passes, c.Runs, len(c.Fakes), res.CalibrationTime.Seconds())
	if len(tp) > 0 {
		s += fmt.Sprintf("limits divided by the SNR throughput %.2f–%.2f (± %.0f %%, median standard error); ", slices.Min(tp), slices.Max(tp), 100*c.MedianRelErr)
	}
	return s + quick + " skips it"
}

// contrastCheckSummary is the check's line in the summary.
func contrastCheckSummary(rows []paco.CheckRow, threshold float64) string {
	det := 0
	var tp []float64
	for _, r := range rows {
		if r.Detected {
			det++
		}
		if !math.IsNaN(r.Throughput) {
			tp = append(tp, r.Throughput)
		}
	}
	s := fmt.Sprintf("check: %d fakes at the limit, %d found at SNR ≥ %g", len(rows), det, threshold)
	if len(tp) > 0 {
		sort.Float64s(tp)
		s += fmt.Sprintf(", flux kept %.0f %% (median; %.0f–%.0f %%)", 100*tp[len(tp)/2], 100*tp[0], 100*tp[len(tp)-1])
	}
	return s + " (contrast_check.csv)"
}
