package latent

import (
	"context"
	"fmt"
	"math"
	"time"

	"github.com/vkstat/vkstat/engine"
	"github.com/vkstat/vkstat/internal/par"
	"github.com/vkstat/vkstat/pipelines/cov"
	"github.com/vkstat/vkstat/pipelines/reduce"
	"github.com/vkstat/vkstat/tensor"
)

type float interface{ ~float32 | ~float64 }

// elem is a stored element: a float, or the bits of a float16 or bfloat16.
type elem interface{ ~float32 | ~float64 | ~uint16 }

// bits16 tells the finite 16-bit patterns of dt (F16 or BF16) from ±Inf
// and NaN, and gives the one NaN that stands for both.
func bits16(dt tensor.DType) (finite func(uint16) bool, nan uint16) {
	if dt == tensor.BF16 {
		return func(h uint16) bool { return h&0x7f80 != 0x7f80 }, 0x7fc0
	}
	return func(h uint16) bool { return h&0x7c00 != 0x7c00 }, 0x7e00
}

// finite reports whether v is neither NaN nor ±Inf.
func finite[T float](v T) bool { return v-v == 0 }

// runStats computes the moments and correlations req asks for, for x
// (one batch) on dev, or on the CPU when dev is nil. For the
// moments both paths reduce a run of consecutive axes where x lies, as
// (outer, n, inner); other axis sets are permuted on the host first (a
// copy in x's dtype: float32, float64, or the bits of float16 or
// bfloat16). Package reduce does the
// reduction; skewness and kurtosis take a second pass over the data, on
// dev (reduce.Options.Central) or the CPU.
// The correlations hand x itself to package cov as strided sample sets
// (cov.Strided), without a permuted copy; only sets that hold a NaN or
// ±Inf are copied (corrSets). A float64 x needs a device with shaderFloat64
// (engine.ErrNoFloat64 otherwise). A float16 or bfloat16 x stays 16-bit up
// to the device (half the device memory of float32), whose kernels widen
// each value exactly to float32 and accumulate as for float32.
func runStats(ctx context.Context, dev *engine.Device, x *tensor.Tensor, req Options) (*Result, error) {
	d, axes, err := req.check(x)
	if err != nil {
		return nil, err
	}
	res := &Result{}
	if readers(req.Moments, req.Corr, req.CorrFrames, req.LagCorr) > 1 {
		h, tm, err := hold(ctx, dev, x)
		if err != nil {
			return nil, err
		}
		defer h.Release()
		res.Timing.Add(tm)
	}
	res.NaNs, res.Infs = countNonFinite(x)
	if req.Moments {
		m, err := runMoments(ctx, dev, x, axes, req, res.Infs > 0, &res.Timing)
		if err != nil {
			return nil, err
		}
		res.Moments = m
	}
	// The correlations read x where it lies: cov's strided sets, no
	// permuted copy (sets with a NaN or ±Inf excepted, see corrSets).
	fhw, hw := d.F*d.H*d.W, d.H*d.W
	allFinite := res.NaNs+res.Infs == 0
	if req.Corr {
		lay := cov.Strided{Bases: make([]int, d.N), Offsets: steps(d.C, fhw), T: fhw, TStride: 1}
		for n := range d.N {
			lay.Bases[n] = n * d.C * fhw
		}
		c, _, notes, err := corrSets(ctx, dev, x, lay, req.NaN, allFinite, &res.Timing, func(b int) string {
			return fmt.Sprintf("sample %d", b)
		}, "channel")
		if err != nil {
			return nil, err
		}
		res.Corr = tensor.FromF64(c, d.N, d.C, d.C)
		res.Notes = append(res.Notes, prefixed("corr", notes)...)
	}
	if req.CorrFrames {
		lay := cov.Strided{Bases: make([]int, d.N*d.F), Offsets: steps(d.C, fhw), T: hw, TStride: 1}
		for b := range lay.Bases {
			lay.Bases[b] = b/d.F*d.C*fhw + b%d.F*hw
		}
		c, _, notes, err := corrSets(ctx, dev, x, lay, req.NaN, allFinite, &res.Timing, func(b int) string {
			return fmt.Sprintf("sample %d frame %d", b/d.F, b%d.F)
		}, "channel")
		if err != nil {
			return nil, err
		}
		res.CorrFrames = tensor.FromF64(c, d.N, d.F, d.C, d.C)
		res.Notes = append(res.Notes, prefixed("corr per frame", notes)...)
	}
	if req.LagCorr {
		lay := cov.Strided{Bases: make([]int, d.N*d.C), Offsets: steps(d.F, hw), T: hw, TStride: 1}
		for b := range lay.Bases {
			lay.Bases[b] = b * fhw
		}
		c, bad, notes, err := corrSets(ctx, dev, x, lay, req.NaN, allFinite, &res.Timing, func(b int) string {
			return fmt.Sprintf("sample %d channel %d", b/d.C, b%d.C)
		}, "frame")
		if err != nil {
			return nil, err
		}
		res.FrameCorr = tensor.FromF64(c, d.N, d.C, d.F, d.F)
		res.LagCorr = lagMeans(c, bad, d.N, d.C, d.F, req.Lags)
		res.Notes = append(res.Notes, prefixed("frame corr", notes)...)
	}
	return res, nil
}

// hold keeps x on dev (engine.Device.Hold) while several statistics read
// it, so that they share one upload: the moments and the covariances of
// the correlations and the PCA bind windows of that copy rather than
// uploading their parts of x again. On the CPU path (dev nil), or where
// the device has no room to spare for x, it holds nothing and each
// statistic uploads what it reads, as alone.
func hold(ctx context.Context, dev *engine.Device, x *tensor.Tensor) (*engine.Held, engine.Timing, error) {
	if dev == nil {
		return nil, engine.Timing{}, nil
	}
	return dev.Hold(ctx, x.Raw())
}

// readers counts the statistics asked for.
func readers(asked ...bool) int {
	n := 0
	for _, a := range asked {
		if a {
			n++
		}
	}
	return n
}

// steps returns 0, step, 2·step, … (k values).
func steps(k, step int) []int {
	o := make([]int, k)
	for i := range o {
		o[i] = i * step
	}
	return o
}

func prefixed(what string, notes []string) []string {
	out := make([]string, len(notes))
	for i, n := range notes {
		out[i] = what + ": " + n
	}
	return out
}

// lagMeans averages the frame correlation matrices' l-th superdiagonals,
// l = 1..lags. A pair with a frame that holds a NaN or ±Inf (bad, under
// Propagate) makes the mean NaN; pairs with a constant frame are left out
// (all left out gives NaN).
func lagMeans(fc []float64, bad []bool, n, c, f, lags int) *tensor.Tensor {
	out := tensor.New(tensor.F64, n, c, lags)
	for b := 0; b < n*c; b++ {
		m := fc[b*f*f : (b+1)*f*f]
		for l := 1; l <= lags; l++ {
			s, k := 0.0, 0
			for i := 0; i+l < f; i++ {
				if bad[b*f+i] || bad[b*f+i+l] {
					s, k = math.NaN(), 1
					break
				}
				if v := m[i*f+i+l]; !math.IsNaN(v) {
					s += v
					k++
				}
			}
			v := math.NaN()
			if k > 0 {
				v = s / float64(k)
			}
			out.F64[b*lags+l-1] = v
		}
	}
	return out
}

// permuted returns x's data transposed by perm (reduce.Permuted), telling
// permutedHook.
func permuted(x *tensor.Tensor, perm []int) *tensor.Tensor {
	if permutedHook != nil {
		permutedHook()
	}
	return reduce.Permuted(x, perm)
}

// permutedHook, when set (by tests), is told of each permuted copy that
// runMoments takes.
var permutedHook func()

// runMoments reduces x over axes. Where they form one contiguous run of
// axes a..b, x is viewed without a copy as (outer, n, inner): the axes
// before a, the run, the axes after b (inner = 1 where the run ends at
// the last axis). Otherwise x is permuted on the host so that they come
// last. Package reduce reduces axis 1 of that view (on dev, or the CPU).
// Skewness and kurtosis take a second pass around the mean: on dev,
// reduce.Options.Central's central sums of the rows or columns of that view (on
// the data already uploaded where the array fits one tile); on the CPU,
// shape34, or shape34Strided for a run that is not last.
func runMoments(ctx context.Context, dev *engine.Device, x *tensor.Tensor, axes []int, req Options, anyInf bool, tm *engine.Timing) (*Moments, error) {
	nd := len(x.Shape)
	var perm, keep []int
	n := 1
	for i := 0; i < nd; i++ {
		if !contains(axes, i) {
			perm = append(perm, i)
			keep = append(keep, x.Shape[i])
		}
	}
	for _, a := range axes {
		perm = append(perm, a)
		n *= x.Shape[a]
	}
	if n == 0 {
		// As NumPy's mean and var of an empty slice (with a warning:
		// Options.Warnings' WarnEmpty): every moment NaN.
		nan := func() *tensor.Tensor {
			t := tensor.New(tensor.F64, keep...)
			for i := range t.F64 {
				t.F64[i] = math.NaN()
			}
			return t
		}
		return &Moments{Axes: axes, Shape: keep, Mean: nan(), Var: nan(), Std: nan(), Min: nan(), Max: nan(), Skew: nan(), Kurt: nan()}, nil
	}
	rows := tensor.NumElements(keep)
	// A run of axes (axes is sorted) that is not last: reduced where it
	// lies, as (outer, n, inner).
	first, last := axes[0], axes[len(axes)-1]
	strided := last-first+1 == len(axes) && last < nd-1
	outer, inner := rows, 1
	if strided {
		outer, inner = tensor.NumElements(x.Shape[:first]), tensor.NumElements(x.Shape[last+1:])
	}
	// ±Inf is treated as NaN: skipped, or making its slice NaN. The axes
	// already last (the spatial moments), or any other run of axes, need
	// no permuted copy, nor any copy unless there is an Inf to
	// replace.
	p := x
	switch {
	case !strided && !identity(perm):
		p = permuted(x, perm)
		nonFiniteToNaN(p)
	case anyInf:
		p = copied(x)
		nonFiniteToNaN(p)
	}
	p = &tensor.Tensor{DType: p.DType, Shape: []int{outer, n}, F32: p.F32, F64: p.F64, U16: p.U16}
	if strided {
		p.Shape = []int{outer, n, inner}
	}
	m := &Moments{Axes: axes, Shape: keep}
	want := []reduce.Stat{reduce.Mean, reduce.Var, reduce.Std, reduce.Min, reduce.Max}
	var central *reduce.CentralMoments
	if rows > 0 {
		// On a device the central moments come with the reduction.
		opt := reduce.Options{Axes: reduce.Axes{1}, DDof: req.DDof, SkipNaN: req.NaN == Skip, Stats: want, Central: dev != nil}
		r, err := reduce.Run(ctx, dev, p, opt)
		if err != nil {
			return nil, fmt.Errorf("latent: moments: %w", err)
		}
		tm.Add(r.Timing)
		out := r.Stats
		central = r.Central
		f := func(s reduce.Stat) *tensor.Tensor {
			t := out[s].As(tensor.F64)
			t.Shape = append([]int{}, keep...)
			return t
		}
		m.Mean, m.Var, m.Std, m.Min, m.Max = f(reduce.Mean), f(reduce.Var), f(reduce.Std), f(reduce.Min), f(reduce.Max)
	} else {
		e := func() *tensor.Tensor { return tensor.New(tensor.F64, keep...) }
		m.Mean, m.Var, m.Std, m.Min, m.Max = e(), e(), e(), e(), e()
	}
	m.Skew, m.Kurt = tensor.New(tensor.F64, keep...), tensor.New(tensor.F64, keep...)
	if dev != nil {
		if central != nil {
			shapeFrom(central, m.Min.F64, m.Max.F64, shapeOptOf(req), m.Skew.F64, m.Kurt.F64)
		}
		return m, nil
	}
	t0 := time.Now()
	switch {
	case strided:
		if rows > 0 {
			shape34Strided(p, outer, n, inner, shapeOptOf(req), m.Mean.F64, m.Min.F64, m.Max.F64, m.Skew.F64, m.Kurt.F64)
		}
	case p.DType == tensor.F64:
		shape34(p.F64, outer, n, shapeOptOf(req), m.Skew.F64, m.Kurt.F64)
	case p.DType.Is16():
		// Blocks of rows widened exactly to float32, then as float32.
		tab := p.DType.Table()
		rows := max(1, (1<<20)/n)
		buf := make([]float32, min(rows, outer)*n)
		for r0 := 0; r0 < outer; r0 += rows {
			r1 := min(r0+rows, outer)
			src, dst := p.U16[r0*n:r1*n], buf[:(r1-r0)*n]
			par.Range(len(dst), 1<<16, func(lo, hi int) {
				for i := lo; i < hi; i++ {
					dst[i] = tab[src[i]]
				}
			})
			shape34(dst, r1-r0, n, shapeOptOf(req), m.Skew.F64[r0:r1], m.Kurt.F64[r0:r1])
		}
	default:
		shape34(p.F32, outer, n, shapeOptOf(req), m.Skew.F64, m.Kurt.F64)
	}
	el := time.Since(t0)
	tm.Add(engine.Timing{Kernel: el, Wall: el})
	return m, nil
}

// copied returns a copy of x in its dtype.
func copied(x *tensor.Tensor) *tensor.Tensor {
	out := tensor.New(x.DType, x.Shape...)
	copy(out.F32, x.F32)
	copy(out.F64, x.F64)
	copy(out.U16, x.U16)
	return out
}

// identity reports whether perm leaves every axis in place.
func identity(perm []int) bool {
	for i, a := range perm {
		if a != i {
			return false
		}
	}
	return true
}

func contains(s []int, v int) bool {
	for _, x := range s {
		if x == v {
			return true
		}
	}
	return false
}

// nonFiniteToNaN replaces ±Inf by NaN.
func nonFiniteToNaN(t *tensor.Tensor) {
	nan := math.NaN()
	if t.DType.Is16() {
		finite16, nan16 := bits16(t.DType)
		for i, h := range t.U16 {
			if !finite16(h) { // ±Inf, or a NaN that stays one
				t.U16[i] = nan16
			}
		}
		return
	}
	if t.DType == tensor.F64 {
		for i, v := range t.F64 {
			if math.IsInf(v, 0) {
				t.F64[i] = nan
			}
		}
		return
	}
	for i, v := range t.F32 {
		if math.IsInf(float64(v), 0) {
			t.F32[i] = float32(nan)
		}
	}
}

// shapeFrom turns the central moments the device computed (reduce.Central)
// into skewness and excess kurtosis by shape34's rules: NaN for a row
// with no value left, a constant row (min = max) or, unless skip, a NaN.
func shapeFrom(c *reduce.CentralMoments, mn, mx []float64, o shapeOpt, skew, kurt []float64) {
	for r := range skew {
		skew[r], kurt[r] = math.NaN(), math.NaN()
		if c.N[r] == 0 || mn[r] == mx[r] || (c.NaNs[r] > 0 && !o.skip) {
			continue
		}
		skew[r], kurt[r] = o.skewKurt(c.M2[r], c.M3[r], c.M4[r], int(c.N[r]))
	}
}

// shapeOpt says how skewness and kurtosis are taken: NaNs left out
// (skip), and the bias corrected (unbiased).
type shapeOpt struct{ skip, unbiased bool }

// shapeOptOf is req's shapeOpt.
func shapeOptOf(req Options) shapeOpt { return shapeOpt{skip: req.NaN == Skip, unbiased: req.Unbiased} }

// skewKurt are the skewness m3/m2^1.5 and the excess kurtosis m4/m2² − 3
// from central moments with 1/n, as scipy.stats.skew and kurtosis give
// them; unbiased corrects them as their bias=False does: G1 =
// g1·√(n(n−1))/(n−2) where n > 2, G2 = ((n²−1)·m4/m2² − 3(n−1)²)/((n−2)(n−3))
// where n > 3, leaving the others as they are (as SciPy does).
func (o shapeOpt) skewKurt(m2, m3, m4 float64, n int) (skew, kurt float64) {
	skew = m3 / (m2 * math.Sqrt(m2)) // m2^1.5; math.Pow took a third of shape34Strided's pass
	kurt = m4/(m2*m2) - 3
	if !o.unbiased {
		return skew, kurt
	}
	nf := float64(n)
	if n > 2 {
		skew *= math.Sqrt(nf*(nf-1)) / (nf - 2)
	}
	if n > 3 {
		kurt = ((nf*nf-1)*m4/(m2*m2) - 3*(nf-1)*(nf-1)) / ((nf - 2) * (nf - 3))
	}
	return skew, kurt
}

// shape34 computes the skewness m3/m2^1.5 and the excess kurtosis m4/m2²−3
// (central moments with 1/n, as scipy.stats.skew and kurtosis by default)
// of each row of data (outer rows of inner values), in float64, two-pass:
// the mean, then the powers of the deviations. With skip NaNs are left out
// (the caller has made ±Inf NaN); otherwise a NaN makes the row's values
// NaN. A row whose values are all equal (min = max) has NaN for both.
func shape34[T float](data []T, outer, inner int, o shapeOpt, skew, kurt []float64) {
	par.Range(outer, max(1, (1<<16)/inner), func(lo, hi int) {
		for r := lo; r < hi; r++ {
			row := data[r*inner : (r+1)*inner]
			var s float64
			n := 0
			mn, mx := math.Inf(1), math.Inf(-1)
			hasNaN := false
			for _, v := range row {
				f := float64(v)
				if f != f {
					hasNaN = true
					continue
				}
				s += f
				n++
				if f < mn {
					mn = f
				}
				if f > mx {
					mx = f
				}
			}
			nan := math.NaN()
			skew[r], kurt[r] = nan, nan
			if n == 0 || mn == mx {
				continue
			}
			if hasNaN && !o.skip {
				continue
			}
			mean := s / float64(n)
			var m2, m3, m4 float64
			for _, v := range row {
				f := float64(v)
				if f != f {
					continue
				}
				d := f - mean
				d2 := d * d
				m2 += d2
				m3 += d2 * d
				m4 += d2 * d2
			}
			skew[r], kurt[r] = o.skewKurt(m2/float64(n), m3/float64(n), m4/float64(n), n)
		}
	})
}

// shape34Strided is shape34 for the columns of p, an (outer, n, inner)
// array reduced along axis 1 where it lies (no copy): output q = o·inner+j
// takes the n values p[o, :, j]. Blocks of up to 512 columns of one outer
// index are spread over the cores, and each walks its n rows of
// contiguous values, adding the powers of d = x − centre[q] (centre: the
// mean from package reduce; NaN or ±Inf stands for 0) in float64 per
// column. As for reduce.Central, the moments about the mean centre + δ
// come from those sums with δ = Σd/n, so a centre rounded to float32
// costs nothing. NaNs are left out (the caller has made ±Inf NaN) and,
// unless skip, make their column's values NaN; a column with no value
// left or whose values are all equal (mn = mx, from reduce) has NaN for
// both, as in shape34.
func shape34Strided(p *tensor.Tensor, outer, n, inner int, so shapeOpt, centre, mn, mx, skew, kurt []float64) {
	const width = 512
	nJB := (inner + width - 1) / width
	var tab *[1 << 16]float32
	if p.DType.Is16() {
		tab = p.DType.Table()
	}
	par.Range(outer*nJB, max(1, (1<<16)/(n*min(width, inner))), func(lo, hi int) {
		sc := newColSums(width)
		buf := make([]float32, width)
		for it := lo; it < hi; it++ {
			o, j0 := it/nJB, it%nJB*width
			w := min(width, inner-j0)
			q0 := o*inner + j0
			sc.reset(centre[q0 : q0+w])
			for i := range n {
				off := (o*n+i)*inner + j0
				switch {
				case p.DType == tensor.F64:
					sc.add64(p.F64[off : off+w])
				case tab != nil:
					row := buf[:w]
					for k, h := range p.U16[off : off+w] {
						row[k] = tab[h]
					}
					sc.add32(row)
				default:
					sc.add32(p.F32[off : off+w])
				}
			}
			for k := range w {
				q := q0 + k
				skew[q], kurt[q] = math.NaN(), math.NaN()
				cnt := sc.n[k]
				if cnt == 0 || mn[q] == mx[q] || (sc.nans[k] > 0 && !so.skip) {
					continue
				}
				nf := float64(cnt)
				dl, a2, a3, a4 := sc.s1[k]/nf, sc.s2[k]/nf, sc.s3[k]/nf, sc.s4[k]/nf
				d2 := dl * dl
				m2 := max(a2-d2, 0)
				m3 := a3 - 3*dl*a2 + 2*d2*dl
				m4 := max(a4-4*dl*a3+6*d2*a2-3*d2*d2, 0)
				skew[q], kurt[q] = so.skewKurt(m2, m3, m4, cnt)
			}
		}
	})
}

// colSums are the sums of shape34Strided for a block of columns: Σd, Σd²,
// Σd³, Σd⁴ about each column's centre c, the values and the NaNs.
type colSums struct {
	c, s1, s2, s3, s4 []float64
	n, nans           []int
}

func newColSums(w int) *colSums {
	f := func() []float64 { return make([]float64, w) }
	return &colSums{c: f(), s1: f(), s2: f(), s3: f(), s4: f(), n: make([]int, w), nans: make([]int, w)}
}

// reset starts a block of len(centre) columns about centre.
func (s *colSums) reset(centre []float64) {
	w := len(centre)
	s.c, s.s1, s.s2, s.s3, s.s4 = s.c[:w], s.s1[:w], s.s2[:w], s.s3[:w], s.s4[:w]
	s.n, s.nans = s.n[:w], s.nans[:w]
	for k, c := range centre {
		if c-c != 0 {
			c = 0 // no finite mean: the column's values are NaN anyway
		}
		s.c[k] = c
	}
	clear(s.s1)
	clear(s.s2)
	clear(s.s3)
	clear(s.s4)
	clear(s.n)
	clear(s.nans)
}

func (s *colSums) add32(row []float32) { addCols(s, row) }
func (s *colSums) add64(row []float64) { addCols(s, row) }

// addCols adds one row of the block's columns to s.
func addCols[T float](s *colSums, row []T) {
	c, s1, s2, s3, s4 := s.c[:len(row)], s.s1[:len(row)], s.s2[:len(row)], s.s3[:len(row)], s.s4[:len(row)]
	cnt, nans := s.n[:len(row)], s.nans[:len(row)]
	for k, v := range row {
		f := float64(v)
		if f != f {
			nans[k]++
			continue
		}
		d := f - c[k]
		d2 := d * d
		s1[k] += d
		s2[k] += d2
		s3[k] += d2 * d
		s4[k] += d2 * d2
		cnt[k]++
	}
}

// corrSets computes the correlation matrices of the sets that lay places in
// x's data (len(lay.Bases) sets of lay.T samples of len(lay.Offsets)
// variables), with package cov on dev or the CPU (covSets), and never
// writes x. It returns b·p·p correlations in float64, which variables hold
// a NaN or ±Inf under Propagate (b·p flags), and notes naming the sets and
// variables whose correlations are NaN.
func corrSets(ctx context.Context, dev *engine.Device, x *tensor.Tensor, lay cov.Strided, policy NaNPolicy, allFinite bool,
	tm *engine.Timing, setName func(int) string, varName string) ([]float64, []bool, []string, error) {
	sc, err := covSets(ctx, dev, x, lay, cov.Options{}, policy, allFinite, tm)
	if err != nil {
		return nil, nil, nil, fmt.Errorf("latent: correlation: %w", err)
	}
	corr, notes := sc.corr(len(lay.Bases), len(lay.Offsets), setName, varName)
	return corr, sc.bad, notes, nil
}

// corr is the b·p·p correlation matrices of sc's b sets of p variables in
// float64, and notes naming the sets and variables whose correlations are
// NaN.
func (sc *setCovs) corr(b, p int, setName func(int) string, varName string) ([]float64, []string) {
	corr := make([]float64, b*p*p)
	par.Range(b, 1, func(lo, hi int) {
		for s := lo; s < hi; s++ {
			m := sc.cov[s*p*p : (s+1)*p*p]
			out := corr[s*p*p : (s+1)*p*p]
			for i := range p {
				for j := range p {
					switch {
					case sc.count[s] < 2 || sc.bad[s*p+i] || sc.bad[s*p+j] || sc.constant[s*p+i] || sc.constant[s*p+j]:
						out[i*p+j] = math.NaN()
					case i == j:
						out[i*p+j] = 1
					case j < i: // symmetric to the last bit
						out[i*p+j] = out[j*p+i]
					default:
						// divided by each deviation in turn, as np.corrcoef does:
						// s_ii·s_jj overflows for values past 1e77
						out[i*p+j] = max(-1, min(1, m[i*p+j]/math.Sqrt(m[i*p+i])/math.Sqrt(m[j*p+j])))
					}
				}
			}
		}
	})
	var consts, short []string
	for s := range b {
		if sc.count[s] < 2 {
			short = append(short, fmt.Sprintf("%s (%d usable)", setName(s), sc.count[s]))
			continue
		}
		for i := range p {
			if sc.constant[s*p+i] {
				consts = append(consts, fmt.Sprintf("%s %s %d", setName(s), varName, i))
			}
		}
	}
	var notes []string
	if len(consts) > 0 {
		notes = append(notes, noteList(fmt.Sprintf("%d constant (zero-variance) %s(s), whose correlations are NaN", len(consts), varName), consts))
	}
	if len(short) > 0 {
		notes = append(notes, noteList(fmt.Sprintf("%d set(s) with fewer than 2 samples free of NaN/Inf, all NaN", len(short)), short))
	}
	return corr, notes
}

// setCovs are the covariances of strided sample sets (covSets).
type setCovs struct {
	cov      []float64 // b·p·p, in float64; NaN for a set with fewer than 2 usable samples
	count    []int     // samples used per set
	bad      []bool    // b·p: a variable with a non-finite sample (Propagate)
	constant []bool    // b·p: a variable whose used samples are all equal
}

// covSets computes the covariance matrices (opt's ddof) of the sets that
// lay places in x's data with package cov on dev or the CPU, and never
// writes x.
//
// A set free of NaN and ±Inf is read where it lies (cov.Options.Strided), all
// such sets in one batch. Only a set that holds one is copied, as (samples,
// variables): its non-finite values zeroed (Propagate; its variables are
// flagged bad) or its samples with one left out (Skip, listwise deletion),
// and these copies go to cov.Run, batched by their number of samples.
//
// allFinite says that x holds no NaN or ±Inf (Run has counted them): then
// no set is scanned before cov, and only the variables whose variance cov
// finds zero, or within rounding of zero, are read again to tell the
// constant ones.
func covSets(ctx context.Context, dev *engine.Device, x *tensor.Tensor, lay cov.Strided, opt cov.Options, policy NaNPolicy, allFinite bool, tm *engine.Timing) (*setCovs, error) {
	switch {
	case x.DType == tensor.F64:
		return covSetsT(ctx, dev, x, x.F64, finite[float64], func(x float64) float64 { return x }, lay, opt, policy, allFinite, tm)
	case x.DType.Is16():
		widen := x.DType.Widen()
		isFinite, _ := bits16(x.DType)
		return covSetsT(ctx, dev, x, x.U16, isFinite, func(h uint16) float64 { return float64(widen(h)) }, lay, opt, policy, allFinite, tm)
	}
	return covSetsT(ctx, dev, x, x.F32, finite[float32], func(x float32) float64 { return float64(x) }, lay, opt, policy, allFinite, tm)
}

// runRange returns the least and greatest finite value of the n values
// v[at], v[at+step], …, and whether all are finite; float32 and float64
// without calls per value.
func runRange[T elem](v []T, at, n, step int, isFinite func(T) bool, val func(T) float64) (lo, hi float64, ok bool) {
	switch v := any(v).(type) {
	case []float32:
		return runRangeF(v, at, n, step)
	case []float64:
		return runRangeF(v, at, n, step)
	}
	lo, hi, ok = math.Inf(1), math.Inf(-1), true
	for r := 0; r < n; r, at = r+1, at+step {
		e := v[at]
		if !isFinite(e) {
			ok = false
			continue
		}
		f := val(e)
		lo, hi = min(lo, f), max(hi, f)
	}
	return lo, hi, ok
}

func runRangeF[T float](v []T, at, n, step int) (lo, hi float64, ok bool) {
	l, h, ok := T(math.Inf(1)), T(math.Inf(-1)), true
	for r := 0; r < n; r, at = r+1, at+step {
		e := v[at]
		if e-e != 0 { // NaN or ±Inf
			ok = false
			continue
		}
		if e < l {
			l = e
		}
		if e > h {
			h = e
		}
	}
	return float64(l), float64(h), ok
}

// covSetsT is covSets on x's values v: isFinite tells the finite values,
// val gives one as float64 (exactly).
func covSetsT[T elem](ctx context.Context, dev *engine.Device, x *tensor.Tensor, v []T, isFinite func(T) bool, val func(T) float64,
	lay cov.Strided, opt cov.Options, policy NaNPolicy, allFinite bool, tm *engine.Timing) (*setCovs, error) {
	// The host's share (the scan, the copies, r_ij) is timed as the
	// moments' host pass is, so that --time's compute counts it.
	start := time.Now()
	var inCov time.Duration
	defer func() {
		el := time.Since(start) - inCov
		tm.Add(engine.Timing{Kernel: el, Wall: el})
	}()
	b, t, p, ts := len(lay.Bases), lay.T, len(lay.Offsets), lay.TStride
	bad := make([]bool, b*p)      // a variable with a non-finite sample (Propagate): NaN row and column
	constant := make([]bool, b*p) // a variable whose used samples are all equal
	count := make([]int, b)       // samples used per set
	copies := make([][]T, b)      // the (used samples, p) copy of a set with a non-finite value
	// Scan each set where it lies, variable by variable: non-finite values,
	// constant variables. A set with a non-finite value is then copied,
	// sample by sample, as the policy says.
	scan := func(lo, hi int) {
		mn, mx := make([]float64, p), make([]float64, p)
		for s := lo; s < hi; s++ {
			base := lay.Bases[s]
			clean := true
			for i, o := range lay.Offsets {
				var ok bool
				mn[i], mx[i], ok = runRange(v, base+o, t, ts, isFinite, val)
				clean = clean && ok
			}
			if clean {
				count[s] = t
				for i := range p {
					constant[s*p+i] = t > 0 && mn[i] == mx[i]
				}
				continue
			}
			set := make([]T, t*p)
			used := 0
			for i := range p {
				mn[i], mx[i] = math.Inf(1), math.Inf(-1)
			}
			for r := 0; r < t; r++ {
				row := set[used*p : (used+1)*p]
				ok := true
				for i, o := range lay.Offsets {
					e := v[base+r*ts+o]
					if !isFinite(e) {
						ok = false
						if policy == Propagate {
							bad[s*p+i] = true
							e = 0
						}
					}
					row[i] = e
				}
				if policy == Skip && !ok {
					continue
				}
				for i, e := range row {
					if !bad[s*p+i] {
						f := val(e)
						mn[i], mx[i] = min(mn[i], f), max(mx[i], f)
					}
				}
				used++
			}
			// Propagate: a variable found bad after its first samples
			// has finite values in them; its constant flag is not used.
			count[s], copies[s] = used, set[:used*p]
			for i := range p {
				constant[s*p+i] = !bad[s*p+i] && used > 0 && mn[i] == mx[i]
			}
		}
	}
	if allFinite {
		for s := range count {
			count[s] = t
		}
	} else {
		par.Range(b, 1, scan)
	}
	out := make([]float64, b*p*p)
	for i := range out {
		out[i] = math.NaN()
	}
	// put copies the covariances c of sets into out.
	put := func(c []float64, sets []int) {
		for k, s := range sets {
			copy(out[s*p*p:(s+1)*p*p], c[k*p*p:(k+1)*p*p])
		}
	}
	// The clean sets in one strided batch; the copies grouped by the
	// samples they kept, one batch per group.
	var clean []int
	groups := map[int][]int{}
	for s := range b {
		switch {
		case count[s] < 2:
		case copies[s] == nil:
			clean = append(clean, s)
		default:
			groups[count[s]] = append(groups[count[s]], s)
		}
	}
	if len(clean) > 0 {
		sl := lay
		if len(clean) < b {
			sl.Bases = make([]int, len(clean))
			for k, s := range clean {
				sl.Bases[k] = lay.Bases[s]
			}
		}
		c0 := time.Now()
		sopt := opt
		sopt.Strided = &sl
		r, err := cov.Run(ctx, dev, x, sopt)
		inCov += time.Since(c0)
		if err != nil {
			return nil, err
		}
		tm.Add(r.Timing)
		cv := r.Cov.Float64s()
		if allFinite {
			// A constant variable's variance is 0, or a rounding away from
			// it (the CPU's mean of T equal values may be an ulp off; the
			// kernels shift by the first sample and get 0): a variance at
			// most 1e-12·mean² is read again and checked exactly.
			mv := r.Mean.Float64s()
			par.Range(len(clean), 1, func(lo, hi int) {
				for k := lo; k < hi; k++ {
					s := clean[k]
					for i, o := range lay.Offsets {
						if m := mv[k*p+i]; cv[k*p*p+i*p+i] <= 1e-12*m*m {
							l, h, _ := runRange(v, lay.Bases[s]+o, t, ts, isFinite, val)
							constant[s*p+i] = l == h
						}
					}
				}
			})
		}
		put(cv, clean)
	}
	for tc, sets := range groups {
		g := make([]T, 0, len(sets)*tc*p)
		for _, s := range sets {
			g = append(g, copies[s]...)
		}
		in := &tensor.Tensor{Shape: []int{len(sets), tc, p}, DType: x.DType}
		switch g := any(g).(type) {
		case []float64:
			in.F64 = g
		case []uint16:
			in.U16 = g
		default:
			in.F32 = g.([]float32)
		}
		c0 := time.Now()
		r, err := cov.Run(ctx, dev, in, opt)
		inCov += time.Since(c0)
		if err != nil {
			return nil, err
		}
		tm.Add(r.Timing)
		put(r.Cov.Float64s(), sets)
	}
	return &setCovs{cov: out, count: count, bad: bad, constant: constant}, nil
}

// momentNotes names the slices whose moments are NaN for a reason the
// input does not show: a constant slice (min = max, the exact test the
// correlations use) has NaN skew and kurtosis (m₂ = 0), and under Skip a
// slice left with at most ddof values free of NaN/±Inf has NaN var and
// std, as NumPy's nanvar warns. (ddof at least every slice's length is
// Options.Warnings', not a note.) Slices are named by their index in the
// moments' shape, the kept axes in order.
func momentNotes(m *Moments, opt Options, n int) []string {
	if m == nil || m.Min == nil || m.Max == nil {
		return nil
	}
	var constant, short []string
	idx := make([]int, len(m.Shape))
	for i, lo := range m.Min.F64 {
		hi := m.Max.F64[i]
		if !math.IsNaN(lo) && !math.IsInf(lo, 0) && !math.IsNaN(hi) && !math.IsInf(hi, 0) {
			switch {
			case m.Var != nil && math.IsNaN(m.Var.F64[i]) && opt.DDof < n:
				short = append(short, tensor.ShapeString(idx))
			case lo == hi && m.Skew != nil && math.IsNaN(m.Skew.F64[i]):
				constant = append(constant, tensor.ShapeString(idx))
			}
		}
		for d := len(idx) - 1; d >= 0; d-- { // the next index, C order
			if idx[d]++; idx[d] < m.Shape[d] {
				break
			}
			idx[d] = 0
		}
	}
	var notes []string
	if len(constant) > 0 {
		notes = append(notes, noteList(fmt.Sprintf("moments: %d constant slice(s), whose skew and kurtosis are NaN (zero variance)", len(constant)), constant))
	}
	if len(short) > 0 {
		notes = append(notes, noteList(fmt.Sprintf("moments: %d slice(s) with at most ddof = %d values free of NaN/Inf, whose var and std are NaN", len(short), opt.DDof), short))
	}
	return notes
}
