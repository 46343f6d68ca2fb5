package vec

import (
	"math"
	"testing"
)

// TestExp4AVXBlocks: the assembly sets every block of four whose values
// all lie within [−708, 709], the ends included, and stops at the first
// block holding one beyond it (−709, 710, ±Inf, NaN), which Exp then takes
// one at a time, going on with the assembly after it.
func TestExp4AVXBlocks(t *testing.T) {
	if !HasAVX2FMA {
		t.Skip("no AVX2 here: the Go loop only")
	}
	in := []float64{-708, 709, -1, 0, -8, 3, -0.5, 1e-300}
	x := append([]float64(nil), in...)
	if k := exp4AVX(&x[0], len(x)); k != len(x) {
		t.Errorf("%v: %d set, want all %d", in, k, len(x))
	}
	for _, bad := range []float64{-709, 710, math.Inf(1), math.Inf(-1), math.NaN()} {
		in := []float64{-1, -2, -3, -4, -5, -6, bad, -8, -9, -10, -11, -12}
		x := append([]float64(nil), in...)
		if k := exp4AVX(&x[0], len(x)); k != 4 || x[0] != math.Exp(-1) || x[4] != -5 {
			t.Errorf("a block holding %v: %d set (x[0] %v, x[4] %v), want the first block's 4", bad, k, x[0], x[4])
		}
		x = append(x[:0], in...)
		Exp(x)
		for i, v := range in {
			if want := math.Exp(v); math.Float64bits(x[i]) != math.Float64bits(want) {
				t.Errorf("a block holding %v: Exp(%v) = %v, math.Exp %v", bad, v, x[i], want)
			}
		}
	}
}
