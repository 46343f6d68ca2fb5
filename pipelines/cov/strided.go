package cov

import (
	"context"
	"fmt"
	"time"

	"github.com/vkstat/vkstat/engine"
	"github.com/vkstat/vkstat/tensor"
)

// Strided places N sample sets of T samples of P variables anywhere in the
// flat (row-major) data of a tensor of any shape: sample t of variable i of
// set k is element Bases[k] + t·TStride + Offsets[i]. Bases lists the sets
// (N = len(Bases)) and Offsets the variables (P = len(Offsets)); offsets
// may be negative as long as every element lies in the data. It describes
// the sets of a transposed view without making the transposed copy: the
// channel×channel sets of an (N, C, F, H, W) latent, for instance, are
// Bases[n] = n·C·F·H·W, Offsets[c] = c·F·H·W, TStride 1, T = F·H·W.
type Strided struct {
	Bases   []int
	Offsets []int
	T       int
	TStride int
}

// stridedSource checks x and s: every element of every set inside x.
func stridedSource(x *tensor.Tensor, s Strided, opt Options) (*source, error) {
	if err := checkData(x, "input"); err != nil {
		return nil, err
	}
	if s.T < 1 || len(s.Offsets) < 1 {
		return nil, fmt.Errorf("cov: strided sets of %d samples of %d variables: need T >= 1 and P >= 1", s.T, len(s.Offsets))
	}
	if s.TStride < 0 {
		return nil, fmt.Errorf("cov: strided sets: negative sample stride %d", s.TStride)
	}
	if err := opt.check(s.T); err != nil {
		return nil, err
	}
	lo, hi := s.offRange()
	size := x.Len()
	for k, b := range s.Bases {
		if b+lo < 0 || b+hi >= size {
			return nil, fmt.Errorf("cov: strided set %d (base %d) reaches elements %d..%d, outside the %d elements of the input of shape %s",
				k, b, b+lo, b+hi, size, tensor.ShapeString(x.Shape))
		}
	}
	return &source{n: len(s.Bases), t: s.T, p: len(s.Offsets), tstride: s.TStride, off: s.Offsets, bases: s.Bases, in: x, runs: true}, nil
}

// offRange is the lowest and highest element offset, from a set's base, of
// a set's samples.
func (s Strided) offRange() (lo, hi int) {
	lo, hi = s.Offsets[0], s.Offsets[0]
	for _, o := range s.Offsets[1:] {
		lo, hi = min(lo, o), max(hi, o)
	}
	return lo, hi + (s.T-1)*s.TStride
}

// CPUStrided is CPU on the sample sets that s places in x's data. Each set
// is packed into its panel a block of samples at a time, variable by
// variable (the samples of one variable are close together when TStride
// is small), so that the panel block stays in the L1 cache.
func CPUStrided(x *tensor.Tensor, s Strided, opt Options) (*Result, error) {
	src, err := stridedSource(x, s, opt)
	if err != nil {
		return nil, err
	}
	return cpuRun(src, opt)
}

// packBlock is the number of samples packRuns writes of one variable
// before going on to the next: 256 panel rows of up to 16 values are
// 32 KiB.
const packBlock = 256

// packRuns packs set k of src (runs), based at b, into w's centred panel:
// first the means, each variable's samples summed in sample order (the
// order of the (N, T, P) path's sums, so that the means agree to the bit),
// then the centred values, a block of samples of one variable at a time,
// so that the panel is written once and its block stays in the L1 cache.
func packRuns[E float32 | float64](w *worker, d []E, b, tstride int, off []int, invT float64) {
	t, pp, x, mean := w.t, w.pp, w.x, w.mean
	// Four variables' sums at a time: four independent chains of adds
	// instead of one (each still in sample order).
	i := 0
	for ; i+4 <= len(off); i += 4 {
		var s0, s1, s2, s3 float64
		j0, j1, j2, j3 := b+off[i], b+off[i+1], b+off[i+2], b+off[i+3]
		for range t {
			s0 += float64(d[j0])
			s1 += float64(d[j1])
			s2 += float64(d[j2])
			s3 += float64(d[j3])
			j0, j1, j2, j3 = j0+tstride, j1+tstride, j2+tstride, j3+tstride
		}
		mean[i], mean[i+1], mean[i+2], mean[i+3] = s0*invT, s1*invT, s2*invT, s3*invT
	}
	for ; i < len(off); i++ {
		var s float64
		for tt, j := 0, b+off[i]; tt < t; tt, j = tt+1, j+tstride {
			s += float64(d[j])
		}
		mean[i] = s * invT
	}
	for t0 := 0; t0 < t; t0 += packBlock {
		t1 := min(t0+packBlock, t)
		// Four variables at a time: each panel row gets 32 contiguous
		// bytes per pass instead of 8.
		i := 0
		for ; i+4 <= len(off); i += 4 {
			m0, m1, m2, m3 := mean[i], mean[i+1], mean[i+2], mean[i+3]
			j0, j1, j2, j3 := b+off[i]+t0*tstride, b+off[i+1]+t0*tstride, b+off[i+2]+t0*tstride, b+off[i+3]+t0*tstride
			for tt := t0; tt < t1; tt++ {
				r := x[tt*pp+i : tt*pp+i+4 : tt*pp+i+4]
				r[0] = float64(d[j0]) - m0
				r[1] = float64(d[j1]) - m1
				r[2] = float64(d[j2]) - m2
				r[3] = float64(d[j3]) - m3
				j0, j1, j2, j3 = j0+tstride, j1+tstride, j2+tstride, j3+tstride
			}
		}
		for ; i < len(off); i++ {
			m := mean[i]
			for tt, j := t0, b+off[i]+t0*tstride; tt < t1; tt, j = tt+1, j+tstride {
				x[tt*pp+i] = float64(d[j]) - m
			}
		}
	}
}

// packRuns16 is packRuns for float16 and bfloat16 data, widened exactly
// through tab (tensor.DType.Table).
func packRuns16(w *worker, d []uint16, tab *[1 << 16]float32, b, tstride int, off []int, invT float64) {
	t, pp, x, mean := w.t, w.pp, w.x, w.mean
	for i, o := range off {
		var s float64
		for tt, j := 0, b+o; tt < t; tt, j = tt+1, j+tstride {
			s += float64(tab[d[j]])
		}
		mean[i] = s * invT
	}
	for t0 := 0; t0 < t; t0 += packBlock {
		t1 := min(t0+packBlock, t)
		for i, o := range off {
			m := mean[i]
			for tt, j := t0, b+o+t0*tstride; tt < t1; tt, j = tt+1, j+tstride {
				x[tt*pp+i] = float64(tab[d[j]]) - m
			}
		}
	}
}

// VulkanStrided is Vulkan on the sample sets that s places in x's data.
// The sets are taken in their order in chunks: a chunk's sets share one
// upload of the elements they span (from the lowest to the highest element
// any of them reads), which must fit maxStorageBufferRange, and the chunk
// (that span and its outputs) fits chunkBytes and what the device's memory
// budget has left (budgetBytes) unless it is a single set.
// The kernel reads the sets through its gather addressing (base, offsets
// and sample stride), and splits sets longer than llvmpipe's loop limit
// allows over dispatches as Vulkan does. float16 and bfloat16 data stay
// 16-bit on the device: a chunk's span starts on an even element, so that
// it starts on a packed word.
func VulkanStrided(ctx context.Context, dev *engine.Device, x *tensor.Tensor, s Strided, opt Options) (_ *Result, tm engine.Timing, _ error) {
	defer engine.Begin(dev).End(&tm)
	src, err := stridedSource(x, s, opt)
	if err != nil {
		return nil, tm, err
	}
	n, t, p := src.n, src.t, src.p
	t0 := time.Now()
	res := newResult(opt.Out, outType(x.DType), n, p)
	tm.AddPhase(engine.TimeResults, time.Since(t0))
	if n == 0 {
		return res, tm, nil
	}
	k, err := newKernel(ctx, dev, p, t, opt.Estimator, x.DType, opt.test.get())
	if err != nil {
		return nil, tm, err
	}
	es := int64(k.elemSz)
	inSz := int64(k.inSz)
	perOut := []int64{int64(p) * es, int64(p*p) * es, es, 4, k.carryBytes(1, t, opt.Estimator)}
	var perSet int64
	for _, b := range perOut {
		perSet += b
	}
	cnOut := chunkItems(dev, opt.test.chunk(), n, perOut, 1)
	if cnOut < 1 {
		return nil, tm, fmt.Errorf("cov: one %d×%d covariance exceeds the device's maxStorageBufferRange", p, p)
	}
	limit := min(dev.MaxBinding(), dev.MaxBuffer())
	capBytes := budgetBytes(dev, opt.test.chunk())
	lo, hi := s.offRange()
	spanOf := func(a, b int) int64 { return ((int64(b-a)+1)*inSz + 3) &^ 3 } // elements a..b, whole words
	// A chunk's span starts on a binding alignment, so that it may be a
	// window of a held copy of x (engine.Device.Hold) rather than an upload;
	// 16-bit spans thereby start on a packed word.
	alignElems := int(dev.Alignment() / inSz)
	first := func(k int) int {
		return (s.Bases[k] + lo) / alignElems * alignElems
	}
	// Plan the chunks: sets k0 … k1−1 reading elements from … to.
	type chunk struct {
		k0, k1, from, to int
		held             engine.Binding // the span in x's held copy, if any
	}
	var chunks []chunk
	var maxIn int64
	maxC := 0
	raw := x.Raw()
	// The upload stops at the data's end; the binding covers whole words.
	inRaw := func(from, to int) []byte { return raw[int64(from)*inSz : min(int64(to+1)*inSz, int64(len(raw)))] }
	for k0 := 0; k0 < n; {
		from, to := first(k0), s.Bases[k0]+hi
		if b := spanOf(from, to); b > limit {
			return nil, tm, fmt.Errorf("cov: strided set %d spans %d MiB of the input, more than the %d MiB that one binding of %s may cover: %w",
				k0, b>>20, limit>>20, dev.Info.Name, engine.ErrTooLarge)
		}
		k1 := k0 + 1
		for ; k1 < n && k1-k0 < cnOut; k1++ {
			f, e := min(from, first(k1)), max(to, s.Bases[k1]+hi)
			b := spanOf(f, e)
			if b > limit || b+int64(k1-k0+1)*perSet > capBytes {
				break
			}
			from, to = f, e
		}
		ch := chunk{k0: k0, k1: k1, from: from, to: to}
		var ok bool
		if ch.held, ok = dev.Window(inRaw(from, to), spanOf(from, to)); !ok {
			maxIn = max(maxIn, spanOf(from, to))
		}
		chunks = append(chunks, ch)
		maxC = max(maxC, k1-k0)
		k0 = k1
	}
	if hook := opt.test.get().inputBuffer; hook != nil {
		hook(maxIn)
	}
	bufs, err := dev.Buffers(maxIn, 4*int64(p), 4*int64(maxC), int64(maxC)*perOut[0], int64(maxC)*perOut[1], int64(maxC)*perOut[2],
		max(int64(maxC)*perOut[4], 4))
	if err != nil {
		return nil, tm, err
	}
	defer engine.ReleaseAll(bufs)
	offs := make([]uint32, p)
	for i, o := range s.Offsets {
		offs[i] = uint32(int32(o))
	}
	bases := make([]uint32, maxC)
	for _, ch := range chunks {
		c := ch.k1 - ch.k0
		for i := range c {
			bases[i] = uint32(s.Bases[ch.k0+i] - ch.from)
		}
		in := ch.held
		var recErr error
		st, err := dev.Run(ctx, func(seq *engine.Sequence) {
			if in.Buf == nil {
				in = sized(bufs[0], spanOf(ch.from, ch.to))
				seq.Upload(bufs[0], 0, inRaw(ch.from, ch.to))
			}
			seq.Upload(bufs[1], 0, u32Bytes(offs))
			seq.Upload(bufs[2], 0, u32Bytes(bases[:c]))
			recErr = k.record(seq, c, t, s.TStride, 0, true, opt, in, engine.Bind(bufs[1]), sized(bufs[2], 4*int64(c)),
				sized(bufs[3], int64(c)*perOut[0]), sized(bufs[4], int64(c)*perOut[1]), sized(bufs[5], int64(c)*perOut[2]),
				sized(bufs[6], int64(c)*perOut[4]))
			seq.Download(bufs[3], 0, res.Mean.Raw()[int64(ch.k0)*perOut[0]:int64(ch.k1)*perOut[0]])
			seq.Download(bufs[4], 0, res.Cov.Raw()[int64(ch.k0)*perOut[1]:int64(ch.k1)*perOut[1]])
			seq.Download(bufs[5], 0, res.Rho.Raw()[int64(ch.k0)*perOut[2]:int64(ch.k1)*perOut[2]])
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
