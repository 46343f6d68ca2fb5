package paco

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/vkstat/vkstat/engine"
	"github.com/vkstat/vkstat/internal/par"
	"github.com/vkstat/vkstat/tensor"
)

const workgroup = 256

// detectLoopBudget is the most loop iterations paco_detect asks of one
// invocation in one dispatch, under llvmpipe's limit of 65,535.
const detectLoopBudget = 60000

// RunMaps computes the maps of in with opt (Prepare) on dev, or on the
// CPU when dev is nil: the maps stage of Run, without the detections and
// what follows them.
func RunMaps(ctx context.Context, dev *engine.Device, in ADI, opt Options) (*Maps, error) {
	mark := engine.Begin(dev)
	p, err := prepareAlong(ctx, dev == nil, in, opt)
	if err != nil {
		return nil, err
	}
	m, err := runMaps(ctx, dev, p)
	if err != nil {
		return nil, err
	}
	m.Timing.Phases = append(append([]engine.PhaseTime{}, p.Phases...), m.Timing.Phases...)
	account(mark, &m.Timing)
	return m, nil
}

// runMaps computes p's maps on dev, or on the CPU when dev is nil, with
// their Timing.
func runMaps(ctx context.Context, dev *engine.Device, p *Prepared) (*Maps, error) {
	var m *Maps
	var err error
	switch {
	case dev == nil && p.convert && p.Cube.DType != tensor.F64:
		return nil, ErrCPUFloat64
	case dev == nil:
		m, err = CPU(ctx, p)
	default:
		m, err = Vulkan(ctx, dev, p)
	}
	if err != nil {
		return nil, err
	}
	m.foldStages()
	return m, nil
}

// pickVariant is the kernels' variant for a cube of type dt: float64's,
// or float32's for the others (the cube goes up as float32).
func pickVariant(dev *engine.Device, dt tensor.DType) (engine.Variant, error) {
	if dt != tensor.F64 {
		dt = tensor.F32
	}
	v, err := dev.Variant(dt, false)
	if err != nil {
		return v, fmt.Errorf("paco: %w", err)
	}
	return v, nil
}

// blockFrameBudget is the most frames in one block of the cube on the
// device, on every device (a GPU pays a few more dispatches past it).
const blockFrameBudget = 30000

// testOptions steer the Vulkan path in tests (Input.test).
type testOptions struct {
	// maxBlockFrames, when positive, caps the frames of one block below
	// the device's own limits, to run the blocked path on small cubes.
	maxBlockFrames int
	// maxPassRows, when positive, caps the location rows of one pass below
	// what the memory budget allows, to run several passes.
	maxPassRows int
}

// vkLimits are what the planner asks of a device, and all it asks: its
// name, the largest binding or allocation, the invocations and shared
// memory of a workgroup, the memory free and the budget, what buffers of
// given sizes take there (engine.Device.Need), the bytes of a value and of
// an accumulator of the kernels' variant, and whether it is the host's own
// cores (a software device, whose submissions are kept short).
type vkLimits struct {
	name                      string
	maxBind                   int64
	maxInvocations, maxShared int
	avail, budget             int64
	need                      func(sizes ...int64) int64
	value, acc                int
	cpu                       bool
}

// limitsOf is dev's vkLimits for kernels of variant v.
func limitsOf(dev *engine.Device, v engine.Variant) vkLimits {
	return vkLimits{name: dev.Info.Name, maxBind: min(dev.MaxBinding(), dev.MaxBuffer()),
		maxInvocations: int(dev.Info.MaxWorkgroupInvocation), maxShared: int(dev.Info.MaxSharedMemory),
		avail: dev.Available(), budget: dev.Budget(), need: dev.Need, value: v.ValueSize(), acc: v.AccSize(), cpu: dev.Info.IsCPU()}
}

// vkPlan is how the work of Vulkan meets the device's memory: passes over
// bands of rows rows of locations, each band's pixel rows (the locations'
// and R more on either side, which their patches reach) held for all
// frames in blocks of perBlock frames; and, without float64, the
// trajectory table in chunks of tabFrames frames (all T: uploaded once).
type vkPlan struct {
	rows, hb  int // location rows per pass; pixel rows of the largest band
	perBlock  int
	tabFrames int
	// sizes is every buffer: the 7 globals, sums, lags, u, alpha,
	// gram, the cube's blocks and the table's chunks.
	sizes  []int64
	blocks int // cube blocks, after the band buffers
	tabs   int // table buffers, last
}

// vkPlanner plans the maps of p on a device of limits lim, without the
// device: the kernels' workgroup and shared memory, the plan of passes,
// blocks and table chunks that the memory budget allows, and the spans of
// frames the detection map runs in.
type vkPlanner struct {
	p        *Prepared
	lim      vkLimits
	nb       int // right-hand sides per location: h, or the sub-pixel basis
	d        int // the lagged products' displacements
	solveWG  int
	posTable bool
	globals  []int64
	tabCap   int // table frames per binding
}

// newPlanner checks that p's patch fits a workgroup of lim and that the
// maps fit a binding; d and npairs are the lagged products'
// displacements and pairs (Prepared.Lags).
func newPlanner(p *Prepared, lim vkLimits, d, npairs int) (*vkPlanner, error) {
	P, N := p.P(), p.H*p.W
	pn := &vkPlanner{p: p, lim: lim, nb: 1, d: d}
	if p.Placement == PlacementSubpixel {
		pn.nb = NBasis
	}
	// The solve kernel's invocation i owns row i of the factor
	// (shaders/include/linalg.glsl's row-owner Cholesky): at least P of
	// them, a power of two for its reductions.
	pn.solveWG = 64
	for pn.solveWG < P {
		pn.solveWG *= 2
	}
	if pn.solveWG > lim.maxInvocations {
		return nil, fmt.Errorf("patch radius %d (%d pixels) needs %d invocations per workgroup; %s has %d: %w",
			p.Radius, P, pn.solveWG, lim.name, lim.maxInvocations, engine.ErrDeviceLimit)
	}
	// Its shared memory: the strictly lower triangle, the diagonal, the
	// solutions, the reductions and the published pivots (ACC), and the
	// info code.
	shared := (P*(P-1)/2+1+P+pn.nb*P+3*pn.solveWG+2*pn.nb)*lim.acc + 4
	if shared > lim.maxShared {
		return nil, fmt.Errorf("patch radius %d (%d pixels) in this precision with %s PSF placement needs %d bytes of shared memory; %s has %d: %w",
			p.Radius, P, p.Placement, shared, lim.name, lim.maxShared, engine.ErrDeviceLimit)
	}
	// Without float64 the detection kernel reads the trajectories from a
	// table computed here in float64 (paco_detect.comp says why), a frame's
	// worth of int32 per frame.
	pn.posTable = lim.acc == 4
	for _, b := range []struct {
		what  string
		bytes int64
	}{{"the maps", int64(3 * N * lim.value)}, {"the detection sums", int64(2 * N * lim.acc)}, {"one row of a frame", int64(p.W * lim.value)}} {
		if b.bytes > lim.maxBind {
			return nil, fmt.Errorf("paco: %s take %s, more than %s binds at once (%s): %w",
				b.what, engine.SizeText(b.bytes), lim.name, engine.SizeText(lim.maxBind), engine.ErrTooLarge)
		}
	}
	pn.globals = []int64{int64(8 * d), int64(16 * npairs), int64(pn.nb * P * lim.acc), int64(2 * p.T * lim.acc), int64(4 * P), int64(3 * N * lim.value), int64(2 * N * lim.acc)}
	pn.tabCap = int(max(lim.maxBind/int64(4*N), 1))
	return pn, nil
}

// plan is the plan for rows location rows per pass and a table of tf
// frames per chunk, and whether its bindings are within the device's.
func (pn *vkPlanner) plan(rows, tf int) (vkPlan, bool) {
	p, lim := pn.p, pn.lim
	D := pn.d
	hb := min(p.H, rows+2*p.Radius)
	band := int64(hb * p.W)
	pl := vkPlan{rows: rows, hb: hb, tabFrames: tf}
	pl.perBlock = int(max(min(lim.maxBind/(band*int64(lim.value)), blockFrameBudget), 1))
	if p.test != nil && p.test.maxBlockFrames > 0 {
		pl.perBlock = min(pl.perBlock, p.test.maxBlockFrames)
	}
	gram := int64(4)
	if pn.nb > 1 {
		gram = int64(rows*p.W*pn.nb*pn.nb) * int64(lim.acc)
	}
	pl.sizes = append(append([]int64{}, pn.globals...), band*int64(lim.acc), band*int64(D*lim.value), int64(rows*p.W*pn.nb*p.P()*lim.value), int64(rows*p.W*lim.acc), gram)
	ok := true
	for _, s := range pl.sizes {
		ok = ok && s <= lim.maxBind
	}
	for t0 := 0; t0 < p.T; t0 += pl.perBlock {
		pl.sizes = append(pl.sizes, int64(min(pl.perBlock, p.T-t0))*band*int64(lim.value))
		pl.blocks++
	}
	if pn.posTable {
		N := p.H * p.W
		for t0 := 0; t0 < p.T; t0 += tf {
			pl.sizes = append(pl.sizes, int64(min(tf, p.T-t0)*N*4))
			pl.tabs++
			if tf < p.T {
				break // one chunk, uploaded in turn
			}
		}
	}
	return pl, ok
}

// fits reports whether pl, whose bindings are within the device's when
// ok, fits the memory free.
func (pn *vkPlanner) fits(pl vkPlan, ok bool) bool {
	return ok && pn.lim.need(pl.sizes...) <= pn.lim.avail
}

// tableFrames is the trajectory table's frames per chunk (0 without the
// table): all of them when they fit with everything else, or in a quarter
// of the budget; otherwise one frame at a time, each pass uploading the
// chunks in turn.
func (pn *vkPlanner) tableFrames() int {
	if !pn.posTable {
		return 0
	}
	T, N := pn.p.T, pn.p.H*pn.p.W
	tf := min(T, pn.tabCap)
	if !pn.fits(pn.plan(pn.p.H, tf)) {
		tf = int(min(int64(T), int64(pn.tabCap), max(pn.lim.avail/4/int64(4*N), 1)))
		if !pn.fits(pn.plan(1, tf)) {
			tf = 1
		}
	}
	return tf
}

// choose is the plan with as many location rows per pass as the memory
// free holds, or the error that says what one row would take.
func (pn *vkPlanner) choose() (vkPlan, error) {
	p, lim := pn.p, pn.lim
	tf := pn.tableFrames()
	minPlan, ok := pn.plan(1, min(tf, 1))
	if !pn.fits(minPlan, ok) {
		what := "one row of locations at a time (its band of pixel rows for every frame, its lagged products, u and α) and the maps"
		if least := lim.need(minPlan.sizes...); !ok && least <= lim.budget {
			// The device's own binding or allocation limit, not the
			// budget (which caps one allocation too).
			return vkPlan{}, fmt.Errorf("paco: a %d×%d×%d cube does not fit %s's bindings (%s) even with %s: %w",
				p.T, p.H, p.W, lim.name, engine.SizeText(lim.maxBind), what, engine.ErrTooLarge)
		}
		return vkPlan{}, fmt.Errorf("paco: a %d×%d×%d cube needs at least %s of device memory, for %s; %s of the %s budget is free on %s: %w",
			p.T, p.H, p.W, kib((lim.need(minPlan.sizes...)+1023)/1024), what, kib(lim.avail/1024), kib(lim.budget/1024), lim.name, engine.ErrNoFit)
	}
	lo, hi := 1, p.H // the most rows that fit: in [lo, hi]
	if p.test != nil && p.test.maxPassRows > 0 {
		hi = min(hi, p.test.maxPassRows)
	}
	for lo < hi {
		mid := (lo + hi + 1) / 2
		if pn.fits(pn.plan(mid, tf)) {
			lo = mid
		} else {
			hi = mid - 1
		}
	}
	pl, _ := pn.plan(lo, tf)
	return pl, nil
}

// A vkBlock is frames [t0, t0+nt) of the cube, one buffer on the device;
// a vkPass location rows [y0, y1) and the pixel rows [ya, yb) their
// patches reach; a vkSpan frames [l0, l1) of a block that one run of the
// detection map takes, with the table chunk tab (from frame pt0) that
// holds their trajectories.
type (
	vkBlock struct{ t0, nt int }
	vkPass  struct{ y0, y1, ya, yb int }
	vkSpan  struct{ block, l0, l1, tab, pt0 int }
)

// vkLayout is a plan laid out: its blocks, passes and spans.
type vkLayout struct {
	blocks []vkBlock
	passes []vkPass
	spans  []vkSpan
}

// layout lays pl out. Frames per detection span: llvmpipe (lavapipe)
// silently ends an invocation's loops after 65,535 iterations in all (its
// guard against endless shader loops; the sub-pixel map lost every frame
// past about the 127th to it), so no dispatch may ask for more. Per frame
// the nearest kernel loops P + 1 times, the sub-pixel one at most 5 + 25 +
// 120 (its weights and Gram form) + 16·P. A span lies within a block of
// the cube and a chunk of the table too.
func (pn *vkPlanner) layout(pl vkPlan) vkLayout {
	p := pn.p
	T, H, r := p.T, p.H, p.Radius
	var lay vkLayout
	for t0 := 0; t0 < T; t0 += pl.perBlock {
		lay.blocks = append(lay.blocks, vkBlock{t0, min(pl.perBlock, T-t0)})
	}
	for y0 := 0; y0 < H; y0 += pl.rows {
		y1 := min(y0+pl.rows, H)
		lay.passes = append(lay.passes, vkPass{y0, y1, max(y0-r, 0), min(y1+r, H)})
	}
	perFrame := p.P() + 2
	if pn.nb > 1 {
		perFrame = 16*p.P() + 160
	}
	span := max(1, detectLoopBudget/perFrame)
	if pn.posTable {
		span = min(span, pl.tabFrames)
	}
	for i, b := range lay.blocks {
		for l0 := 0; l0 < b.nt; {
			sp := vkSpan{block: i, l0: l0, l1: min(l0+span, b.nt)}
			if pn.posTable {
				sp.tab = (b.t0 + l0) / pl.tabFrames
				sp.pt0 = sp.tab * pl.tabFrames
				sp.l1 = min(sp.l1, sp.pt0+pl.tabFrames-b.t0)
				if pl.tabFrames < T {
					sp.tab = 0 // one buffer, each chunk uploaded in turn
				}
			}
			lay.spans = append(lay.spans, sp)
			l0 = sp.l1
		}
	}
	return lay
}

// vkTables are the host's tables the kernels read, in the device's
// bytes: the lagged products' displacements and pairs, h (or the
// sub-pixel basis), cos and sin of every angle, and the mask's offsets as
// flat pixel indices.
type vkTables struct{ disp, pairs, h, trig, off []byte }

// hostTables builds p's tables for accumulators of acc bytes.
func hostTables(p *Prepared, disp [][2]int, pairs []Pair, acc int) vkTables {
	le := binary.LittleEndian
	var t vkTables
	t.disp = make([]byte, 0, 8*len(disp))
	for _, d := range disp {
		t.disp = le.AppendUint32(le.AppendUint32(t.disp, uint32(int32(d[0]))), uint32(int32(d[1])))
	}
	t.pairs = make([]byte, 0, 16*len(pairs))
	for _, pr := range pairs {
		o := p.Offsets[pr.Base]
		diag := uint32(0)
		if pr.I == pr.J {
			diag = 1
		}
		t.pairs = le.AppendUint32(t.pairs, uint32(pr.J*(pr.J+1)/2+pr.I))
		t.pairs = le.AppendUint32(t.pairs, uint32(int32(o[0]*p.W+o[1])))
		t.pairs = le.AppendUint32(le.AppendUint32(t.pairs, uint32(pr.Disp)), diag)
	}
	accBytes := func(xs []float64) []byte {
		b := make([]byte, 0, len(xs)*acc)
		for _, x := range xs {
			if acc == 8 {
				b = le.AppendUint64(b, math.Float64bits(x))
			} else {
				b = le.AppendUint32(b, math.Float32bits(float32(x)))
			}
		}
		return b
	}
	if p.Placement == PlacementSubpixel {
		var basis []float64
		for _, b := range p.Basis {
			basis = append(basis, b...)
		}
		t.h = accBytes(basis)
	} else {
		t.h = accBytes(p.Hvec)
	}
	trig := make([]float64, 0, 2*p.T)
	for l := 0; l < p.T; l++ {
		trig = append(trig, p.Cos[l], p.Sin[l])
	}
	t.trig = accBytes(trig)
	t.off = make([]byte, 0, 4*p.P())
	for _, o := range p.Offsets {
		t.off = le.AppendUint32(t.off, uint32(int32(o[0]*p.W+o[1])))
	}
	return t
}

// vkKernels are the maps' four kernels.
type vkKernels struct{ center, lags, solve, detect *engine.Kernel }

// loadKernels loads the kernels of variant v on dev, the sub-pixel
// placement's solve and detection kernels with sub.
func loadKernels(dev *engine.Device, v engine.Variant, sub bool, solveWG, P int) (vkKernels, error) {
	subName := ""
	if sub {
		subName = "_sub"
	}
	var k vkKernels
	for _, l := range []struct {
		to   **engine.Kernel
		name string
		push any
		spec []uint32
	}{
		{&k.center, "paco_center", centerPush{}, []uint32{workgroup}},
		{&k.lags, "paco_lags", lagsPush{}, []uint32{workgroup}},
		{&k.solve, "paco_solve" + subName, solvePush{}, []uint32{uint32(solveWG), uint32(P)}},
		{&k.detect, "paco_detect" + subName, detectPush{}, []uint32{workgroup}},
	} {
		kern, err := dev.Kernel(engine.KernelSpec{Name: l.name + v.Suffix(), Push: l.push, Spec: l.spec})
		if err != nil {
			return k, err
		}
		*l.to = kern
	}
	return k, nil
}

// Vulkan computes the maps on dev. The centring, lagged products,
// per-location statistics (one workgroup per location) and the detection
// map run on the device, and only the three maps come back. Where the
// device memory budget holds the whole cube, its lagged products, u and α,
// the cube is uploaded once and each step runs once; otherwise the
// locations run in passes over bands of rows, the device holding one
// band's pixel rows (for all frames), lagged products, u and α at a time,
// and the detection map adding each pass's frames to every pixel's sums:
// the maps are the same, any budget that holds one row of locations
// works, and the error of a smaller one says how much that takes. A cube
// larger than one binding or one allocation lives on the device in blocks
// of frames, which every step walks in turn. The cube's precision
// (float32 or float64) is the arithmetic precision; accumulations are in
// float64 where the device has it.
//
// Its parts: the planner (vkPlanner, device-free), the host's tables
// (hostTables), the kernels (loadKernels) and the submissions (vkRun).
func Vulkan(ctx context.Context, dev *engine.Device, p *Prepared) (*Maps, error) {
	var tm engine.Timing
	lap := tm.Clock().Lap
	v, err := pickVariant(dev, p.Cube.DType)
	if err != nil {
		return nil, err
	}
	disp, pairs := p.Lags()
	pn, err := newPlanner(p, limitsOf(dev, v), len(disp), len(pairs))
	if err != nil {
		return nil, err
	}
	tables := hostTables(p, disp, pairs, v.AccSize())
	lap("tables")
	pl, err := pn.choose()
	if err != nil {
		return nil, err
	}
	bufs, err := dev.Buffers(pl.sizes...)
	for err != nil && errors.Is(err, engine.ErrBudget) && pl.rows > 1 {
		// The estimate of the allocator's slack was short: fewer rows.
		pl, _ = pn.plan(max(pl.rows*3/4, 1), pl.tabFrames)
		bufs, err = dev.Buffers(pl.sizes...)
	}
	if err != nil {
		return nil, fmt.Errorf("paco: %w", err)
	}
	defer engine.ReleaseAll(bufs)
	lap("buffers")
	k, err := loadKernels(dev, v, pn.nb > 1, pn.solveWG, p.P())
	if err != nil {
		return nil, err
	}
	lap("pipelines")
	run := newVkRun(ctx, dev, pn, pl, bufs, k, v, len(pairs))
	maps := newMaps(p)
	maps.Device, maps.Precision, maps.Passes = dev.Info.Name, "f32", len(run.lay.passes)
	if v.DType == tensor.F64 {
		maps.Precision = "f64"
	}
	t0 := time.Now()
	if err := run.uploadTables(tables); err != nil {
		return nil, err
	}
	for pi, ps := range run.lay.passes {
		if err := run.statistics(ps); err != nil {
			return nil, err
		}
		if err := run.detect(pi, ps); err != nil {
			return nil, err
		}
	}
	wall := time.Since(t0)
	lap("device run")
	run.progress("detection map", 1)
	run.readback(maps)
	lap("maps readback")
	maps.Timing.Phases = tm.Phases
	maps.Stages = run.stages(wall)
	return maps, nil
}

// vkRun is one run of the maps on a device: the plan laid out, the
// buffers and kernels, and what the submissions timed.
type vkRun struct {
	ctx      context.Context
	progress engine.Progress
	dev      *engine.Device
	p        *Prepared
	pn       *vkPlanner
	pl       vkPlan
	lay      vkLayout
	k        vkKernels
	v        engine.Variant
	npairs   int
	div      int // the lagged products' divisor: T, 2T with CompatVIP
	vip      bool
	// The buffers, as vkPlan.sizes lists them.
	disp, pairs, h, trig, off, maps, acc *engine.Buffer
	sums, lags, u, alpha, gram           *engine.Buffer
	cubes, tabs                          []*engine.Buffer
	tms                                  []engine.Timing
	tab                                  []byte // the trajectory table, once computed
	out, alphaOut                        []byte // the maps and α, read back
	scale                                int    // submission size: 1 on a software device, 16 on a GPU
}

func newVkRun(ctx context.Context, dev *engine.Device, pn *vkPlanner, pl vkPlan, bufs []*engine.Buffer, k vkKernels, v engine.Variant, npairs int) *vkRun {
	p := pn.p
	N := p.H * p.W
	r := &vkRun{ctx: ctx, progress: engine.ProgressOf(ctx), dev: dev, p: p, pn: pn, pl: pl, lay: pn.layout(pl), k: k, v: v, npairs: npairs,
		div: p.T, out: make([]byte, 3*N*v.ValueSize()), alphaOut: make([]byte, N*v.AccSize()), scale: 16}
	if p.Compat == CompatVIP {
		r.div, r.vip = 2*r.div, true
	}
	if dev.Info.IsCPU() {
		r.scale = 1
	}
	r.disp, r.pairs, r.h, r.trig, r.off, r.maps, r.acc = bufs[0], bufs[1], bufs[2], bufs[3], bufs[4], bufs[5], bufs[6]
	r.sums, r.lags, r.u, r.alpha, r.gram = bufs[7], bufs[8], bufs[9], bufs[10], bufs[11]
	r.cubes, r.tabs = bufs[12:12+pl.blocks], bufs[12+pl.blocks:]
	return r
}

// The work is split into submissions of a fraction of a second each on
// lavapipe (a submission cannot be interrupted; ctx is checked between
// them, and progress reported), fewer and larger on GPUs: chunks is the
// items of one submission.
func (r *vkRun) chunks(total, unitsPerItem, budget int) int {
	return max(1, min(total, budget*r.scale/max(unitsPerItem, 1)))
}

func (r *vkRun) submit(record func(seq *engine.Sequence)) error {
	tm, err := r.dev.Run(r.ctx, record)
	r.tms = append(r.tms, tm)
	return err
}

func (r *vkRun) groups(threads int) [3]uint32 {
	return r.dev.Groups((threads + workgroup - 1) / workgroup)
}

// table uploads to buf the trajectory table's chunk from frame c0 on,
// computed once (passes upload its chunks again and again).
func (r *vkRun) table(seq *engine.Sequence, buf *engine.Buffer, c0 int) {
	T, N := r.p.T, r.p.H*r.p.W
	if r.tab == nil {
		tab := make([]int32, T*N)
		r.p.Trajectories(0, T, tab)
		r.tab = int32Bytes(tab)
	}
	nt := min(r.pl.tabFrames, T-c0)
	seq.Upload(buf, 0, r.tab[c0*N*4:(c0+nt)*N*4])
}

// uploadTables uploads the host's tables, and the trajectory table when
// it is uploaded once.
func (r *vkRun) uploadTables(t vkTables) error {
	return r.submit(func(seq *engine.Sequence) {
		seq.Upload(r.disp, 0, t.disp)
		seq.Upload(r.pairs, 0, t.pairs)
		seq.Upload(r.h, 0, t.h)
		seq.Upload(r.trig, 0, t.trig)
		seq.Upload(r.off, 0, t.off)
		if r.pn.posTable && r.pl.tabFrames == r.p.T {
			for i, c0 := 0, 0; c0 < r.p.T; i, c0 = i+1, c0+r.pl.tabFrames {
				r.table(seq, r.tabs[i], c0)
			}
		}
	})
}

// statistics uploads the pass' band of pixel rows, frame by frame, and
// centres it (the sums of every block, then every block centred in
// place); then computes the band's lagged products (nband·D threads, T
// steps each) and the statistics of its locations (P³ work each), each
// counting for part of the "statistics" progress, weighted by lavapipe's
// measured times.
func (r *vkRun) statistics(ps vkPass) error {
	p, v := r.p, r.v
	T, W, P, N := p.T, p.W, p.P(), p.H*p.W
	D := r.pn.d
	nband := (ps.yb - ps.ya) * W
	bandBytes, frameBytes := int64(nband*v.ValueSize()), int64(N*v.ValueSize())
	locs := (ps.y1 - ps.y0) * W
	done := func(frac float64) float64 { return (float64(ps.y0*W) + frac*float64(locs)) / float64(N) }
	raw := p.Cube.Raw()
	r.progress("statistics", done(0))
	err := r.submit(func(seq *engine.Sequence) {
		for i, b := range r.lay.blocks {
			if bandBytes == frameBytes { // whole frames: one contiguous run of the cube
				seq.Upload(r.cubes[i], 0, raw[int64(b.t0)*frameBytes:int64(b.t0+b.nt)*frameBytes])
				continue
			}
			seq.UploadFrom(r.cubes[i], 0, int64(b.nt)*bandBytes, func(dst []byte, at int64) error {
				for len(dst) > 0 {
					t, off := at/bandBytes, at%bandBytes
					src := raw[int64(b.t0+int(t))*frameBytes+int64(ps.ya*W*v.ValueSize())+off:][:min(bandBytes-off, int64(len(dst)))]
					par.Copy(dst, src)
					n := len(src)
					dst, at = dst[n:], at+int64(n)
				}
				return nil
			})
		}
		for pass := 0; pass < 2; pass++ {
			for i, b := range r.lay.blocks {
				pc := centerPush{n: nband, t: b.nt, total: T, pass: pass, first: i == 0}
				seq.Dispatch(r.k.center, r.groups(nband), pc, engine.Bind(r.cubes[i]), engine.Bind(r.sums))
			}
		}
	})
	if err != nil {
		return err
	}
	hb := ps.yb - ps.ya
	lagsStep := r.chunks(nband*D, T, 1<<26)
	for base := 0; base < nband*D; base += lagsStep {
		end := min(base+lagsStep, nband*D)
		err := r.submit(func(seq *engine.Sequence) {
			for i, b := range r.lay.blocks {
				pc := lagsPush{h: hb, w: W, t: b.nt, nd: D, div: r.div, base: base, end: end, first: i == 0}
				seq.Dispatch(r.k.lags, r.groups(end-base), pc, engine.Bind(r.cubes[i]), engine.Bind(r.disp), engine.Bind(r.lags))
			}
		})
		if err != nil {
			return err
		}
		r.progress("statistics", done(0.15*float64(end)/float64(nband*D)))
	}
	// The band's locations, as flat indices of the band.
	k0 := (ps.y0 - ps.ya) * W
	nb := r.pn.nb
	solveStep := r.chunks(locs, P*P*P+nb*nb*P, 1<<25)
	for base := k0; base < k0+locs; base += solveStep {
		end := min(base+solveStep, k0+locs)
		err := r.submit(func(seq *engine.Sequence) {
			pc := solvePush{h: hb, w: W, t: T, r: p.Radius, npairs: r.npairs, vip: r.vip, base: base, end: end, k0: k0}
			binds := []engine.Binding{engine.Bind(r.lags), engine.Bind(r.pairs), engine.Bind(r.h), engine.Bind(r.u), engine.Bind(r.alpha)}
			if nb > 1 {
				binds = append(binds, engine.Bind(r.gram))
			}
			seq.Dispatch(r.k.solve, r.dev.Groups(end-base), pc, binds...)
			if end == k0+locs {
				seq.Download(r.alpha, 0, r.alphaOut[ps.y0*W*v.AccSize():ps.y1*W*v.AccSize()])
			}
		})
		if err != nil {
			return err
		}
		r.progress("statistics", done(0.15+0.85*float64(end-k0)/float64(locs)))
	}
	return nil
}

// detect runs the detection map (T·P work per pixel) for pass pi: every
// pixel's frames whose location lies in the pass' rows, span after span
// of frames; the last reads the maps back.
func (r *vkRun) detect(pi int, ps vkPass) error {
	p := r.p
	W, P, N := p.W, p.P(), p.H*p.W
	passes, spans := r.lay.passes, r.lay.spans
	nband := (ps.yb - ps.ya) * W
	r.progress("detection map", float64(pi)/float64(len(passes)))
	klo, khi := ps.y0*W, ps.y1*W
	for si, sp := range spans {
		b := r.lay.blocks[sp.block]
		step := r.chunks(N, (sp.l1-sp.l0)*P*min(r.pn.nb, 16), 1<<23)
		for base := 0; base < N; base += step {
			end := min(base+step, N)
			last := pi == len(passes)-1 && si == len(spans)-1 && end == N
			err := r.submit(func(seq *engine.Sequence) {
				if r.pn.posTable && r.pl.tabFrames < p.T && base == 0 {
					r.table(seq, r.tabs[0], sp.pt0)
				}
				binds := []engine.Binding{engine.Bind(r.cubes[sp.block]), engine.Bind(r.u), engine.Bind(r.alpha), engine.Bind(r.trig),
					engine.Bind(r.off), engine.Bind(r.maps), engine.Bind(r.acc)}
				if r.pn.nb > 1 {
					binds = append(binds, engine.Bind(r.gram))
				}
				if r.pn.posTable {
					binds = append(binds, engine.Bind(r.tabs[sp.tab]))
				}
				pc := detectPush{h: p.H, w: W, t: b.nt, np: P, cy: p.CY, cx: p.CX, vip: r.vip, base: base, end: end,
					t0: b.t0, first: pi == 0 && si == 0, last: pi == len(passes)-1 && si == len(spans)-1, l0: sp.l0, l1: sp.l1,
					klo: klo, khi: khi, yoff: ps.ya * W, nband: nband, pt0: sp.pt0}
				seq.Dispatch(r.k.detect, r.groups(end-base), pc, binds...)
				if last {
					seq.Download(r.maps, 0, r.out)
				}
			})
			if err != nil {
				return err
			}
			r.progress("detection map", (float64(pi)+(float64(si)+float64(end)/float64(N))/float64(len(spans)))/float64(len(passes)))
		}
	}
	return nil
}

// readback fills maps from the bytes read back, counting the NaN pixels
// and the locations without statistics (α NaN).
func (r *vkRun) readback(maps *Maps) {
	le := binary.LittleEndian
	N := r.p.H * r.p.W
	val := func(b []byte, i, size int) float64 {
		if size == 8 {
			return math.Float64frombits(le.Uint64(b[8*i:]))
		}
		return float64(math.Float32frombits(le.Uint32(b[4*i:])))
	}
	vs, as := r.v.ValueSize(), r.v.AccSize()
	for i := 0; i < N; i++ {
		maps.SNR[i], maps.Flux[i], maps.Sigma[i] = val(r.out, i, vs), val(r.out, N+i, vs), val(r.out, 2*N+i, vs)
		if math.IsNaN(maps.SNR[i]) {
			maps.InvalidPixels++
		}
		if math.IsNaN(val(r.alphaOut, i, as)) {
			maps.InvalidLocations++
		}
	}
}

// stages are the maps' stages from what the submissions timed: the
// upload, each kernel's GPU time (or all kernels' where the device did
// not time them apart), the download and the device's wall time.
func (r *vkRun) stages(wall time.Duration) []Stage {
	var upload, download time.Duration
	// GPU-timed when the submissions with kernels were (the first, of
	// uploads only, has no timestamps on some devices).
	gpuTimed := false
	kernels := map[string]time.Duration{}
	for _, tm := range r.tms {
		upload += tm.Upload
		download += tm.Download
		gpuTimed = gpuTimed || tm.GPUTimed
		for _, st := range tm.Steps {
			if st.Phase == engine.PhaseKernel {
				kernels[strings.TrimSuffix(st.Name, r.v.Suffix())] += st.Time
			}
		}
	}
	stages := []Stage{{Name: "upload", Time: upload}}
	if gpuTimed {
		for _, k := range []struct{ kernel, stage string }{{"paco_center", "centre"}, {"paco_lags", "lagged products"}, {"paco_solve", "statistics"}, {"paco_detect", "detection map"}} {
			stages = append(stages, Stage{Name: k.stage, Time: kernels[k.kernel]})
		}
	} else {
		var kernel time.Duration
		for _, tm := range r.tms {
			kernel += tm.Kernel
		}
		stages = append(stages, Stage{Name: "kernels", Time: kernel})
	}
	return append(stages, Stage{Name: "download", Time: download}, Stage{Name: "total (device)", Time: wall})
}

// kib writes n KiB for people, precisely: "1,229 KiB (1.2 MiB)".
func kib(n int64) string {
	s := fmt.Sprint(n)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	if n < 1024 {
		return s + " KiB"
	}
	return fmt.Sprintf("%s KiB (%s)", s, engine.SizeText(n<<10))
}

// int32Bytes is xs in little-endian bytes.
func int32Bytes(xs []int32) []byte {
	b := make([]byte, 4*len(xs))
	for i, x := range xs {
		binary.LittleEndian.PutUint32(b[4*i:], uint32(x))
	}
	return b
}

// The push constants of paco_center.comp, paco_lags.comp, paco_solve.comp
// and paco_detect.comp, matched to the blocks' members by name.
type (
	centerPush struct {
		n, t, total, pass int
		first             bool
	}
	lagsPush struct {
		h, w, t, nd, div, base, end int
		first                       bool
	}
	solvePush struct {
		h, w, t, r, npairs int
		vip                bool
		base, end, k0      int
	}
	detectPush struct {
		h, w, t, np            int
		cy, cx                 int
		vip                    bool
		base, end, t0          int
		first, last            bool
		l0, l1, klo, khi, yoff int
		nband, pt0             int
	}
)
