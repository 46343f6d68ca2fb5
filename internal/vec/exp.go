package vec

import "math"

// Exp sets x[i] = math.Exp(x[i]), to the bit: where the processor has AVX2
// and FMA, four at a time by math.Exp's own steps for such processors
// (exp_amd64.s) where all four lie within [−708, 709] (one at a time
// otherwise, and for a tail of fewer than four).
func Exp(x []float64) { impl.exp(x) }

// expGo is Exp in Go.
func expGo(x []float64) {
	for i, v := range x {
		x[i] = math.Exp(v)
	}
}
