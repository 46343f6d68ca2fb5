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
	p, err := Prepare(in, opt)
	if err != nil {
		return nil, err
	}
	return runMaps(ctx, dev, p)
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
	m.Timing = m.stageTiming()
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
func Vulkan(ctx context.Context, dev *engine.Device, p *Prepared) (*Maps, error) {
	progress := engine.ProgressOf(ctx)
	var phases Phases
	lap := phases.Clock().Lap
	sub := p.Placement == PlacementSubpixel
	nb := 1 // right-hand sides per location: h, or the sub-pixel basis
	if sub {
		nb = NBasis
	}
	v, err := pickVariant(dev, p.Cube.DType)
	if err != nil {
		return nil, err
	}
	T, H, W, P, N := p.T, p.H, p.W, p.P(), p.H*p.W
	disp, pairs := p.Lags()
	D := len(disp)

	// The solve kernel's invocation i owns row i of the factor
	// (shaders/include/linalg.glsl's row-owner Cholesky): at least P of
	// them, a power of two for its reductions.
	solveWG := 64
	for solveWG < P {
		solveWG *= 2
	}
	if solveWG > int(dev.Info.MaxWorkgroupInvocation) {
		return nil, fmt.Errorf("patch radius %d (%d pixels) needs %d invocations per workgroup; %s has %d: %w",
			p.Radius, P, solveWG, dev.Info.Name, dev.Info.MaxWorkgroupInvocation, engine.ErrDeviceLimit)
	}
	// Its shared memory: the strictly lower triangle, the diagonal, the
	// solutions, the reductions and the published pivots (ACC), and the
	// info code.
	shared := (P*(P-1)/2+1+P+nb*P+3*solveWG+2*nb)*v.AccSize() + 4
	if shared > int(dev.Info.MaxSharedMemory) {
		return nil, fmt.Errorf("patch radius %d (%d pixels) in this precision with %s PSF placement needs %d bytes of shared memory; %s has %d: %w",
			p.Radius, P, p.Placement, shared, dev.Info.Name, dev.Info.MaxSharedMemory, engine.ErrDeviceLimit)
	}
	r := p.Radius
	// Without float64 the detection kernel reads the trajectories from a
	// table computed here in float64 (paco_detect.comp says why), a frame's
	// worth of int32 per frame.
	posTable := v.AccSize() == 4

	// Host-side tables.
	le := binary.LittleEndian
	dispB := make([]byte, 0, 8*D)
	for _, d := range disp {
		dispB = le.AppendUint32(le.AppendUint32(dispB, uint32(int32(d[0]))), uint32(int32(d[1])))
	}
	pairB := make([]byte, 0, 16*len(pairs))
	for _, pr := range pairs {
		o := p.Offsets[pr.Base]
		diag := uint32(0)
		if pr.I == pr.J {
			diag = 1
		}
		pairB = le.AppendUint32(pairB, uint32(pr.J*(pr.J+1)/2+pr.I))
		pairB = le.AppendUint32(pairB, uint32(int32(o[0]*W+o[1])))
		pairB = le.AppendUint32(le.AppendUint32(pairB, uint32(pr.Disp)), diag)
	}
	accBytes := func(xs []float64) []byte {
		b := make([]byte, 0, len(xs)*v.AccSize())
		for _, x := range xs {
			if v.AccSize() == 8 {
				b = le.AppendUint64(b, math.Float64bits(x))
			} else {
				b = le.AppendUint32(b, math.Float32bits(float32(x)))
			}
		}
		return b
	}
	trig := make([]float64, 0, 2*T)
	for l := 0; l < T; l++ {
		trig = append(trig, p.Cos[l], p.Sin[l])
	}
	offB := make([]byte, 0, 4*P)
	for _, o := range p.Offsets {
		offB = le.AppendUint32(offB, uint32(int32(o[0]*W+o[1])))
	}

	lap("tables")

	// The plan: as many location rows per pass as the budget holds.
	maxB := min(dev.MaxBinding(), dev.MaxBuffer())
	for _, b := range []struct {
		what  string
		bytes int64
	}{{"the maps", int64(3 * N * v.ValueSize())}, {"the detection sums", int64(2 * N * v.AccSize())}, {"one row of a frame", int64(W * v.ValueSize())}} {
		if b.bytes > maxB {
			return nil, fmt.Errorf("paco: %s take %s, more than %s binds at once (%s): %w",
				b.what, engine.SizeText(b.bytes), dev.Info.Name, engine.SizeText(maxB), engine.ErrTooLarge)
		}
	}
	globals := []int64{int64(8 * D), int64(len(pairB)), int64(nb * P * v.AccSize()), int64(2 * T * v.AccSize()), int64(4 * P), int64(3 * N * v.ValueSize()), int64(2 * N * v.AccSize())}
	tabCap := int(max(maxB/int64(4*N), 1)) // table frames per binding
	// plan returns the plan for rows location rows per pass and a table
	// of tf frames per chunk, and whether its bindings are within maxB.
	plan := func(rows, tf int) (vkPlan, bool) {
		hb := min(H, rows+2*r)
		band := int64(hb * W)
		pl := vkPlan{rows: rows, hb: hb, tabFrames: tf}
		pl.perBlock = int(max(min(maxB/(band*int64(v.ValueSize())), blockFrameBudget), 1))
		if p.test != nil && p.test.maxBlockFrames > 0 {
			pl.perBlock = min(pl.perBlock, p.test.maxBlockFrames)
		}
		gram := int64(4)
		if sub {
			gram = int64(rows*W*nb*nb) * int64(v.AccSize())
		}
		pl.sizes = append(append([]int64{}, globals...), band*int64(v.AccSize()), band*int64(D*v.ValueSize()), int64(rows*W*nb*P*v.ValueSize()), int64(rows*W*v.AccSize()), gram)
		ok := true
		for _, s := range pl.sizes {
			ok = ok && s <= maxB
		}
		for t0 := 0; t0 < T; t0 += pl.perBlock {
			pl.sizes = append(pl.sizes, int64(min(pl.perBlock, T-t0))*band*int64(v.ValueSize()))
			pl.blocks++
		}
		if posTable {
			for t0 := 0; t0 < T; t0 += tf {
				pl.sizes = append(pl.sizes, int64(min(tf, T-t0)*N*4))
				pl.tabs++
				if tf < T {
					break // one chunk, uploaded in turn
				}
			}
		}
		return pl, ok
	}
	avail, budget := dev.Available(), dev.Budget()
	fits := func(pl vkPlan, ok bool) bool { return ok && dev.Need(pl.sizes...) <= avail }
	// The trajectory table: uploaded once when it fits with everything
	// else, or in a quarter of the budget; otherwise in chunks, each pass
	// uploading them in turn.
	tf := 0
	if posTable {
		tf = min(T, tabCap)
		if !fits(plan(H, tf)) {
			tf = int(min(int64(T), int64(tabCap), max(avail/4/int64(4*N), 1)))
			if !fits(plan(1, tf)) {
				tf = 1
			}
		}
	}
	minPlan, ok := plan(1, min(tf, 1))
	if !fits(minPlan, ok) {
		what := "one row of locations at a time (its band of pixel rows for every frame, its lagged products, u and α) and the maps"
		if least := dev.Need(minPlan.sizes...); !ok && least <= budget {
			// The device's own binding or allocation limit, not the
			// budget (which caps one allocation too).
			return nil, fmt.Errorf("paco: a %d×%d×%d cube does not fit %s's bindings (%s) even with %s: %w",
				T, H, W, dev.Info.Name, engine.SizeText(maxB), what, engine.ErrTooLarge)
		}
		return nil, fmt.Errorf("paco: a %d×%d×%d cube needs at least %s of device memory, for %s; %s of the %s budget is free on %s: %w",
			T, H, W, kib((dev.Need(minPlan.sizes...)+1023)/1024), what, kib(avail/1024), kib(budget/1024), dev.Info.Name, engine.ErrNoFit)
	}
	lo, hi := 1, H // the most rows that fit: in [lo, hi]
	if p.test != nil && p.test.maxPassRows > 0 {
		hi = min(hi, p.test.maxPassRows)
	}
	for lo < hi {
		mid := (lo + hi + 1) / 2
		if fits(plan(mid, tf)) {
			lo = mid
		} else {
			hi = mid - 1
		}
	}
	pl, _ := plan(lo, tf)
	bufs, err := dev.Buffers(pl.sizes...)
	for err != nil && errors.Is(err, engine.ErrBudget) && pl.rows > 1 {
		// The estimate of the allocator's slack was short: fewer rows.
		pl, _ = plan(max(pl.rows*3/4, 1), tf)
		bufs, err = dev.Buffers(pl.sizes...)
	}
	if err != nil {
		return nil, fmt.Errorf("paco: %w", err)
	}
	defer engine.ReleaseAll(bufs)
	lap("buffers")
	dispBuf, pairBuf, hBuf, trigBuf, offBuf, mapsBuf, accBuf := bufs[0], bufs[1], bufs[2], bufs[3], bufs[4], bufs[5], bufs[6]
	sumsBuf, lags, uBuf, alphaBuf, gramBuf := bufs[7], bufs[8], bufs[9], bufs[10], bufs[11]
	cubes := bufs[12 : 12+pl.blocks]
	tabs := bufs[12+pl.blocks:]
	type block struct{ t0, nt int }
	var blocks []block
	for t0 := 0; t0 < T; t0 += pl.perBlock {
		blocks = append(blocks, block{t0, min(pl.perBlock, T-t0)})
	}
	type pass struct{ y0, y1, ya, yb int } // location rows [y0, y1), pixel rows [ya, yb)
	var passes []pass
	for y0 := 0; y0 < H; y0 += pl.rows {
		y1 := min(y0+pl.rows, H)
		passes = append(passes, pass{y0, y1, max(y0-r, 0), min(y1+r, H)})
	}

	subName := ""
	if sub {
		subName = "_sub"
	}
	kernel := func(name string, push any, spec ...uint32) (*engine.Kernel, error) {
		name += v.Suffix()
		return dev.Kernel(engine.KernelSpec{Name: name, Push: push, Spec: spec})
	}
	kCenter, err := kernel("paco_center", centerPush{}, workgroup)
	if err != nil {
		return nil, err
	}
	kLags, err := kernel("paco_lags", lagsPush{}, workgroup)
	if err != nil {
		return nil, err
	}
	kSolve, err := kernel("paco_solve"+subName, solvePush{}, uint32(solveWG), uint32(P))
	if err != nil {
		return nil, err
	}
	kDetect, err := kernel("paco_detect"+subName, detectPush{}, workgroup)
	if err != nil {
		return nil, err
	}
	lap("pipelines")
	div, vip := T, false
	if p.Compat == CompatVIP {
		div, vip = 2*div, true
	}
	groups := func(threads int) [3]uint32 { return dev.Groups((threads + workgroup - 1) / workgroup) }

	maps := newMaps(p)
	maps.Device, maps.Precision, maps.Passes = dev.Info.Name, "f32", len(passes)
	if v.DType == tensor.F64 {
		maps.Precision = "f64"
	}
	t0 := time.Now()

	// The work is split into submissions of a fraction of a second each on
	// lavapipe (a submission cannot be interrupted; ctx is checked between
	// them, and progress reported), fewer and larger on GPUs.
	scale := 16
	if dev.Info.IsCPU() {
		scale = 1
	}
	chunks := func(total, unitsPerItem, budget int) int {
		return max(1, min(total, budget*scale/max(unitsPerItem, 1)))
	}
	var tms []engine.Timing
	submit := func(record func(seq *engine.Sequence)) error {
		tm, err := dev.Run(ctx, record)
		tms = append(tms, tm)
		return err
	}
	// table fills buf with the trajectory table's chunk from frame c0 on,
	// computed once (passes upload its chunks again and again).
	var tabB []byte
	table := func(seq *engine.Sequence, buf *engine.Buffer, c0 int) {
		if tabB == nil {
			tab := make([]int32, T*N)
			p.Trajectories(0, T, tab)
			tabB = int32Bytes(tab)
		}
		nt := min(pl.tabFrames, T-c0)
		seq.Upload(buf, 0, tabB[c0*N*4:(c0+nt)*N*4])
	}
	err = submit(func(seq *engine.Sequence) {
		seq.Upload(dispBuf, 0, dispB)
		seq.Upload(pairBuf, 0, pairB)
		if sub {
			var basis []float64
			for _, b := range p.Basis {
				basis = append(basis, b...)
			}
			seq.Upload(hBuf, 0, accBytes(basis))
		} else {
			seq.Upload(hBuf, 0, accBytes(p.Hvec))
		}
		seq.Upload(trigBuf, 0, accBytes(trig))
		seq.Upload(offBuf, 0, offB)
		if posTable && pl.tabFrames == T {
			for i, c0 := 0, 0; c0 < T; i, c0 = i+1, c0+pl.tabFrames {
				table(seq, tabs[i], c0)
			}
		}
	})
	if err != nil {
		return nil, err
	}

	raw := p.Cube.Raw()
	frameBytes := int64(N * v.ValueSize())
	// Frames per detection dispatch: llvmpipe (lavapipe) silently ends an
	// invocation's loops after 65,535 iterations in all (its guard against
	// endless shader loops; the sub-pixel map lost every frame past about
	// the 127th to it), so no dispatch may ask for more. Per frame the
	// nearest kernel loops P + 1 times, the sub-pixel one at most 5 + 25 +
	// 120 (its weights and Gram form) + 16·P.
	perFrame := P + 2
	if sub {
		perFrame = 16*P + 160
	}
	span := max(1, detectLoopBudget/perFrame)
	if posTable {
		span = min(span, pl.tabFrames)
	}
	// The spans of frames the detection map runs in: within a block of the
	// cube, a chunk of the table, and the loop budget.
	type frameSpan struct{ block, l0, l1, tab, pt0 int }
	var spans []frameSpan
	for i, b := range blocks {
		for l0 := 0; l0 < b.nt; {
			sp := frameSpan{block: i, l0: l0, l1: min(l0+span, b.nt)}
			if posTable {
				sp.tab = (b.t0 + l0) / pl.tabFrames
				sp.pt0 = sp.tab * pl.tabFrames
				sp.l1 = min(sp.l1, sp.pt0+pl.tabFrames-b.t0)
				if pl.tabFrames < T {
					sp.tab = 0 // one buffer, each chunk uploaded in turn
				}
			}
			spans = append(spans, sp)
			l0 = sp.l1
		}
	}
	// Progress: each pass's statistics are its share of the locations;
	// the detection map runs once per pass over every pixel.
	out := make([]byte, 3*N*v.ValueSize())
	alphaOut := make([]byte, N*v.AccSize())
	invalid := 0
	for pi, ps := range passes {
		nband := (ps.yb - ps.ya) * W
		bandBytes := int64(nband * v.ValueSize())
		locs := (ps.y1 - ps.y0) * W
		done := func(frac float64) float64 { return (float64(ps.y0*W) + frac*float64(locs)) / float64(N) }
		// Upload of the band's pixel rows, frame by frame, and centring:
		// the sums of every block, then every block centred in place.
		progress("statistics", done(0))
		err = submit(func(seq *engine.Sequence) {
			for i, b := range blocks {
				if bandBytes == frameBytes { // whole frames: one contiguous run of the cube
					seq.Upload(cubes[i], 0, raw[int64(b.t0)*frameBytes:int64(b.t0+b.nt)*frameBytes])
					continue
				}
				seq.UploadFrom(cubes[i], 0, int64(b.nt)*bandBytes, func(dst []byte, at int64) error {
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
				for i, b := range blocks {
					pc := centerPush{n: nband, t: b.nt, total: T, pass: pass, first: i == 0}
					seq.Dispatch(kCenter, groups(nband), pc, engine.Bind(cubes[i]), engine.Bind(sumsBuf))
				}
			}
		})
		if err != nil {
			return nil, err
		}
		// Lagged products of the band (nband·D threads, T steps each),
		// then the statistics of its locations (P³ work each); each counts
		// for half of the "statistics" progress, weighted by lavapipe's
		// measured times.
		hb := ps.yb - ps.ya
		lagsStep := chunks(nband*D, T, 1<<26)
		for base := 0; base < nband*D; base += lagsStep {
			end := min(base+lagsStep, nband*D)
			err := submit(func(seq *engine.Sequence) {
				for i, b := range blocks {
					pc := lagsPush{h: hb, w: W, t: b.nt, nd: D, div: div, base: base, end: end, first: i == 0}
					seq.Dispatch(kLags, groups(end-base), pc, engine.Bind(cubes[i]), engine.Bind(dispBuf), engine.Bind(lags))
				}
			})
			if err != nil {
				return nil, err
			}
			progress("statistics", done(0.15*float64(end)/float64(nband*D)))
		}
		// The band's locations, as flat indices of the band.
		k0 := (ps.y0 - ps.ya) * W
		solveStep := chunks(locs, P*P*P+nb*nb*P, 1<<25)
		for base := k0; base < k0+locs; base += solveStep {
			end := min(base+solveStep, k0+locs)
			err := submit(func(seq *engine.Sequence) {
				pc := solvePush{h: hb, w: W, t: T, r: r, npairs: len(pairs), vip: vip, base: base, end: end, k0: k0}
				binds := []engine.Binding{engine.Bind(lags), engine.Bind(pairBuf), engine.Bind(hBuf), engine.Bind(uBuf), engine.Bind(alphaBuf)}
				if sub {
					binds = append(binds, engine.Bind(gramBuf))
				}
				seq.Dispatch(kSolve, dev.Groups(end-base), pc, binds...)
				if end == k0+locs {
					seq.Download(alphaBuf, 0, alphaOut[ps.y0*W*v.AccSize():ps.y1*W*v.AccSize()])
				}
			})
			if err != nil {
				return nil, err
			}
			progress("statistics", done(0.15+0.85*float64(end-k0)/float64(locs)))
		}

		// Detection map (T·P work per pixel): every pixel's frames whose
		// location lies in this pass's rows, span after span of frames.
		progress("detection map", float64(pi)/float64(len(passes)))
		klo, khi := ps.y0*W, ps.y1*W
		for si, sp := range spans {
			b := blocks[sp.block]
			step := chunks(N, (sp.l1-sp.l0)*P*min(nb, 16), 1<<23)
			for base := 0; base < N; base += step {
				end := min(base+step, N)
				last := pi == len(passes)-1 && si == len(spans)-1 && end == N
				err := submit(func(seq *engine.Sequence) {
					if posTable && pl.tabFrames < T && base == 0 {
						table(seq, tabs[0], sp.pt0)
					}
					binds := []engine.Binding{engine.Bind(cubes[sp.block]), engine.Bind(uBuf), engine.Bind(alphaBuf), engine.Bind(trigBuf),
						engine.Bind(offBuf), engine.Bind(mapsBuf), engine.Bind(accBuf)}
					if sub {
						binds = append(binds, engine.Bind(gramBuf))
					}
					if posTable {
						binds = append(binds, engine.Bind(tabs[sp.tab]))
					}
					pc := detectPush{h: H, w: W, t: b.nt, np: P, cy: p.CY, cx: p.CX, vip: vip, base: base, end: end,
						t0: b.t0, first: pi == 0 && si == 0, last: pi == len(passes)-1 && si == len(spans)-1, l0: sp.l0, l1: sp.l1,
						klo: klo, khi: khi, yoff: ps.ya * W, nband: nband, pt0: sp.pt0}
					seq.Dispatch(kDetect, groups(end-base), pc, binds...)
					if last {
						seq.Download(mapsBuf, 0, out)
					}
				})
				if err != nil {
					return nil, err
				}
				progress("detection map", (float64(pi)+(float64(si)+float64(end)/float64(N))/float64(len(spans)))/float64(len(passes)))
			}
		}
	}
	wall := time.Since(t0)
	lap("device run")
	progress("detection map", 1)

	val := func(b []byte, i, size int) float64 {
		if size == 8 {
			return math.Float64frombits(le.Uint64(b[8*i:]))
		}
		return float64(math.Float32frombits(le.Uint32(b[4*i:])))
	}
	for i := 0; i < N; i++ {
		maps.SNR[i], maps.Flux[i], maps.Sigma[i] = val(out, i, v.ValueSize()), val(out, N+i, v.ValueSize()), val(out, 2*N+i, v.ValueSize())
		if math.IsNaN(maps.SNR[i]) {
			maps.InvalidPixels++
		}
		if math.IsNaN(val(alphaOut, i, v.AccSize())) {
			invalid++
		}
	}
	maps.InvalidLocations = invalid
	lap("maps readback")
	maps.Phases = phases
	var upload, download time.Duration
	// GPU-timed when the submissions with kernels were (the first, of
	// uploads only, has no timestamps on some devices).
	gpuTimed := false
	kernels := map[string]time.Duration{}
	for _, tm := range tms {
		upload += tm.Upload
		download += tm.Download
		gpuTimed = gpuTimed || tm.GPUTimed
		for _, st := range tm.Steps {
			if st.Phase == engine.PhaseKernel {
				kernels[strings.TrimSuffix(st.Name, v.Suffix())] += st.Time
			}
		}
	}
	maps.Stages = []Stage{{Name: "upload", Time: upload}}
	if gpuTimed {
		for _, k := range []struct{ kernel, stage string }{{"paco_center", "centre"}, {"paco_lags", "lagged products"}, {"paco_solve", "statistics"}, {"paco_detect", "detection map"}} {
			maps.Stages = append(maps.Stages, Stage{Name: k.stage, Time: kernels[k.kernel]})
		}
	} else {
		var kernel time.Duration
		for _, tm := range tms {
			kernel += tm.Kernel
		}
		maps.Stages = append(maps.Stages, Stage{Name: "kernels", Time: kernel})
	}
	maps.Stages = append(maps.Stages, Stage{Name: "download", Time: download}, Stage{Name: "total (device)", Time: wall})
	return maps, nil
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
