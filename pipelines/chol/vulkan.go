package chol

import (
	"context"
	"fmt"
	"time"
	"unsafe"

	"github.com/vkstat/vkstat/device/tune"
	"github.com/vkstat/vkstat/engine"
	"github.com/vkstat/vkstat/tensor"
)

// Kernel flags (chol.comp).
const (
	flagL       = 1
	flagSolve   = 2
	flagInverse = 4
	flagLogDet  = 8
	flagQuad    = 16
)

// chunkBytes bounds the device memory one chunk of matrices and outputs
// takes; larger batches are streamed through it in several submissions.
const chunkBytes = 256 << 20

// maxMPW bounds the matrices per workgroup.
const maxMPW = 64

// testOptions steer the Vulkan path in tests (Request.test); nil, or the
// zero value, is what runs otherwise.
type testOptions struct {
	// global makes kernels keep L in a global scratch buffer even when it
	// fits workgroup memory, so that tests exercise that path on small P.
	global bool
	// maxMPW, when positive, replaces maxMPW: 1 makes small batches need
	// more than 65,535 workgroups.
	maxMPW int
}

// get is o, or the zero value for nil.
func (o *testOptions) get() testOptions {
	if o == nil {
		return testOptions{}
	}
	return *o
}

// mpwCap is the bound on the matrices per workgroup.
func (o *testOptions) mpwCap() int {
	if m := o.get().maxMPW; m > 0 {
		return m
	}
	return maxMPW
}

// kernel is chol.comp compiled for one P and dtype on a device.
type kernel struct {
	k        *engine.Kernel
	dev      *engine.Device
	p        int
	tpm, mpw int
	lsz      int  // elements of L's strictly lower triangle per matrix (>= 1)
	global   bool // L in the scratch binding 8
	es       int
	sg       int  // chol_sg.comp: the lanes of a subgroup (one matrix each); 0 for chol.comp
	dot      bool // chol_sg.comp's dot variant
}

// layout is how chol.comp runs for one P and dtype: TPM invocations per
// matrix, MPW matrices per workgroup, LSZ elements of L's strictly lower
// triangle per matrix (>= 1), and whether L lives in a global scratch
// buffer rather than workgroup memory.
type layout struct {
	tpm, mpw, lsz int
	global        bool
}

// sharedBytes is the workgroup memory chol.comp declares for a layout:
// MPW·(LSZ + 2) elements and MPW 32-bit words.
func (l layout) sharedBytes(es int) int { return l.mpw*(l.lsz+2)*es + 4*l.mpw }

// defaultSharedMemory is assumed when a device reports no shared-memory
// limit: Vulkan's guaranteed minimum maxComputeSharedMemorySize.
const defaultSharedMemory = 32 << 10

// planLayout picks the layout for P on a device with the limits of info,
// float64 when double: TPM = the power of two >= P invocations per matrix,
// 64/TPM matrices per workgroup when P <= 32 (64: the built-in
// wg_invocations of device/tune's chol.json), and L in workgroup memory
// when sharedBytes fits the device's maxComputeSharedMemorySize, else in a
// global scratch buffer. With 32 KiB (lavapipe) that is P <= 128 in float32
// and P <= 90 in float64; with 48 KiB (NVIDIA) P <= 157 and P <= 111; with
// 64 KiB P <= 181 and P <= 128. It is a function of the device report
// alone, so that tests can ask which path a device must take.
func planLayout(info engine.DeviceInfo, p int, double bool) (layout, error) {
	b, err := tune.Builtin("chol", info)
	if err != nil {
		return layout{}, err
	}
	return planLayoutFor(info, p, double, b.Int("wg_invocations"), maxMPW)
}

// planLayoutFor is planLayout with chol.comp aiming for target invocations
// per workgroup (the tune parameter wg_invocations) rather than the
// built-in 64, and at most mpwCap matrices per workgroup.
func planLayoutFor(info engine.DeviceInfo, p int, double bool, target, mpwCap int) (layout, error) {
	es := 4
	if double {
		es = 8
	}
	tpm := 1
	for tpm < p {
		tpm *= 2
	}
	maxInv := int(info.MaxWorkgroupInvocation)
	if maxInv <= 0 {
		maxInv = 128
	}
	if lim := int(info.MaxWorkgroupSize[0]); lim > 0 {
		maxInv = min(maxInv, lim)
	}
	if tpm > maxInv {
		return layout{}, fmt.Errorf("chol: P = %d needs %d invocations per matrix, more than the %d of a workgroup on %s: %w",
			p, tpm, maxInv, info.Name, engine.ErrDeviceLimit)
	}
	l := layout{tpm: tpm, mpw: min(max(1, target/tpm), mpwCap), lsz: max(p*(p-1)/2, 1)}
	shared := int(info.MaxSharedMemory)
	if shared <= 0 {
		shared = defaultSharedMemory
	}
	l.global = l.sharedBytes(es) > shared
	return l, nil
}

// newKernel compiles chol.comp for P with the layout planLayout picks for
// dev (L forced into global memory by test.global).
func newKernel(dev *engine.Device, p int, dt tensor.DType, test *testOptions) (*kernel, error) {
	b, err := tune.Builtin("chol", dev.Info)
	if err != nil {
		return nil, err
	}
	return newKernelFor(dev, p, dt, b.Int("wg_invocations"), test)
}

// newKernelFor is newKernel aiming for target invocations per workgroup.
func newKernelFor(dev *engine.Device, p int, dt tensor.DType, target int, test *testOptions) (*kernel, error) {
	v, err := dev.Variant(dt, false)
	if err != nil {
		return nil, fmt.Errorf("chol: %w", err)
	}
	es := v.ValueSize()
	l, err := planLayoutFor(dev.Info, p, dt == tensor.F64, target, test.mpwCap())
	if err != nil {
		return nil, err
	}
	tpm, mpw, lsz := l.tpm, l.mpw, l.lsz
	global := test.get().global || l.global
	name := "chol" + v.TypeSuffix()
	if global {
		name = "chol_global" + v.TypeSuffix()
	}
	k, err := dev.Kernel(engine.KernelSpec{Name: name, Push: cholPush{},
		Spec: []uint32{uint32(tpm * mpw), uint32(p), uint32(tpm), uint32(mpw), uint32(lsz)}})
	if err != nil {
		return nil, err
	}
	return &kernel{k: k, dev: dev, p: p, tpm: tpm, mpw: mpw, lsz: lsz, global: global, es: es}, nil
}

// cholPush is chol.comp's and chol_sg.comp's push constants.
type cholPush struct {
	n, k, bstride int
	flags         uint32
	c0, c1        int
}

// binds are the buffers of one dispatch, in binding order: A, L, B, X,
// inverse, log-det, quad, info and (global variant) the scratch.
type binds [9]engine.Binding

// loopBudget is the most loop iterations one dispatch of the kernel asks
// of an invocation for the solves: llvmpipe (lavapipe) silently ends an
// invocation's loops after 65,535 iterations in all (its guard against
// endless shader loops). The factorisation loops about P²/2 times, the
// inverse about P²/8 more, each right-hand side about 2P.
const loopBudget = 30000

// loops is about how many loop iterations the factorisation and the
// outputs other than the solves (flags) ask of one invocation.
func (k *kernel) loops(flags uint32) int {
	if k.sg > 0 {
		return sgLoops(k.p, k.sg, k.es == 8, k.dot, flags)
	}
	n := k.p*k.p/2 + 4*k.p
	if flags&flagInverse != 0 {
		n += k.p * k.p / 8
	}
	return n
}

// checkLoops refuses, on lavapipe, a factorisation that alone would pass
// its loop limit (P beyond about 340, or 310 with the inverse): it would
// give wrong results and no error. Measured: P = 340 factors right, 365
// does not; with the inverse, 300 is right and 340 is not.
func (k *kernel) checkLoops(flags uint32) error {
	if n := k.loops(flags &^ (flagSolve | flagQuad)); k.dev.Info.IsLavapipe() && n > 60000 {
		return fmt.Errorf("chol: P = %d needs about %d loop iterations per invocation, past the 65,535 after which %s silently ends a shader's loops: %w",
			k.p, n, k.dev.Info.Name, engine.ErrDeviceLimit)
	}
	return nil
}

// record records the dispatches over n matrices with k right-hand sides,
// B bstride elements apart (0: one B for all): one, unless the solves
// would loop more than loopBudget times, in which case the first factors
// and writes every output but the solves, and each next one factors again
// and solves a range of columns (on every device: the factorisation costs
// a few per cent of so many solves).
func (k *kernel) record(seq *engine.Sequence, n, nrhs, bstride int, flags uint32, b binds) error {
	groups := k.dev.Groups((n + k.mpw - 1) / k.mpw)
	dispatch := func(flags uint32, c0, c1 int) error {
		pc := cholPush{n: n, k: nrhs, bstride: bstride, flags: flags, c0: c0, c1: c1}
		return seq.Dispatch(k.k, groups, pc, b[:k.k.Bindings()]...)
	}
	solves := flags & (flagSolve | flagQuad)
	perCol := 2*k.p + 3
	if k.sg > 0 {
		perCol = sgPerColumn(k.p, k.sg)
	}
	if solves == 0 || k.loops(flags)+nrhs*perCol <= loopBudget {
		return dispatch(flags, 0, nrhs)
	}
	if err := dispatch(flags&^solves, 0, 0); err != nil {
		return err
	}
	span := max(1, (loopBudget-k.loops(0))/perCol)
	for c0 := 0; c0 < nrhs; c0 += span {
		if err := dispatch(solves, c0, min(c0+span, nrhs)); err != nil {
			return err
		}
	}
	return nil
}

// Vulkan serves r on dev. The matrices are streamed in chunks that fit
// maxStorageBufferRange and chunkBytes, one submission per chunk (one in
// all for batches that fit); outputs not asked for are bound to a small
// placeholder buffer and never written.
func Vulkan(ctx context.Context, dev *engine.Device, r Request) (_ *Result, tm engine.Timing, _ error) {
	defer engine.Begin(dev).End(&tm)
	d, err := r.check()
	if err != nil {
		return nil, tm, err
	}
	t0 := time.Now()
	res := r.newResult(d, r.A.DType)
	tm.AddPhase(engine.TimeResults, time.Since(t0))
	if d.n == 0 {
		return res, tm, nil
	}
	k, err := pickKernel(ctx, dev, r, d)
	if err != nil {
		return nil, tm, err
	}
	n, p, nk := d.n, d.p, d.k
	es := int64(k.es)
	mat := int64(p*p) * es
	// Bytes per matrix of each binding; 0 for those not used.
	per := binds{}
	size := func(i int, on bool, b int64) {
		if on {
			per[i].Size = b
		}
	}
	size(0, true, mat)
	size(1, r.L, mat)
	size(2, d.rhs, int64(p*nk)*es)
	size(3, d.rhs, int64(p*nk)*es)
	size(4, r.Inverse, mat)
	size(5, r.LogDet, es)
	size(6, r.Quad, int64(nk)*es)
	size(7, true, 4)
	size(8, k.global, int64(k.lsz)*es)
	cn := int64(n)
	var sum int64
	for _, b := range per {
		if b.Size > 0 {
			cn = min(cn, dev.MaxBinding()/b.Size)
			sum += b.Size
		}
	}
	cn = min(cn, max(chunkBytes/sum, 1))
	sizes := make([]int64, 0, len(per))
	for _, b := range per {
		sizes = append(sizes, b.Size)
	}
	if c, err := dev.ChunkItems(int(cn), sizes, 1<<20, 1); err != nil {
		return nil, tm, fmt.Errorf("chol: %w", err)
	} else {
		cn = int64(c)
	}
	if cn < 1 {
		return nil, tm, fmt.Errorf("chol: one %d×%d matrix with its outputs exceeds the device's maxStorageBufferRange", p, p)
	}
	var bufs [9]*engine.Buffer
	defer func() {
		for _, b := range bufs {
			b.Release()
		}
	}()
	dummy, err := dev.NewBuffer(256)
	if err != nil {
		return nil, tm, err
	}
	defer dummy.Release()
	for i, b := range per {
		if b.Size > 0 {
			if bufs[i], err = dev.NewBuffer(cn * b.Size); err != nil {
				return nil, tm, err
			}
		}
	}
	var flags uint32
	for _, f := range []struct {
		on   bool
		flag uint32
	}{{r.L, flagL}, {d.rhs, flagSolve}, {r.Inverse, flagInverse}, {r.LogDet, flagLogDet}, {r.Quad, flagQuad}} {
		if f.on {
			flags |= f.flag
		}
	}
	if err := k.checkLoops(flags); err != nil {
		return nil, tm, err
	}
	// Host byte views of the inputs and outputs, indexed like the bindings.
	var host [9][]byte
	host[0] = r.A.Raw()
	if d.rhs {
		host[2] = r.B.Raw()
		host[3] = res.X.Raw()
	}
	if r.L {
		host[1] = res.L.Raw()
	}
	if r.Inverse {
		host[4] = res.Inverse.Raw()
	}
	if r.LogDet {
		host[5] = res.LogDet.Raw()
	}
	if r.Quad {
		host[6] = res.Quad.Raw()
	}
	host[7] = unsafe.Slice((*byte)(unsafe.Pointer(&res.Info[0])), 4*n)
	for m0 := int64(0); m0 < int64(n); m0 += cn {
		c := min(cn, int64(n)-m0)
		var recErr error
		st, err := dev.Run(ctx, func(seq *engine.Sequence) {
			var b binds
			for i := range b {
				if per[i].Size == 0 {
					b[i] = engine.Bind(dummy)
					continue
				}
				b[i] = engine.Binding{Buf: bufs[i], Size: c * per[i].Size}
				if i == 0 || i == 2 { // inputs
					seq.Upload(bufs[i], 0, host[i][m0*per[i].Size:(m0+c)*per[i].Size])
				}
			}
			recErr = k.record(seq, int(c), nk, p*nk, flags, b)
			for i := range b {
				if per[i].Size > 0 && i != 0 && i != 2 && i != 8 {
					seq.Download(bufs[i], 0, host[i][m0*per[i].Size:(m0+c)*per[i].Size])
				}
			}
		})
		tm.Add(st)
		if err == nil {
			err = recErr
		}
		if err != nil {
			return nil, tm, err
		}
	}
	return res, tm, nil
}
