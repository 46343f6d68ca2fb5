package cov

import (
	"context"
	"math"
	"testing"

	"github.com/vkstat/vkstat/device/testdev"
	"github.com/vkstat/vkstat/engine"
	"github.com/vkstat/vkstat/tensor"
)

// TestRunShrunkCentered: scikit-learn's ShrunkCovariance(shrinkage=0.25,
// assume_centered=True) of r1 = (2, 2), r2 = (0, 2), by hand: S = ½(r1r1ᵀ +
// r2r2ᵀ) = [[2, 2], [2, 4]], μ = 3, C = 0.75·S + 0.75·I = [[2.25, 1.5],
// [1.5, 3.75]], means 0, on the CPU path and every device; the
// implementations themselves refuse what only Run serves.
func TestRunShrunkCentered(t *testing.T) {
	x := tensor.FromF64([]float64{2, 2, 0, 2}, 1, 2, 2)
	rho := 0.25
	opt := Options{Estimator: Shrunk, Shrinkage: &rho, Centered: true}
	for _, dev := range append([]*engine.Device{nil}, testdev.Devices(t)...) {
		in := x
		if dev != nil && !dev.Info.Float64 {
			in = x.As(tensor.F32) // every value is exact in float32
		}
		r, err := Run(context.Background(), dev, in, opt)
		if err != nil {
			t.Fatal(err)
		}
		c, m, rh := r.Cov.Float64s(), r.Mean.Float64s(), r.Rho.Float64s()
		for i, want := range []float64{2.25, 1.5, 1.5, 3.75} {
			if math.Abs(c[i]-want) > 1e-6 {
				t.Errorf("cov %v, want [2.25 1.5 1.5 3.75]", c)
				break
			}
		}
		if m[0] != 0 || m[1] != 0 || rh[0] != 0.25 {
			t.Errorf("means %v ρ %v, want 0 and 0.25", m, rh)
		}
	}
	if _, err := CPU(x, opt); err == nil {
		t.Errorf("CPU served Shrunk itself")
	}
}
