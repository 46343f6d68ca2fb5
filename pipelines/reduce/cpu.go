package reduce

import (
	"context"
	"fmt"
	"math"
	"runtime"
	"sync/atomic"

	"github.com/vkstat/vkstat/internal/par"
	"github.com/vkstat/vkstat/internal/vec"
	"github.com/vkstat/vkstat/tensor"
)

// Tuning of the CPU path.
const (
	// blockWidth is the most columns (j) one task handles when Inner > 1:
	// its float64 accumulators (8 KiB each) stay in L1 or L2.
	blockWidth = 1024
	// chunkBytes is the input a column block reads per row chunk; each chunk
	// is read twice (sum, then squared deviations from the chunk mean), the
	// second time from cache.
	chunkBytes = 256 << 10
	// runBlock is the length of the two-pass blocks of a contiguous run
	// (Inner == 1).
	runBlock = 2048
	// minTaskElems is the least input a task gets when work is divided.
	minTaskElems = 1 << 15
	// serialElems: inputs smaller than this are reduced on the calling
	// goroutine only. With the vector sums (internal/vec) 2¹⁸ float64
	// take some 40 µs on one core, what handing work to a second goroutine
	// can cost on a busy machine (a 10⁵-element mean: 11 µs inline, 15–28
	// µs split over two, docs/benchmarks/callcost.md).
	serialElems = 1 << 18
)

// float is the element type of a tensor.
type float interface{ float32 | float64 }

// needs records which accumulators the requested statistics need. The sum
// is always accumulated: it is cheap and it reveals NaNs.
type needs struct{ m2, minmax bool }

// CPU computes the requested statistics of in over opt.Axes in native Go.
// Each output has shape opt.Geometry(in.Shape).OutShape and in's dtype
// (float32 for float16 and bfloat16 inputs, which are widened exactly).
//
// Accumulation is in float64 for float32 and float64 data alike. Mean and
// the sum of squared deviations (M2) are computed two-pass within blocks that
// fit in cache and blocks are merged with Chan et al.'s pairwise update, so
// var and std do not suffer the cancellation of Σx² − (Σx)²/n. var is
// M2/(n−DDof), NaN when n−DDof <= 0; std is its square root.
//
// Unless opt.SkipNaN, a NaN anywhere in a slice makes all of that slice's
// statistics NaN (min and max included). With opt.SkipNaN NaNs are ignored:
// a slice of NaNs only has sum 0 (as numpy.nansum) and every other
// statistic NaN.
//
// Work is spread over runtime.GOMAXPROCS goroutines: over blocks of
// contiguous columns when the axis is not the last one, over outputs or over
// pieces of one long run when it is.
func CPU(in *tensor.Tensor, opt Options, stats []Stat) (map[Stat]*tensor.Tensor, error) {
	return cpu(context.Background(), in, opt, stats)
}

// cpu is CPU that stops, with ctx's error, once ctx is done: the tasks
// begun finish, none is begun after and no output is written after, so a
// cancelled call writes nothing into its outputs once it has returned.
func cpu(ctx context.Context, in *tensor.Tensor, opt Options, stats []Stat) (map[Stat]*tensor.Tensor, error) {
	if len(stats) == 0 {
		return nil, fmt.Errorf("reduce: no statistic requested")
	}
	nd, err := statNeeds(stats)
	if err != nil {
		return nil, err
	}
	g, err := checkInput(in, opt)
	if err != nil {
		return nil, err
	}
	out := make(map[Stat]*tensor.Tensor, len(stats))
	for _, s := range stats {
		if out[s] == nil {
			out[s] = opt.Out.New(s.String(), outType(in.DType), g.OutShape...)
		}
	}
	if g.Outputs() == 0 {
		return out, nil // e.g. shape (0, 5) along axis 1: NumPy gives shape (0,)
	}
	done := ctx.Done()
	switch {
	case in.DType.Is16():
		cpu16(in, g, opt, nd, out, done)
	case in.DType == tensor.F64:
		var outs [numStats][]float64
		for s, t := range out {
			outs[s] = t.F64
		}
		newReducer(in.F64, g, opt, nd, outs, done).run()
	default:
		var outs [numStats][]float32
		for s, t := range out {
			outs[s] = t.F32
		}
		newReducer(in.F32, g, opt, nd, outs, done).run()
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return out, nil
}

// statNeeds is what accumulators stats need.
func statNeeds(stats []Stat) (needs, error) {
	var nd needs
	for _, s := range stats {
		switch s {
		case Sum, Mean:
		case Var, Std:
			nd.m2 = true
		case Min, Max:
			nd.minmax = true
		default:
			return nd, fmt.Errorf("reduce: unknown statistic %d", int(s))
		}
	}
	return nd, nil
}

// checkInput plans in's reduction over opt.Axes, refusing a tensor whose
// data do not fill its shape.
func checkInput(in *tensor.Tensor, opt Options) (Geometry, error) {
	if in == nil {
		return Geometry{}, fmt.Errorf("reduce: nil input tensor")
	}
	g, err := opt.plan(in.Shape)
	if err != nil {
		return Geometry{}, fmt.Errorf("reduce: %w", err)
	}
	n := in.Len()
	have := len(in.F32)
	switch {
	case in.DType == tensor.F64:
		have = len(in.F64)
	case in.DType.Is16():
		have = len(in.U16)
	}
	if have != n {
		return Geometry{}, fmt.Errorf("reduce: input has shape %s (%d elements) but holds %d %s values",
			tensor.ShapeString(in.Shape), n, have, in.DType)
	}
	return g, nil
}

// cpu16Block is the most float32 values that cpu16 widens at a time.
const cpu16Block = 1 << 22

// cpu16 reduces 16-bit data as float32 (exactly widened) in blocks of
// whole outer slabs of about cpu16Block values (one slab when a slab is
// larger), so the host holds the 16-bit array and one block of float32.
// It stops between blocks once done is closed.
func cpu16(in *tensor.Tensor, g Geometry, opt Options, nd needs, out map[Stat]*tensor.Tensor, done <-chan struct{}) {
	tab := in.DType.Table()
	slab := g.N * g.Inner
	per := max(1, cpu16Block/slab)
	buf := make([]float32, min(per, g.Outer)*slab)
	for o0 := 0; o0 < g.Outer && !closed(done); o0 += per {
		c := min(per, g.Outer-o0)
		src, dst := in.U16[o0*slab:(o0+c)*slab], buf[:c*slab]
		par.Range(len(dst), 1<<16, func(lo, hi int) {
			for i := lo; i < hi; i++ {
				dst[i] = tab[src[i]]
			}
		})
		var outs [numStats][]float32
		for s, t := range out {
			outs[s] = t.F32[o0*g.Inner : (o0+c)*g.Inner]
		}
		newReducer(dst, Geometry{Outer: c, N: g.N, Inner: g.Inner}, opt, nd, outs, done).run()
	}
}

// acc holds the partial statistics of a set of columns (or, for Inner == 1,
// of outputs): count, sum, M2, min and max, all in float64. Without SkipNaN
// a NaN in the data shows as a NaN sum and M2, and as NaN min and max once
// the segment is done.
type acc struct {
	cnt, s, m2, mn, mx []float64
}

func newAcc(w int, nd needs) *acc {
	k := 2
	if nd.m2 {
		k++
	}
	if nd.minmax {
		k += 2
	}
	buf := make([]float64, k*w) // one allocation for every accumulator
	take := func() []float64 {
		v := buf[:w:w]
		buf = buf[w:]
		return v
	}
	a := &acc{cnt: take(), s: take()}
	if nd.m2 {
		a.m2 = take()
	}
	if nd.minmax {
		a.mn, a.mx = take(), take()
	}
	return a
}

// reset empties the first w entries and returns a with them as its length.
func (a *acc) reset(w int) acc {
	r := acc{cnt: a.cnt[:w], s: a.s[:w]}
	clear(r.cnt)
	clear(r.s)
	if a.m2 != nil {
		r.m2 = a.m2[:w]
		clear(r.m2)
	}
	if a.mn != nil {
		r.mn, r.mx = a.mn[:w], a.mx[:w]
		for j := range r.mn {
			r.mn[j], r.mx[j] = math.Inf(1), math.Inf(-1)
		}
	}
	return r
}

// merge folds b into a column by column with Chan's update of M2.
func (a *acc) merge(b *acc) {
	for j := range a.s {
		nb := b.cnt[j]
		if nb == 0 {
			continue
		}
		na := a.cnt[j]
		if na == 0 {
			a.cnt[j], a.s[j] = nb, b.s[j]
			if a.m2 != nil {
				a.m2[j] = b.m2[j]
			}
		} else {
			n := na + nb
			if a.m2 != nil {
				d := b.s[j]/nb - a.s[j]/na
				a.m2[j] += b.m2[j] + d*d*(na*nb/n)
			}
			a.cnt[j], a.s[j] = n, a.s[j]+b.s[j]
		}
		if a.mn != nil {
			// NaN (a NaN seen) wins; +Inf/−Inf mark "no value yet".
			if v := b.mn[j]; v < a.mn[j] || v != v {
				a.mn[j] = v
			}
			if v := b.mx[j]; v > a.mx[j] || v != v {
				a.mx[j] = v
			}
		}
	}
}

// scratch is one worker's memory.
type scratch struct {
	cs, cq, cm, cc []float64 // chunk sum, chunk M2, chunk mean, chunk count
	a              *acc      // the task's result when tasks are not split
}

// item is a unit of output: for Inner > 1, columns j0..j0+w of outer index
// o; for Inner == 1, the w outputs from o on.
type item struct{ o, j0, w int }

// reducer is one reduction in progress.
type reducer[T float] struct {
	data   []T
	g      Geometry
	skip   bool
	nd     needs
	ddof   float64
	outs   [numStats][]T
	width  int // most outputs per item
	nJB    int // column blocks per outer index (Inner > 1)
	items  int
	splits int // row ranges per item
	procs  int
	// done, once closed, stops the reduction between tasks (nil: never).
	done <-chan struct{}
	// keep, when set, receives the accumulators (the full output width)
	// instead of the outputs (CPUPartial).
	keep *acc
	// sc is the scratch of a reduction that runs inline, kept for a
	// repeat (CPUPlan).
	sc *scratch
	// alone runs divided work on the calling goroutine only: the same
	// tasks merged in the same order, so the same bits (CPUPlan's pace).
	alone bool
}

func newReducer[T float](data []T, g Geometry, opt Options, nd needs, outs [numStats][]T, done <-chan struct{}) *reducer[T] {
	r := &reducer[T]{data: data, g: g, skip: opt.SkipNaN, nd: nd, ddof: float64(opt.DDof), outs: outs, done: done}
	r.procs = runtime.GOMAXPROCS(0)
	if len(data) < serialElems {
		r.procs = 1
	}
	if g.Inner > 1 {
		r.nJB = (g.Inner + blockWidth - 1) / blockWidth
		w := (g.Inner + r.nJB - 1) / r.nJB
		if r.nJB > 1 {
			w = (w + 7) &^ 7 // keep blocks a multiple of 8 columns
		}
		r.width = w
		r.nJB = (g.Inner + w - 1) / w
		r.items = g.Outer * r.nJB
	} else {
		// Group short runs so that a task has minTaskElems of input, but
		// leave several tasks per worker.
		w := max(1, minTaskElems/g.N)
		if r.procs > 1 {
			w = min(w, max(1, g.Outer/(4*r.procs)))
		}
		w = min(w, g.Outer)
		r.width = w
		r.items = (g.Outer + w - 1) / w
	}
	r.splits = 1
	if r.procs > 1 && r.items < 4*r.procs {
		s := (4*r.procs + r.items - 1) / r.items
		s = min(s, max(1, g.N*r.width/minTaskElems), g.N)
		r.splits = max(s, 1)
	}
	return r
}

// itemAt describes item k.
func (r *reducer[T]) itemAt(k int) item {
	if r.g.Inner > 1 {
		o, b := k/r.nJB, k%r.nJB
		j0 := b * r.width
		return item{o: o, j0: j0, w: min(r.width, r.g.Inner-j0)}
	}
	o := k * r.width
	return item{o: o, w: min(r.width, r.g.Outer-o)}
}

// outBase is the index in the outputs of item it's first value.
func (r *reducer[T]) outBase(it item) int {
	if r.g.Inner > 1 {
		return it.o*r.g.Inner + it.j0
	}
	return it.o
}

func (r *reducer[T]) newScratch() *scratch {
	sc := &scratch{}
	if r.g.Inner > 1 {
		sc.cs = make([]float64, r.width)
		sc.cq = make([]float64, r.width)
		sc.cm = make([]float64, r.width)
		sc.cc = make([]float64, r.width)
	}
	if r.splits == 1 {
		sc.a = newAcc(r.width, r.nd)
	}
	return sc
}

// divided reports whether the work is divided into tasks for several
// goroutines (else run does it inline).
func (r *reducer[T]) divided() bool { return r.splits > 1 || min(r.procs, r.items) > 1 }

func (r *reducer[T]) run() {
	if !r.divided() { // a small call: inline, no goroutine, atomic or closure
		if r.sc == nil {
			r.sc = r.newScratch()
		}
		for k := 0; k < r.items && !closed(r.done); k++ {
			r.whole(r.sc, k)
		}
		return
	}
	if r.splits == 1 {
		r.parallel(r.items, r.whole)
		return
	}
	parts := make([]*acc, r.items*r.splits)
	r.parallel(len(parts), func(sc *scratch, t int) {
		k, p := t/r.splits, t%r.splits
		it := r.itemAt(k)
		i0, i1 := p*r.g.N/r.splits, (p+1)*r.g.N/r.splits
		a := newAcc(it.w, r.nd).reset(it.w)
		r.segment(&a, sc, it, i0, i1)
		parts[t] = &a
	})
	if closed(r.done) { // some parts were never computed: write nothing
		return
	}
	for k := 0; k < r.items; k++ {
		a := parts[k*r.splits]
		for p := 1; p < r.splits; p++ {
			a.merge(parts[k*r.splits+p])
		}
		r.finish(a, r.outBase(r.itemAt(k)))
	}
}

// whole reduces item k whole with scratch sc, writing its outputs.
func (r *reducer[T]) whole(sc *scratch, k int) {
	it := r.itemAt(k)
	a := sc.a.reset(it.w)
	r.segment(&a, sc, it, 0, r.g.N)
	r.finish(&a, r.outBase(it))
}

// parallel runs fn for tasks 0..n-1 on up to r.procs goroutines (the
// calling one alone with r.alone), the calling one included, handing out
// tasks one at a time. It returns when every task is done, without
// waiting for a goroutine that found none left (one the scheduler started
// late, on a busy machine), which then writes nothing. Once r.done is
// closed the tasks not begun are skipped.
func (r *reducer[T]) parallel(n int, fn func(sc *scratch, t int)) {
	workers := min(r.procs, n)
	if r.alone {
		workers = 1
	}
	var next, done atomic.Int64
	finished := make(chan struct{})
	work := func() {
		var sc *scratch
		for {
			t := int(next.Add(1) - 1)
			if t >= n {
				return
			}
			if sc == nil {
				sc = r.newScratch()
			}
			if !closed(r.done) {
				fn(sc, t)
			}
			if done.Add(1) == int64(n) {
				close(finished)
			}
		}
	}
	for w := 1; w < workers; w++ {
		go work()
	}
	work()
	<-finished
}

// closed reports whether done is closed (never, for nil).
func closed(done <-chan struct{}) bool {
	select {
	case <-done:
		return true
	default:
		return false
	}
}

// finish writes the statistics of a to the outputs from index base on.
func (r *reducer[T]) finish(a *acc, base int) {
	if k := r.keep; k != nil {
		copy(k.cnt[base:], a.cnt)
		copy(k.s[base:], a.s)
		copy(k.m2[base:], a.m2)
		copy(k.mn[base:], a.mn)
		copy(k.mx[base:], a.mx)
		return
	}
	nan := math.NaN()
	for c := range a.s {
		k := base + c
		n, s := a.cnt[c], a.s[c]
		if o := r.outs[Sum]; o != nil {
			o[k] = T(s)
		}
		if o := r.outs[Mean]; o != nil {
			o[k] = T(s / n) // 0/0 = NaN for a slice of NaNs only
		}
		if a.m2 != nil {
			v := nan
			if dof := n - r.ddof; dof > 0 {
				v = a.m2[c] / dof
			}
			if o := r.outs[Var]; o != nil {
				o[k] = T(v)
			}
			if o := r.outs[Std]; o != nil {
				o[k] = T(math.Sqrt(v))
			}
		}
		if a.mn != nil {
			mn, mx := a.mn[c], a.mx[c]
			if n == 0 {
				mn, mx = nan, nan
			}
			if o := r.outs[Min]; o != nil {
				o[k] = T(mn)
			}
			if o := r.outs[Max]; o != nil {
				o[k] = T(mx)
			}
		}
	}
}

// segment accumulates rows i0..i1 of item it into a (reset, of length it.w).
func (r *reducer[T]) segment(a *acc, sc *scratch, it item, i0, i1 int) {
	if r.g.Inner > 1 {
		switch {
		case r.skip:
			r.columnsSkip(a, sc, it, i0, i1)
		default:
			r.columns(a, sc, it, i0, i1)
		}
		return
	}
	N := r.g.N
	if !r.skip && a.mn == nil && i0 == 0 && i1 == N && N <= runBlock {
		// Short whole runs, NaNs included: runAll's one block of each, in
		// one call for them all.
		x := r.data[it.o*N : (it.o+it.w)*N]
		vec.SumRuns(a.s, x, N)
		nb := float64(N)
		for c := range a.cnt {
			a.cnt[c] = nb
		}
		if a.m2 != nil {
			for c, s := range a.s {
				a.m2[c] = s / nb // the means, read before each M2 is written
			}
			vec.SumSqDevRuns(a.m2, a.m2, x, N)
		}
		return
	}
	for c := 0; c < it.w; c++ {
		off := (it.o + c) * N
		var st runAcc
		if r.skip {
			st = runSkip(r.data[off+i0:off+i1], r.nd)
		} else {
			st = runAll(r.data[off+i0:off+i1], r.nd)
		}
		a.cnt[c], a.s[c] = st.n, st.s
		if a.m2 != nil {
			a.m2[c] = st.m2
		}
		if a.mn != nil {
			a.mn[c], a.mx[c] = st.mn, st.mx
		}
	}
}

// rowsPerChunk is how many rows of w columns make a chunk of chunkBytes.
func (r *reducer[T]) rowsPerChunk(w int) int {
	var z T
	size := 8
	if _, ok := any(z).(float32); ok {
		size = 4
	}
	return max(1, chunkBytes/(w*size))
}

// columns accumulates rows i0..i1 of a block of columns, NaNs included.
// Rows are taken a chunk at a time: the chunk's sums, then its squared
// deviations from its own mean (re-read from cache), merged into a with
// Chan's update. All columns share the count.
func (r *reducer[T]) columns(a *acc, sc *scratch, it item, i0, i1 int) {
	inner, w := r.g.Inner, it.w
	base := it.o*r.g.N*inner + it.j0
	R := r.rowsPerChunk(w)
	cs, cq, cm := sc.cs[:w], sc.cq[:w], sc.cm[:w]
	na := 0.0
	for c0 := i0; c0 < i1; c0 += R {
		c1 := min(c0+R, i1)
		clear(cs)
		if a.mn != nil {
			i := c0
			for ; i+4 <= c1; i += 4 {
				o := base + i*inner
				addRowsMinMax4(cs, a.mn[:w], a.mx[:w], r.data[o:][:w], r.data[o+inner:][:w], r.data[o+2*inner:][:w], r.data[o+3*inner:][:w])
			}
			for ; i < c1; i++ {
				addRowMinMax(cs, a.mn, a.mx, r.data[base+i*inner:][:w])
			}
		} else {
			r.sumRows(cs, base, c0, c1)
		}
		nb := float64(c1 - c0)
		if a.m2 != nil {
			inv := 1 / nb
			for j, v := range cs {
				cm[j] = v * inv
			}
			clear(cq)
			r.sqDevRows(cq, cm, base, c0, c1)
			if na == 0 {
				copy(a.m2, cq)
			} else {
				f, ia := na*nb/(na+nb), 1/na
				s, m2 := a.s[:w], a.m2[:w]
				for j, m := range cm {
					d := m - s[j]*ia
					m2[j] += cq[j] + d*d*f
				}
			}
		}
		s := a.s[:w]
		for j, v := range cs {
			s[j] += v
		}
		na += nb
	}
	for j := range a.cnt {
		a.cnt[j] = na
	}
	if a.mn != nil {
		// A NaN sum means a NaN, or +Inf and −Inf, in the column.
		for j, v := range a.s {
			if v != v && r.columnHasNaN(base+j, i0, i1) {
				a.mn[j], a.mx[j] = math.NaN(), math.NaN()
			}
		}
	}
}

// sumRows adds rows i0..i1 of the block at base to cs.
func (r *reducer[T]) sumRows(cs []float64, base, i0, i1 int) {
	vec.AddRows(cs, r.data[base+i0*r.g.Inner:], r.g.Inner, i1-i0)
}

// sqDevRows adds the squared deviations from cm of rows i0..i1 of the
// block at base to cq.
func (r *reducer[T]) sqDevRows(cq, cm []float64, base, i0, i1 int) {
	vec.AddSqDevRows(cq, cm, r.data[base+i0*r.g.Inner:], r.g.Inner, i1-i0)
}

func (r *reducer[T]) columnHasNaN(off, i0, i1 int) bool {
	for i := i0; i < i1; i++ {
		if v := r.data[off+i*r.g.Inner]; v != v {
			return true
		}
	}
	return false
}

// columnsSkip is columns ignoring NaNs: every column has its own count.
func (r *reducer[T]) columnsSkip(a *acc, sc *scratch, it item, i0, i1 int) {
	inner, w := r.g.Inner, it.w
	base := it.o*r.g.N*inner + it.j0
	R := r.rowsPerChunk(w)
	cs, cq, cm, cc := sc.cs[:w], sc.cq[:w], sc.cm[:w], sc.cc[:w]
	for c0 := i0; c0 < i1; c0 += R {
		c1 := min(c0+R, i1)
		clear(cs)
		clear(cc)
		for i := c0; i < c1; i++ {
			addRowSkip(cs, cc, a.mn, a.mx, r.data[base+i*inner:][:w])
		}
		if a.m2 != nil {
			for j, v := range cs {
				cm[j] = v / cc[j]
			}
			clear(cq)
			for i := c0; i < c1; i++ {
				addSqDevRowSkip(cq, cm, r.data[base+i*inner:][:w])
			}
			for j, nb := range cc {
				if nb == 0 {
					continue
				}
				if na := a.cnt[j]; na == 0 {
					a.m2[j] = cq[j]
				} else {
					d := cm[j] - a.s[j]/na
					a.m2[j] += cq[j] + d*d*(na*nb/(na+nb))
				}
			}
		}
		for j, v := range cs {
			a.s[j] += v
			a.cnt[j] += cc[j]
		}
	}
}

// addRowsMinMax4 adds four rows to cs and folds them into mn and mx
// (ignoring NaNs: they show in the sum).
func addRowsMinMax4[T float](cs, mn, mx []float64, r0, r1, r2, r3 []T) {
	n := len(cs)
	mn, mx = mn[:n], mx[:n]
	r0, r1, r2, r3 = r0[:n], r1[:n], r2[:n], r3[:n]
	for j := range cs {
		x0, x1, x2, x3 := float64(r0[j]), float64(r1[j]), float64(r2[j]), float64(r3[j])
		cs[j] += (x0 + x1) + (x2 + x3)
		lo, hi := mn[j], mx[j]
		if x0 < lo {
			lo = x0
		}
		if x0 > hi {
			hi = x0
		}
		if x1 < lo {
			lo = x1
		}
		if x1 > hi {
			hi = x1
		}
		if x2 < lo {
			lo = x2
		}
		if x2 > hi {
			hi = x2
		}
		if x3 < lo {
			lo = x3
		}
		if x3 > hi {
			hi = x3
		}
		mn[j], mx[j] = lo, hi
	}
}

// addRowMinMax adds row to cs and folds it into mn and mx.
func addRowMinMax[T float](cs, mn, mx []float64, row []T) {
	cs = cs[:len(row)]
	mn = mn[:len(row)]
	mx = mx[:len(row)]
	for j, v := range row {
		x := float64(v)
		cs[j] += x
		if x < mn[j] {
			mn[j] = x
		}
		if x > mx[j] {
			mx[j] = x
		}
	}
}

// addRowSkip adds the non-NaN values of row to cs, counts them in cc and,
// when mn is not nil, folds them into mn and mx.
func addRowSkip[T float](cs, cc, mn, mx []float64, row []T) {
	cs = cs[:len(row)]
	cc = cc[:len(row)]
	if mn == nil {
		for j, v := range row {
			if v == v {
				cs[j] += float64(v)
				cc[j]++
			}
		}
		return
	}
	mn = mn[:len(row)]
	mx = mx[:len(row)]
	for j, v := range row {
		if v == v {
			x := float64(v)
			cs[j] += x
			cc[j]++
			if x < mn[j] {
				mn[j] = x
			}
			if x > mx[j] {
				mx[j] = x
			}
		}
	}
}

// addSqDevRowSkip adds (row − cm)² to cq where row is not NaN.
func addSqDevRowSkip[T float](cq, cm []float64, row []T) {
	cq = cq[:len(row)]
	cm = cm[:len(row)]
	for j, v := range row {
		if v == v {
			d := float64(v) - cm[j]
			cq[j] += d * d
		}
	}
}

// runAcc is the partial statistics of one contiguous run.
type runAcc struct {
	n, s, m2, mn, mx float64
}

// add folds a block's count, sum and M2 into st with Chan's update.
func (st *runAcc) add(nb, sb, qb float64) {
	if st.n == 0 {
		st.n, st.s, st.m2 = nb, sb, qb
		return
	}
	na := st.n
	n := na + nb
	d := sb/nb - st.s/na
	st.m2 += qb + d*d*(na*nb/n)
	st.n, st.s = n, st.s+sb
}

// runAll reduces a contiguous run, NaNs included, in two-pass blocks of
// runBlock elements merged with Chan's update.
func runAll[T float](x []T, nd needs) runAcc {
	st := runAcc{mn: math.Inf(1), mx: math.Inf(-1)}
	nan := false
	for len(x) > 0 {
		b := x[:min(runBlock, len(x))]
		x = x[len(b):]
		var sb float64
		if nd.minmax {
			var mn, mx float64
			sb, mn, mx = sumMinMax(b)
			st.mn, st.mx = min(st.mn, mn), max(st.mx, mx)
			if sb != sb && !nan {
				nan = hasNaN(b)
			}
		} else {
			sb = vec.Sum(b)
		}
		nb := float64(len(b))
		var qb float64
		if nd.m2 {
			qb = vec.SumSqDev(b, sb/nb)
		}
		st.add(nb, sb, qb)
	}
	if nan {
		st.mn, st.mx = math.NaN(), math.NaN()
	}
	return st
}

// runSkip is runAll ignoring NaNs.
func runSkip[T float](x []T, nd needs) runAcc {
	st := runAcc{mn: math.Inf(1), mx: math.Inf(-1)}
	for len(x) > 0 {
		b := x[:min(runBlock, len(x))]
		x = x[len(b):]
		var sb, nb float64
		for _, v := range b {
			if v == v {
				f := float64(v)
				sb += f
				nb++
				if nd.minmax {
					st.mn, st.mx = min(st.mn, f), max(st.mx, f)
				}
			}
		}
		if nb == 0 {
			continue
		}
		var qb float64
		if nd.m2 {
			m := sb / nb
			for _, v := range b {
				if v == v {
					d := float64(v) - m
					qb += d * d
				}
			}
		}
		st.add(nb, sb, qb)
	}
	return st
}

// sumMinMax is vec.Sum that also returns the smallest and largest values
// (ignoring NaNs: a NaN shows in the sum).
func sumMinMax[T float](x []T) (s, mn, mx float64) {
	var s0, s1 float64
	mn, mx = math.Inf(1), math.Inf(-1)
	for len(x) >= 2 {
		a, b := float64(x[0]), float64(x[1])
		s0 += a
		s1 += b
		if a < mn {
			mn = a
		}
		if a > mx {
			mx = a
		}
		if b < mn {
			mn = b
		}
		if b > mx {
			mx = b
		}
		x = x[2:]
	}
	for _, v := range x {
		a := float64(v)
		s0 += a
		if a < mn {
			mn = a
		}
		if a > mx {
			mx = a
		}
	}
	return s0 + s1, mn, mx
}

func hasNaN[T float](x []T) bool {
	for _, v := range x {
		if v != v {
			return true
		}
	}
	return false
}
