package cov

import (
	"context"
	"math"
	"testing"

	"github.com/vkstat/vkstat/tensor"
)

// TestRunSetsFromOptions: Run reads the one set (T 4, P 2) where
// Options.Strided places it (variables stored one after the other) and
// where Options.Gather finds it (pixels (0, 0) and (0, 1) of a (4, 1, 2)
// cube); its mean and covariance are worked out by hand: variable 0 is
// 1, 2, 3, 4 and variable 1 is 2, 4, 6, 9. Both options at once are
// refused.
func TestRunSetsFromOptions(t *testing.T) {
	ctx := context.Background()
	wantMean := []float64{2.5, 5.25}
	wantCov := []float64{1.25, 2.875, 2.875, 6.6875}
	s := Strided{Bases: []int{0}, Offsets: []int{0, 4}, T: 4, TStride: 1}
	g := Gather{Locations: [][2]int{{0, 0}}, Offsets: [][2]int{{0, 0}, {0, 1}}}
	for _, c := range []struct {
		name string
		x    *tensor.Tensor
		opt  Options
	}{
		{"strided", tensor.FromF64([]float64{1, 2, 3, 4, 2, 4, 6, 9}, 2, 4), Options{Strided: &s}},
		{"gather", tensor.FromF64([]float64{1, 2, 2, 4, 3, 6, 4, 9}, 4, 1, 2), Options{Gather: &g}},
	} {
		r, err := Run(ctx, nil, c.x, c.opt)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		got := append(r.Mean.Float64s(), r.Cov.Float64s()...)
		for i, w := range append(wantMean, wantCov...) {
			if math.Abs(got[i]-w) > 1e-12 {
				t.Errorf("%s: mean and covariance %v, want %v %v", c.name, got, wantMean, wantCov)
				break
			}
		}
	}
	if _, err := Run(ctx, nil, tensor.FromF64(make([]float64, 8), 4, 1, 2), Options{Gather: &g, Strided: &s}); err == nil {
		t.Errorf("Gather and Strided at once: no error")
	}
}
