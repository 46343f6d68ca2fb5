package quantile

import (
	"context"
	"encoding/binary"
	"math"

	"github.com/vkstat/vkstat/engine"
	"github.com/vkstat/vkstat/pipelines/reduce"
	"github.com/vkstat/vkstat/tensor"
)

// quantPush is quantile.comp's push constants.
type quantPush struct {
	n, inner, count, nq int
	skipNaN             bool
}

// vulkan writes the quantiles of in (viewed as g) into out on dev, as
// planned by p (PlanDevice): quantile.comp, one workgroup or one
// invocation per slice, in passes of as many slices as fit one binding and the memory budget
// (passes).
func vulkan(ctx context.Context, dev *engine.Device, in *tensor.Tensor, g reduce.Geometry, opt Options, p DevicePlan, out *tensor.Tensor) (tm engine.Timing, err error) {
	defer engine.Begin(dev).End(&tm)
	v, err := dev.Variant(in.DType, false)
	if err != nil {
		return tm, err
	}
	k, err := dev.Kernel(engine.KernelSpec{Name: p.kernel(v), Push: quantPush{}, Spec: []uint32{uint32(p.Workgroup), uint32(p.Size)}})
	if err != nil {
		return tm, err
	}
	total := g.Outputs()
	if total == 0 {
		return tm, nil
	}
	es, nq := int64(v.ValueSize()), int64(len(opt.Q))
	qs := qBytes(opt.Q, v.AccSize())
	per, err := dev.ChunkItems(total, []int64{int64(g.N) * es, nq * es}, int64(len(qs)), 1)
	if err != nil {
		return tm, err
	}
	if passCap > 0 {
		per = min(per, passCap)
	}
	c := min(per, total)
	bufs, err := dev.Buffers(int64(c)*int64(g.N)*es, int64(len(qs)), int64(c)*nq*es)
	if err != nil {
		return tm, err
	}
	defer engine.ReleaseAll(bufs)
	raw, dst := in.Raw(), out.Raw()
	for _, ps := range passes(g, per) {
		count := ps.hi - ps.lo
		st, err := dev.Run(ctx, func(seq *engine.Sequence) {
			seq.Upload(bufs[1], 0, qs)
			ps.upload(seq, bufs[0], raw, g, es)
			seq.Dispatch(k, dev.Groups(p.groups(count)), quantPush{n: g.N, inner: ps.inner, count: count, nq: len(opt.Q), skipNaN: opt.SkipNaN}, engine.Bind(bufs[0]), engine.Bind(bufs[1]), engine.Bind(bufs[2]))
			for q := range int64(len(opt.Q)) {
				at := (q*int64(total) + int64(ps.lo)) * es
				seq.Download(bufs[2], q*int64(count)*es, dst[at:at+int64(count)*es])
			}
		})
		tm.Add(st)
		if err != nil {
			return tm, err
		}
	}
	return tm, nil
}

// passCap, when positive, caps the slices of a pass: tests set it to run
// the column passes that otherwise only an input beyond one binding takes.
var passCap int

// qBytes is q as the kernel's ACC values (float64, or float32 with
// Acc32), three parts a quantile (qParts).
func qBytes(q []float64, size int) []byte {
	b := make([]byte, 0, 3*len(q)*size)
	for _, v := range q {
		for _, part := range qParts(v) {
			if size == 8 {
				b = binary.LittleEndian.AppendUint64(b, math.Float64bits(part))
			} else {
				b = binary.LittleEndian.AppendUint32(b, math.Float32bits(float32(part)))
			}
		}
	}
	return b
}

// qParts splits a quantile into three parts whose sum is q: the first two
// of at most 11 significant bits, so that the shader's products of them
// with m − 1 (below 2¹³: a slice in shared memory) are exact in float32,
// and the rest, rounded to float32 where the shader interpolates in it.
// In float32 (m−1)·q itself would round the position by up to 2⁻²⁴ of
// it, which a slice of 257 values turns into errors of 10⁻⁵ of the gap
// between neighbours (verify's quantile cases on a device without
// float64).
func qParts(q float64) [3]float64 {
	q1 := roundBits(q, 11)
	q2 := roundBits(q-q1, 11)
	return [3]float64{q1, q2, q - q1 - q2}
}

// roundBits rounds v to its bits most significant binary digits.
func roundBits(v float64, bits int) float64 {
	if v == 0 {
		return 0
	}
	frac, exp := math.Frexp(v)
	return math.Ldexp(math.Round(math.Ldexp(frac, bits)), exp-bits)
}

// pass is one dispatch's slices, [lo, hi) in the output's order: whole
// (N, Inner) blocks of the input, which it uploads as they lie (inner =
// Inner), or a run of columns [j0, j0+hi−lo) of one block, which it
// uploads packed as an (N, hi−lo) array (inner = hi−lo).
type pass struct {
	lo, hi, inner int
}

// passes splits g's slices into passes of at most per slices: whole
// blocks where a block fits, else columns of one block.
func passes(g reduce.Geometry, per int) []pass {
	var out []pass
	total := g.Outputs()
	if per >= g.Inner {
		step := per / g.Inner * g.Inner
		for lo := 0; lo < total; lo += step {
			out = append(out, pass{lo: lo, hi: min(lo+step, total), inner: g.Inner})
		}
		return out
	}
	for lo := 0; lo < total; {
		hi := min(lo+per, (lo/g.Inner+1)*g.Inner)
		out = append(out, pass{lo: lo, hi: hi, inner: hi - lo})
		lo = hi
	}
	return out
}

// upload records the upload of the pass's slices of raw (the input's
// bytes, es a value) into buf, laid out as quantile.comp reads them.
func (ps pass) upload(seq *engine.Sequence, buf *engine.Buffer, raw []byte, g reduce.Geometry, es int64) {
	n, inner := int64(g.N), int64(g.Inner)
	if ps.inner == g.Inner {
		seq.Upload(buf, 0, raw[int64(ps.lo)*n*es:int64(ps.hi)*n*es])
		return
	}
	o, j0 := int64(ps.lo)/inner, int64(ps.lo)%inner
	row := int64(ps.inner) * es // bytes of one packed row
	seq.UploadFrom(buf, 0, n*row, func(p []byte, at int64) error {
		for off := int64(0); off < int64(len(p)); {
			i, c := (at+off)/row, (at+off)%row
			src := ((o*n+i)*inner+j0)*es + c
			m := min(row-c, int64(len(p))-off)
			copy(p[off:off+m], raw[src:src+m])
			off += m
		}
		return nil
	})
}
