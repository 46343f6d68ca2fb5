package chol

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/vkstat/vkstat/device/testdev"
	"github.com/vkstat/vkstat/engine"
	"github.com/vkstat/vkstat/tensor"
)

// TestFactored (issue 40, item 14; SciPy's cho_solve): given factors L
// chosen here (random, positive diagonal), Options.Factored solves
// L·Lᵀ·x = b without factoring again: A·x = b holds for A = L·Lᵀ built here
// in float64, log det A = 2·Σ log L_jj, A⁻¹·A = I, bᵀA⁻¹b = bᵀx, and the
// upper triangle (filled with junk) is not read. A factor with a zero on
// its diagonal gets info = its index and NaN; its neighbour is unharmed.
// The same on the CPU path and every device (both run on the host).
func TestFactored(t *testing.T) {
	devs := append([]*engine.Device{nil}, testdev.Devices(t)...)
	for _, p := range []int{1, 2, 3, 10, 33} {
		const n, k = 3, 2
		rng := rand.New(rand.NewPCG(uint64(p), 9))
		l := tensor.New(tensor.F64, n, p, p)
		b := tensor.New(tensor.F64, n, p, k)
		for m := range n {
			for i := range p {
				for j := range p {
					switch {
					case i == j:
						l.F64[(m*p+i)*p+j] = 0.5 + rng.Float64()
					case j < i:
						l.F64[(m*p+i)*p+j] = rng.Float64() - 0.5
					default:
						l.F64[(m*p+i)*p+j] = 1e30 // junk: never read
					}
				}
			}
		}
		for i := range b.F64 {
			b.F64[i] = rng.NormFloat64()
		}
		l.F64[(1*p+p-1)*p+p-1] = 0 // matrix 1: singular factor
		for _, dev := range devs {
			r, err := Run(context.Background(), dev, Input{A: l, B: b}, Options{Factored: true, LogDet: true, Inverse: true, Quad: true, L: true})
			if err != nil {
				t.Fatalf("P=%d: %v", p, err)
			}
			for m := range n {
				if m == 1 {
					if r.Info[m] != int32(p) || !math.IsNaN(r.X.F64[m*p*k]) || !math.IsNaN(r.LogDet.F64[m]) {
						t.Errorf("P=%d: singular factor: info %d, x %g, logdet %g; want info %d and NaN", p, r.Info[m], r.X.F64[m*p*k], r.LogDet.F64[m], p)
					}
					continue
				}
				if r.Info[m] != 0 {
					t.Fatalf("P=%d matrix %d: info %d", p, m, r.Info[m])
				}
				lm := func(i, j int) float64 {
					if j > i {
						return 0
					}
					return l.F64[(m*p+i)*p+j]
				}
				a := make([]float64, p*p)
				logdet := 0.0
				for i := range p {
					logdet += 2 * math.Log(lm(i, i))
					for j := range p {
						for q := range p {
							a[i*p+j] += lm(i, q) * lm(j, q)
						}
					}
				}
				if math.Abs(r.LogDet.F64[m]-logdet) > 1e-12*max(1, math.Abs(logdet)) {
					t.Errorf("P=%d matrix %d: logdet %g, want %g", p, m, r.LogDet.F64[m], logdet)
				}
				for c := range k {
					quad := 0.0
					for i := range p {
						ax := 0.0
						for j := range p {
							ax += a[i*p+j] * r.X.F64[(m*p+j)*k+c]
						}
						bi := b.F64[(m*p+i)*k+c]
						quad += bi * r.X.F64[(m*p+i)*k+c]
						if math.Abs(ax-bi) > 1e-9*(1+math.Abs(bi)) {
							t.Errorf("P=%d matrix %d rhs %d row %d: (A·x) %g, b %g", p, m, c, i, ax, bi)
						}
					}
					if got := r.Quad.F64[m*k+c]; math.Abs(got-quad) > 1e-9*(1+math.Abs(quad)) {
						t.Errorf("P=%d matrix %d rhs %d: quad %g, want bᵀx %g", p, m, c, got, quad)
					}
				}
				for i := range p {
					for j := range p {
						v := 0.0
						for q := range p {
							v += r.Inverse.F64[(m*p+i)*p+q] * a[q*p+j]
						}
						if want := float64(btoi(i == j)); math.Abs(v-want) > 1e-9 {
							t.Errorf("P=%d matrix %d: (A⁻¹A)[%d,%d] = %g", p, m, i, j, v)
						}
						if got := r.L.F64[(m*p+i)*p+j]; got != lm(i, j) {
							t.Errorf("P=%d matrix %d: L[%d,%d] = %g, want the factor's %g", p, m, i, j, got, lm(i, j))
						}
					}
				}
			}
		}
	}
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}
