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

// Run computes req for x on dev, or on the CPU when dev is nil. Both paths
// permute x on the host (a copy in x's dtype: float32, float64, or the bits
// of float16 or bfloat16) and hand the result to package reduce (moments)
// and package cov (correlations); skewness and kurtosis take a second pass
// over the data, on dev (reduce.RunCentral) or the CPU. A float64 x needs a device with shaderFloat64
// (engine.ErrNoFloat64 otherwise). A float16 or bfloat16 x stays 16-bit up
// to the device (half the device memory of float32), whose kernels widen
// each value exactly to float32 and accumulate as for float32.
func Run(ctx context.Context, dev *engine.Device, x *tensor.Tensor, req Request) (*Result, error) {
	d, axes, err := req.check(x)
	if err != nil {
		return nil, err
	}
	res := &Result{}
	res.NaNs, res.Infs = countNonFinite(x)
	if req.Moments {
		m, err := runMoments(ctx, dev, x, axes, req, &res.Timing)
		if err != nil {
			return nil, err
		}
		res.Moments = m
	}
	if req.Corr || req.CorrFrames {
		perm := []int{0, 2, 3, 4, 1} // (N, F, H, W, C)
		if len(x.Shape) == 4 {
			perm = []int{0, 2, 3, 1}
		}
		// corrSets overwrites its input: each gets its own copy.
		if req.Corr {
			c, _, notes, err := corrSets(ctx, dev, permuted(x, perm), d.N, d.F*d.H*d.W, d.C, req.NaN, &res.Timing, func(b int) string {
				return fmt.Sprintf("sample %d", b)
			}, "channel")
			if err != nil {
				return nil, err
			}
			res.Corr = tensor.FromF64(c, d.N, d.C, d.C)
			res.Notes = append(res.Notes, prefixed("corr", notes)...)
		}
		if req.CorrFrames {
			c, _, notes, err := corrSets(ctx, dev, permuted(x, perm), d.N*d.F, d.H*d.W, d.C, req.NaN, &res.Timing, func(b int) string {
				return fmt.Sprintf("sample %d frame %d", b/d.F, b%d.F)
			}, "channel")
			if err != nil {
				return nil, err
			}
			res.CorrFrames = tensor.FromF64(c, d.N, d.F, d.C, d.C)
			res.Notes = append(res.Notes, prefixed("corr per frame", notes)...)
		}
	}
	if req.LagCorr {
		p := permuted(x, []int{0, 1, 3, 4, 2}) // (N, C, H, W, F)
		c, bad, notes, err := corrSets(ctx, dev, p, d.N*d.C, d.H*d.W, d.F, req.NaN, &res.Timing, func(b int) string {
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

// permuted returns x's data transposed by perm (output axis i is input
// axis perm[i]), as a new tensor of x's dtype.
func permuted(x *tensor.Tensor, perm []int) *tensor.Tensor {
	shape := make([]int, len(perm))
	for i, a := range perm {
		shape[i] = x.Shape[a]
	}
	out := tensor.New(x.DType, shape...)
	switch {
	case x.DType == tensor.F64:
		permute(out.F64, x.F64, x.Shape, perm)
	case x.DType.Is16():
		permute(out.U16, x.U16, x.Shape, perm)
	default:
		permute(out.F32, x.F32, x.Shape, perm)
	}
	return out
}

// permute writes src (of shape shape) transposed by perm into dst: one
// output row (the last output axis) at a time, rows spread over the cores.
func permute[T elem](dst, src []T, shape, perm []int) {
	nd := len(shape)
	if len(dst) == 0 {
		return
	}
	stride := make([]int, nd)
	s := 1
	for i := nd - 1; i >= 0; i-- {
		stride[i] = s
		s *= shape[i]
	}
	oshape := make([]int, nd)
	ostride := make([]int, nd) // input stride of each output axis
	for i, a := range perm {
		oshape[i], ostride[i] = shape[a], stride[a]
	}
	rowLen, step := oshape[nd-1], ostride[nd-1]
	rows := len(dst) / rowLen
	par.Range(rows, max(1, 4096/rowLen), func(lo, hi int) {
		for r := lo; r < hi; r++ {
			off, q := 0, r
			for i := nd - 2; i >= 0; i-- {
				off += (q % oshape[i]) * ostride[i]
				q /= oshape[i]
			}
			row := dst[r*rowLen : (r+1)*rowLen]
			for j := range row {
				row[j] = src[off+j*step]
			}
		}
	})
}

// runMoments reduces x over axes: x is permuted so that they come last,
// viewed as (outer, inner) and reduced along axis 1 by package reduce
// (on dev, or the CPU). Skewness and kurtosis take a second pass around
// the mean: on dev, reduce.RunCentral's central sums (on the data already
// uploaded where the array fits one tile); on the CPU, shape34.
func runMoments(ctx context.Context, dev *engine.Device, x *tensor.Tensor, axes []int, req Request, tm *engine.Timing) (*Moments, error) {
	nd := len(x.Shape)
	var perm, keep []int
	inner := 1
	for i := 0; i < nd; i++ {
		if !contains(axes, i) {
			perm = append(perm, i)
			keep = append(keep, x.Shape[i])
		}
	}
	for _, a := range axes {
		perm = append(perm, a)
		inner *= x.Shape[a]
	}
	if inner == 0 {
		return nil, fmt.Errorf("latent: cannot take moments over axes %v of length 0 (shape %s)", axes, tensor.ShapeString(x.Shape))
	}
	outer := tensor.NumElements(keep)
	// ±Inf is treated as NaN: skipped, or making its slice NaN. The axes
	// already last (the spatial moments) need no permuted copy, nor any
	// copy unless there is an Inf to replace.
	p := x
	if !identity(perm) || hasInf(x) {
		p = permuted(x, perm)
		nonFiniteToNaN(p)
	}
	p = &tensor.Tensor{DType: p.DType, Shape: p.Shape, F32: p.F32, F64: p.F64, U16: p.U16}
	p.Shape = []int{outer, inner}
	m := &Moments{Axes: axes, Shape: keep}
	want := []reduce.Stat{reduce.Mean, reduce.Var, reduce.Std, reduce.Min, reduce.Max}
	var central *reduce.CentralMoments
	if outer > 0 {
		opt := reduce.Options{Axis: 1, DDof: req.DDof, SkipNaN: req.NaN == Skip}
		var out map[reduce.Stat]*tensor.Tensor
		var t engine.Timing
		var err error
		if dev != nil {
			out, central, t, err = reduce.RunCentral(ctx, dev, p, opt, want)
		} else {
			out, t, err = reduce.Run(ctx, nil, p, opt, want)
		}
		tm.Add(t)
		if err != nil {
			return nil, fmt.Errorf("latent: moments: %w", err)
		}
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
			shapeFrom(central, m.Min.F64, m.Max.F64, req.NaN == Skip, m.Skew.F64, m.Kurt.F64)
		}
		return m, nil
	}
	t0 := time.Now()
	switch {
	case p.DType == tensor.F64:
		shape34(p.F64, outer, inner, req.NaN == Skip, m.Skew.F64, m.Kurt.F64)
	case p.DType.Is16():
		// Blocks of rows widened exactly to float32, then as float32.
		widen := p.DType.Widen()
		rows := max(1, (1<<20)/inner)
		buf := make([]float32, min(rows, outer)*inner)
		for r0 := 0; r0 < outer; r0 += rows {
			r1 := min(r0+rows, outer)
			src, dst := p.U16[r0*inner:r1*inner], buf[:(r1-r0)*inner]
			par.Range(len(dst), 1<<16, func(lo, hi int) {
				for i := lo; i < hi; i++ {
					dst[i] = widen(src[i])
				}
			})
			shape34(dst, r1-r0, inner, req.NaN == Skip, m.Skew.F64[r0:r1], m.Kurt.F64[r0:r1])
		}
	default:
		shape34(p.F32, outer, inner, req.NaN == Skip, m.Skew.F64, m.Kurt.F64)
	}
	el := time.Since(t0)
	tm.Add(engine.Timing{Kernel: el, Wall: el})
	return m, nil
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

// hasInf reports whether t holds a ±Inf.
func hasInf(t *tensor.Tensor) bool {
	if t.DType.Is16() {
		widen := t.DType.Widen()
		for _, h := range t.U16 {
			if math.IsInf(float64(widen(h)), 0) {
				return true
			}
		}
		return false
	}
	if t.DType == tensor.F64 {
		for _, v := range t.F64 {
			if math.IsInf(v, 0) {
				return true
			}
		}
		return false
	}
	for _, v := range t.F32 {
		if math.IsInf(float64(v), 0) {
			return true
		}
	}
	return false
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
		widen := t.DType.Widen()
		_, nan16 := bits16(t.DType)
		for i, h := range t.U16 {
			if math.IsInf(float64(widen(h)), 0) {
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
func shapeFrom(c *reduce.CentralMoments, mn, mx []float64, skip bool, skew, kurt []float64) {
	for r := range skew {
		skew[r], kurt[r] = math.NaN(), math.NaN()
		if c.N[r] == 0 || mn[r] == mx[r] || (c.NaNs[r] > 0 && !skip) {
			continue
		}
		m2 := c.M2[r]
		skew[r] = c.M3[r] / math.Pow(m2, 1.5)
		kurt[r] = c.M4[r]/(m2*m2) - 3
	}
}

// shape34 computes the skewness m3/m2^1.5 and the excess kurtosis m4/m2²−3
// (central moments with 1/n, as scipy.stats.skew and kurtosis by default)
// of each row of data (outer rows of inner values), in float64, two-pass:
// the mean, then the powers of the deviations. With skip NaNs are left out
// (the caller has made ±Inf NaN); otherwise a NaN makes the row's values
// NaN. A row whose values are all equal (min = max) has NaN for both.
func shape34[T float](data []T, outer, inner int, skip bool, skew, kurt []float64) {
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
			if hasNaN && !skip {
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
			m2, m3, m4 = m2/float64(n), m3/float64(n), m4/float64(n)
			skew[r] = m3 / math.Pow(m2, 1.5)
			kurt[r] = m4/(m2*m2) - 3
		}
	})
}

// corrSets computes the correlation matrices of b sets of t samples of p
// variables, data (b, t, p) in x's dtype (overwritten: non-finite values
// are zeroed or rows compacted), with package cov on dev or the CPU.
// It returns b·p·p correlations in float64, which variables hold a NaN or
// ±Inf under Propagate (b·p flags), and notes naming the sets and
// variables whose correlations are NaN.
func corrSets(ctx context.Context, dev *engine.Device, data *tensor.Tensor, b, t, p int, policy NaNPolicy,
	tm *engine.Timing, setName func(int) string, varName string) ([]float64, []bool, []string, error) {
	switch {
	case data.DType == tensor.F64:
		return corrSetsT(ctx, dev, data, data.F64, finite[float64], func(x float64) float64 { return x }, b, t, p, policy, tm, setName, varName)
	case data.DType.Is16():
		widen := data.DType.Widen()
		isFinite, _ := bits16(data.DType)
		return corrSetsT(ctx, dev, data, data.U16, isFinite, func(h uint16) float64 { return float64(widen(h)) }, b, t, p, policy, tm, setName, varName)
	}
	return corrSetsT(ctx, dev, data, data.F32, finite[float32], func(x float32) float64 { return float64(x) }, b, t, p, policy, tm, setName, varName)
}

// corrSetsT is corrSets on data's values v: isFinite tells the finite
// values, val gives one as float64 (exactly).
func corrSetsT[T elem](ctx context.Context, dev *engine.Device, data *tensor.Tensor, v []T, isFinite func(T) bool, val func(T) float64,
	b, t, p int, policy NaNPolicy, tm *engine.Timing, setName func(int) string, varName string) ([]float64, []bool, []string, error) {
	bad := make([]bool, b*p)      // a variable with a non-finite sample (Propagate): NaN row and column
	constant := make([]bool, b*p) // a variable whose used samples are all equal
	count := make([]int, b)       // samples used per set
	// Scan each set: non-finite values, rows used, constant variables.
	par.Range(b, 1, func(lo, hi int) {
		mn, mx := make([]float64, p), make([]float64, p)
		for s := lo; s < hi; s++ {
			set := v[s*t*p : (s+1)*t*p]
			used := 0
			for i := range p {
				mn[i], mx[i] = math.Inf(1), math.Inf(-1)
			}
			for r := 0; r < t; r++ {
				row := set[r*p : (r+1)*p]
				ok := true
				for i, x := range row {
					if !isFinite(x) {
						ok = false
						if policy == Propagate {
							bad[s*p+i] = true
							row[i] = 0
						}
					}
				}
				if policy == Skip && !ok {
					continue
				}
				if policy == Skip && used != r { // compact: the set's used rows first
					copy(set[used*p:(used+1)*p], row)
				}
				for i, x := range set[used*p : (used+1)*p] {
					if !bad[s*p+i] {
						f := val(x)
						mn[i], mx[i] = min(mn[i], f), max(mx[i], f)
					}
				}
				used++
			}
			count[s] = used
			for i := range p {
				constant[s*p+i] = !bad[s*p+i] && used > 0 && mn[i] == mx[i]
			}
		}
	})
	corr := make([]float64, b*p*p)
	for i := range corr {
		corr[i] = math.NaN()
	}
	// Group the sets by the samples they use (all t unless Skip dropped
	// some), and run cov on each group as one batch.
	groups := map[int][]int{}
	for s := range b {
		if count[s] >= 2 {
			groups[count[s]] = append(groups[count[s]], s)
		}
	}
	for tc, sets := range groups {
		var in *tensor.Tensor
		if tc == t && len(sets) == b {
			in = &tensor.Tensor{Shape: []int{b, t, p}, DType: data.DType, F32: data.F32, F64: data.F64, U16: data.U16}
		} else {
			g := make([]T, len(sets)*tc*p)
			for k, s := range sets {
				copy(g[k*tc*p:(k+1)*tc*p], v[s*t*p:s*t*p+tc*p])
			}
			in = &tensor.Tensor{Shape: []int{len(sets), tc, p}, DType: data.DType}
			switch g := any(g).(type) {
			case []float64:
				in.F64 = g
			case []uint16:
				in.U16 = g
			default:
				in.F32 = g.([]float32)
			}
		}
		r, st, err := cov.Run(ctx, dev, in, cov.Options{})
		tm.Add(st)
		if err != nil {
			return nil, nil, nil, fmt.Errorf("latent: correlation: %w", err)
		}
		c := r.Cov.Float64s()
		for k, s := range sets {
			m := c[k*p*p : (k+1)*p*p]
			out := corr[s*p*p : (s+1)*p*p]
			for i := range p {
				for j := range p {
					if bad[s*p+i] || bad[s*p+j] || constant[s*p+i] || constant[s*p+j] {
						continue
					}
					if i == j {
						out[i*p+j] = 1
						continue
					}
					out[i*p+j] = max(-1, min(1, m[i*p+j]/math.Sqrt(m[i*p+i]*m[j*p+j])))
				}
			}
		}
	}
	// Notes.
	var consts, short []string
	for s := range b {
		if count[s] < 2 {
			short = append(short, fmt.Sprintf("%s (%d usable)", setName(s), count[s]))
			continue
		}
		for i := range p {
			if constant[s*p+i] {
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
	return corr, bad, notes, nil
}
