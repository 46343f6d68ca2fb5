package cli

// The outputs of the injection–recovery check of the contrast curve
// (vkstat paco --contrast-check; paco.Options.ContrastCheck).

import (
	"encoding/csv"
	"fmt"
	"io"
	"math"
	"path/filepath"
	"sort"
	"strconv"

	"github.com/vkstat/vkstat/formats"

	"github.com/vkstat/vkstat/pipelines/paco"
)

// addContrastCheckOutputs declares contrast_check.csv.
func addContrastCheckOutputs(outs *formats.Outputs, dir string, rows []paco.CheckRow) {
	outs.Add(filepath.Join(dir, "contrast_check.csv"), func(w io.Writer) error {
		cw := csv.NewWriter(w)
		cw.Write([]string{"run", "separation_px", "y", "x", "pa_east_of_north_deg", "flux_injected", "snr", "flux", "throughput", "detected"})
		f := func(v float64) string { return strconv.FormatFloat(v, 'g', 8, 64) }
		for _, r := range rows {
			cw.Write([]string{strconv.Itoa(r.Run), f(r.Sep), f(r.Y), f(r.X), f(r.PA), f(r.Injected), f(r.SNR), f(r.Flux), f(r.Throughput), strconv.FormatBool(r.Detected)})
		}
		cw.Flush()
		return cw.Error()
	})
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
