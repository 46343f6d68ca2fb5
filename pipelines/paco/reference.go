package paco

import (
	"math"

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
	r := make([][]float64, T)
	for t := range r {
		r[t] = make([]float64, P)
	}
	s := make([]float64, P*P)
	for ky := 0; ky < H; ky++ {
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
				for j := 0; j < P; j++ {
					var acc float64
					for t := 0; t < T; t++ {
						acc += (r[t][i] - m[i]) * (r[t][j] - m[j])
					}
					s[i*P+j] = acc * scale
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
			mean[k], u[k], valid[k] = m, uk.RawVector().Data, true
			for i := 0; i < P; i++ {
				alpha[k] += p.Hvec[i] * u[k][i]
			}
			if math.IsNaN(alpha[k]) {
				valid[k] = false
			}
		}
	}

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
