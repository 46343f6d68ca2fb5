package paco

import (
	"context"
	"encoding/binary"
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/vkstat/vkstat/engine"
	"github.com/vkstat/vkstat/shaders"
	"github.com/vkstat/vkstat/tensor"
)

const workgroup = 256

// detectLoopBudget is the most loop iterations paco_detect asks of one
// invocation in one dispatch, under llvmpipe's limit of 65,535.
const detectLoopBudget = 60000

// Run computes the maps on dev, or on the CPU when dev is nil.
func Run(ctx context.Context, dev *engine.Device, in Input) (*Maps, error) {
	if dev == nil {
		return CPU(ctx, in)
	}
	return Vulkan(ctx, dev, in)
}

type variant struct {
	suffix   string
	es, acc  int // bytes per data element and per accumulator
	dataType tensor.DType
}

func pickVariant(dev *engine.Device, dt tensor.DType) (variant, error) {
	switch {
	case dt == tensor.F64 && !dev.Info.Float64:
		return variant{}, fmt.Errorf("paco: %w", dev.RequireFloat64())
	case dt == tensor.F64:
		return variant{"_f64", 8, 8, tensor.F64}, nil
	case dev.Info.Float64:
		return variant{"_f32", 4, 8, tensor.F32}, nil
	}
	return variant{"_f32acc32", 4, 4, tensor.F32}, nil
}

// blockFrameBudget is the most frames in one block of the cube on the
// device, on every device (a GPU pays a few more dispatches past it).
const blockFrameBudget = 30000

// testOptions steer the Vulkan path in tests (Input.test).
type testOptions struct {
	// maxBlockFrames, when positive, caps the frames of one block below
	// the device's own limits, to run the blocked path on small cubes.
	maxBlockFrames int
}

// Vulkan computes the maps on dev. The cube is uploaded once; centring,
// lagged products, per-location statistics (one workgroup per location) and
// the detection map run on the device, and only the three maps come back.
// A cube larger than one binding or one allocation lives on the device in
// blocks of frames, which every step walks in turn. The cube's precision
// (float32 or float64) is the arithmetic precision; accumulations are in
// float64 where the device has it.
func Vulkan(ctx context.Context, dev *engine.Device, in Input) (*Maps, error) {
	p, err := Prepare(in)
	if err != nil {
		return nil, err
	}
	sub := p.Placement == PlacementSubpixel
	nb := 1 // right-hand sides per location: h, or the sub-pixel basis
	if sub {
		nb = NBasis
	}
	v, err := pickVariant(dev, in.Cube.DType)
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
			in.Radius, P, solveWG, dev.Info.Name, dev.Info.MaxWorkgroupInvocation, engine.ErrDeviceLimit)
	}
	// Its shared memory: the strictly lower triangle, the diagonal, the
	// solutions, the reductions and the published pivots (ACC), and the
	// info code.
	shared := (P*(P-1)/2+1+P+nb*P+3*solveWG+2*nb)*v.acc + 4
	if shared > int(dev.Info.MaxSharedMemory) {
		return nil, fmt.Errorf("patch radius %d (%d pixels) in this precision with %s PSF placement needs %d bytes of shared memory; %s has %d: %w",
			in.Radius, P, p.Placement, shared, dev.Info.Name, dev.Info.MaxSharedMemory, engine.ErrDeviceLimit)
	}
	maxB := min(dev.MaxBinding(), dev.MaxBuffer())
	for _, b := range []struct {
		what  string
		bytes int64
	}{{"one frame", int64(N * v.es)}, {"the lagged products", int64(N * D * v.es)}, {"u", int64(N * nb * P * v.es)}, {"the Gram matrices", int64(N * nb * nb * v.acc)}} {
		if b.bytes > maxB {
			return nil, fmt.Errorf("paco: %s takes %d MiB, more than %s binds at once (%d MiB): %w",
				b.what, b.bytes>>20, dev.Info.Name, maxB>>20, engine.ErrTooLarge)
		}
	}
	// Blocks of frames, each within one binding and one allocation.
	frameBytes := int64(N * v.es)
	// Also at most blockFrameBudget: the centring and lagged-product
	// kernels loop once per frame of a block, and llvmpipe (lavapipe)
	// silently ends an invocation's loops after 65,535 iterations (70,000
	// frames of 9×9 pixels, one block, gave SNRs off by 191).
	perBlock := int(max(min(maxB/frameBytes, blockFrameBudget), 1))
	if in.test != nil && in.test.maxBlockFrames > 0 {
		perBlock = min(perBlock, in.test.maxBlockFrames)
	}
	type block struct{ t0, nt int }
	var blocks []block
	for t0 := 0; t0 < T; t0 += perBlock {
		blocks = append(blocks, block{t0, min(perBlock, T-t0)})
	}

	subName := ""
	if sub {
		subName = "_sub"
	}
	kernel := func(name string, push any, spec ...uint32) (*engine.Kernel, error) {
		name += v.suffix
		code, err := shaders.Code(name)
		if err != nil {
			return nil, err
		}
		return dev.Kernel(engine.KernelSpec{Name: name, Code: code, Push: push, Spec: spec})
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
	// Without float64 the detection kernel reads the trajectories from a
	// table computed here in float64 (paco_detect.comp says why), a frame's
	// worth of int32 per frame, in the same blocks as the cube.
	posTable := v.acc == 4
	kDetect, err := kernel("paco_detect"+subName, detectPush{}, workgroup)
	if err != nil {
		return nil, err
	}

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
		b := make([]byte, 0, len(xs)*v.acc)
		for _, x := range xs {
			if v.acc == 8 {
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

	sizes := []int64{int64(8 * D), int64(N * D * v.es), int64(len(pairB)), int64(nb * P * v.acc), int64(N * nb * P * v.es),
		int64(N * v.acc), int64(2 * T * v.acc), int64(4 * P), int64(3 * N * v.es), int64(N * v.acc), int64(2 * N * v.acc),
		int64(N * nb * nb * v.acc)}
	for _, b := range blocks { // the cube and the centred cube, block by block
		sizes = append(sizes, int64(b.nt)*frameBytes, int64(b.nt)*frameBytes)
	}
	if posTable {
		for _, b := range blocks {
			sizes = append(sizes, int64(b.nt*N*4))
		}
	}
	bufs, err := dev.Buffers(sizes...)
	if err != nil {
		return nil, fmt.Errorf("paco: %w", err)
	}
	defer engine.ReleaseAll(bufs)
	dispBuf, lags, pairBuf, hBuf, uBuf, alphaBuf, trigBuf, offBuf, mapsBuf, sumsBuf, accBuf, gramBuf := bufs[0], bufs[1], bufs[2], bufs[3], bufs[4], bufs[5], bufs[6], bufs[7], bufs[8], bufs[9], bufs[10], bufs[11]
	cubes, ycs := make([]*engine.Buffer, len(blocks)), make([]*engine.Buffer, len(blocks))
	poss := make([]*engine.Buffer, len(blocks))
	for i := range blocks {
		cubes[i], ycs[i] = bufs[12+2*i], bufs[13+2*i]
		if posTable {
			poss[i] = bufs[12+2*len(blocks)+i]
		}
	}
	div, vip := T, p.Compat == CompatVIP
	if vip {
		div *= 2
	}
	groups := func(threads int) [3]uint32 { return dev.Groups((threads + workgroup - 1) / workgroup) }

	maps := newMaps(p)
	maps.Device, maps.Precision = dev.Info.Name, "f32"
	if v.dataType == tensor.F64 {
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
	r := 0
	for _, o := range p.Offsets {
		r = max(r, o[0])
	}
	var tms []engine.Timing
	submit := func(record func(seq *engine.Sequence)) error {
		tm, err := dev.Run(ctx, record)
		tms = append(tms, tm)
		return err
	}

	// Upload and centring: the sums of every block, then every block centred.
	in.report("statistics", 0)
	raw := in.Cube.Raw()
	err = submit(func(seq *engine.Sequence) {
		for i, b := range blocks {
			seq.Upload(cubes[i], 0, raw[int64(b.t0)*frameBytes:int64(b.t0+b.nt)*frameBytes])
		}
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
		if posTable {
			for i, b := range blocks {
				tab := make([]int32, b.nt*N)
				p.Trajectories(b.t0, b.nt, tab)
				seq.Upload(poss[i], 0, int32Bytes(tab))
			}
		}
		for pass := 0; pass < 2; pass++ {
			for i, b := range blocks {
				pc := centerPush{n: N, t: b.nt, total: T, pass: pass, first: i == 0}
				seq.Dispatch(kCenter, groups(N), pc, engine.Bind(cubes[i]), engine.Bind(ycs[i]), engine.Bind(sumsBuf))
			}
		}
	})
	if err != nil {
		return nil, err
	}
	// Lagged products (N·D threads, T steps each), then the per-location
	// statistics (P³ work each); each counts for half of the "statistics"
	// progress, weighted by lavapipe's measured times.
	lagsStep := chunks(N*D, T, 1<<26)
	for base := 0; base < N*D; base += lagsStep {
		end := min(base+lagsStep, N*D)
		err := submit(func(seq *engine.Sequence) {
			for i, b := range blocks {
				pc := lagsPush{h: H, w: W, t: b.nt, nd: D, div: div, base: base, end: end, first: i == 0}
				seq.Dispatch(kLags, groups(end-base), pc, engine.Bind(ycs[i]), engine.Bind(dispBuf), engine.Bind(lags))
			}
		})
		if err != nil {
			return nil, err
		}
		in.report("statistics", 0.15*float64(end)/float64(N*D))
	}
	solveStep := chunks(N, P*P*P+nb*nb*P, 1<<25)
	for base := 0; base < N; base += solveStep {
		end := min(base+solveStep, N)
		err := submit(func(seq *engine.Sequence) {
			pc := solvePush{h: H, w: W, t: T, r: r, npairs: len(pairs), vip: vip, base: base, end: end}
			binds := []engine.Binding{engine.Bind(lags), engine.Bind(pairBuf), engine.Bind(hBuf), engine.Bind(uBuf), engine.Bind(alphaBuf)}
			if sub {
				binds = append(binds, engine.Bind(gramBuf))
			}
			seq.Dispatch(kSolve, dev.Groups(end-base), pc, binds...)
		})
		if err != nil {
			return nil, err
		}
		in.report("statistics", 0.15+0.85*float64(end)/float64(N))
	}

	// Detection map (T·P work per pixel), then the download.
	in.report("detection map", 0)
	detectStep := chunks(N, T*P*min(nb, 16), 1<<23)
	// Frames per dispatch: llvmpipe (lavapipe) silently ends an
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
	out := make([]byte, 3*N*v.es)
	alphaOut := make([]byte, N*v.acc)
	for base := 0; base < N; base += detectStep {
		end := min(base+detectStep, N)
		last := end == N
		err := submit(func(seq *engine.Sequence) {
			for i, b := range blocks {
				binds := []engine.Binding{engine.Bind(ycs[i]), engine.Bind(uBuf), engine.Bind(alphaBuf), engine.Bind(trigBuf),
					engine.Bind(offBuf), engine.Bind(mapsBuf), engine.Bind(accBuf)}
				if sub {
					binds = append(binds, engine.Bind(gramBuf))
				}
				if posTable {
					binds = append(binds, engine.Bind(poss[i]))
				}
				for l0 := 0; l0 < b.nt; l0 += span {
					l1 := min(l0+span, b.nt)
					pc := detectPush{h: H, w: W, t: b.nt, np: P, cy: p.CY, cx: p.CX, vip: vip, base: base, end: end,
						t0: b.t0, first: i == 0 && l0 == 0, last: i == len(blocks)-1 && l1 == b.nt, l0: l0, l1: l1}
					seq.Dispatch(kDetect, groups(end-base), pc, binds...)
				}
			}
			if last {
				seq.Download(mapsBuf, 0, out)
				seq.Download(alphaBuf, 0, alphaOut)
			}
		})
		if err != nil {
			return nil, err
		}
		in.report("detection map", float64(end)/float64(N))
	}
	wall := time.Since(t0)
	in.report("detection map", 1)

	val := func(b []byte, i, size int) float64 {
		if size == 8 {
			return math.Float64frombits(le.Uint64(b[8*i:]))
		}
		return float64(math.Float32frombits(le.Uint32(b[4*i:])))
	}
	for i := 0; i < N; i++ {
		maps.SNR[i], maps.Flux[i], maps.Sigma[i] = val(out, i, v.es), val(out, N+i, v.es), val(out, 2*N+i, v.es)
		if math.IsNaN(maps.SNR[i]) {
			maps.InvalidPixels++
		}
		if math.IsNaN(val(alphaOut, i, v.acc)) {
			maps.InvalidLocations++
		}
	}
	var upload, download time.Duration
	gpuTimed := true
	kernels := map[string]time.Duration{}
	for _, tm := range tms {
		upload += tm.Upload
		download += tm.Download
		gpuTimed = gpuTimed && tm.GPUTimed
		for _, st := range tm.Steps {
			if st.Phase == engine.PhaseKernel {
				kernels[strings.TrimSuffix(st.Name, v.suffix)] += st.Time
			}
		}
	}
	maps.Stages = []Stage{{"upload", upload}}
	if gpuTimed {
		for _, k := range []struct{ kernel, stage string }{{"paco_center", "centre"}, {"paco_lags", "lagged products"}, {"paco_solve", "statistics"}, {"paco_detect", "detection map"}} {
			maps.Stages = append(maps.Stages, Stage{k.stage, kernels[k.kernel]})
		}
	} else {
		var kernel time.Duration
		for _, tm := range tms {
			kernel += tm.Kernel
		}
		maps.Stages = append(maps.Stages, Stage{"kernels", kernel})
	}
	maps.Stages = append(maps.Stages, Stage{"download", download}, Stage{"total (device)", wall})
	return maps, nil
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
// and paco_detect.comp.
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
		base, end          int
	}
	detectPush struct {
		h, w, t, np   int
		cy, cx        int
		vip           bool
		base, end, t0 int
		first, last   bool
		l0, l1        int
	}
)
