package cov

import (
	"github.com/vkstat/vkstat/internal/linalg"
	"github.com/vkstat/vkstat/internal/par"
	"github.com/vkstat/vkstat/internal/vec"
	"github.com/vkstat/vkstat/tensor"
)

// CPU estimates the covariance of each sample set of x, an (N, T, P)
// array, in native Go. Outputs have x's dtype (float32 for float16 and
// bfloat16, whose sets are widened exactly to float32 one at a time).
//
// Arithmetic is float64 for float32 and float64 data alike. Each set is
// packed into a T×P' float64 panel (P' = P rounded up to a multiple of 8,
// the extra columns zero), centred on its column means (two passes), and
// the lower triangle of S = XᵀX/T is formed by syrkLower, the SYRK that a
// BLAS would run: register-blocked 4×8 tiles of outputs, with AVX2 and FMA
// on amd64 processors that have them (syrk_amd64.s). Sets are spread over
// runtime.GOMAXPROCS goroutines, each with its own scratch memory: nothing
// is allocated per set.
func CPU(x *tensor.Tensor, opt Options) (*Result, error) {
	src, err := arraySource(x, opt)
	if err != nil {
		return nil, err
	}
	return cpuRun(src, opt)
}

// CPUGather is CPU on the sample sets that g gathers from a (T, H, W) cube.
func CPUGather(cube *tensor.Tensor, g Gather, opt Options) (*Result, error) {
	src, err := gatherSource(cube, g, opt)
	if err != nil {
		return nil, err
	}
	return cpuRun(src, opt)
}

// worker holds one goroutine's scratch memory and what it computes for one
// sample set, in float64.
type worker struct {
	k        kernels // impl, or the set a test asks for
	p, t, pp int
	x        []float64 // T×pp centred panel, row-major; columns p..pp−1 zero
	tile     [32]float64
	s        []float64 // p×p, lower triangle (diagonal included) of S
	mean     []float64 // p
	rho      float64
	wide     []float32 // a 16-bit set widened to float32 (t×p)
}

// panelWidth is p rounded up to the column blocking of syrkLower.
func panelWidth(p int) int { return (p + 7) &^ 7 }

func newWorker(p, t int, k kernels) *worker {
	pp := panelWidth(p)
	return &worker{k: k, p: p, t: t, pp: pp, x: make([]float64, t*pp), s: make([]float64, p*p), mean: make([]float64, pp)}
}

// run computes the lower triangle of S (scaled by 1/T) and ρ of set k of
// src into w; finish then writes the estimate.
func (w *worker) run(src *source, k int, opt Options) {
	p, t, pp := w.p, w.t, w.pp
	x, mean := w.x, w.mean[:pp]
	clear(mean)
	b := src.base(k)
	invT := 1 / float64(t)
	// Pack: row tt of the panel is sample tt, contiguous, centred on the
	// column means. An (N, T, P) array's set is one contiguous block: its
	// means are summed from it, then it is read again (from cache) into
	// the centred panel. A gathered set is packed with its sums on the way
	// and centred in place. A strided set (Strided) is read twice where it
	// lies, each variable's samples for its mean, then a block of samples
	// of one variable at a time into the centred panel (packRuns).
	contig := src.bases == nil && src.tstride == p
	switch {
	case contig && src.in.DType.Is16():
		// Widened exactly to float32 one set at a time, then as float32.
		if len(w.wide) < t*p {
			w.wide = make([]float32, t*p)
		}
		d, tab := w.wide[:t*p], src.in.DType.Table()
		for i, v := range src.in.U16[b : b+t*p] {
			d[i] = tab[v]
		}
		vec.AddRows(mean[:p], d, p, t)
		scaleMean(mean, invT)
		w.k.centreF32(x, pp, d, p, t, mean[:p])
	case contig && src.in.DType == tensor.F32:
		d := src.in.F32[b : b+t*p]
		vec.AddRows(mean[:p], d, p, t)
		scaleMean(mean, invT)
		w.k.centreF32(x, pp, d, p, t, mean[:p])
	case contig:
		d := src.in.F64[b : b+t*p]
		vec.AddRows(mean[:p], d, p, t)
		scaleMean(mean, invT)
		for tt := 0; tt < t; tt++ {
			sr := d[tt*p : tt*p+p]
			xr, m := x[tt*pp : tt*pp+p][:len(sr)], mean[:len(sr)]
			for i, v := range sr {
				xr[i] = v - m[i]
			}
		}
	case src.runs:
		switch d := src.in; {
		case d.DType == tensor.F64:
			packRuns(w, d.F64, b, src.tstride, src.off, invT)
		case d.DType.Is16():
			packRuns16(w, d.U16, d.DType.Table(), b, src.tstride, src.off, invT)
		default:
			packRuns(w, d.F32, b, src.tstride, src.off, invT)
		}
	default:
		for tt := 0; tt < t; tt++ {
			row := b + tt*src.tstride
			xr := x[tt*pp : tt*pp+p]
			off := src.off[:len(xr)]
			if src.in.DType == tensor.F64 {
				d := src.in.F64
				for i, o := range off {
					v := d[row+o]
					xr[i] = v
					mean[i] += v
				}
			} else if tab := src.in.DType.Table(); tab != nil {
				d := src.in.U16
				for i, o := range off {
					v := float64(tab[d[row+o]])
					xr[i] = v
					mean[i] += v
				}
			} else {
				d := src.in.F32
				for i, o := range off {
					v := float64(d[row+o])
					xr[i] = v
					mean[i] += v
				}
			}
		}
		scaleMean(mean, invT)
		for tt := 0; tt < t; tt++ {
			xr := x[tt*pp : tt*pp+p]
			for i, m := range mean[:len(xr)] {
				xr[i] -= m // columns p..pp−1 stay zero
			}
		}
	}
	var mo moments
	mo.tr, mo.fro, mo.dsq = syrkLower(w.k.kern4x8, w.s, x, p, t, pp, invT, &w.tile)
	if opt.Estimator == LedoitWolf {
		for tt := 0; tt < t; tt++ {
			var n2 float64
			for _, v := range x[tt*pp : tt*pp+p] {
				n2 += v * v
			}
			mo.q4 += n2 * n2
		}
	}
	w.rho = shrinkage(opt.Estimator, p, t, mo)
}

// centreF32Go sets dst[tt*pp+i] = src[tt*p+i] − mean[i] for tt < t, i < p.
func centreF32Go(dst []float64, pp int, src []float32, p, t int, mean []float64) {
	for tt := 0; tt < t; tt++ {
		sr := src[tt*p : tt*p+p]
		xr, m := dst[tt*pp : tt*pp+p][:len(sr)], mean[:len(sr)]
		for i, v := range sr {
			xr[i] = float64(v) - m[i]
		}
	}
}

// scaleMean turns column sums into means.
func scaleMean(mean []float64, invT float64) {
	for i := range mean {
		mean[i] *= invT
	}
}

// finish writes the estimate sc·((1−ρ)S + ρ·target) of w's set, both
// triangles, to c64 or c32 (p×p; exactly one non-nil), row by row so that
// the output, far larger than any cache, is written sequentially; the
// upper triangle is read down the columns of w.s, which fits the L1 cache.
func (w *worker) finish(opt Options, c64 []float64, c32 []float32) {
	p, s, rho := w.p, w.s, w.rho
	sc := opt.scale(w.t)
	var mu float64
	for i := 0; i < p; i++ {
		mu += s[i*p+i]
	}
	mu /= float64(p)
	off := linalg.ShrunkOff(sc, rho) // (1−ρ)·sc
	for i := 0; i < p; i++ {
		r := s[i*p : i*p+p]
		d := r[i]
		switch opt.Estimator {
		case PACO:
			d = linalg.ShrunkDiagPACO(d, rho) // d unless ρ is NaN
		case LedoitWolf, OAS:
			d = linalg.ShrunkDiagMean(d, rho, mu)
		}
		d *= sc
		if c64 != nil {
			o := c64[i*p : i*p+p]
			for j, v := range r[:i] {
				o[j] = v * off
			}
			o[i] = d
			for j := i + 1; j < p; j++ {
				o[j] = s[j*p+i] * off
			}
		} else {
			o := c32[i*p : i*p+p]
			for j, v := range r[:i] {
				o[j] = float32(v * off)
			}
			o[i] = float32(d)
			for j := i + 1; j < p; j++ {
				o[j] = float32(s[j*p+i] * off)
			}
		}
	}
}

// cpuRun stops, with the error of opt's context (Run's), once it is done:
// no set is begun after (par.EachContext).
func cpuRun(src *source, opt Options) (*Result, error) {
	p := src.p
	res := newResult(opt.Out, outType(src.in.DType), src.n, p)
	kern := impl
	if k := opt.test.get().kernels; k != nil {
		kern = *k
	}
	err := par.EachContext(opt.context(), src.n, 8, func() *worker { return newWorker(p, src.t, kern) }, func(w *worker, k int) {
		w.run(src, k, opt)
		if res.Cov.DType == tensor.F64 {
			copy(res.Mean.F64[k*p:], w.mean[:p])
			w.finish(opt, res.Cov.F64[k*p*p:(k+1)*p*p], nil)
			res.Rho.F64[k] = w.rho
		} else {
			for i, v := range w.mean[:p] {
				res.Mean.F32[k*p+i] = float32(v)
			}
			w.finish(opt, nil, res.Cov.F32[k*p*p:(k+1)*p*p])
			res.Rho.F32[k] = float32(w.rho)
		}
	})
	if err != nil {
		return nil, err
	}
	return res, nil
}
