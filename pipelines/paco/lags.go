package paco

// The covariance of a location k between patch pixels i and j is the
// temporal covariance of the image pixels k+o_i and k+o_j: it depends on the
// pixel pair, not on k. The fast paths therefore centre the cube once and
// compute lagged products G[p, d] = (1/T) Σ_t Ỹ[t, p]·Ỹ[t, p+d] for every
// pixel p and every displacement d between two mask offsets, canonical up to
// sign (G[p, −d] = G[p−d, d]); S_k[i, j] is then one read of G.

// Pair says where S[I][J] (I ≤ J) of any location k lives in G: at pixel
// k + Offsets[Base], displacement Disp.
type Pair struct{ I, J, Base, Disp int }

// canonical reports whether displacement (dy, dx) is the representative of
// ±(dy, dx): dy > 0, or dy == 0 and dx ≥ 0.
func canonical(dy, dx int) bool { return dy > 0 || dy == 0 && dx >= 0 }

// Lags returns the canonical displacements between mask offsets and, for
// every pair i ≤ j of patch pixels, where its covariance lives in G.
func (p *Prepared) Lags() (disp [][2]int, pairs []Pair) {
	index := map[[2]int]int{}
	get := func(d [2]int) int {
		if i, ok := index[d]; ok {
			return i
		}
		index[d] = len(disp)
		disp = append(disp, d)
		return len(disp) - 1
	}
	for i, oi := range p.Offsets {
		for j := i; j < len(p.Offsets); j++ {
			oj := p.Offsets[j]
			dy, dx := oj[0]-oi[0], oj[1]-oi[1]
			if canonical(dy, dx) {
				pairs = append(pairs, Pair{I: i, J: j, Base: i, Disp: get([2]int{dy, dx})})
			} else {
				pairs = append(pairs, Pair{I: i, J: j, Base: j, Disp: get([2]int{-dy, -dx})})
			}
		}
	}
	return disp, pairs
}
