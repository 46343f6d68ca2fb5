package paco

import (
	"math"

	"github.com/vkstat/vkstat/internal/par"
	"gonum.org/v1/gonum/mat"
)

// Reference computes the maps with PACO.md's formulas taken literally, in
// float64: for every location, the patch vectors r_t of every frame, their
// mean and covariance, the shrinkage, a gonum Cholesky factorisation, u and
// α; then a and b along every test pixel's trajectory. It is slow and
// obviously right; the fast paths are tested against it.
func Reference(in Input) (*Maps, error) {
	p, err := Prepare(in)
	if err != nil {
		return nil, err
	}
	T, H, W, P := p.T, p.H, p.W, p.P()
	y := in.Cube.Float64s()
	at := func(t, yy, xx int) float64 { return y[(t*H+yy)*W+xx] }

	// Per location: m_k, u_k, α_k; valid[k] false outside or not PD.
	mean := make([][]float64, H*W)
	u := make([][]float64, H*W)
	alpha := make([]float64, H*W)
	valid := make([]bool, H*W)
	scale := 1 / float64(T)
	if p.Compat == CompatVIP {
		scale = 1 / (2 * float64(T))
	}
	// Locations are independent: rows of them run on every core, each
	// with its own scratch, the arithmetic per location unchanged.
	par.Range(H, 1, func(lo, hi int) {
		r := make([][]float64, T)
		for t := range r {
			r[t] = make([]float64, P)
		}
		s := make([]float64, P*P)
		for ky := lo; ky < hi; ky++ {
			for kx := 0; kx < W; kx++ {
				k := ky*W + kx
				if !p.Inside(ky, kx) {
					continue
				}
				m := make([]float64, P)
				for t := 0; t < T; t++ {
					for i, o := range p.Offsets {
						r[t][i] = at(t, ky+o[0], kx+o[1])
						m[i] += r[t][i]
					}
				}
				for i := range m {
					m[i] /= float64(T)
				}
				for i := 0; i < P; i++ {
					for j := i; j < P; j++ {
						var acc float64
						for t := 0; t < T; t++ {
							acc += (r[t][i] - m[i]) * (r[t][j] - m[j])
						}
						s[i*P+j] = acc * scale
						s[j*P+i] = s[i*P+j]
					}
				}
				Shrink(s, P, T, p.Compat)
				var ch mat.Cholesky
				if !ch.Factorize(mat.NewSymDense(P, append([]float64(nil), s...))) {
					continue
				}
				var uk mat.VecDense
				if err := ch.SolveVecTo(&uk, mat.NewVecDense(P, append([]float64(nil), p.Hvec...))); err != nil {
					continue
				}
				a := 0.0
				u[k] = uk.RawVector().Data
				for i := 0; i < P; i++ {
					a += p.Hvec[i] * u[k][i]
				}
				mean[k], alpha[k], valid[k] = m, a, !math.IsNaN(a)
			}
		}
	})

	maps := newMaps(p)
	for y0 := 0; y0 < H; y0++ {
		for x0 := 0; x0 < W; x0++ {
			a, b := 0.0, 0.0
			for l := 0; l < T; l++ {
				yl, xl := p.Position(y0, x0, l)
				if yl < 0 || yl >= H || xl < 0 || xl >= W || !valid[yl*W+xl] {
					a = math.NaN()
					break
				}
				k := yl*W + xl
				a += alpha[k]
				for i, o := range p.Offsets {
					b += u[k][i] * (at(l, yl+o[0], xl+o[1]) - mean[k][i])
				}
			}
			maps.set(y0*W+x0, a, b)
		}
	}
	for k := range valid {
		if !valid[k] {
			maps.InvalidLocations++
		}
	}
	maps.Device, maps.Precision = "reference", "f64"
	return maps, nil
}
