package cov

import (
	"github.com/vkstat/vkstat/internal/par"
	"github.com/vkstat/vkstat/tensor"
)

// CPU estimates the covariance of each sample set of x, an (N, T, P)
// array, in native Go. Outputs have x's dtype.
//
// Arithmetic is float64 for float32 and float64 data alike: each set is
// gathered into a P×T float64 panel, centred on its mean (two passes), and
// S is formed from dot products of the centred rows, 2×2-blocked. Sets are
// spread over runtime.GOMAXPROCS goroutines.
func CPU(x *tensor.Tensor, opt Options) (*Result, error) {
	src, err := arraySource(x, opt)
	if err != nil {
		return nil, err
	}
	return cpuRun(src, opt), nil
}

// CPUGather is CPU on the sample sets that g gathers from a (T, H, W) cube.
func CPUGather(cube *tensor.Tensor, g Gather, opt Options) (*Result, error) {
	src, err := gatherSource(cube, g, opt)
	if err != nil {
		return nil, err
	}
	return cpuRun(src, opt), nil
}

// estimate is what the CPU path computes for one sample set, in float64.
type estimate struct {
	mean []float64 // P
	cov  []float64 // P×P, both triangles
	rho  float64
}

// worker holds one goroutine's scratch memory.
type worker struct {
	xt    []float64 // P×T centred panel
	norms []float64 // T
	est   estimate
}

func newWorker(p, t int) *worker {
	return &worker{
		xt:    make([]float64, p*t),
		norms: make([]float64, t),
		est:   estimate{mean: make([]float64, p), cov: make([]float64, p*p)},
	}
}

// run computes set k of src into w.est.
func (w *worker) run(src *source, k int, opt Options) {
	p, t := src.p, src.t
	xt := w.xt
	b := src.base(k)
	if src.in.DType == tensor.F64 {
		d := src.in.F64
		for tt := 0; tt < t; tt++ {
			row := b + tt*src.tstride
			for i, o := range src.off {
				xt[i*t+tt] = d[row+o]
			}
		}
	} else {
		d := src.in.F32
		for tt := 0; tt < t; tt++ {
			row := b + tt*src.tstride
			for i, o := range src.off {
				xt[i*t+tt] = float64(d[row+o])
			}
		}
	}
	invT := 1 / float64(t)
	for i := 0; i < p; i++ {
		r := xt[i*t : i*t+t]
		var s0, s1 float64
		j := 0
		for ; j+1 < len(r); j += 2 {
			s0 += r[j]
			s1 += r[j+1]
		}
		if j < len(r) {
			s0 += r[j]
		}
		m := (s0 + s1) * invT
		w.est.mean[i] = m
		for j := range r {
			r[j] -= m
		}
	}
	s := w.est.cov
	syrkLower(s, xt, p, t)
	var mo moments
	for i := 0; i < p; i++ {
		for j := 0; j < i; j++ {
			v := s[i*p+j] * invT
			s[i*p+j] = v
			mo.fro += 2 * v * v
		}
		v := s[i*p+i] * invT
		s[i*p+i] = v
		mo.tr += v
		mo.dsq += v * v
	}
	mo.fro += mo.dsq
	if opt.Estimator == LedoitWolf {
		norms := w.norms
		clear(norms)
		for i := 0; i < p; i++ {
			r := xt[i*t : i*t+t]
			for tt, v := range r {
				norms[tt] += v * v
			}
		}
		for _, v := range norms {
			mo.q4 += v * v
		}
	}
	rho := shrinkage(opt.Estimator, p, t, mo)
	w.est.rho = rho
	sc := opt.scale(t)
	mu := mo.tr / float64(p)
	for i := 0; i < p; i++ {
		for j := 0; j < i; j++ {
			v := (1 - rho) * s[i*p+j] * sc
			s[i*p+j], s[j*p+i] = v, v
		}
		d := s[i*p+i]
		switch opt.Estimator {
		case PACO:
			d = (1-rho)*d + rho*d // d unless ρ is NaN
		case LedoitWolf, OAS:
			d = (1-rho)*d + rho*mu
		}
		s[i*p+i] = d * sc
	}
}

// syrkLower sets the lower triangle (diagonal included) of the p×p matrix s
// to X·Xᵀ, X being the p×t row-major panel x: each entry is a dot product
// of two rows, computed 2×2 at a time so that every load feeds two
// multiply-adds.
func syrkLower(s, x []float64, p, t int) {
	i := 0
	for ; i+1 < p; i += 2 {
		a0 := x[i*t : i*t+t]
		a1 := x[(i+1)*t : (i+1)*t+t]
		for j := 0; j <= i; j += 2 {
			b0 := x[j*t : j*t+t]
			b1 := x[(j+1)*t : (j+1)*t+t]
			b0, b1, a1 := b0[:len(a0)], b1[:len(a0)], a1[:len(a0)]
			var s00, s01, s10, s11 float64
			for k, x0 := range a0 {
				x1, y0, y1 := a1[k], b0[k], b1[k]
				s00 += x0 * y0
				s01 += x0 * y1
				s10 += x1 * y0
				s11 += x1 * y1
			}
			s[i*p+j] = s00
			s[(i+1)*p+j] = s10
			s[(i+1)*p+j+1] = s11
			if j+1 <= i { // not on the diagonal block, whose (i, i+1) is upper
				s[i*p+j+1] = s01
			}
		}
	}
	for ; i < p; i++ { // the last row when p is odd
		a0 := x[i*t : i*t+t]
		for j := 0; j <= i; j++ {
			b0 := x[j*t : j*t+t]
			b0 = b0[:len(a0)]
			var s0, s1 float64
			k := 0
			for ; k+1 < len(a0); k += 2 {
				s0 += a0[k] * b0[k]
				s1 += a0[k+1] * b0[k+1]
			}
			if k < len(a0) {
				s0 += a0[k] * b0[k]
			}
			s[i*p+j] = s0 + s1
		}
	}
}

func cpuRun(src *source, opt Options) *Result {
	p := src.p
	res := newResult(src.in.DType, src.n, p)
	par.Each(src.n, 8, func() *worker { return newWorker(p, src.t) }, func(w *worker, k int) {
		w.run(src, k, opt)
		e := &w.est
		if res.Cov.DType == tensor.F64 {
			copy(res.Mean.F64[k*p:], e.mean)
			copy(res.Cov.F64[k*p*p:], e.cov)
			res.Rho.F64[k] = e.rho
		} else {
			for i, v := range e.mean {
				res.Mean.F32[k*p+i] = float32(v)
			}
			c := res.Cov.F32[k*p*p : (k+1)*p*p]
			for i, v := range e.cov {
				c[i] = float32(v)
			}
			res.Rho.F32[k] = float32(e.rho)
		}
	})
	return res
}

// Estimates runs the CPU estimate of every set that g gathers from cube and
// hands each to fn, from GOMAXPROCS goroutines, with the set's index and
// its float64 mean (P), covariance (P×P, both triangles) and ρ. The slices
// are reused after fn returns. It lets package chol fuse the covariance with
// the factorisation without materialising the (N, P, P) covariances.
func Estimates(cube *tensor.Tensor, g Gather, opt Options, fn func(k int, mean, cov []float64, rho float64)) error {
	src, err := gatherSource(cube, g, opt)
	if err != nil {
		return err
	}
	par.Each(src.n, 8, func() *worker { return newWorker(src.p, src.t) }, func(w *worker, k int) {
		w.run(src, k, opt)
		fn(k, w.est.mean, w.est.cov, w.est.rho)
	})
	return nil
}
