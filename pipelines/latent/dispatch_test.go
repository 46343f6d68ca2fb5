package latent

import (
	"context"
	"fmt"
	"testing"

	"github.com/vkstat/vkstat/device/testdev"
	"github.com/vkstat/vkstat/engine"
	"github.com/vkstat/vkstat/tensor"
)

// TestDispatchesPerBatch: the channel correlation, the lagged frame
// correlation and the PCA record a fixed number of kernels per batch,
// whatever the number of samples: cov's split-K product and its sum (two),
// and for the PCA the Jacobi kernel (three). 1 and 5 samples in one batch,
// and 5 in batches of 2 (three batches); read from Timing.Steps on devices
// with timestamps.
func TestDispatchesPerBatch(t *testing.T) {
	cfg := DefaultSynth()
	cfg.C, cfg.F, cfg.H, cfg.W = 16, 4, 32, 32 // 4,096 values a channel, 1,024 a frame
	for _, dev := range testdev.Devices(t) {
		if !dev.Info.Timestamps {
			continue
		}
		for _, c := range []struct{ n, batch, batches int }{{1, 0, 1}, {5, 0, 1}, {5, 2, 3}} {
			cfg.N = c.n
			x, err := Synth(cfg)
			if err != nil {
				t.Fatal(err)
			}
			for _, st := range []struct {
				name string
				opt  Options
				per  int
			}{
				{"corr", Options{Corr: true}, 2},
				{"lagcorr", Options{LagCorr: true, Lags: 2}, 2},
				{"pca", Options{PCA: true}, 3},
			} {
				t.Run(fmt.Sprintf("%s/%s/N%d/batch%d", dev.Info.Name, st.name, c.n, c.batch), func(t *testing.T) {
					opt := st.opt
					opt.Batch = c.batch
					r, err := Run(context.Background(), dev, x.As(tensor.F32), opt)
					if err != nil {
						t.Fatal(err)
					}
					var kernels []string
					for _, s := range r.Timing.Steps {
						if s.Phase == engine.PhaseKernel {
							kernels = append(kernels, s.Name)
						}
					}
					if r.Plan.Batches != c.batches || len(kernels) != st.per*c.batches {
						t.Errorf("%d batches, kernels %v: want %d batches of %d kernels", r.Plan.Batches, kernels, c.batches, st.per)
					}
				})
			}
		}
	}
}
