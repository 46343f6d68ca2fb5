package latent

import (
	"context"
	"fmt"
	"math"
	"testing"

	"github.com/vkstat/vkstat/device/testdev"
	"github.com/vkstat/vkstat/engine"
	"github.com/vkstat/vkstat/internal/checks"
	"github.com/vkstat/vkstat/tensor"
)

// samplesOf is samples [lo, hi) of x, a copy.
func samplesOf(x *tensor.Tensor, lo, hi int) *tensor.Tensor {
	per := x.Len() / x.Shape[0]
	shape := append([]int{hi - lo}, x.Shape[1:]...)
	out := tensor.New(x.DType, shape...)
	if x.DType == tensor.F64 {
		copy(out.F64, x.F64[lo*per:hi*per])
	} else {
		copy(out.F32, x.F32[lo*per:hi*per])
	}
	return out
}

// TestMergeMoments: moments over axes that include the sample axis,
// computed batch by batch (batches of 1, 2, 3 and N samples) and merged,
// equal Run's over the whole tensor within float64 rounding, under both
// NaN policies, with ddof 0 and 1, on the CPU path and every device.
func TestMergeMoments(t *testing.T) {
	x := latentData([]int{5, 3, 2, 4, 3}, 11, storages[3])
	x.F64[7] = math.NaN()       // sample 0
	x.F64[2*72+5] = math.Inf(1) // sample 2
	for i := range 24 {         // sample 3, channel 1, frame 0: constant over pixels... and all NaN in (c 2, f 1)
		x.F64[3*72+24+i] = 0.5
		x.F64[3*72+60+i%12] = math.NaN()
	}
	devs := append([]*engine.Device{nil}, testdev.Devices(t)...)
	for _, dev := range devs {
		name := "cpu"
		if dev != nil {
			name = dev.Info.Name
		}
		t.Run(name+"/f64", func(t *testing.T) { mergeSuite(t, dev, name, x, 1e-12, 1e-9) })
		// float32: reduce returns float32 means and variances per batch,
		// so the merge holds to float32 rounding.
		t.Run(name+"/f32", func(t *testing.T) { mergeSuite(t, dev, name, x.As(tensor.F32), 1e-6, 1e-5) })
	}
}

func mergeSuite(t *testing.T, dev *engine.Device, name string, x *tensor.Tensor, rel, shape float64) {
	{
		for _, axes := range [][]int{{0}, {0, 3, 4}, {-5, 2}, {0, 1, 2, 3, 4}} {
			for _, policy := range []NaNPolicy{Propagate, Skip} {
				for _, ddof := range []int{0, 1} {
					req := Options{Moments: true, Axes: axes, DDof: ddof, NaN: policy}
					whole, err := Run(context.Background(), dev, x, req)
					if err != nil {
						testdev.SkipNoFloat64(t, err)
						t.Fatal(err)
					}
					for _, b := range []int{1, 2, 3, 5} {
						var parts []MomentPart
						for lo := 0; lo < 5; lo += b {
							xb := samplesOf(x, lo, min(lo+b, 5))
							r0 := req
							r0.DDof = 0
							res, err := Run(context.Background(), dev, xb, r0)
							if err != nil {
								t.Fatal(err)
							}
							cnt, err := MomentCounts(xb, axes, policy)
							if err != nil {
								t.Fatal(err)
							}
							parts = append(parts, MomentPart{M: res.Moments, Count: cnt})
						}
						m, err := MergeMoments(parts, ddof, policy, x.DType, false)
						if err != nil {
							t.Fatal(err)
						}
						what := fmt.Sprintf("%s axes %v %s ddof %d batch %d", name, axes, policy, ddof, b)
						checkMomentsClose(t, what, m, whole.Moments, rel, shape)
					}
				}
			}
		}
	}
}

// checkMomentsClose holds got to want (checks.Near): equal shapes, NaN
// where want is NaN, and within rel of the slice's scale (|mean| + std)
// for mean, var (scale²) and std, equal min and max, within shape for
// skew and kurtosis.
func checkMomentsClose(t *testing.T, what string, got, want *Moments, rel, shape float64) {
	t.Helper()
	if !tensor.SameShape(got.Shape, want.Shape) {
		t.Fatalf("%s: shape %v, want %v", what, got.Shape, want.Shape)
	}
	for q := range want.Mean.F64 {
		scale := math.Abs(want.Mean.F64[q]) + want.Std.F64[q]
		for _, c := range []struct {
			name string
			g, w *tensor.Tensor
			tol  float64
		}{{"mean", got.Mean, want.Mean, rel * scale}, {"var", got.Var, want.Var, rel * scale * scale}, {"std", got.Std, want.Std, rel * scale},
			{"min", got.Min, want.Min, 0}, {"max", got.Max, want.Max, 0}, {"skew", got.Skew, want.Skew, shape}, {"kurt", got.Kurt, want.Kurt, shape}} {
			g, w := c.g.F64[q], c.w.F64[q]
			if !checks.Near(g, w, c.tol) {
				t.Errorf("%s: %s[%d] = %v, want %v (tol %.3g)", what, c.name, q, g, w, c.tol)
			}
		}
	}
}
