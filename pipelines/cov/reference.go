package cov

import (
	"math"

	"gonum.org/v1/gonum/mat"

	"github.com/vkstat/vkstat/tensor"
)

// Reference estimates the covariance of each sample set of x, an (N, T, P)
// array, in float64, plainly, with gonum: the samples of a set form a T×P
// matrix X; it is centred on its column means and S = XᵀX/T. The shrinkage
// weights are transcribed from their definitions: PACO.md for PACO, and
// scikit-learn's ledoit_wolf_shrinkage and oas (same intermediate
// quantities, same order) for LedoitWolf and OAS. It is the obviously-right
// value that the fast paths are held against; it follows the same
// conventions as they do (see the package documentation).
func Reference(x *tensor.Tensor, opt Options) (*Result, error) {
	if _, err := arraySource(x, opt); err != nil {
		return nil, err
	}
	n, t, p := x.Shape[0], x.Shape[1], x.Shape[2]
	data := x.Float64s()
	return referenceRun(n, t, p, opt, func(k, tt, i int) float64 {
		return data[(k*t+tt)*p+i]
	}), nil
}

// ReferenceGather is Reference on the sample sets that g gathers from a
// (T, H, W) cube.
func ReferenceGather(cube *tensor.Tensor, g Gather, opt Options) (*Result, error) {
	if _, err := gatherSource(cube, g, opt); err != nil {
		return nil, err
	}
	t, h, w := cube.Shape[0], cube.Shape[1], cube.Shape[2]
	data := cube.Float64s()
	return referenceRun(len(g.Locations), t, len(g.Offsets), opt, func(k, tt, i int) float64 {
		y := g.Locations[k][0] + g.Offsets[i][0]
		x := g.Locations[k][1] + g.Offsets[i][1]
		return data[(tt*h+y)*w+x]
	}), nil
}

// ReferenceStrided is Reference on the sample sets that s places in x's
// data.
func ReferenceStrided(x *tensor.Tensor, s Strided, opt Options) (*Result, error) {
	if _, err := stridedSource(x, s, opt); err != nil {
		return nil, err
	}
	data := x.Float64s()
	return referenceRun(len(s.Bases), s.T, len(s.Offsets), opt, func(k, tt, i int) float64 {
		return data[s.Bases[k]+tt*s.TStride+s.Offsets[i]]
	}), nil
}

func referenceRun(n, t, p int, opt Options, at func(k, t, i int) float64) *Result {
	return referenceMulti(n, t, p, []Estimator{opt.Estimator}, opt.DDof, at)[0]
}

// referenceMulti computes the estimate of each of ests, sharing the sample
// matrices and S between them.
func referenceMulti(n, t, p int, ests []Estimator, ddof int, at func(k, t, i int) float64) []*Result {
	res := make([]*Result, len(ests))
	for e := range res {
		res[e] = newResult(nil, tensor.F64, n, p)
	}
	X := mat.NewDense(t, p, nil)
	raw := X.RawMatrix()
	for k := 0; k < n; k++ {
		for tt := 0; tt < t; tt++ {
			for i := 0; i < p; i++ {
				raw.Data[tt*raw.Stride+i] = at(k, tt, i)
			}
		}
		mean, Xc, S := referenceS(X)
		for e, est := range ests {
			rho := referenceRho(Xc, S, est)
			copy(res[e].Mean.F64[k*p:], mean)
			res[e].Rho.F64[k] = rho
			referenceShrunk(res[e].Cov.F64[k*p*p:(k+1)*p*p], S, rho, est, float64(t)/float64(t-ddof))
		}
	}
	return res
}

// referenceS returns the column means of the T×P sample matrix X, X
// centred on them and its sample covariance S (1/T).
func referenceS(X *mat.Dense) ([]float64, *mat.Dense, *mat.SymDense) {
	t, p := X.Dims()
	T := float64(t)
	mean := make([]float64, p)
	for i := range mean {
		mean[i] = mat.Sum(X.ColView(i)) / T
	}
	Xc := mat.NewDense(t, p, nil)
	Xc.Apply(func(_, j int, v float64) float64 { return v - mean[j] }, X)
	// Plain loops rather than BLAS: a BLAS syrk may skip zero elements and
	// so drop a NaN that multiplies them.
	s := make([]float64, p*p) // upper triangle of Σ_t x_t x_tᵀ
	xc := Xc.RawMatrix()
	for tt := 0; tt < t; tt++ {
		row := xc.Data[tt*xc.Stride : tt*xc.Stride+p]
		for i, xi := range row {
			for j := i; j < p; j++ {
				s[i*p+j] += xi * row[j]
			}
		}
	}
	for i := range s {
		s[i] /= T
	}
	return mean, Xc, mat.NewSymDense(p, s)
}

// referenceRho is the shrinkage weight of est for the centred samples Xc
// and their covariance S.
func referenceRho(Xc *mat.Dense, S *mat.SymDense, est Estimator) float64 {
	t, p := Xc.Dims()
	T, P := float64(t), float64(p)
	var rho float64
	switch {
	case est == None || p == 1:
		rho = 0
	case est == PACO: // PACO.md
		var trS2, trS, diag2 float64
		for i := 0; i < p; i++ {
			for j := 0; j < p; j++ {
				trS2 += S.At(i, j) * S.At(i, j)
			}
			trS += S.At(i, i)
			diag2 += S.At(i, i) * S.At(i, i)
		}
		num := trS2 + trS*trS - 2*diag2
		den := (T + 1) * (trS2 - diag2)
		if den == 0 {
			rho = 1
		} else {
			rho = num / den
		}
	case est == LedoitWolf: // sklearn.covariance.ledoit_wolf_shrinkage
		X2 := mat.NewDense(t, p, nil)
		X2.MulElem(Xc, Xc)
		empCovTrace := make([]float64, p)
		for i := range empCovTrace {
			empCovTrace[i] = mat.Sum(X2.ColView(i)) / T
		}
		var sumTrace float64
		for _, v := range empCovTrace {
			sumTrace += v
		}
		mu := sumTrace / P
		var B, D mat.Dense
		B.Mul(X2.T(), X2)
		D.Mul(Xc.T(), Xc)
		betaRaw := mat.Sum(&B)
		var deltaRaw float64
		for i := 0; i < p; i++ {
			for j := 0; j < p; j++ {
				deltaRaw += D.At(i, j) * D.At(i, j)
			}
		}
		deltaRaw /= T * T
		beta := 1 / (P * T) * (betaRaw/T - deltaRaw)
		delta := deltaRaw - 2*mu*sumTrace + P*mu*mu
		delta /= P
		beta = math.Min(beta, delta)
		if beta == 0 || delta <= 0 { // delta <= 0: vkstat's guard, see the package doc
			rho = 0
		} else {
			rho = beta / delta
		}
	case est == OAS: // sklearn.covariance.oas
		var alpha float64
		for i := 0; i < p; i++ {
			for j := 0; j < p; j++ {
				alpha += S.At(i, j) * S.At(i, j)
			}
		}
		alpha /= P * P
		mu := mat.Trace(S) / P
		num := alpha + mu*mu
		den := (T + 1) * (alpha - mu*mu/P)
		if den == 0 {
			rho = 1
		} else {
			rho = math.Min(num/den, 1)
		}
	}
	if !math.IsNaN(rho) {
		rho = math.Max(0, math.Min(1, rho))
	}
	return rho
}

// referenceShrunk writes sc·((1−ρ)S + ρ·target) to c (P×P).
func referenceShrunk(c []float64, S *mat.SymDense, rho float64, est Estimator, sc float64) {
	p := S.SymmetricDim()
	mu := mat.Trace(S) / float64(p)
	raw := S.RawSymmetric() // upper triangle
	for i := 0; i < p; i++ {
		for j := i; j < p; j++ {
			v := (1 - rho) * raw.Data[i*raw.Stride+j]
			if i == j {
				switch est {
				case PACO:
					v += rho * raw.Data[i*raw.Stride+i]
				case LedoitWolf, OAS:
					v += rho * mu
				}
			}
			c[i*p+j], c[j*p+i] = sc*v, sc*v
		}
	}
}
