package reduce

import (
	"context"
	"encoding/binary"
	"fmt"
	"math"
	"slices"
	"time"

	"github.com/vkstat/vkstat/engine"
	"github.com/vkstat/vkstat/tensor"
)

// CentralMoments are the second, third and fourth central moments (divisor
// n, as scipy.stats.skew and kurtosis use) of the non-NaN values of each
// row (each output column o·inner + j of an (outer, n, inner) array), with
// the counts they come from.
type CentralMoments struct {
	N, NaNs    []int
	M2, M3, M4 []float64
}

// runCentral is Run with Options.Central: Vulkan on a 2-D (rows, n) or 3-D
// (outer, n, inner) array reduced along axis 1, with the central moments
// of each row or output column as well (see Central).
func runCentral(ctx context.Context, dev *engine.Device, in *tensor.Tensor, opt Options) (_ map[Stat]*tensor.Tensor, _ *CentralMoments, tm engine.Timing, _ error) {
	stats := opt.Stats
	defer engine.Begin(dev).End(&tm)
	if nd := len(in.Shape); nd != 2 && nd != 3 || len(opt.Axes) != 1 || opt.Axes[0] != 1 && opt.Axes[0] != 1-nd {
		return nil, nil, engine.Timing{}, fmt.Errorf("reduce: central moments need a 2-d (rows, n) or 3-d (outer, n, inner) array reduced along axis 1, got shape %s, axis %s", tensor.ShapeString(in.Shape), opt.Axes)
	}
	if !slices.Contains(stats, Mean) {
		return nil, nil, engine.Timing{}, fmt.Errorf("reduce: central moments need the mean among the statistics")
	}
	// Both passes read one upload: the window of a single tile, or, for
	// an array of several tiles, the device's held copy where it has room.
	h, tm, err := dev.Hold(ctx, in.Raw())
	if err != nil {
		return nil, nil, tm, err
	}
	defer h.Release()
	src := tensor.SourceOf(in)
	out, cm, t, err := vulkanSource(ctx, dev, src, opt, stats, true)
	tm.Add(t)
	if hook := opt.test.get().central; hook != nil && err == nil {
		hook(cm != nil)
	}
	if err != nil || cm != nil {
		return out, cm, tm, err
	}
	cm, t, err = central(ctx, dev, src, out[Mean].As(tensor.F64).F64, opt.test)
	tm.Add(t)
	return out, cm, tm, err
}

// Central computes the central moments of each row of src, a 2-D (rows, n)
// array of float32, float64, float16 or bfloat16, on dev, or of each
// output column (o, j) of a 3-D (outer, n, inner) one, reduced along axis
// 1 where it lies: the second pass of a two-pass computation around
// centre, one value per row or column (o·inner + j), which should be its
// mean (Vulkan's Mean; NaN or ±Inf where it has none is fine). The array streams through the device in tiles as in RunSource;
// each record sums d, d², d³ and d⁴ (d = x − centre, NaNs left out and
// counted) in float64, or in compensated float32 where the device has no
// float64, and the host adds the records and corrects for the centre's
// rounding with Σd, so a centre rounded to float32 costs nothing. A row
// with no non-NaN value has NaN moments.
func Central(ctx context.Context, dev *engine.Device, src tensor.Source, centre []float64) (*CentralMoments, engine.Timing, error) {
	return central(ctx, dev, src, centre, nil)
}

// central is Central steered by test.
func central(ctx context.Context, dev *engine.Device, src tensor.Source, centre []float64, test *testOptions) (_ *CentralMoments, tm engine.Timing, _ error) {
	defer engine.Begin(dev).End(&tm)
	if nd := len(src.Shape); nd != 2 && nd != 3 {
		return nil, tm, fmt.Errorf("reduce: central moments need a 2-d (rows, n) or 3-d (outer, n, inner) array, got shape %s", tensor.ShapeString(src.Shape))
	}
	g, err := Plan(src.Shape, 1)
	if err != nil {
		return nil, tm, err
	}
	if len(centre) != g.Outputs() {
		return nil, tm, fmt.Errorf("reduce: central moments: %d centres for %d outputs", len(centre), g.Outputs())
	}
	acc := newCentralAcc(g.Outputs())
	if g.Outputs() == 0 {
		return acc.finish(), tm, nil
	}
	ck, err := newCentralKernel(ctx, dev, src.DType, g.Inner > 1)
	if err != nil {
		return nil, tm, err
	}
	es := src.DType.Size()
	align := dev.Alignment()
	limit := min(dev.MaxBinding(), dev.MaxBuffer())
	recCap := min(limit, dev.Available()/4) / int64(ck.recSize)
	window := min(limit, src.Bytes()+align, dev.Available()/2&^(align-1))
	window = test.bound(window)
	if recCap < 1 || window-align < int64(es) {
		return nil, tm, fmt.Errorf("reduce: central moments: %w (%d bytes left)", engine.ErrNoFit, dev.Available())
	}
	tiles := planTiles(g, int((window-align)/int64(es)), int(recCap), ck.target, ck.chunkCap)
	maxRec, maxO := 0, 0
	for _, t := range tiles {
		if !ck.fits(t) {
			return nil, tm, fmt.Errorf("reduce: central moments: records of %d values: %w", t.chunk, engine.ErrNoFit)
		}
		maxRec, maxO = max(maxRec, t.records()), max(maxO, t.oCount*t.jCount)
	}
	input, err := dev.NewBuffer(inputBytes(tiles, dev, g, es, align, src))
	if err != nil {
		return nil, tm, err
	}
	defer input.Release()
	centres, err := dev.NewBuffer(int64(maxO * ck.cw))
	if err != nil {
		return nil, tm, err
	}
	defer centres.Release()
	records, err := dev.NewBuffer(int64(maxRec * ck.recSize))
	if err != nil {
		return nil, tm, err
	}
	defer records.Release()

	host := make([]byte, maxRec*ck.recSize)
	cb := make([]byte, maxO*ck.cw)
	le := binary.LittleEndian
	for _, t := range tiles {
		// The tile's outputs' centres, o·jCount + j.
		for i := 0; i < t.oCount*t.jCount; i++ {
			if c := centre[(t.o0+i/t.jCount)*g.Inner+t.j0+i%t.jCount]; ck.cw == 8 {
				le.PutUint64(cb[i*8:], math.Float64bits(c))
			} else {
				le.PutUint32(cb[i*4:], math.Float32bits(float32(c)))
			}
		}
		nrec := t.records()
		st, err := dev.Run(ctx, func(seq *engine.Sequence) {
			in, skip := t.input(seq, dev, input, g, es, align, src)
			seq.Upload(centres, 0, cb[:t.oCount*t.jCount*ck.cw])
			ck.dispatch(seq, dev, t, g, in, skip,
				engine.Binding{Buf: centres, Size: int64(t.oCount * t.jCount * ck.cw)}, 0, records)
			seq.Download(records, 0, host[:nrec*ck.recSize])
		})
		tm.Add(st)
		if err != nil {
			return nil, tm, err
		}
		t0 := time.Now()
		acc.add(host[:nrec*ck.recSize], t, g, ck.double)
		tm.Download += time.Since(t0)
	}
	return acc.finish(), tm, nil
}

// centralKernel is reduce_central's pipeline for one storage type on one
// device, and how it splits the rows.
type centralKernel struct {
	k         *engine.Kernel
	wg, lanes int  // workgroup size, invocations per record
	target    int  // records to aim for
	chunkCap  int  // most values per record
	double    bool // float64 sums
	recSize   int  // bytes of a record
	cw        int  // bytes of a centre (T)
	perGroup  int  // records per workgroup
}

// newCentralKernel gives the kernel for rows (inner false: a reduction
// along the last axis) or for the columns of an (outer, n, inner) array.
func newCentralKernel(ctx context.Context, dev *engine.Device, dt tensor.DType, inner bool) (*centralKernel, error) {
	v, err := dev.Variant(dt, false)
	if err != nil {
		return nil, err
	}
	name := "reduce_central" + v.Suffix()
	ck := &centralKernel{double: !v.Acc32, cw: v.ValueSize(), recSize: 24} // reduce_central.comp's Central
	if ck.double {
		ck.recSize = 40
	}
	tn, err := resolveTuning(ctx, dev.Info)
	if err != nil {
		return nil, err
	}
	// Where the tuning keeps last-axis reductions off the workgroup
	// kernels (CPU devices), an invocation per record of up to 1,024
	// values (on lavapipe 64-value records took twice as long, the host
	// adding the records included); otherwise a workgroup per record of up
	// to 8 values a lane. The records' length depends on the rows' length
	// only, not on how many rows there are, so that a row's moments do
	// not depend on the rows beside it (a batch of samples gives what the
	// whole tensor gives, to the bit).
	// Columns (inner > 1) take an invocation per record everywhere, as
	// reduce_partial does, neighbours on neighbouring columns.
	ck.wg, ck.lanes = tn.workgroup, 1
	ck.target, ck.chunkCap = 1, 1024
	if tn.rowsKernel != "none" && !inner {
		ck.wg, ck.lanes = tn.rowsWG, tn.rowsWG
		ck.chunkCap = 8 * ck.lanes
	}
	ck.perGroup = ck.wg / ck.lanes
	ck.k, err = dev.Kernel(engine.KernelSpec{Name: name, Push: centralPush{}, Spec: []uint32{uint32(ck.wg), uint32(ck.lanes)}})
	return ck, err
}

// centralPush is reduce_central.comp's push constants.
type centralPush struct {
	skip                 uint32
	ocount, jcount, rows int
	chunk, nchunks       int
	// The strides wrap to 32 bits as the shaders' uint arithmetic does:
	// past 2³² elements (a tile of a larger array) they only multiply
	// index 0, the tile holding one outer index, one row.
	ostride, inner uint32
	coff           int
}

// fits reports whether t's records stay within lavapipe's loop limit: at
// most rowsLoopBudget values an invocation (planTiles lengthens them only
// when the records would not fit the memory budget).
func (ck *centralKernel) fits(t tile) bool {
	return (t.chunk+ck.lanes-1)/ck.lanes <= rowsLoopBudget
}

// dispatch records reduce_central over tile t: the tile's window in input
// from element skip on, its outputs' centres in centres from element coff
// on (o·jCount + j), its records into records.
func (ck *centralKernel) dispatch(seq *engine.Sequence, dev *engine.Device, t tile, g Geometry, input engine.Binding, skip uint32,
	centres engine.Binding, coff int, records *engine.Buffer) {
	ostride, stride := g.N*g.Inner, g.Inner
	if t.gather {
		ostride, stride = 0, t.jCount
	}
	p := centralPush{skip: skip, ocount: t.oCount, jcount: t.jCount, rows: t.rows, chunk: t.chunk, nchunks: t.nchunks,
		ostride: uint32(ostride), inner: uint32(stride), coff: coff}
	nrec := t.records()
	seq.Dispatch(ck.k, dev.Groups((nrec+ck.perGroup-1)/ck.perGroup), p, input, centres,
		engine.Binding{Buf: records, Size: int64(nrec * ck.recSize)})
}

// centralAcc adds up the records of each output (a row, or a column
// o·inner + j): Σd, Σd², Σd³, Σd⁴ about its centre, the values and the
// NaNs.
type centralAcc struct {
	s       [][4]float64
	n, nans []int
}

func newCentralAcc(rows int) *centralAcc {
	return &centralAcc{make([][4]float64, rows), make([]int, rows), make([]int, rows)}
}

// add adds tile t's records b, (o·jCount + j)·nchunks + c.
func (a *centralAcc) add(b []byte, t tile, g Geometry, double bool) {
	le := binary.LittleEndian
	w, rec := 4, 24
	if double {
		w, rec = 8, 40
	}
	f := func(off int) float64 {
		if double {
			return math.Float64frombits(le.Uint64(b[off:]))
		}
		return float64(math.Float32frombits(le.Uint32(b[off:])))
	}
	for i := 0; i < t.records(); i++ {
		col := i / t.nchunks
		o := (t.o0+col/t.jCount)*g.Inner + t.j0 + col%t.jCount
		off := i * rec
		for j := range 4 {
			a.s[o][j] += f(off + j*w)
		}
		a.n[o] += int(le.Uint32(b[off+4*w:]))
		a.nans[o] += int(le.Uint32(b[off+4*w+4:]))
	}
}

// finish gives the moments about each row's mean c + δ from the sums
// about its centre c: δ = Σd/n.
func (a *centralAcc) finish() *CentralMoments {
	rows := len(a.n)
	out := &CentralMoments{N: a.n, NaNs: a.nans, M2: make([]float64, rows), M3: make([]float64, rows), M4: make([]float64, rows)}
	for o, s := range a.s {
		n := float64(a.n[o])
		if n == 0 {
			out.M2[o], out.M3[o], out.M4[o] = math.NaN(), math.NaN(), math.NaN()
			continue
		}
		dl, a2, a3, a4 := s[0]/n, s[1]/n, s[2]/n, s[3]/n
		d2 := dl * dl
		out.M2[o] = max(a2-d2, 0)
		out.M3[o] = a3 - 3*dl*a2 + 2*d2*dl
		out.M4[o] = max(a4-4*dl*a3+6*d2*a2-3*d2*d2, 0)
	}
	return out
}
