package chol

import (
	"context"
	"math"

	"github.com/vkstat/vkstat/internal/linalg"
	"github.com/vkstat/vkstat/internal/par"
	"github.com/vkstat/vkstat/tensor"
)

// CPU serves r in native Go. Outputs have A's dtype; arithmetic is float64
// for float32 and float64 inputs alike. The factorisation, solves,
// log-determinant and inverse are internal/linalg's (the one Go
// implementation, shared with packages cov and paco): the row-oriented
// (Cholesky–Crout) form whose inner loops are dot products of contiguous
// rows; the inverse is L⁻¹ (row by row) followed by L⁻ᵀL⁻¹, as LAPACK's
// potri. Matrices are spread over runtime.GOMAXPROCS goroutines.
func CPU(r Request) (*Result, error) { return cpu(context.Background(), r) }

// batchWork is the least work (P³, a factorisation's order of flops) a
// goroutine takes at a time: a batch of small matrices smaller than that
// runs on the caller (about 10 µs), whose goroutines cost more than they
// gain.
const batchWork = 1 << 15

// batchOf is the matrices of order p a goroutine takes at a time: at
// least 8, and batchWork's worth.
func batchOf(p int) int { return max(8, batchWork/max(1, p*p*p)) }

// cpu is CPU that stops, with ctx's error, once ctx is done: no matrix is
// begun after (par.EachContext).
func cpu(ctx context.Context, r Request) (*Result, error) {
	d, err := r.check()
	if err != nil {
		return nil, err
	}
	res := r.newResult(d, r.A.DType)
	p, k := d.p, d.k
	a64, b64 := r.A.F64, []float64(nil)
	if d.rhs {
		b64 = r.B.F64
	}
	err = par.EachContext(ctx, d.n, batchOf(p), func() *cpuWorker { return newCPUWorker(p) }, func(w *cpuWorker, m int) {
		// Load A (and B) as float64.
		if r.A.DType == tensor.F64 {
			copy(w.a, a64[m*p*p:(m+1)*p*p])
		} else {
			for i, v := range r.A.F32[m*p*p : (m+1)*p*p] {
				w.a[i] = float64(v)
			}
		}
		var info int32
		if r.Factored {
			info = factorInfo(w.a, p)
		} else {
			info = linalg.Factor(w.a, p)
		}
		res.Info[m] = info
		ok := info == 0
		if res.L != nil {
			for i := 0; i < p; i++ {
				for j := 0; j < p; j++ {
					v := 0.0
					switch {
					case !ok:
						v = math.NaN()
					case j <= i:
						v = w.a[i*p+j]
					}
					store(res.L, (m*p+i)*p+j, v)
				}
			}
		}
		if d.rhs {
			for c := 0; c < k; c++ {
				for i := 0; i < p; i++ {
					if b64 != nil {
						w.y[i] = b64[(m*p+i)*k+c]
					} else {
						w.y[i] = float64(r.B.F32[(m*p+i)*k+c])
					}
				}
				q := linalg.Solve(w.a, w.y, p)
				for i := 0; i < p; i++ {
					v := w.y[i]
					if !ok {
						v = math.NaN()
					}
					store(res.X, (m*p+i)*k+c, v)
				}
				if res.Quad != nil {
					if !ok {
						q = math.NaN()
					}
					store(res.Quad, m*k+c, q)
				}
			}
		}
		if res.LogDet != nil {
			v := math.NaN()
			if ok {
				v = linalg.LogDet(w.a, p)
			}
			store(res.LogDet, m, v)
		}
		if res.Inverse != nil {
			if ok {
				linalg.Inverse(w.inv, w.xinv, w.a, w.tmp, p)
			}
			for i, v := range w.inv {
				if !ok {
					v = math.NaN()
				}
				store(res.Inverse, m*p*p+i, v)
			}
		}
	})
	if err != nil {
		return nil, err
	}
	return res, nil
}

// factorInfo is the info code of a factor given as it is (Options.
// Factored): the 1-based index of the first diagonal entry of the p×p
// row-major l that is not positive (or is NaN), 0 if none.
func factorInfo(l []float64, p int) int32 {
	for j := range p {
		if !(l[j*p+j] > 0) {
			return int32(j + 1)
		}
	}
	return 0
}

func store(t *tensor.Tensor, i int, v float64) {
	if t.DType == tensor.F64 {
		t.F64[i] = v
	} else {
		t.F32[i] = float32(v)
	}
}

type cpuWorker struct {
	a, inv, xinv []float64 // p×p
	y, tmp       []float64 // p
}

func newCPUWorker(p int) *cpuWorker {
	return &cpuWorker{a: make([]float64, p*p), inv: make([]float64, p*p), xinv: make([]float64, p*p),
		y: make([]float64, p), tmp: make([]float64, p)}
}
