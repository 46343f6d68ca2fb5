package reduce

import (
	"context"
	"encoding/binary"
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/vkstat/vkstat/engine"
	"github.com/vkstat/vkstat/tensor"
)

// finishChunkBudget is the most records per output that one reduce_finish
// dispatch merges: llvmpipe (lavapipe) silently ends an invocation's loops
// after 65,535 iterations in all, and a whole-array reduction has up to
// 65,536 records per output (planTiles' target). Longer merges take several
// dispatches on every device, carrying the merge in a buffer, in the same
// order, so the results do not change; a GPU pays one dispatch more.
const finishChunkBudget = 30000

// testOptions steer the Vulkan path in tests (Options.test); nil, or the
// zero value, is what runs otherwise.
type testOptions struct {
	// window, when positive, bounds the input window in bytes, so that
	// small arrays take many tiles, starting at any element.
	window int64
	// inputBuffer, when set, is told the size of the device buffer that
	// holds the input window: float16 and bfloat16 take half the bytes of
	// float32.
	inputBuffer func(bytes int64)
	// central, when set, is told whether Options.Central's second pass ran
	// fused with the reduction.
	central func(fused bool)
}

// get is o, or the zero value for nil.
func (o *testOptions) get() testOptions {
	if o == nil {
		return testOptions{}
	}
	return *o
}

// bound is window bounded by the test's window.
func (o *testOptions) bound(window int64) int64 {
	if w := o.get().window; w > 0 {
		return min(window, w)
	}
	return window
}

// tile is a block of the (outer, rows, inner) view that one dispatch
// reduces: every binding it needs fits in maxStorageBufferRange.
type tile struct {
	o0, oCount int // outer indices
	r0, rows   int // rows along the reduced axis
	j0, jCount int // inner indices
	chunk      int // rows per record
	nchunks    int // records per output column
	// gather: the window holds only the tile's elements, rows×jCount
	// packed (one outer index), not the whole run from first to last.
	gather bool
}

func (t tile) records() int { return t.oCount * t.jCount * t.nchunks }

// planTiles splits g into tiles whose input window holds at most maxElems
// elements and whose records number at most maxRecords. Within a tile, the
// rows of each output column are split into chunks of at most chunkCap rows,
// and into more chunks when there are too few outputs to give about target
// invocations, but never below minChunk rows: merging many tiny partials
// with Chan's formula loses relative precision of the variance when the
// mean is large against the spread.
func planTiles(g Geometry, maxElems, maxRecords, target, chunkCap int) []tile {
	const minChunk = 64
	var tiles []tile
	jc := min(g.Inner, maxElems, maxRecords)
	split := func(t tile) {
		outputs := t.oCount * t.jCount
		n := max((target+outputs-1)/outputs, (t.rows+chunkCap-1)/chunkCap, 1)
		n = min(n, max(t.rows/minChunk, 1), max(maxRecords/outputs, 1))
		t.chunk = (t.rows + n - 1) / n
		t.nchunks = (t.rows + t.chunk - 1) / t.chunk
		tiles = append(tiles, t)
	}
	switch {
	case jc < g.Inner: // one row of one outer index is already too wide:
		// blocks of columns, as many rows as fit, gathered into the window
		// so that each column's partial covers many rows (partials of one
		// row each would merge into a less accurate variance).
		rows := max(min(g.N, maxElems/jc), 1)
		for o := 0; o < g.Outer; o++ {
			for j := 0; j < g.Inner; j += jc {
				for r := 0; r < g.N; r += rows {
					split(tile{o0: o, oCount: 1, r0: r, rows: min(rows, g.N-r), j0: j, jCount: min(jc, g.Inner-j), gather: true})
				}
			}
		}
	case g.N*g.Inner > maxElems: // one outer slab is too big: blocks of rows
		rows := max(maxElems/g.Inner, 1)
		for o := 0; o < g.Outer; o++ {
			for r := 0; r < g.N; r += rows {
				split(tile{o0: o, oCount: 1, r0: r, rows: min(rows, g.N-r), jCount: g.Inner})
			}
		}
	default: // whole slabs: as many outer indices per tile as fit
		per := min(g.Outer, maxElems/(g.N*g.Inner), max(maxRecords/g.Inner, 1))
		for o := 0; o < g.Outer; o += per {
			split(tile{o0: o, oCount: min(per, g.Outer-o), rows: g.N, jCount: g.Inner})
		}
	}
	return tiles
}

// accum holds float64 running statistics per output.
type accum struct {
	n, mean, m2, mn, mx, nans []float64
}

func newAccum(n int) *accum {
	a := &accum{make([]float64, n), make([]float64, n), make([]float64, n), make([]float64, n), make([]float64, n), make([]float64, n)}
	for i := range a.mn {
		a.mn[i], a.mx[i] = math.Inf(1), math.Inf(-1)
	}
	return a
}

// merge adds a partial (count nb, mean mb, M2 m2b, min, max, NaN count) to
// output q with Chan et al.'s pairwise update.
func (a *accum) merge(q int, nb, mb, m2b, mn, mx, nans float64) {
	a.nans[q] += nans
	if nb == 0 {
		return
	}
	na := a.n[q]
	n := na + nb
	d := mb - a.mean[q]
	if math.IsInf(d, 0) || math.IsNaN(d) {
		// A mean that overflowed (finite values whose shifted sum passed
		// the accumulator's range, ±Inf: a sum that overflows), or two
		// far apart: the weighted mean without d, and M2 overflows. (A
		// record with ±Inf values may hold NaN here: finish ignores it.)
		a.mean[q] = a.mean[q]*(na/n) + mb*(nb/n)
		a.m2[q] = math.Inf(1)
	} else {
		a.mean[q] += d * (nb / n) // d·nb would overflow first
		a.m2[q] += m2b + d*d*na*nb/n
	}
	a.n[q] = n
	a.mn[q] = math.Min(a.mn[q], mn)
	a.mx[q] = math.Max(a.mx[q], mx)
}

// finish turns the accumulators into the requested statistics by
// reduce_finish.comp's rules: ±Inf among the values (min −Inf or max +Inf)
// make sum and mean ±Inf (NaN with both signs) and var and std NaN, the
// merged mean and M2 being unused then; finite values whose sum overflows
// have a ±Inf mean, and a NaN M2 from finite values is an overflow (+Inf),
// as NumPy and the CPU path give.
func (a *accum) finish(g Geometry, dt tensor.DType, opt Options, stats []Stat) map[Stat]*tensor.Tensor {
	out := map[Stat]*tensor.Tensor{}
	for _, s := range stats {
		t := opt.Out.New(s.String(), dt, g.OutShape...)
		for q := range a.n {
			var v float64
			n := a.n[q]
			pinf, minf := math.IsInf(a.mx[q], 1), math.IsInf(a.mn[q], -1)
			switch {
			case a.nans[q] > 0 && !opt.SkipNaN:
				v = math.NaN()
			case n == 0 && s == Sum:
				v = 0
			case n == 0:
				v = math.NaN()
			case s == Min:
				v = a.mn[q]
			case s == Max:
				v = a.mx[q]
			case pinf || minf:
				v = math.NaN()
				if s == Sum || s == Mean {
					v = infOf(pinf, minf)
				}
			case s == Sum:
				v = a.mean[q] * n
			case s == Mean:
				v = a.mean[q]
				if sum := v * n; math.IsInf(sum, 0) {
					v = sum
				}
			default: // Var, Std
				m2 := a.m2[q]
				if math.IsNaN(m2) {
					m2 = math.Inf(1)
				}
				if n-float64(opt.DDof) <= 0 {
					v = math.NaN()
				} else {
					v = m2 / (n - float64(opt.DDof))
					if s == Std {
						v = math.Sqrt(v)
					}
				}
			}
			if dt == tensor.F64 {
				t.F64[q] = v
			} else {
				t.F32[q] = float32(v)
			}
		}
		out[s] = t
	}
	return out
}

// infOf is the sum (and mean) of values among which are +Inf (pinf), −Inf
// (minf) or both: that infinity, or NaN.
func infOf(pinf, minf bool) float64 {
	switch {
	case pinf && minf:
		return math.NaN()
	case pinf:
		return math.Inf(1)
	}
	return math.Inf(-1)
}

// Vulkan reduces in on dev, streamed through it in tiles as RunSource's
// source is.
func Vulkan(ctx context.Context, dev *engine.Device, in *tensor.Tensor, opt Options, stats []Stat) (map[Stat]*tensor.Tensor, engine.Timing, error) {
	out, _, tm, err := vulkanSource(ctx, dev, tensor.SourceOf(in), opt, stats, false)
	return out, tm, err
}

// vulkanSource reduces src on dev (RunSource); with central (a 2-d or 3-d
// array reduced along axis 1, Mean among stats) it also returns the central
// moments when one tile covers the array and the device merges its
// records, reduce_central running in the same submission on the same
// window (nil otherwise: see Options.Central).
func vulkanSource(ctx context.Context, dev *engine.Device, src tensor.Source, opt Options, stats []Stat, central bool) (_ map[Stat]*tensor.Tensor, _ *CentralMoments, tm engine.Timing, _ error) {
	defer engine.Begin(dev).End(&tm)
	g, err := opt.plan(src.Shape)
	if err != nil {
		return nil, nil, tm, err
	}
	if err := opt.Check(); err != nil {
		return nil, nil, tm, err
	}
	// var and std are NaN wherever n − ddof ≤ 0, n ≤ N: a ddof beyond the
	// axis length means what the length does (as on the CPU path), and
	// fits the kernel's uint32.
	opt.DDof = min(opt.DDof, g.N)
	if g.Outputs() == 0 {
		// Nothing to reduce (shape (0, 5) along axis 1, say): empty
		// outputs, as NumPy gives, and no zero-sized buffers.
		out := make(map[Stat]*tensor.Tensor, len(stats))
		for _, s := range stats {
			out[s] = opt.Out.New(s.String(), outType(src.DType), g.OutShape...)
		}
		return out, nil, tm, nil
	}
	v, err := dev.Variant(src.DType, false)
	if err != nil {
		return nil, nil, tm, err
	}
	// 16-bit values are stored packed, two to a uint32 word, and widened
	// to float32 by the kernel as it reads them.
	name, es, accDouble := "reduce_partial"+v.Suffix(), src.DType.Size(), !v.Acc32
	recSize := 28 // record.glsl's Record
	if accDouble {
		recSize = 48
	}
	tn, err := resolveTuning(ctx, dev.Info)
	if err != nil {
		return nil, nil, tm, err
	}
	workgroup := tn.workgroup
	// Long contiguous runs (the last axis) go to the rows kernel the
	// tuning names (device/tune, defaults/reduce.json): a workgroup
	// (reduce_rows) or a subgroup (reduce_rows_sg) per record, striding
	// over it so that neighbouring invocations read neighbouring memory;
	// otherwise ("none") an invocation per record walks its column or run.
	// lavapipe runs the latter 14× faster (its barriers are emulated), so
	// the built-in rule keeps it on CPU-type devices.
	rows := g.Inner == 1 && tn.rowsKernel != "none" && g.N >= tn.rowsMin
	subgroup := rows && tn.rowsKernel == "subgroup"
	var push any = partialPush{}
	spec := workgroup
	if rows {
		kind := "reduce_rows"
		if subgroup {
			kind = "reduce_rows_sg"
		}
		name = strings.Replace(name, "reduce_partial", kind, 1)
		push, spec = rowsPush{}, tn.rowsWG
	}
	k, err := dev.Kernel(engine.KernelSpec{Name: name, Push: push, Spec: []uint32{uint32(spec)}})
	if err != nil {
		return nil, nil, tm, err
	}

	// Memory: a records buffer of at most a quarter of what is available,
	// and one input window of what is left (an alignment's slack included),
	// each within one binding and one allocation.
	align := dev.Alignment()
	limit := min(dev.MaxBinding(), dev.MaxBuffer())
	total := src.Bytes()
	recCap := min(limit, dev.Available()/4) / int64(recSize)
	if recCap < 1 {
		return nil, nil, tm, fmt.Errorf("reduce: %w", engine.ErrNoFit)
	}
	target, chunkCap := 1<<16, 4096
	// Records per workgroup of the rows kernel: one, or one per subgroup.
	perGroup := 1
	switch {
	case subgroup:
		// About rows_records workgroups, each over at least 64 elements
		// per record, and chunks that each lane walks within lavapipe's
		// loop limit (rowsLoopBudget).
		sg := int(dev.Info.SubgroupSize)
		perGroup = tn.rowsWG / sg
		target, chunkCap = tn.rowsRecords*perGroup, rowsLoopBudget/2*sg
	case rows:
		// About rows_records workgroups, each over at least 64 elements.
		// Every invocation of reduce_rows scans its chunk alone for the
		// shift while the chunk starts with NaNs: the chunk stays within
		// lavapipe's loop limit (rowsLoopBudget) for that scan and the sums.
		target, chunkCap = tn.rowsRecords, rowsLoopBudget/2
	}
	plan := func(window int64) []tile {
		return planTiles(g, int((window-align)/int64(es)), int(recCap), target, chunkCap)
	}
	window := min(limit, total+align, dev.Available()/4*3&^(align-1))
	window = opt.test.bound(window)
	if window-align < int64(es) {
		return nil, nil, tm, fmt.Errorf("reduce: the input window: %w (%d bytes left)", engine.ErrNoFit, dev.Available())
	}
	tiles := plan(window)
	maxRec := 0
	for _, t := range tiles {
		maxRec = max(maxRec, t.records())
	}
	records, err := dev.NewBuffer(int64(maxRec * recSize))
	if err != nil {
		return nil, nil, tm, err
	}
	defer records.Release()
	largest := inputBytes(tiles, dev, g, es, align, src)
	if hook := opt.test.get().inputBuffer; hook != nil {
		hook(largest)
	}
	input, err := dev.NewBuffer(largest)
	if err != nil {
		return nil, nil, tm, err
	}
	defer input.Release()
	// When one tile covers the array, the device merges each output's
	// records and writes the statistics themselves: only they come back,
	// and the host merges nothing.
	var fin *finisher
	if len(tiles) == 1 {
		if fin, err = newFinisher(dev, v, g, outType(src.DType), opt, stats, tiles[0].nchunks, recSize, workgroup); err != nil {
			return nil, nil, tm, err
		}
		if fin != nil {
			defer fin.release()
		}
	}
	// The second pass of the central moments, fused: its one tile (the
	// whole array, as the first pass's) reads the window already uploaded
	// and the means that reduce_finish wrote.
	var ck *centralKernel
	var ctile tile
	var crec *engine.Buffer
	var chost []byte
	if central && fin != nil {
		if ck, err = newCentralKernel(ctx, dev, src.DType, g.Inner > 1); err != nil {
			return nil, nil, tm, err
		}
		ccap := min(limit, dev.Available()/4) / int64(ck.recSize)
		if ct := planTiles(g, int((window-align)/int64(es)), int(ccap), ck.target, ck.chunkCap); len(ct) == 1 && ccap >= 1 && ck.fits(ct[0]) {
			ctile = ct[0]
			if crec, err = dev.NewBuffer(int64(ctile.records() * ck.recSize)); err != nil {
				return nil, nil, tm, err
			}
			defer crec.Release()
			chost = make([]byte, ctile.records()*ck.recSize)
		}
	}
	// The host merges records only where the device does not: one tile
	// the device finishes needs neither the records' copy nor the
	// accumulators (12 MiB each for a 512×512 output, and the page faults
	// of filling them).
	var host []byte
	var acc *accum
	if fin == nil {
		t0 := time.Now()
		host, acc = make([]byte, maxRec*recSize), newAccum(g.Outputs())
		tm.AddPhase(engine.TimeConvert, time.Since(t0))
	}

	for _, t := range tiles {
		nrec := t.records()
		var out map[Stat]*tensor.Tensor
		st, err := dev.Run(ctx, func(seq *engine.Sequence) {
			in, skip := t.input(seq, dev, input, g, es, align, src)
			groups := dev.Groups((nrec + workgroup - 1) / workgroup)
			ostride, stride := g.N*g.Inner, g.Inner
			if t.gather {
				ostride, stride = 0, t.jCount
			}
			var p any = partialPush{skip: skip, ocount: t.oCount, jcount: t.jCount, rows: t.rows,
				chunk: t.chunk, nchunks: t.nchunks, ostride: uint32(ostride), inner: uint32(stride)}
			if rows {
				p = rowsPush{skip: skip, ocount: t.oCount, rows: t.rows, chunk: t.chunk, nchunks: t.nchunks, ostride: uint32(g.N)}
				groups = dev.Groups((nrec + perGroup - 1) / perGroup)
			}
			seq.Dispatch(k, groups, p, in,
				engine.Binding{Buf: records, Size: int64(nrec * recSize)})
			if fin != nil {
				out = fin.record(seq, records, t.nchunks, func() {
					if crec == nil {
						return
					}
					csize, cskip, _ := ctile.window(g, es, align, src)
					ck.dispatch(seq, dev, ctile, g, engine.Binding{Buf: in.Buf, Offset: in.Offset, Size: csize}, cskip,
						engine.Bind(fin.buf), slices.Index(fin.uniq, Mean)*g.Outputs(), crec)
					seq.Download(crec, 0, chost)
				})
			} else {
				seq.Download(records, 0, host[:nrec*recSize])
			}
		})
		tm.Add(st)
		if err != nil {
			return nil, nil, tm, err
		}
		if fin != nil {
			var cm *CentralMoments
			if crec != nil {
				t0 := time.Now()
				a := newCentralAcc(g.Outputs())
				a.add(chost, ctile, g, ck.double)
				cm = a.finish()
				tm.Download += time.Since(t0)
				tm.AddPhase(engine.TimeConvert, time.Since(t0))
			}
			return out, cm, tm, nil
		}
		t0 := time.Now()
		mergeRecords(acc, host[:nrec*recSize], t, g, accDouble)
		tm.Download += time.Since(t0)
		tm.AddPhase(engine.TimeConvert, time.Since(t0))
	}
	t0 := time.Now()
	out := acc.finish(g, outType(src.DType), opt, stats)
	tm.Download += time.Since(t0)
	tm.AddPhase(engine.TimeConvert, time.Since(t0))
	return out, nil, tm, nil
}

// span is the byte range [first, last) of the input that t reads; a
// gathered tile reads rows runs of jCount elements within it.
func (t tile) span(g Geometry, es int) (first, last int64) {
	first = int64(((t.o0*g.N+t.r0)*g.Inner + t.j0) * es)
	last = int64(((t.o0+t.oCount-1)*g.N+t.r0+t.rows-1)*g.Inner+t.j0+t.jCount) * int64(es)
	return first, last
}

// outType is the dtype of the statistics of an input of type dt: float32
// for the 16-bit storage types.
func outType(dt tensor.DType) tensor.DType {
	if dt.Is16() {
		return tensor.F32
	}
	return dt
}

// window is the bytes of the device window t needs, and fill fills its
// range [at, at+len(p)) from src; skip is the window's first element.
// 16-bit elements are read as uint32 words, two at a time: the window is
// rounded up to whole words, the bytes past the tile zero (the kernel
// never uses them).
func (t tile) window(g Geometry, es int, align int64, src tensor.Source) (size int64, skip uint32, fill func(p []byte, at int64) error) {
	size, skip, inner := t.window1(g, es, align, src)
	if es >= 4 || size%4 == 0 {
		return size, skip, inner
	}
	n0 := size
	return (size + 3) &^ 3, skip, func(p []byte, at int64) error {
		if n := max(min(n0-at, int64(len(p))), 0); n > 0 {
			if err := inner(p[:n], at); err != nil {
				return err
			}
			p = p[n:]
		}
		clear(p)
		return nil
	}
}

// held is t's window as a binding of the device's held copy of src
// (engine.Device.Hold), when src lies in memory, t reads one contiguous
// range and the device holds it; ok false otherwise (t's window is then
// uploaded).
func (t tile) held(dev *engine.Device, g Geometry, es int, align int64, src tensor.Source) (b engine.Binding, skip uint32, ok bool) {
	if src.Raw == nil || t.gather {
		return b, 0, false
	}
	size, skip, _ := t.window(g, es, align, src)
	first, _ := t.span(g, es)
	start := first / align * align
	b, ok = dev.Window(src.Raw[start:min(start+size, int64(len(src.Raw)))], size)
	return b, skip, ok
}

// input records the upload of t's window into buf, unless the device
// holds it, and returns the binding the kernels read it from.
func (t tile) input(seq *engine.Sequence, dev *engine.Device, buf *engine.Buffer, g Geometry, es int, align int64, src tensor.Source) (engine.Binding, uint32) {
	if b, skip, ok := t.held(dev, g, es, align, src); ok {
		return b, skip
	}
	size, skip, fill := t.window(g, es, align, src)
	if raw := t.raw(g, es, align, src, size); raw != nil {
		// From memory: the device may copy straight from it (imported).
		seq.Upload(buf, 0, raw)
	} else {
		seq.UploadFrom(buf, 0, size, fill)
	}
	return engine.Binding{Buf: buf, Size: size}, skip
}

// raw is t's window of size bytes as a part of src's memory, where src
// lies in memory and the window is one run of it; nil otherwise.
func (t tile) raw(g Geometry, es int, align int64, src tensor.Source, size int64) []byte {
	if src.Raw == nil || t.gather {
		return nil
	}
	first, _ := t.span(g, es)
	start := first / align * align
	if start+size > int64(len(src.Raw)) {
		return nil
	}
	return src.Raw[start : start+size]
}

// inputBytes is the input buffer the tiles need: their largest window
// that the device does not hold.
func inputBytes(tiles []tile, dev *engine.Device, g Geometry, es int, align int64, src tensor.Source) int64 {
	largest := int64(0)
	for _, t := range tiles {
		if _, _, ok := t.held(dev, g, es, align, src); !ok {
			size, _, _ := t.window(g, es, align, src)
			largest = max(largest, size)
		}
	}
	return largest
}

func (t tile) window1(g Geometry, es int, align int64, src tensor.Source) (size int64, skip uint32, fill func(p []byte, at int64) error) {
	first, last := t.span(g, es)
	if !t.gather {
		start := first / align * align
		return last - start, uint32((first - start) / int64(es)), func(p []byte, at int64) error { return src.Fill(p, start+at) }
	}
	run := int64(t.jCount * es)
	return int64(t.rows) * run, 0, func(p []byte, at int64) error {
		for len(p) > 0 {
			r, in := at/run, at%run
			n := min(run-in, int64(len(p)))
			if err := src.Fill(p[:n], first+r*int64(g.Inner*es)+in); err != nil {
				return err
			}
			p, at = p[n:], at+n
		}
		return nil
	}
}

func mergeRecords(acc *accum, b []byte, t tile, g Geometry, double bool) {
	le := binary.LittleEndian
	f := func(off int) float64 {
		if double {
			return math.Float64frombits(le.Uint64(b[off:]))
		}
		return float64(math.Float32frombits(le.Uint32(b[off:])))
	}
	w, rec := 4, 28 // record.glsl's Record
	if double {
		w, rec = 8, 48
	}
	i := 0
	for ol := 0; ol < t.oCount; ol++ {
		for jl := 0; jl < t.jCount; jl++ {
			q := (t.o0+ol)*g.Inner + t.j0 + jl
			for c := 0; c < t.nchunks; c++ {
				off := i * rec
				n := float64(le.Uint32(b[off+4*w:]))
				nans := float64(le.Uint32(b[off+4*w+4:]))
				mean := f(off) + f(off+4*w+8) // mean + mlo
				acc.merge(q, n, mean, f(off+w), f(off+2*w), f(off+3*w), nans)
				i++
			}
		}
	}
}

// finisher merges a single tile's records on the device into the
// requested statistics (reduce_finish).
type finisher struct {
	dev   *engine.Device
	k     *engine.Kernel
	buf   *engine.Buffer
	carry *engine.Buffer // the merge between dispatches (nil when one does)
	g     Geometry
	dt    tensor.DType
	opt   Options
	stats []Stat // as asked, duplicates included
	uniq  []Stat // each once, in the order the kernel writes them
	// workgroup is reduce_finish's workgroup size.
	workgroup int
}

// newFinisher returns nil (and no error) when the statistics (and, for
// more than finishChunkBudget records per output, the carried merge) would
// not fit one binding or the budget; the host then merges as for many
// tiles.
func newFinisher(dev *engine.Device, v engine.Variant, g Geometry, dt tensor.DType, opt Options, stats []Stat, nchunks, recSize, workgroup int) (*finisher, error) {
	f := &finisher{dev: dev, g: g, dt: dt, opt: opt, stats: stats, workgroup: workgroup}
	for _, s := range stats {
		if !slices.Contains(f.uniq, s) {
			f.uniq = append(f.uniq, s)
		}
	}
	size := int64(len(f.uniq)) * int64(g.Outputs()) * int64(dt.Size())
	carry := int64(0)
	if nchunks > finishChunkBudget {
		carry = int64(g.Outputs()) * int64(recSize)
	}
	if lim := min(dev.MaxBinding(), dev.MaxBuffer()); size > lim || carry > lim || size+carry > dev.Available()/2 {
		return nil, nil
	}
	// The records are the same whatever the input's storage: the 16-bit
	// variants' finisher is float32's.
	name := "reduce_finish" + v.Widened().Suffix()
	var err error
	if f.k, err = dev.Kernel(engine.KernelSpec{Name: name, Push: finishPush{}, Spec: []uint32{uint32(workgroup)}}); err != nil {
		return nil, err
	}
	if f.buf, err = dev.NewBuffer(size); err != nil {
		return nil, err
	}
	if carry > 0 {
		if f.carry, err = dev.NewBuffer(carry); err != nil {
			f.buf.Release()
			return nil, err
		}
	}
	return f, nil
}

func (f *finisher) release() {
	f.buf.Release()
	if f.carry != nil {
		f.carry.Release()
	}
}

// record adds the finishing dispatch and the downloads of the statistics
// to seq, and returns the tensors they land in when seq runs. between
// records what must read the statistics on the device (f.buf) before
// their downloads.
func (f *finisher) record(seq *engine.Sequence, records *engine.Buffer, nchunks int, between func()) map[Stat]*tensor.Tensor {
	n := f.g.Outputs()
	var ids uint32
	for i, s := range f.uniq {
		ids |= uint32(s) << (4 * i)
	}
	// Records c0 … c1−1 of every output per dispatch (see
	// finishChunkBudget); with one dispatch the carry binding is unused and
	// the records stand in for it.
	carry := records
	if f.carry != nil {
		carry = f.carry
	}
	for c0 := 0; c0 < nchunks; c0 += finishChunkBudget {
		c1 := min(c0+finishChunkBudget, nchunks)
		p := finishPush{n: n, nchunks: nchunks, ddof: f.opt.DDof, skipnan: f.opt.SkipNaN, nstats: len(f.uniq), stats: ids,
			c0: c0, c1: c1, first: c0 == 0, last: c1 == nchunks}
		seq.Dispatch(f.k, f.dev.Groups((n+f.workgroup-1)/f.workgroup), p, engine.Bind(records), engine.Bind(f.buf), engine.Bind(carry))
	}
	between()
	es := int64(f.dt.Size())
	byStat := map[Stat]*tensor.Tensor{}
	for i, s := range f.uniq {
		t := f.opt.Out.New(s.String(), f.dt, f.g.OutShape...)
		seq.Download(f.buf, int64(i)*int64(n)*es, t.Raw())
		byStat[s] = t
	}
	out := map[Stat]*tensor.Tensor{}
	for _, s := range f.stats {
		out[s] = byStat[s]
	}
	return out
}

// The push constants of reduce_partial.comp, reduce_rows.comp (and
// reduce_rows_sg.comp) and reduce_finish.comp.
type (
	partialPush struct {
		skip                 uint32
		ocount, jcount, rows int
		chunk, nchunks       int
		ostride, inner       uint32 // wrapped to 32 bits: see centralPush
	}
	rowsPush struct {
		skip           uint32
		ocount, rows   int
		chunk, nchunks int
		ostride        uint32 // wrapped to 32 bits: see centralPush
	}
	finishPush struct {
		n, nchunks, ddof int
		skipnan          bool
		nstats           int
		stats            uint32
		c0, c1           int
		first, last      bool
	}
)
