package spectra

import "math"

// fftPlan is the forward complex DFT, Y[k] = Σ_t X[t] e^{−2πi k t/n}, of
// length n (a power of two) along axis 0 of an (n, l) row-major array held
// as separate real and imaginary parts: the transform of each of the l
// columns at once. It is Stockham's autosort form (no bit reversal): radix-4
// stages, then one radix-2 stage where log₂ n is odd. Every butterfly of a
// stage with stride s works on s·l contiguous values with the same twiddle,
// so the inner loops are long and simple whatever n is.
type fftPlan struct {
	n      int
	stages []fftStage
}

// fftStage is one pass: a radix-4 (or radix-2) split of sub-transforms of
// length r·m, with stride s rows; w holds the twiddles w^p, w^{2p}, w^{3p}
// (w = e^{−2πi/(4m)}) as (re, im) pairs for p = 0 … m−1.
type fftStage struct {
	radix, m, s int
	w           []float64
}

func isPow2(n int) bool { return n > 0 && n&(n-1) == 0 }

func newFFTPlan(n int) *fftPlan {
	if !isPow2(n) {
		panic("spectra: fftPlan of a length that is not a power of two")
	}
	p := &fftPlan{n: n}
	s := 1
	for cur := n; cur > 1; {
		if cur >= 4 {
			m := cur / 4
			st := fftStage{radix: 4, m: m, s: s, w: make([]float64, 6*m)}
			for q := 0; q < m; q++ {
				for k := 1; k <= 3; k++ {
					sin, cos := math.Sincos(-2 * math.Pi * float64(k*q) / float64(cur))
					st.w[6*q+2*(k-1)], st.w[6*q+2*(k-1)+1] = cos, sin
				}
			}
			p.stages = append(p.stages, st)
			cur, s = m, 4*s
		} else {
			p.stages = append(p.stages, fftStage{radix: 2, m: 1, s: s})
			cur, s = 1, 2*s
		}
	}
	return p
}

// transform runs the DFT on the (n, l) array (xr, xi), with (yr, yi) of the
// same size as scratch, and returns the pair that holds the result (one of
// the two; the other is left overwritten).
func (p *fftPlan) transform(xr, xi, yr, yi []float64, l int) (re, im []float64) {
	for _, st := range p.stages {
		blk := st.s * l // one butterfly input: s rows of l
		if st.radix == 2 {
			radix2(xr, xi, yr, yi, blk)
		} else {
			for q := 0; q < st.m; q++ {
				in, out := q*blk, 4*q*blk
				if q == 0 {
					radix4One(xr, xi, yr, yi, in, st.m*blk, out, blk)
				} else {
					w := st.w[6*q : 6*q+6]
					radix4(xr, xi, yr, yi, in, st.m*blk, out, blk, w[0], w[1], w[2], w[3], w[4], w[5])
				}
			}
		}
		xr, xi, yr, yi = yr, yi, xr, xi
	}
	return xr, xi
}

// radix2 is the last stage of an odd power of two (sub-length 2, twiddle 1):
// y[0:blk] = x[0:blk] + x[blk:2blk], y[blk:2blk] = their difference.
func radix2(xr, xi, yr, yi []float64, blk int) {
	ar, ai := xr[:blk], xi[:blk]
	br, bi := xr[blk:2*blk], xi[blk:2*blk]
	y0r, y0i := yr[:blk], yi[:blk]
	y1r, y1i := yr[blk:2*blk], yi[blk:2*blk]
	br, bi, ai = br[:len(ar)], bi[:len(ar)], ai[:len(ar)]
	y0r, y0i, y1r, y1i = y0r[:len(ar)], y0i[:len(ar)], y1r[:len(ar)], y1i[:len(ar)]
	for j, a := range ar {
		b := br[j]
		y0r[j], y1r[j] = a+b, a-b
		c, d := ai[j], bi[j]
		y0i[j], y1i[j] = c+d, c-d
	}
}

// radix4One is a radix-4 butterfly with unit twiddles (p = 0): inputs at
// in + k·stride, outputs at out + k·blk, k = 0 … 3, each blk values long.
func radix4One(xr, xi, yr, yi []float64, in, stride, out, blk int) {
	x0r, x0i := xr[in:in+blk], xi[in:in+blk]
	x1r, x1i := xr[in+stride:in+stride+blk], xi[in+stride:in+stride+blk]
	x2r, x2i := xr[in+2*stride:in+2*stride+blk], xi[in+2*stride:in+2*stride+blk]
	x3r, x3i := xr[in+3*stride:in+3*stride+blk], xi[in+3*stride:in+3*stride+blk]
	y0r, y0i := yr[out:out+blk], yi[out:out+blk]
	y1r, y1i := yr[out+blk:out+2*blk], yi[out+blk:out+2*blk]
	y2r, y2i := yr[out+2*blk:out+3*blk], yi[out+2*blk:out+3*blk]
	y3r, y3i := yr[out+3*blk:out+4*blk], yi[out+3*blk:out+4*blk]
	n := len(x0r)
	x0i, x1r, x1i, x2r, x2i, x3r, x3i = x0i[:n], x1r[:n], x1i[:n], x2r[:n], x2i[:n], x3r[:n], x3i[:n]
	y0r, y0i, y1r, y1i, y2r, y2i, y3r, y3i = y0r[:n], y0i[:n], y1r[:n], y1i[:n], y2r[:n], y2i[:n], y3r[:n], y3i[:n]
	for j := range x0r {
		apcR, apcI := x0r[j]+x2r[j], x0i[j]+x2i[j]
		amcR, amcI := x0r[j]-x2r[j], x0i[j]-x2i[j]
		bpdR, bpdI := x1r[j]+x3r[j], x1i[j]+x3i[j]
		// −i·(b − d)
		jR, jI := x1i[j]-x3i[j], x3r[j]-x1r[j]
		y0r[j], y0i[j] = apcR+bpdR, apcI+bpdI
		y1r[j], y1i[j] = amcR+jR, amcI+jI
		y2r[j], y2i[j] = apcR-bpdR, apcI-bpdI
		y3r[j], y3i[j] = amcR-jR, amcI-jI
	}
}

// radix4 is radix4One with the outputs 1, 2, 3 multiplied by w1, w2, w3.
func radix4(xr, xi, yr, yi []float64, in, stride, out, blk int, w1r, w1i, w2r, w2i, w3r, w3i float64) {
	x0r, x0i := xr[in:in+blk], xi[in:in+blk]
	x1r, x1i := xr[in+stride:in+stride+blk], xi[in+stride:in+stride+blk]
	x2r, x2i := xr[in+2*stride:in+2*stride+blk], xi[in+2*stride:in+2*stride+blk]
	x3r, x3i := xr[in+3*stride:in+3*stride+blk], xi[in+3*stride:in+3*stride+blk]
	y0r, y0i := yr[out:out+blk], yi[out:out+blk]
	y1r, y1i := yr[out+blk:out+2*blk], yi[out+blk:out+2*blk]
	y2r, y2i := yr[out+2*blk:out+3*blk], yi[out+2*blk:out+3*blk]
	y3r, y3i := yr[out+3*blk:out+4*blk], yi[out+3*blk:out+4*blk]
	n := len(x0r)
	x0i, x1r, x1i, x2r, x2i, x3r, x3i = x0i[:n], x1r[:n], x1i[:n], x2r[:n], x2i[:n], x3r[:n], x3i[:n]
	y0r, y0i, y1r, y1i, y2r, y2i, y3r, y3i = y0r[:n], y0i[:n], y1r[:n], y1i[:n], y2r[:n], y2i[:n], y3r[:n], y3i[:n]
	for j := range x0r {
		apcR, apcI := x0r[j]+x2r[j], x0i[j]+x2i[j]
		amcR, amcI := x0r[j]-x2r[j], x0i[j]-x2i[j]
		bpdR, bpdI := x1r[j]+x3r[j], x1i[j]+x3i[j]
		jR, jI := x1i[j]-x3i[j], x3r[j]-x1r[j]
		y0r[j], y0i[j] = apcR+bpdR, apcI+bpdI
		r, i := amcR+jR, amcI+jI
		y1r[j], y1i[j] = r*w1r-i*w1i, r*w1i+i*w1r
		r, i = apcR-bpdR, apcI-bpdI
		y2r[j], y2i[j] = r*w2r-i*w2i, r*w2i+i*w2r
		r, i = amcR-jR, amcI-jI
		y3r[j], y3i[j] = r*w3r-i*w3i, r*w3i+i*w3r
	}
}
