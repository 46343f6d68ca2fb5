package vec

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestStencilHand: x = 1…6, taps at 0 and 2 weighing 1 and 10: dst[i] =
// x[i] + 10·x[i+2] = 31, 42, 53, 64 by hand, from each kernel set.
func TestStencilHand(t *testing.T) {
	x, off, w := []float64{1, 2, 3, 4, 5, 6}, []int{0, 2}, []float64{1, 10}
	for _, k := range sets(t) {
		dst := make([]float64, 4)
		k.stencil(dst, x, off, w)
		if [4]float64(dst) != [4]float64{31, 42, 53, 64} {
			t.Errorf("%s: %v, want [31 42 53 64]", k.name, dst)
		}
	}
	dst := make([]float64, 3)
	if Stencil(dst, x, off, w); [3]float64(dst) != [3]float64{31, 42, 53} {
		t.Errorf("Stencil: %v, want [31 42 53]", dst)
	}
}

// TestStencilAsmMatchesGo: the assembly gives the Go loop's values to the
// bit (the sum's order and roundings kept) for outputs around its blocks
// (1, 4, 16), taps from one to many, in any order, and NaN passing through.
func TestStencilAsmMatchesGo(t *testing.T) {
	if !HasAVX2FMA || asmKernels == nil {
		t.Skip("no AVX2 here: the Go loop only")
	}
	rng := rand.New(rand.NewPCG(3, 4))
	x := make([]float64, 400)
	for i := range x {
		x[i] = rng.NormFloat64() * math.Pow(10, float64(rng.IntN(9)-4))
	}
	x[123] = math.NaN()
	for _, n := range []int{1, 3, 4, 5, 15, 16, 17, 20, 33, 47} {
		for _, taps := range []int{1, 2, 7, 81} {
			off, w := make([]int, taps), make([]float64, taps)
			for i := range off {
				off[i], w[i] = rng.IntN(len(x)-n), rng.NormFloat64()
			}
			want, got := make([]float64, n), make([]float64, n)
			goKernels.stencil(want, x, off, w)
			asmKernels.stencil(got, x, off, w)
			for i := range want {
				if math.Float64bits(got[i]) != math.Float64bits(want[i]) {
					t.Fatalf("n %d, %d taps: dst[%d] = %v, the Go loop %v", n, taps, i, got[i], want[i])
				}
			}
		}
	}
}
