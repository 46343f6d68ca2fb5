package vec

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestExpMatchesMath: Exp gives math.Exp's values to the bit, from each
// kernel set, for arguments across its range (the Gaussian weights' [−8,
// 0] densely, then out to −708 and 709), at lengths around its block of
// four, and the ones beyond the range (−745, 710, ±Inf, NaN) through
// math.Exp itself; e⁰ = 1 and e¹ = math.E by hand.
func TestExpMatchesMath(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	var args []float64
	for range 200000 {
		args = append(args, -8*rng.Float64())
	}
	for range 20000 {
		args = append(args, -708+1417*rng.Float64())
	}
	args = append(args, 0, math.Copysign(0, -1), 1, -708, 709, 1e-300, -1e-300)
	check := func(name string, x []float64, k kernels) {
		got := append([]float64(nil), x...)
		k.exp(got)
		for i, v := range x {
			if want := math.Exp(v); math.Float64bits(got[i]) != math.Float64bits(want) {
				t.Fatalf("%s, %s: exp(%v) = %v, math.Exp %v", name, k.name, v, got[i], want)
			}
		}
	}
	for _, k := range sets(t) {
		for _, n := range []int{1, 3, 4, 5, 8, 11} {
			check("short", args[len(args)-n:], k)
		}
		check("all", args, k)
	}
	wild := []float64{-745, 710, math.Inf(1), math.Inf(-1), math.NaN(), -1, 0.5, 2}
	got := append([]float64(nil), wild...)
	Exp(got)
	for i, v := range wild {
		if want := math.Exp(v); math.Float64bits(got[i]) != math.Float64bits(want) {
			t.Errorf("Exp(%v) = %v, math.Exp %v", v, got[i], want)
		}
	}
	x := []float64{0, 1, 0, 1, 0}
	if Exp(x); x[0] != 1 || x[1] != math.E || x[4] != 1 {
		t.Errorf("e⁰, e¹: %v", x)
	}
}
