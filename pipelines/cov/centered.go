package cov

import (
	"context"
	"fmt"

	"github.com/vkstat/vkstat/engine"
	"github.com/vkstat/vkstat/internal/linalg"
	"github.com/vkstat/vkstat/tensor"
)

// runOnHost serves Options.Centered and the estimator Shrunk: the sample
// covariance S (1/T) and the means from Run, then on the host, O(N·P²)
// beside Run's O(N·T·P²): S + m·mᵀ and means of 0 for centred samples, ρ
// (given, or estimated from that S), the shrunk covariance and ddof's
// rescaling.
func runOnHost(ctx context.Context, dev *engine.Device, x *tensor.Tensor, opt Options) (*Result, error) {
	if err := opt.Check(); err != nil {
		return nil, err
	}
	if len(x.Shape) == 3 || opt.Gather != nil || opt.Strided != nil {
		c := opt // ddof against T, as the implementations check it
		c.Estimator, c.Centered, c.Shrinkage = None, false, nil
		if err := c.check(samples(x, opt)); err != nil {
			return nil, err
		}
	}
	e := opt.Estimator
	if opt.Centered && e == LedoitWolf && (opt.Gather != nil || opt.Strided != nil) {
		return nil, fmt.Errorf("cov: Ledoit-Wolf of centred samples needs an (N, T, P) array, not gathered or strided sets")
	}
	inner := opt
	inner.Estimator, inner.DDof, inner.Centered, inner.Shrinkage = None, 0, false, nil
	r, err := Run(ctx, dev, x, inner)
	if err != nil {
		return nil, err
	}
	n, p := r.Cov.Shape[0], r.Cov.Shape[1]
	t := samples(x, opt)
	var q4 []float64
	if opt.Centered && e == LedoitWolf {
		q4 = fourthMoments(x)
	}
	s := make([]float64, p*p)
	m := make([]float64, p)
	for k := range n {
		for i := range p {
			m[i] = load(r.Mean, k*p+i)
			for j := range p {
				s[i*p+j] = load(r.Cov, (k*p+i)*p+j)
			}
		}
		if opt.Centered {
			for i := range p {
				for j := range p {
					s[i*p+j] += m[i] * m[j]
				}
				store(r.Mean, k*p+i, 0)
			}
		}
		var mo moments
		for i := range p {
			mo.tr += s[i*p+i]
			mo.dsq += s[i*p+i] * s[i*p+i]
			for j := range p {
				mo.fro += s[i*p+j] * s[i*p+j]
			}
		}
		rho := 0.1
		switch {
		case e == Shrunk && opt.Shrinkage != nil:
			rho = *opt.Shrinkage
		case e != Shrunk:
			if q4 != nil {
				mo.q4 = q4[k]
			}
			rho = shrinkage(e, p, t, mo)
		}
		mu := mo.tr / float64(p)
		scale := opt.scale(t)
		for i := range p {
			for j := range p {
				v := s[i*p+j]
				switch {
				case i == j && e == PACO:
					v = linalg.ShrunkDiagPACO(v, rho)
				case i == j && e != None:
					v = linalg.ShrunkDiagMean(v, rho, mu)
				case e != None:
					v *= 1 - rho
				}
				store(r.Cov, (k*p+i)*p+j, v*scale)
			}
		}
		store(r.Rho, k, rho)
	}
	return r, nil
}

// samples is T, the samples per set of x under opt.
func samples(x *tensor.Tensor, opt Options) int {
	switch {
	case opt.Gather != nil:
		return x.Shape[0]
	case opt.Strided != nil:
		return opt.Strided.T
	}
	return x.Shape[1]
}

// fourthMoments are Σ_t ‖r_t‖⁴ of each set of the (N, T, P) x, its
// samples taken as they are (centred).
func fourthMoments(x *tensor.Tensor) []float64 {
	n, t, p := x.Shape[0], x.Shape[1], x.Shape[2]
	v := x.Float64s()
	out := make([]float64, n)
	for k := range n {
		for s := range t {
			q := 0.0
			for _, a := range v[(k*t+s)*p : (k*t+s+1)*p] {
				q += a * a
			}
			out[k] += q * q
		}
	}
	return out
}

func load(t *tensor.Tensor, i int) float64 {
	if t.DType == tensor.F64 {
		return t.F64[i]
	}
	return float64(t.F32[i])
}

func store(t *tensor.Tensor, i int, v float64) {
	if t.DType == tensor.F64 {
		t.F64[i] = v
	} else {
		t.F32[i] = float32(v)
	}
}
