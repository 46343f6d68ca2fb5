package cli

// The summary lines of PACO's contrast curve and of its injection–recovery
// check.

import (
	"fmt"
	"math"
	"sort"

	"github.com/vkstat/vkstat/pipelines/paco"
	"github.com/vkstat/vkstat/survey"
)

// contrastSummary is the contrast curve's line in the summary: the flux
// limit (in the units the PSF's normalisation gives) at the inner working
// angle and a few separations beyond, with arcsec given a pixel scale.
func contrastSummary(res *paco.Result, o paco.Options) string {
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
	return s + " (contrast.csv)"
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
