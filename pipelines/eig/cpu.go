package eig

import (
	"context"
	"math"

	"github.com/vkstat/vkstat/internal/par"
	"github.com/vkstat/vkstat/tensor"
)

// CPU decomposes every matrix by cyclic Jacobi in float64 (whatever A's
// dtype; outputs have A's dtype), matrices spread over the cores.
func CPU(a *tensor.Tensor, opt Options) (*Result, error) { return cpu(context.Background(), a, opt) }

// cpu is CPU that stops, with ctx's error, once ctx is done: no matrix is
// begun after (par.EachContext).
func cpu(ctx context.Context, a *tensor.Tensor, opt Options) (*Result, error) {
	b, n, err := dims(a)
	if err != nil {
		return nil, err
	}
	res := newResult(a.DType, b, n)
	maxSweeps := opt.maxSweeps()
	type scratch struct{ a, v, d, vals, vecs []float64 }
	err = par.EachContext(ctx, b, 1, func() *scratch {
		return &scratch{a: make([]float64, n*n), v: make([]float64, n*n), d: make([]float64, n),
			vals: make([]float64, n), vecs: make([]float64, n*n)}
	}, func(s *scratch, m int) {
		ok := true
		for i := range n {
			for j := 0; j <= i; j++ {
				var x float64
				if a.DType == tensor.F64 {
					x = a.F64[(m*n+i)*n+j]
				} else {
					x = float64(a.F32[(m*n+i)*n+j])
				}
				if math.IsNaN(x) || math.IsInf(x, 0) {
					ok = false
				}
				s.a[i*n+j], s.a[j*n+i] = x, x
			}
		}
		info := int32(NonFinite)
		if ok {
			var sweeps int
			info, sweeps = jacobi(s.a, s.v, n, maxSweeps)
			res.Sweeps[m] = int32(sweeps)
		}
		res.Info[m] = info
		for i := range n {
			s.d[i] = s.a[i*n+i]
		}
		finish(s.d, s.v, n, info, s.vals, s.vecs)
		if a.DType == tensor.F64 {
			copy(res.Values.F64[m*n:], s.vals)
			copy(res.Vectors.F64[m*n*n:], s.vecs)
		} else {
			for i, x := range s.vals {
				res.Values.F32[m*n+i] = float32(x)
			}
			for i, x := range s.vecs {
				res.Vectors.F32[m*n*n+i] = float32(x)
			}
		}
	})
	if err != nil {
		return nil, err
	}
	return res, nil
}

// jacobi diagonalises the symmetric n×n matrix a in place by cyclic-by-rows
// Jacobi rotations, accumulating them in v (set to I first). It returns
// OK or NotConverged and the sweeps taken.
func jacobi(a, v []float64, n, maxSweeps int) (int32, int) {
	const eps = 0x1p-52
	clear(v)
	for i := range n {
		v[i*n+i] = 1
	}
	for sweep := 1; sweep <= maxSweeps; sweep++ {
		rotated := false
		for p := 0; p < n; p++ {
			for q := p + 1; q < n; q++ {
				apq, app, aqq := a[p*n+q], a[p*n+p], a[q*n+q]
				if apq == 0 || math.Abs(apq) <= eps*math.Sqrt(math.Abs(app)*math.Abs(aqq)) {
					continue
				}
				rotated = true
				c, s, t := rotation(app, aqq, apq)
				for k := range n { // columns p and q: A·J
					x, y := a[k*n+p], a[k*n+q]
					a[k*n+p], a[k*n+q] = c*x-s*y, s*x+c*y
				}
				rp, rq := a[p*n:(p+1)*n], a[q*n:(q+1)*n]
				for k := range n { // rows p and q: Jᵀ·A
					x, y := rp[k], rq[k]
					rp[k], rq[k] = c*x-s*y, s*x+c*y
				}
				a[p*n+p], a[q*n+q] = app-t*apq, aqq+t*apq
				a[p*n+q], a[q*n+p] = 0, 0
				for k := range n {
					x, y := v[k*n+p], v[k*n+q]
					v[k*n+p], v[k*n+q] = c*x-s*y, s*x+c*y
				}
			}
		}
		var off, tot float64
		for i := range n {
			for j := range n {
				x := a[i*n+j] * a[i*n+j]
				tot += x
				if i != j {
					off += x
				}
			}
		}
		if !rotated || off <= eps*eps*tot {
			return OK, sweep
		}
	}
	return NotConverged, maxSweeps
}

// rotation returns the cosine, sine and tangent of the Jacobi rotation J
// (J_pp = J_qq = c, J_pq = s, J_qp = −s) that zeroes a_pq of JᵀAJ:
// θ = (a_qq − a_pp)/(2a_pq), t = sgn θ/(|θ| + √(θ²+1)), the smaller angle.
func rotation(app, aqq, apq float64) (c, s, t float64) {
	theta := (aqq - app) / (2 * apq)
	if math.Abs(theta) > 1e150 {
		t = 0.5 / theta
	} else {
		t = 1 / (math.Abs(theta) + math.Sqrt(theta*theta+1))
		if theta < 0 {
			t = -t
		}
	}
	c = 1 / math.Sqrt(t*t+1)
	return c, t * c, t
}
