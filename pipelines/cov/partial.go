package cov

import (
	"context"
	"fmt"

	"github.com/vkstat/vkstat/internal/par"
	"github.com/vkstat/vkstat/tensor"
)

// Partial is the state of a covariance estimate over part of the samples
// of each set, which merges exactly with the states of the other parts
// (Merge) into the state of all of them, from which Finish gives what Run
// gives on all the samples, the shrinkage computed only then. Per set, in
// float64, around the part's own mean: Mean (N, P), the co-moment matrix
// C = Σ_t x_t x_tᵀ (N, P, P), R = Σ_t ‖x_t‖² x_t (N, P) and
// Q4 = Σ_t ‖x_t‖⁴ (N), x_t the centred samples; R and Q4 are what
// Ledoit-Wolf's weight needs beyond C once the means move (Pébay 2008).
type Partial struct {
	// DType is the input's: Finish gives outputs of the type Run gives it.
	DType tensor.DType
	// N sets of P variables; T samples per set so far.
	N, P, T        int
	Mean, C, R, Q4 []float64
}

// CPUPartial is the Partial of the sample sets of x (an (N, T, P) array, or
// those that opt.Gather or opt.Strided place in it), computed on the CPU
// path in float64 as CPU computes the whole. opt's estimator and ddof play
// no part: Finish takes them.
func CPUPartial(ctx context.Context, x *tensor.Tensor, opt Options) (*Partial, error) {
	opt = Options{Gather: opt.Gather, Strided: opt.Strided}
	var src *source
	var err error
	switch {
	case opt.Gather != nil && opt.Strided != nil:
		return nil, fmt.Errorf("cov: sample sets both gathered and strided: set one of Options.Gather and Options.Strided")
	case opt.Gather != nil:
		src, err = gatherSource(x, *opt.Gather, opt)
	case opt.Strided != nil:
		src, err = stridedSource(x, *opt.Strided, opt)
	default:
		src, err = arraySource(x, opt)
	}
	if err != nil {
		return nil, err
	}
	n, t, p := src.n, src.t, src.p
	pt := &Partial{DType: src.in.DType, N: n, P: p, T: t,
		Mean: make([]float64, n*p), C: make([]float64, n*p*p), R: make([]float64, n*p), Q4: make([]float64, n)}
	err = par.EachContext(ctx, n, 8, func() *worker { return newWorker(p, t, impl) }, func(w *worker, k int) {
		w.run(src, k, opt)
		copy(pt.Mean[k*p:], w.mean[:p])
		c := pt.C[k*p*p : (k+1)*p*p]
		for i := range p {
			for j := range i + 1 {
				v := w.s[i*p+j] * float64(t)
				c[i*p+j], c[j*p+i] = v, v
			}
		}
		r := pt.R[k*p : (k+1)*p]
		for tt := range t {
			xr := w.x[tt*w.pp : tt*w.pp+p]
			var n2 float64
			for _, v := range xr {
				n2 += v * v
			}
			for i, v := range xr {
				r[i] += n2 * v
			}
			pt.Q4[k] += n2 * n2
		}
	})
	if err != nil {
		return nil, err
	}
	return pt, nil
}

// Merge combines the partials of disjoint samples of the same sets, in any
// order, into the partial of their union (Chan et al.'s update of the mean
// and co-moments, Pébay's for R and Q4). The parts must agree on input
// type and on N and P.
func Merge(parts ...*Partial) (*Partial, error) {
	if len(parts) == 0 {
		return nil, fmt.Errorf("cov: no partial to merge")
	}
	f := parts[0]
	out := &Partial{DType: f.DType, N: f.N, P: f.P, T: f.T, Mean: clone(f.Mean), C: clone(f.C), R: clone(f.R), Q4: clone(f.Q4)}
	for i, b := range parts[1:] {
		switch {
		case b.DType != f.DType:
			return nil, fmt.Errorf("cov: partial %d is of %s data, partial 0 of %s", i+1, b.DType, f.DType)
		case b.N != f.N || b.P != f.P:
			return nil, fmt.Errorf("cov: partial %d has %d sets of %d variables, partial 0 %d of %d", i+1, b.N, b.P, f.N, f.P)
		case len(b.Mean) != b.N*b.P || len(b.C) != b.N*b.P*b.P || len(b.R) != b.N*b.P || len(b.Q4) != b.N:
			return nil, fmt.Errorf("cov: partial %d does not hold %d sets of %d variables", i+1, b.N, b.P)
		}
		out.merge(b)
	}
	return out, nil
}

func clone(v []float64) []float64 { return append([]float64(nil), v...) }

// merge folds b into a, set by set.
func (a *Partial) merge(b *Partial) {
	p := a.P
	na, nb := float64(a.T), float64(b.T)
	n := na + nb
	da, db := make([]float64, p), make([]float64, p) // new mean − each part's
	for k := range a.N {
		ma, mb := a.Mean[k*p:(k+1)*p], b.Mean[k*p:(k+1)*p]
		for i := range p {
			d := mb[i] - ma[i]
			da[i], db[i] = d*(nb/n), -d*(na/n)
		}
		ca, cb := a.C[k*p*p:(k+1)*p*p], b.C[k*p*p:(k+1)*p*p]
		ra, rb := a.R[k*p:(k+1)*p], b.R[k*p:(k+1)*p]
		a.Q4[k] = shift(ca, ra, a.Q4[k], da, na) + shift(cb, rb, b.Q4[k], db, nb)
		for i := range ra {
			ra[i] += rb[i]
		}
		for i := range ca {
			ca[i] += cb[i]
		}
		for i := range p {
			ma[i] += da[i]
		}
	}
	a.T += b.T
}

// shift moves the centre of m samples' C, R and Q4 (around their mean) by
// d, in place for C and R, and returns the new Q4. With y the centred
// samples (Σy = 0), a = ‖y‖², b = y·d, c = ‖d‖²:
//
//	Σ (y−d)(y−d)ᵀ   = C + m d dᵀ
//	Σ ‖y−d‖² (y−d)  = R − 2Cd − (tr C + m c) d
//	Σ ‖y−d‖⁴        = Q4 + 4 dᵀCd + m c² − 4 d·R + 2c tr C
//
// It reads b's C and R, so it may be handed a part that merge then adds.
func shift(cm, r []float64, q4 float64, d []float64, m float64) float64 {
	p := len(d)
	var c, trC, dCd, dR float64
	cd := make([]float64, p)
	for i := range p {
		c += d[i] * d[i]
		trC += cm[i*p+i]
		dR += d[i] * r[i]
		for j := range p {
			cd[i] += cm[i*p+j] * d[j]
		}
		dCd += d[i] * cd[i]
	}
	q4 += 4*dCd + m*c*c - 4*dR + 2*c*trC
	for i := range p {
		r[i] += -2*cd[i] - (trC+m*c)*d[i]
		for j := range p {
			cm[i*p+j] += m * d[i] * d[j]
		}
	}
	return q4
}

// Finish computes the estimate opt asks for (its estimator and ddof, into
// opt.Out) from p, as Run computes it on all the samples: the shrinkage
// weight from the merged S = C/T.
func (p *Partial) Finish(opt Options) (*Result, error) {
	if err := opt.check(p.T); err != nil {
		return nil, err
	}
	n, np := p.N, p.P
	res := newResult(opt.Out, outType(p.DType), n, np)
	w := &worker{p: np, t: p.T, s: make([]float64, np*np)}
	invT := 1 / float64(p.T)
	for k := range n {
		var mo moments
		for i := range np {
			for j := range np {
				v := p.C[(k*np+i)*np+j] * invT
				w.s[i*np+j] = v
				mo.fro += v * v
			}
			d := w.s[i*np+i]
			mo.tr += d
			mo.dsq += d * d
		}
		mo.q4 = p.Q4[k]
		w.rho = shrinkage(opt.Estimator, np, p.T, mo)
		m := p.Mean[k*np : (k+1)*np]
		if res.Cov.DType == tensor.F64 {
			copy(res.Mean.F64[k*np:], m)
			w.finish(opt, res.Cov.F64[k*np*np:(k+1)*np*np], nil)
			res.Rho.F64[k] = w.rho
		} else {
			for i, v := range m {
				res.Mean.F32[k*np+i] = float32(v)
			}
			w.finish(opt, nil, res.Cov.F32[k*np*np:(k+1)*np*np])
			res.Rho.F32[k] = float32(w.rho)
		}
	}
	return res, nil
}
