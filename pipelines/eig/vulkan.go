package eig

import (
	"context"
	"fmt"
	"unsafe"

	"github.com/vkstat/vkstat/engine"
	"github.com/vkstat/vkstat/tensor"
)

// loopBudget bounds the loop iterations one invocation runs in one
// dispatch: llvmpipe (lavapipe) silently ends a shader's loops after
// 65,535 iterations in all.
const loopBudget = 60000

// testOptions steer the Vulkan path in tests (Options.test); nil, or the
// zero value, is what runs otherwise.
type testOptions struct {
	// global makes the kernel keep A in global memory even when it fits
	// workgroup memory, so that tests exercise that path on small n.
	global bool
	// loopBudget, when positive, replaces loopBudget.
	loopBudget int
}

// get is o, or the zero value for nil.
func (o *testOptions) get() testOptions {
	if o == nil {
		return testOptions{}
	}
	return *o
}

// maxOrder is the largest n the kernel's packing of a pair's indices
// (15 bits each) takes.
const maxOrder = 1<<15 - 1

// maxDispatches bounds the dispatches recorded in one sequence.
const maxDispatches = 256

// chunkBytes bounds the device memory one chunk of matrices takes.
const chunkBytes = 256 << 20

// kernel is eig.comp compiled for one n and dtype on a device.
type kernel struct {
	k        *engine.Kernel
	dev      *engine.Device
	n, m, wg int
	global   bool
	es       int
	rounds   int // rounds per dispatch under loopBudget
}

// SharedLimit returns the largest n whose matrix the kernel keeps in
// workgroup memory on dev in dtype dt; larger ones work in global memory.
func SharedLimit(dev *engine.Device, dt tensor.DType) int {
	lim := 0
	for n := 1; n <= 512; n++ {
		if _, fits := layout(dev, n, dt); fits {
			lim = n
		}
	}
	return lim
}

// layout returns the workgroup size for order n and whether A fits
// workgroup memory beside the kernel's other shared arrays:
// n²·es + (M/2)·(4 + 4·es) + 2·WG·es + 12 bytes (s, τ, the new diagonal pair).
func layout(dev *engine.Device, n int, dt tensor.DType) (wg int, fits bool) {
	es := 4
	if dt == tensor.F64 {
		es = 8
	}
	wg = 256
	switch {
	case n <= 16:
		wg = 64
	case n <= 64:
		wg = 128
	}
	maxInv := int(dev.Info.MaxWorkgroupInvocation)
	if lim := int(dev.Info.MaxWorkgroupSize[0]); lim > 0 && (maxInv <= 0 || lim < maxInv) {
		maxInv = lim
	}
	if maxInv <= 0 {
		maxInv = 128
	}
	for wg > maxInv {
		wg /= 2
	}
	shared := int(dev.Info.MaxSharedMemory)
	if shared <= 0 {
		shared = 16 << 10
	}
	m := n + n%2
	small := m/2*(4+4*es) + 2*wg*es + 12
	return wg, n*n*es+small <= shared
}

func ceilDiv(a, b int) int { return (a + b - 1) / b }

func newKernel(dev *engine.Device, n int, dt tensor.DType, test *testOptions) (*kernel, error) {
	v, err := dev.Variant(dt, false)
	if err != nil {
		return nil, fmt.Errorf("eig: %w", err)
	}
	if n > maxOrder {
		return nil, fmt.Errorf("eig: n = %d is more than the kernel's %d: %w", n, maxOrder, engine.ErrDeviceLimit)
	}
	es := v.ValueSize()
	wg, fits := layout(dev, n, dt)
	global := test.get().global || !fits
	budget := loopBudget
	if b := test.get().loopBudget; b > 0 {
		budget = b
	}
	m := n + n%2
	// Loop iterations per invocation: the load, store and diagonal loops
	// once, and per round the round itself, phase 1, phases 2 and 3 and
	// the sweep's reduction (charged to every round).
	over := 3*ceilDiv(n*n, wg) + ceilDiv(n, wg) + 8
	perRound := 1 + ceilDiv(m/2, wg) + 2*ceilDiv(m/2*n, wg) + ceilDiv(n*n, wg) + 12
	rounds := (budget - over) / perRound
	if rounds < 1 {
		return nil, fmt.Errorf("eig: n = %d needs %d loop iterations per invocation for one Jacobi round, beyond the %d one dispatch may run (lavapipe's loop limit): %w",
			n, over+perRound, budget, engine.ErrDeviceLimit)
	}
	name := "eig" + v.TypeSuffix()
	if global {
		name = "eig_global" + v.TypeSuffix()
	}
	k, err := dev.Kernel(engine.KernelSpec{Name: name, Push: eigPush{},
		Spec: []uint32{uint32(wg), uint32(n), uint32(m)}})
	if err != nil {
		return nil, err
	}
	return &kernel{k: k, dev: dev, n: n, m: m, wg: wg, global: global, es: es, rounds: rounds}, nil
}

// eigPush is eig.comp's push constants.
type eigPush struct {
	n, round0, rounds int
	flags             bool
	maxSweeps         int
}

// Vulkan decomposes a's matrices on dev in a's precision. Each chunk of
// matrices (as many as fit maxStorageBufferRange and chunkBytes) is
// uploaded once; then sequences of dispatches, each at most k.rounds
// rounds, run sweeps until every matrix has finished (converged, failed or
// at the sweep limit), the host reading back only the 16-byte state of
// each matrix between sequences; the diagonals and vectors come back at the
// end and are sorted and signed on the host.
func Vulkan(ctx context.Context, dev *engine.Device, a *tensor.Tensor, opt Options) (*Result, engine.Timing, error) {
	var tm engine.Timing
	b, n, err := dims(a)
	if err != nil {
		return nil, tm, err
	}
	res := newResult(a.DType, b, n)
	if b == 0 {
		return res, tm, nil
	}
	k, err := newKernel(dev, n, a.DType, opt.test)
	if err != nil {
		return nil, tm, err
	}
	es := int64(k.es)
	mat := int64(n*n) * es
	per := []int64{mat, mat, mat, int64(n) * es, 16}
	var sum int64
	for _, s := range per {
		sum += s
	}
	cn, err := dev.ChunkItems(min(b, int(max(chunkBytes/sum, 1))), per, 1<<20, 1)
	if err != nil {
		return nil, tm, fmt.Errorf("eig: %w", err)
	}
	bufs := make([]*engine.Buffer, len(per))
	defer func() {
		for _, x := range bufs {
			x.Release()
		}
	}()
	for i, s := range per {
		if bufs[i], err = dev.NewBuffer(int64(cn) * s); err != nil {
			return nil, tm, err
		}
	}
	maxSweeps := opt.maxSweeps()
	roundsPerSweep := k.m - 1
	inRaw := a.Raw()
	diag := make([]byte, int64(cn)*per[3])
	vecs := make([]byte, int64(cn)*mat)
	state := make([]uint32, 4*cn)
	stateRaw := unsafe.Slice((*byte)(unsafe.Pointer(&state[0])), 16*cn)
	for m0 := 0; m0 < b; m0 += cn {
		c := min(cn, b-m0)
		bind := func(i int) engine.Binding { return engine.Binding{Buf: bufs[i], Size: int64(c) * per[i]} }
		binds := []engine.Binding{bind(0), bind(1), bind(2), bind(3), bind(4)}
		groups := dev.Groups(c)
		round := 0
		total := maxSweeps * roundsPerSweep
		for seqNo := 0; round < total; seqNo++ {
			// 6 sweeps in the first sequence (most matrices converge
			// within them), then 2 at a time.
			sweeps := 2
			if seqNo == 0 {
				sweeps = 6
			}
			// At most maxDispatches dispatches a sequence (large n
			// takes few rounds per dispatch).
			end := min(total, round+min(sweeps*roundsPerSweep, maxDispatches*k.rounds))
			last := false
			st, err := dev.Run(ctx, func(seq *engine.Sequence) {
				if round == 0 {
					seq.Upload(bufs[0], 0, inRaw[int64(m0)*mat:int64(m0+c)*mat])
				}
				for r := round; r < end; r += k.rounds {
					// flags 1: initialise W, V and the state from ain.
					pc := eigPush{n: c, round0: r, rounds: min(k.rounds, end-r), flags: r == 0, maxSweeps: maxSweeps}
					seq.Dispatch(k.k, groups, pc, binds...)
				}
				seq.Download(bufs[4], 0, stateRaw[:16*c])
			})
			tm.Add(st)
			if err != nil {
				return nil, tm, err
			}
			round = end
			last = true
			for i := range c {
				if state[4*i] == 0 {
					last = false
					break
				}
			}
			if last {
				break
			}
		}
		st, err := dev.Run(ctx, func(seq *engine.Sequence) {
			seq.Download(bufs[3], 0, diag[:int64(c)*per[3]])
			seq.Download(bufs[2], 0, vecs[:int64(c)*mat])
		})
		tm.Add(st)
		if err != nil {
			return nil, tm, err
		}
		k.collect(res, m0, c, state, diag, vecs)
	}
	return res, tm, nil
}

// collect converts the raw outputs of matrices m0..m0+c−1 into res.
func (k *kernel) collect(res *Result, m0, c int, state []uint32, diag, vecs []byte) {
	n := k.n
	d := make([]float64, n)
	v := make([]float64, n*n)
	vals := make([]float64, n)
	out := make([]float64, n*n)
	var d32, v32 []float32
	var d64, v64 []float64
	if k.es == 4 {
		d32 = unsafe.Slice((*float32)(unsafe.Pointer(&diag[0])), c*n)
		v32 = unsafe.Slice((*float32)(unsafe.Pointer(&vecs[0])), c*n*n)
	} else {
		d64 = unsafe.Slice((*float64)(unsafe.Pointer(&diag[0])), c*n)
		v64 = unsafe.Slice((*float64)(unsafe.Pointer(&vecs[0])), c*n*n)
	}
	for i := range c {
		m := m0 + i
		var info int32
		switch state[4*i] {
		case 1:
			info = OK
		case 2:
			info = NonFinite
		default: // 3, or still running after the sweep limit
			info = NotConverged
		}
		res.Info[m] = info
		res.Sweeps[m] = int32(state[4*i+1])
		for j := range n {
			if d32 != nil {
				d[j] = float64(d32[i*n+j])
			} else {
				d[j] = d64[i*n+j]
			}
		}
		for j := range n * n {
			if v32 != nil {
				v[j] = float64(v32[i*n*n+j])
			} else {
				v[j] = v64[i*n*n+j]
			}
		}
		finish(d, v, n, info, vals, out)
		if res.Values.DType == tensor.F64 {
			copy(res.Values.F64[m*n:], vals)
			copy(res.Vectors.F64[m*n*n:], out)
		} else {
			for j, x := range vals {
				res.Values.F32[m*n+j] = float32(x)
			}
			for j, x := range out {
				res.Vectors.F32[m*n*n+j] = float32(x)
			}
		}
	}
}
