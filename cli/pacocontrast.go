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
// limit (in the units the PSF's normalisation gives) at a few separations.
func contrastSummary(curve []paco.ContrastPoint, threshold float64, psfNorm string) string {
	s := fmt.Sprintf("%g-σ flux limit (units: %s)", threshold, survey.FluxUnits(psfNorm))
	n := 0
	for _, sep := range []int{2, 5, 10, 20, 40} {
		if sep > len(curve) || math.IsNaN(curve[sep-1].Flux) {
			continue
		}
		p := curve[sep-1]
		if n > 0 {
			s += ","
		}
		n++
		s += fmt.Sprintf(" %.3g at %d px", p.Flux, sep)
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
