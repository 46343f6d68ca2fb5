package chol

import (
	"errors"
	"math"

	"gonum.org/v1/gonum/mat"

	"github.com/vkstat/vkstat/tensor"
)

// Reference serves r in float64, plainly, with gonum: each matrix is
// copied (from its lower triangle) into a mat.SymDense and factored by
// mat.Cholesky, which gives L, the solutions, the inverse and log det.
// gonum reports only whether a factorisation failed; the info code is then
// found as potrf defines it, the order of the smallest leading minor that
// gonum cannot factor (the leading minors of a matrix whose minor of order j
// is positive definite are positive definite, so a bisection finds it).
// Outputs are float64 whatever A's dtype.
func Reference(r Request) (*Result, error) {
	d, err := r.check()
	if err != nil {
		return nil, err
	}
	n, p, k := d.n, d.p, d.k
	r.Out = nil // the reference's own float64 results
	res := r.newResult(d, tensor.F64)
	a := r.A.Float64s()
	var b []float64
	if d.rhs {
		b = r.B.Float64s()
	}
	nan := math.NaN()
	for m := 0; m < n; m++ {
		A := mat.NewSymDense(p, nil)
		for i := 0; i < p; i++ {
			for j := 0; j <= i; j++ {
				A.SetSym(i, j, a[(m*p+i)*p+j])
			}
		}
		var ch mat.Cholesky
		ok := ch.Factorize(A)
		if !ok {
			res.Info[m] = int32(referenceInfo(A))
		}
		if res.L != nil {
			var L mat.TriDense
			if ok {
				ch.LTo(&L)
			}
			for i := 0; i < p; i++ {
				for j := 0; j < p; j++ {
					v := nan
					if ok {
						v = L.At(i, j)
					}
					res.L.F64[(m*p+i)*p+j] = v
				}
			}
		}
		if d.rhs {
			B := mat.NewDense(p, k, append([]float64(nil), b[m*p*k:(m+1)*p*k]...))
			var X mat.Dense
			if ok {
				if err := ch.SolveTo(&X, B); err != nil && !isCondition(err) {
					return nil, err
				}
			}
			for i := 0; i < p; i++ {
				for c := 0; c < k; c++ {
					v := nan
					if ok {
						v = X.At(i, c)
					}
					res.X.F64[(m*p+i)*k+c] = v
				}
			}
			if res.Quad != nil {
				for c := 0; c < k; c++ {
					q := nan
					if ok {
						q = 0
						for i := 0; i < p; i++ {
							q += B.At(i, c) * X.At(i, c)
						}
					}
					res.Quad.F64[m*k+c] = q
				}
			}
		}
		if res.LogDet != nil {
			v := nan
			if ok {
				v = ch.LogDet()
			}
			res.LogDet.F64[m] = v
		}
		if res.Inverse != nil {
			var inv mat.SymDense
			if ok {
				if err := ch.InverseTo(&inv); err != nil && !isCondition(err) {
					return nil, err
				}
			}
			for i := 0; i < p; i++ {
				for j := 0; j < p; j++ {
					v := nan
					if ok {
						v = inv.At(i, j)
					}
					res.Inverse.F64[(m*p+i)*p+j] = v
				}
			}
		}
	}
	return res, nil
}

// isCondition reports a gonum ill-conditioning warning, which comes with a
// valid result.
func isCondition(err error) bool {
	var c mat.Condition
	return errors.As(err, &c)
}

// referenceInfo is the order of the smallest leading minor of A that is not
// positive definite (A itself is known not to be).
func referenceInfo(A *mat.SymDense) int {
	lo, hi := 0, A.SymmetricDim() // minor lo is PD (0: trivially), minor hi is not
	for hi-lo > 1 {
		mid := (lo + hi) / 2
		var ch mat.Cholesky
		if ch.Factorize(A.SliceSym(0, mid)) {
			lo = mid
		} else {
			hi = mid
		}
	}
	return hi
}
