package latent

import (
	"context"
	"fmt"
	"testing"

	"github.com/vkstat/vkstat/device/testdev"
	"github.com/vkstat/vkstat/internal/checks"
	"github.com/vkstat/vkstat/tensor"
)

// TestBatchesOverlap (issue 32): in batches, the upload of batch k+1 is
// submitted while batch k's first sequence runs, once per batch after the
// first (Counts.Overlapped: batches − 1), whichever statistics read the
// batch; one batch overlaps nothing; the per-sample results are those of
// one batch, exactly; and batches that would not fit twice on the device
// do not overlap.
func TestBatchesOverlap(t *testing.T) {
	cfg := DefaultSynth()
	cfg.N, cfg.C, cfg.F, cfg.H, cfg.W = 5, 6, 4, 8, 8
	x, err := Synth(cfg)
	if err != nil {
		t.Fatal(err)
	}
	x = x.As(tensor.F32)
	for _, dev := range testdev.Devices(t) {
		for _, st := range []struct {
			name string
			opt  Options
		}{
			{"moments", Options{Moments: true, Axes: []int{-2, -1}}},
			{"corr+pca+spectra", Options{Corr: true, PCA: true, Spectra: true}},
		} {
			t.Run(fmt.Sprintf("%s/%s", dev.Info.Name, st.name), func(t *testing.T) {
				var one []float64
				for _, c := range []struct{ batch, overlapped int }{{0, 0}, {2, 2}, {1, 4}} {
					opt := st.opt
					opt.Batch = c.batch
					r, err := Run(context.Background(), dev, x, opt)
					if err != nil {
						t.Fatal(err)
					}
					if got := r.Timing.Counts.Overlapped; got != int64(c.overlapped) {
						t.Errorf("batches of %d (%d): %d overlapped submissions, want %d", c.batch, r.Plan.Batches, got, c.overlapped)
					}
					var vals []float64
					if r.Moments != nil {
						vals = append(vals, r.Moments.Mean.F64...)
						vals = append(vals, r.Moments.Std.F64...)
					}
					if r.Corr != nil {
						vals = append(vals, r.Corr.F64...)
						vals = append(vals, r.PCA.Values.F64...)
					}
					if c.batch == 0 {
						one = vals
					} else {
						checks.Close(t, fmt.Sprintf("batches of %d against one batch", c.batch), vals, one, 0, 0)
					}
				}
			})
		}
		p := Plan{Batch: 2, Batches: 3, Footprint: Footprint{Device: dev.MemoryBudget().Bytes / 2}}
		if overlapFits(dev, p, 1) {
			t.Errorf("%s: batches of half the budget overlap", dev.Info.Name)
		}
	}
}
