package cov

import (
	"context"
	"fmt"
	"math/bits"
	"time"
	"unsafe"

	"github.com/vkstat/vkstat/engine"
	"github.com/vkstat/vkstat/tensor"
)

// chunkBytes bounds the device memory one chunk of an (N, T, P) input
// takes; larger inputs are streamed through it in several submissions.
const chunkBytes = 256 << 20

// maxBlocks bounds the 4×4 accumulator blocks per invocation (16
// registers each).
const maxBlocks = 4

// testOptions steer the Vulkan path in tests (Options.test); nil, or the
// zero value, is what runs otherwise.
type testOptions struct {
	// chunkBytes, when positive, replaces chunkBytes, so that small inputs
	// take many chunks.
	chunkBytes int64
	// acc32 makes float32 kernels accumulate in float even on devices
	// with shaderFloat64, so that tests exercise that variant everywhere.
	acc32 bool
	// maxBlocks, when positive, replaces maxBlocks: a lower cap
	// exercises the multi-pass path on small P.
	maxBlocks int
	// splitkMinT, when positive, replaces the tune parameter splitk_min_t
	// (sets of at least this many samples go to the split-K kernel), and
	// splitkLen splitk_len (the samples a split aims at): small inputs then
	// take the split-K path, in many splits.
	splitkMinT, splitkLen int
	// inputBuffer, when set, is told the size of the device buffer that
	// the samples stream through: float16 and bfloat16 take half the bytes
	// of float32.
	inputBuffer func(bytes int64)
	// kernels, when set, replaces impl on the CPU path.
	kernels *kernels
}

// chunk is the bound on one chunk's device memory.
func (o *testOptions) chunk() int64 {
	if o != nil && o.chunkBytes > 0 {
		return o.chunkBytes
	}
	return chunkBytes
}

// get is o, or the zero value for nil.
func (o *testOptions) get() testOptions {
	if o == nil {
		return testOptions{}
	}
	return *o
}

// loopBudget is the most loop iterations the covariance kernel asks of one
// invocation in one dispatch: llvmpipe (lavapipe) silently ends an
// invocation's loops after 65,535 iterations in all (its guard against
// endless shader loops), and the kernel loops a few times per sample, so
// longer sample sets are split over dispatches (kernel.record). Applied on
// every device: a GPU pays a few dispatches more, past 10⁴ or so samples.
const loopBudget = 30000

// kernel is the covariance kernel compiled for one P and dtype on a device.
// It is exported for pipelines that chain it with other kernels in one
// submission (none does today: chol.Fused, the one that did, is gone).
type kernel struct {
	k      *engine.Kernel
	dev    *engine.Device
	passes int // block passes per sample set (shader push constant)
	elemSz int // bytes per element of the outputs (float32 for 16-bit inputs)
	inSz   int // bytes per element of the input
	accSz  int // bytes per accumulator
	p, wg  int // variables, workgroup size
	nblk   int // 4×4 blocks of the lower triangle
	tc     int // samples per staged tile
	maxb   int // blocks per invocation per pass
	// tiled, when the tune parameter kernel is "tiled" and P fits it, runs
	// the sets of at most tiled.maxT samples (tiled.go); nil: cov.comp
	// runs every set.
	tiled *tiledKernel
	// splitk, built for sets of at least splitkMinT samples, runs them
	// when the estimator is None (splitk.go), before tiled and cov.comp.
	splitk     *splitKernel
	splitkMinT int
}

// newKernel builds (or fetches from the device's cache) the covariance
// kernel for P variables of dtype dt, with the cov pipeline's tune
// parameters for dev (ctx may carry an override, tune.WithOverride): the
// blocks kernel (cov.comp), the tiled one (cov_tiled.comp) when the
// parameter kernel is "tiled" and P fits it, and the split-K one
// (cov_splitk.comp) when sets of t samples with estimator est take it. For float16 and bfloat16
// (tensor.F16, tensor.BF16) the data binding holds the 16-bit values
// packed two to a uint32 word (element i in the low half of word i/2 when
// i is even), the kernel widens them exactly to float32, and the outputs
// are float32.
func newKernel(ctx context.Context, dev *engine.Device, p, t int, est Estimator, dt tensor.DType, test testOptions) (*kernel, error) {
	tn, err := resolveTuning(ctx, dev.Info)
	if err != nil {
		return nil, fmt.Errorf("cov: %w", err)
	}
	v, err := dev.Variant(dt, test.acc32 || tn.acc32)
	if err != nil {
		return nil, fmt.Errorf("cov: %w", err)
	}
	name, es, accSz := "cov"+v.Suffix(), v.ValueSize(), v.AccSize()
	pb := (p + 3) / 4
	nblk := pb * (pb + 1) / 2
	wg := tn.blocksWGLo
	for wg < tn.blocksWGHi && wg*4 < nblk {
		wg *= 2
	}
	if lim := int(dev.Info.MaxWorkgroupInvocation); lim > 0 && wg > lim {
		wg = 1 << (bits.Len(uint(lim)) - 1) // a power of two for the tree reductions
	}
	capB := maxBlocks
	if test.maxBlocks > 0 {
		capB = test.maxBlocks
	}
	maxb := min((nblk+wg-1)/wg, capB, tn.blocksMaxB)
	passes := (nblk + wg*maxb - 1) / (wg * maxb)
	shared := int(dev.Info.MaxSharedMemory)
	if shared <= 0 {
		shared = 32 << 10
	}
	fixed := (p + 4*wg + 2) * accSz
	tc := min((shared-fixed)/(4*pb*accSz), tn.blocksTC)
	if tc < 1 {
		return nil, fmt.Errorf("cov: P = %d variables do not fit the %d bytes of shared memory of %s", p, shared, dev.Info.Name)
	}
	k, err := dev.Kernel(engine.KernelSpec{Name: name, Push: covPush{},
		Spec: []uint32{uint32(wg), uint32(p), uint32(tc), uint32(maxb)}})
	if err != nil {
		return nil, err
	}
	kn := &kernel{k: k, dev: dev, passes: passes, elemSz: es, inSz: dt.Size(), accSz: accSz, p: p, wg: wg, nblk: nblk, tc: tc, maxb: maxb}
	if tn.kernel == "tiled" {
		if kn.tiled, err = newTiled(dev, p, v, tn); err != nil {
			return nil, err
		}
	}
	kn.splitkMinT = tn.splitkMinT
	if test.splitkMinT > 0 {
		kn.splitkMinT = test.splitkMinT
	}
	if kn.splitkMinT > 0 && t >= kn.splitkMinT && est == None {
		if kn.splitk, err = newSplitK(dev, p, v, tn, test); err != nil {
			return nil, err
		}
	}
	return kn, nil
}

// useSplitK reports whether sets of t samples with estimator est go to the
// split-K kernel.
func (k *kernel) useSplitK(t int, est Estimator) bool {
	return k.splitk != nil && est == None && t >= k.splitkMinT
}

// useTiled reports whether sets of t samples go to the tiled kernel.
func (k *kernel) useTiled(t int) bool { return k.tiled != nil && t <= k.tiled.maxT }

// span is the most samples one dispatch of the kernel takes (a multiple
// of the tile, so that a split set is staged in the same tiles): the
// iterations of cov.comp's loops per tile of samples, counted as llvmpipe
// counts them, times the tiles, within loopBudget.
func (k *kernel) span(est Estimator) int {
	pb := (k.p + 3) / 4
	ceil := func(a, b int) int { return (a + b - 1) / b }
	perTile := 1 + ceil(k.tc*pb*4, k.wg) + k.tc*(1+k.maxb)
	if est == LedoitWolf {
		perTile += ceil(k.tc, k.wg) * (1 + pb)
	}
	tiles := max(1, loopBudget/(k.passes*perTile))
	// The means' loop: ceil(P/wg) invocations' worth of samples each.
	tiles = min(tiles, max(1, loopBudget/(ceil(k.p, k.wg)*k.tc)))
	return tiles * k.tc
}

// carryBytes is the size of the carry binding that record needs for n sets
// of t samples with estimator est: 0 when each set fits one dispatch.
func (k *kernel) carryBytes(n, t int, est Estimator) int64 {
	if k.useSplitK(t, est) {
		return k.splitk.partBytes(n, t)
	}
	if t <= k.span(est) || k.useTiled(t) {
		return 0
	}
	return int64(n) * int64(k.p+16*k.nblk+k.wg) * int64(k.accSz)
}

// record records one dispatch of the kernel over n sample sets with t
// samples each: sample t of variable i of set k is at data[b_k + t*tstride
// + off[i]], b_k = base[k] when gather, else k*nstride (elements of the
// kernel's dtype; off and base are uint32 buffers, two's complement for
// negative offsets). The outputs are mean (n·P), cov (n·P·P) and rho (n).
// Sets longer than one dispatch may take (llvmpipe's loop limit, see
// loopBudget) are split over several, which carry their sums in carry, a
// scratch binding of carryBytes(n, t, opt.Estimator) bytes; it is an error
// to leave it out then.
func (k *kernel) record(seq *engine.Sequence, n, t, tstride, nstride int, gather bool, opt Options,
	data, off, base, mean, cov, rho engine.Binding, carry ...engine.Binding) error {
	if k.useSplitK(t, opt.Estimator) {
		if len(carry) == 0 {
			return fmt.Errorf("cov: %d samples per set need a scratch binding for the split-K kernel", t)
		}
		return k.splitk.record(seq, n, t, tstride, nstride, gather, opt, data, off, base, mean, cov, rho, carry[0])
	}
	if k.useTiled(t) {
		return k.tiled.record(seq, n, t, tstride, nstride, gather, opt, data, off, base, mean, cov, rho)
	}
	dispatch := func(t0, t1, mode int, cb engine.Binding) error {
		pc := covPush{n: n, t: t, tstride: tstride, nstride: nstride, gather: gather, est: opt.Estimator, ddof: opt.DDof,
			passes: k.passes, t0: t0, t1: t1, mode: mode}
		return seq.Dispatch(k.k, k.dev.Groups(n), pc, data, off, base, mean, cov, rho, cb)
	}
	span := k.span(opt.Estimator)
	if t <= span {
		return dispatch(0, t, 0, cov) // cov stands in for the unused carry
	}
	if need := k.carryBytes(n, t, opt.Estimator); len(carry) == 0 || carry[0].Buf == nil || (carry[0].Size > 0 && carry[0].Size < need) {
		return fmt.Errorf("cov: %d samples per set need a carry binding of %d bytes (more than one dispatch's %d samples)", t, need, span)
	}
	const meanOnly, meanCarried, resume, save = 1, 2, 4, 8
	for t0 := 0; t0 < t; t0 += span {
		if err := dispatch(t0, min(t0+span, t), meanOnly, carry[0]); err != nil {
			return err
		}
	}
	for t0 := 0; t0 < t; t0 += span {
		t1 := min(t0+span, t)
		mode := meanCarried
		if t0 > 0 {
			mode |= resume
		}
		if t1 < t {
			mode |= save
		}
		if err := dispatch(t0, t1, mode, carry[0]); err != nil {
			return err
		}
	}
	return nil
}

// covPush is cov.comp's push constants.
type covPush struct {
	n, t, tstride, nstride int
	gather                 bool
	est                    Estimator
	ddof, passes           int
	t0, t1, mode           int
}

// Vulkan estimates the covariance of each sample set of x, an (N, T, P)
// array, on dev: VulkanStrided on its sets, which lie one after another
// (one submission per chunk that fits maxStorageBufferRange and
// chunkBytes; one in all for inputs that fit).
func Vulkan(ctx context.Context, dev *engine.Device, x *tensor.Tensor, opt Options) (*Result, engine.Timing, error) {
	src, err := arraySource(x, opt)
	if err != nil {
		return nil, engine.Timing{}, err
	}
	s := Strided{Bases: make([]int, src.n), Offsets: src.off, T: src.t, TStride: src.p}
	for k := range s.Bases {
		s.Bases[k] = k * src.t * src.p
	}
	return VulkanStrided(ctx, dev, x, s, opt)
}

// gatherBuffers holds a cube and its gather on the device:
// the cube, the patch offsets and the location
// bases.
type gatherBuffers struct {
	Cube, Off, Base *engine.Buffer
	T, Tstride      int
}

// uploadGather records the upload of cube and g's offsets and locations
// into new buffers, after checking that the cube fits one binding.
func uploadGather(dev *engine.Device, seq *engine.Sequence, cube *tensor.Tensor, g Gather, opt Options) (*gatherBuffers, error) {
	src, err := gatherSource(cube, g, opt)
	if err != nil {
		return nil, err
	}
	if int64(cube.Bytes()) > dev.MaxBinding() {
		return nil, fmt.Errorf("cov: the cube of %d MiB exceeds the %d MiB that one binding of %s may cover: %w",
			cube.Bytes()>>20, dev.MaxBinding()>>20, dev.Info.Name, engine.ErrTooLarge)
	}
	offs := make([]uint32, src.p)
	for i, o := range src.off {
		offs[i] = uint32(int32(o))
	}
	bases := make([]uint32, max(src.n, 1))
	for i, b := range src.bases {
		bases[i] = uint32(b)
	}
	bufs, err := dev.Buffers(int64(cube.Bytes()), int64(4*len(offs)), int64(4*len(bases)))
	if err != nil {
		return nil, err
	}
	seq.Upload(bufs[0], 0, cube.Raw())
	seq.Upload(bufs[1], 0, u32Bytes(offs))
	if err := seq.Upload(bufs[2], 0, u32Bytes(bases)); err != nil {
		engine.ReleaseAll(bufs)
		return nil, err
	}
	return &gatherBuffers{Cube: bufs[0], Off: bufs[1], Base: bufs[2], T: src.t, Tstride: src.tstride}, nil
}

// Release frees the buffers.
func (gb *gatherBuffers) Release() { engine.ReleaseAll([]*engine.Buffer{gb.Cube, gb.Off, gb.Base}) }

// VulkanGather is Vulkan on the sample sets that g gathers from a (T, H, W)
// cube: the cube is uploaded once and patches are gathered by the kernel;
// one submission in all.
func VulkanGather(ctx context.Context, dev *engine.Device, cube *tensor.Tensor, g Gather, opt Options) (_ *Result, tm engine.Timing, _ error) {
	defer engine.Begin(dev).End(&tm)
	if _, err := gatherSource(cube, g, opt); err != nil {
		return nil, tm, err
	}
	if cube.DType.Is16() {
		// Gathers are PACO's, which reads float32 or float64 cubes: a
		// 16-bit cube is widened (exactly) here rather than given kernels.
		cube = cube.As(tensor.F32)
	}
	n, p := len(g.Locations), len(g.Offsets)
	t0 := time.Now()
	res := newResult(opt.Out, cube.DType, n, p)
	tm.AddPhase(engine.TimeResults, time.Since(t0))
	if n == 0 {
		return res, tm, nil
	}
	k, err := newKernel(ctx, dev, p, cube.Shape[0], opt.Estimator, cube.DType, opt.test.get())
	if err != nil {
		return nil, tm, err
	}
	seq, err := dev.NewSequence()
	if err != nil {
		return nil, tm, err
	}
	defer func() { seq.Release() }()
	gb, err := uploadGather(dev, seq, cube, g, opt)
	if err != nil {
		return nil, tm, err
	}
	defer gb.Release()
	es := int64(k.elemSz)
	per := []int64{int64(p) * es, int64(p*p) * es, es, 4, k.carryBytes(1, gb.T, opt.Estimator)}
	cn := chunkItems(dev, opt.test.chunk(), n, per, int(dev.Alignment()/4))
	if cn < 1 {
		return nil, tm, fmt.Errorf("cov: one %d×%d covariance exceeds the device's maxStorageBufferRange", p, p)
	}
	out, err := dev.Buffers(int64(n)*per[0], int64(cn)*per[1], int64(n)*per[2], max(int64(cn)*per[4], 4))
	if err != nil {
		return nil, tm, err
	}
	defer engine.ReleaseAll(out)
	covRaw := res.Cov.Raw()
	for k0 := 0; k0 < n; k0 += cn {
		c := min(cn, n-k0)
		if k0 > 0 { // the covariance buffer is reused: run what is recorded
			st, err := seq.Run(ctx)
			seq.Release()
			tm.Add(st)
			if err != nil {
				return nil, tm, err
			}
			if seq, err = dev.NewSequence(); err != nil {
				return nil, tm, err
			}
		}
		err := k.record(seq, c, gb.T, gb.Tstride, 0, true, opt,
			engine.Bind(gb.Cube), engine.Bind(gb.Off), engine.Binding{Buf: gb.Base, Offset: int64(k0) * 4, Size: int64(c) * 4},
			engine.Binding{Buf: out[0], Offset: int64(k0) * per[0], Size: int64(c) * per[0]},
			sized(out[1], int64(c)*per[1]),
			engine.Binding{Buf: out[2], Offset: int64(k0) * per[2], Size: int64(c) * per[2]},
			sized(out[3], int64(c)*per[4]))
		if err != nil {
			return nil, tm, err
		}
		seq.Download(out[1], 0, covRaw[int64(k0)*per[1]:int64(k0+c)*per[1]])
	}
	seq.Download(out[0], 0, res.Mean.Raw())
	if err := seq.Download(out[2], 0, res.Rho.Raw()); err != nil {
		return nil, tm, err
	}
	st, err := seq.Run(ctx)
	tm.Add(st)
	if err != nil {
		return nil, tm, err
	}
	return res, tm, nil
}

// chunkItems is how many items (of per[i] bytes in binding i) one dispatch
// may take: every binding within maxStorageBufferRange, all of them within
// chunk bytes, and a multiple of align items (so that bindings placed at
// item offsets stay aligned) unless all n fit.
func chunkItems(dev *engine.Device, chunk int64, n int, per []int64, align int) int {
	var sum int64
	for _, b := range per {
		sum += b
	}
	c, err := dev.ChunkItems(min(n, int(max(chunk/sum, 1))), per, 1<<20, align)
	if err != nil {
		return 0
	}
	return c
}

// budgetBytes is how many bytes one chunk's buffers may take in all:
// chunk, within one binding and what the device's memory budget has left
// (less a MiB and a block of small buffers, as chunkItems leaves).
func budgetBytes(dev *engine.Device, chunk int64) int64 {
	c, err := dev.ChunkItems(int(chunk), []int64{1}, 1<<20, 1)
	if err != nil {
		return 0
	}
	return int64(c)
}

func sized(b *engine.Buffer, size int64) engine.Binding {
	return engine.Binding{Buf: b, Size: max(size, 4)}
}

func u32Bytes(v []uint32) []byte {
	if len(v) == 0 {
		return nil
	}
	return unsafe.Slice((*byte)(unsafe.Pointer(&v[0])), 4*len(v))
}
