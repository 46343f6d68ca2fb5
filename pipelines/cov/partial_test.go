package cov

import (
	"context"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/vkstat/vkstat/tensor"
)

// TestPartialHandValues: one variable, samples {1, 2} and {3, 6} merge to
// mean 3, C = Σ(x−3)² = 4+1+0+9 = 14, R = Σ(x−3)³ = −8−1+0+27 = 18 and
// Q4 = Σ(x−3)⁴ = 16+1+0+81 = 98.
func TestPartialHandValues(t *testing.T) {
	ctx := context.Background()
	a, err := CPUPartial(ctx, tensor.FromF64([]float64{1, 2}, 1, 2, 1), Options{})
	if err != nil {
		t.Fatal(err)
	}
	b, _ := CPUPartial(ctx, tensor.FromF64([]float64{3, 6}, 1, 2, 1), Options{})
	m, err := Merge(b, a)
	if err != nil {
		t.Fatal(err)
	}
	if m.T != 4 || m.Mean[0] != 3 || m.C[0] != 14 || m.R[0] != 18 || m.Q4[0] != 98 {
		t.Fatalf("merged T %d mean %v C %v R %v Q4 %v, want 4 3 14 18 98", m.T, m.Mean[0], m.C[0], m.R[0], m.Q4[0])
	}
}

// TestPartialMergeEqualsOnePass: random sets split at random along T, the
// partials merged in a shuffled order, finish to what CPU gives on all the
// samples and to the gonum Reference, for every estimator and ddof, to
// 1e-12 relative to each set's largest covariance entry (ρ and the means
// likewise).
func TestPartialMergeEqualsOnePass(t *testing.T) {
	ctx := context.Background()
	rng := rand.New(rand.NewPCG(43, 2))
	for trial := range 60 {
		n, tt, p := 1+rng.IntN(3), 2+rng.IntN(60), 1+rng.IntN(12)
		x := make([]float64, n*tt*p)
		for i := range x {
			x[i] = 5 + rng.NormFloat64()*float64(1+i%p) + rng.ExpFloat64()
		}
		k := 1 + rng.IntN(min(tt, 5))
		cuts := rng.Perm(tt - 1)[:k-1]
		bounds := []int{0, tt}
		for _, c := range cuts {
			bounds = append(bounds, c+1)
		}
		slices.Sort(bounds)
		var parts []*Partial
		for b := 0; b+1 < len(bounds); b++ {
			t0, t1 := bounds[b], bounds[b+1]
			var d []float64
			for s := range n {
				d = append(d, x[(s*tt+t0)*p:(s*tt+t1)*p]...)
			}
			pt, err := CPUPartial(ctx, tensor.FromF64(d, n, t1-t0, p), Options{})
			if err != nil {
				t.Fatal(err)
			}
			parts = append(parts, pt)
		}
		rng.Shuffle(len(parts), func(i, j int) { parts[i], parts[j] = parts[j], parts[i] })
		m, err := Merge(parts...)
		if err != nil {
			t.Fatal(err)
		}
		whole := tensor.FromF64(x, n, tt, p)
		for _, est := range []Estimator{None, PACO, LedoitWolf, OAS} {
			for ddof := range 2 {
				opt := Options{Estimator: est, DDof: ddof}
				got, err := m.Finish(opt)
				if err != nil {
					t.Fatal(err)
				}
				one, err := CPU(whole, opt)
				if err != nil {
					t.Fatal(err)
				}
				ref, err := Reference(whole, opt)
				if err != nil {
					t.Fatal(err)
				}
				for _, want := range []*Result{one, ref} {
					for s := range n {
						scale := 0.0
						for _, v := range want.Cov.F64[s*p*p : (s+1)*p*p] {
							scale = math.Max(scale, math.Abs(v))
						}
						for i := s * p * p; i < (s+1)*p*p; i++ {
							if d := math.Abs(got.Cov.F64[i] - want.Cov.F64[i]); d > 1e-12*scale {
								t.Fatalf("trial %d (%d parts, %s, ddof %d) cov[%d]: %v, want %v", trial, k, est, ddof, i, got.Cov.F64[i], want.Cov.F64[i])
							}
						}
						if g, w := got.Rho.F64[s], want.Rho.F64[s]; math.Abs(g-w) > 1e-12*math.Max(math.Abs(w), 1e-3) {
							t.Fatalf("trial %d (%d parts, %s) rho[%d]: %v, want %v", trial, k, est, s, g, w)
						}
					}
					for i, w := range want.Mean.F64 {
						if math.Abs(got.Mean.F64[i]-w) > 1e-12*math.Abs(w) {
							t.Fatalf("trial %d mean[%d]: %v, want %v", trial, i, got.Mean.F64[i], w)
						}
					}
				}
			}
		}
	}
}

// TestMergeRefusesMixedPartials: other variables or other data types do not
// merge.
func TestMergeRefusesMixedPartials(t *testing.T) {
	ctx := context.Background()
	a, _ := CPUPartial(ctx, tensor.FromF64([]float64{1, 2, 3, 4}, 1, 2, 2), Options{})
	b, _ := CPUPartial(ctx, tensor.FromF64([]float64{1, 2, 3, 4}, 1, 4, 1), Options{})
	c, _ := CPUPartial(ctx, tensor.FromF32([]float32{1, 2, 3, 4}, 1, 2, 2), Options{})
	for _, o := range []*Partial{b, c} {
		if _, err := Merge(a, o); err == nil {
			t.Errorf("partials of %d variables (%s) merged with %d (%s)", o.P, o.DType, a.P, a.DType)
		}
	}
}
