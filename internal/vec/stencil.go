package vec

// Stencil sets dst[i] = Σ_t w[t]·x[i+off[t]] for every i < len(dst): the
// terms added from 0 in the order of the taps, each product rounded before
// its addition (no fused multiply-add), so that the assembly (four outputs
// per instruction, sixteen at once) gives the Go loop's results to the bit
// on every processor. off and w are as long as each other, and every
// i+off[t] lies in x.
func Stencil(dst, x []float64, off []int, w []float64) {
	if len(dst) == 0 || len(off) == 0 {
		clear(dst)
		return
	}
	_ = w[len(off)-1]
	lo, hi := off[0], off[0]
	for _, o := range off {
		lo, hi = min(lo, o), max(hi, o)
	}
	_, _ = x[lo], x[hi+len(dst)-1]
	impl.stencil(dst, x, off, w)
}

// stencilGo is Stencil in Go.
func stencilGo(dst, x []float64, off []int, w []float64) {
	for i := range dst {
		var s float64
		for t, o := range off {
			s += float64(w[t] * x[i+o]) // rounded: never fused
		}
		dst[i] = s
	}
}
