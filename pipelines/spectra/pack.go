package spectra

import (
	"context"
	"encoding/binary"
	"fmt"

	"github.com/vkstat/vkstat/device/tune"
	"github.com/vkstat/vkstat/engine"
	"github.com/vkstat/vkstat/internal/par"
	"github.com/vkstat/vkstat/tensor"
)

// packGroup is spectra_pack's workgroup size.
const packGroup = 64

// packLimit is the most values a transform spectra_pack centres and packs
// on the device, a workgroup per transform: each invocation loops over
// about 2·n/packGroup values (8,192 + 8,192 at the limit, plus the
// reduction's 6 steps), well under the 65,535 loop iterations llvmpipe
// lets one invocation run (docs/crossvendor.md). Larger transforms are
// centred and packed on the host, as float64 (input.x). A variable so that
// tests can move it.
var packLimit = packGroup * 8192

// input is what runVulkan transforms: float64 values, transform after
// transform, that the host centres and packs (x), or a batch as stored
// that shaders/spectra_pack.comp centres and packs on the device (raw).
type input struct {
	x   []float64
	bad []bool // x's transforms holding a NaN or ±Inf (zeroed), or nil
	raw *rawInput
}

// rawInput is a batch as stored (float32, float64, float16 or bfloat16)
// seen as transforms of n values: value i of transform tt is element
// (tt/g)·ostride + tt%g + i·istride of t. Frames: g = 1, ostride = n,
// istride = 1. The series of a (G, F, H·W) batch: g = H·W, ostride = F·H·W,
// istride = H·W. bad[tt] is set where transform tt holds a NaN or ±Inf
// (which is transformed as zeros).
type rawInput struct {
	t                      *tensor.Tensor
	n, g, ostride, istride int
	bad                    []bool
}

// index is the element of value i of transform tt.
func (r *rawInput) index(tt, i int) int64 {
	return int64(tt/r.g)*int64(r.ostride) + int64(tt%r.g) + int64(i)*int64(r.istride)
}

// span is the range of elements [a, e) that transforms lo … lo+m−1 read,
// widened to whole 32-bit words for 16-bit data.
func (r *rawInput) span(lo, m int) (a, e int64) {
	a, e = r.index(lo, 0), r.index(lo+m-1, r.n-1)+1
	if r.t.DType.Is16() {
		a, e = a&^1, (e+1)&^1
	}
	return a, e
}

// maxSpan bounds span's length for m transforms: the ⌈m/g⌉+1 groups they
// touch, two elements of word alignment, never more than the batch.
func (r *rawInput) maxSpan(m int) int64 {
	return min((int64(m+r.g-1)/int64(r.g)+1)*int64(r.ostride), int64(r.t.Len())) + 2
}

// maxChunk is the most transforms whose span fits limit bytes (0 when not
// even one group of series does: those are packed on the host).
func (r *rawInput) maxChunk(limit int64) int {
	elems := limit/int64(r.t.DType.Size()) - 2
	if int64(r.t.Len()) <= elems {
		return len(r.bad) // the whole batch fits
	}
	return int(max(0, (elems/int64(r.ostride)-1)*int64(r.g)))
}

// packable says whether spectra_pack can centre and pack r's transforms
// on dev for a transform buffer of float64 (double) or float32: n within
// packLimit, a chunk's span within a binding, and the storage matching
// the transform's precision (float64 storage with double, the others
// without). Other cases keep the host's packing.
func (r *rawInput) packable(dev *engine.Device, double bool) bool {
	if r.n < 2 || r.n > packLimit || double != (r.t.DType == tensor.F64) {
		return false
	}
	return r.maxChunk(min(dev.MaxBinding(), dev.MaxBuffer())) >= 1
}

// widen is the host's side of a raw input: its transforms in float64, one
// after the other, those holding a NaN or ±Inf marked in r.bad and zeroed
// (for the CPU path, and transforms spectra_pack does not take).
func (r *rawInput) widen() []float64 {
	b := len(r.bad)
	v := make([]float64, b*r.n)
	load := r.loader()
	par.Range(b, max(1, (1<<16)/r.n), func(lo, hi int) {
		for tt := lo; tt < hi; tt++ {
			load(tt, v[tt*r.n:(tt+1)*r.n])
		}
	})
	return v
}

// loader returns a function that widens transform tt into dst (n values)
// and marks it in r.bad when it holds a NaN or ±Inf (dst zeroed then): the
// CPU path's kernels read the batch as stored through it, a transform at a
// time, rather than a float64 copy of the whole batch. Calls for different
// transforms may run at once.
func (r *rawInput) loader() func(tt int, dst []float64) (bad bool) {
	step := int64(r.istride)
	fill := func(dst []float64, at int64) bool {
		bad := false
		for i := range dst {
			e := r.t.F64[at+int64(i)*step]
			bad = bad || e-e != 0 // NaN or ±Inf
			dst[i] = e
		}
		return bad
	}
	switch {
	case r.t.DType.Is16():
		tab := r.t.DType.Table()
		fill = func(dst []float64, at int64) bool {
			bad := false
			for i := range dst {
				e := tab[r.t.U16[at+int64(i)*step]]
				bad = bad || e-e != 0
				dst[i] = float64(e)
			}
			return bad
		}
	case r.t.DType != tensor.F64:
		fill = func(dst []float64, at int64) bool {
			bad := false
			for i := range dst {
				e := r.t.F32[at+int64(i)*step]
				bad = bad || e-e != 0
				dst[i] = float64(e)
			}
			return bad
		}
	}
	return func(tt int, dst []float64) bool {
		bad := fill(dst, r.index(tt, 0))
		if r.bad[tt] = bad; bad {
			clear(dst)
		}
		return bad
	}
}

// packer records spectra_pack for runVulkan: the chunk's span uploaded as
// stored, centred and packed into the transform buffer, and a bit per
// transform (NaN or ±Inf seen) downloaded.
type packer struct {
	dev       *engine.Device
	lanes     int // invocations per transform
	raw       *rawInput
	kern      *engine.Kernel
	in, flags *engine.Buffer // in: nil while the chunks bind windows of a held batch
	inBytes   int64          // in's size, for a chunk's span
	words     []byte         // the chunk's flags, a bit per transform
	zeros     []byte
}

// prepare builds the kernel and the buffers for chunks of up to chunk
// transforms of n values.
func (p *packer) prepare(ctx context.Context, dev *engine.Device, raw *rawInput, chunk, n int) error {
	p.dev, p.raw = dev, raw
	v, err := dev.Variant(raw.t.DType, false)
	if err != nil {
		return err
	}
	name := "spectra_pack" + v.Suffix()
	// A workgroup per transform, or an invocation per transform of at
	// most pack_alone values (device/tune: CPU devices, whose barriers
	// are emulated).
	tp, err := tune.Resolve(ctx, "spectra", dev.Info)
	if err != nil {
		return err
	}
	p.lanes = packGroup
	if n <= tp.Int("pack_alone") {
		p.lanes = 1
	}
	spec := engine.KernelSpec{Name: name, Push: packPush{}, Spec: []uint32{packGroup, uint32(p.lanes)}}
	if p.kern, err = dev.Kernel(spec); err != nil {
		return err
	}
	p.inBytes = (raw.maxSpan(chunk)*int64(raw.t.DType.Size()) + 3) &^ 3
	if !dev.Holding(raw.t.Raw()) {
		// Otherwise the chunks bind windows of the held batch (record).
		if p.in, err = dev.NewBuffer(p.inBytes); err != nil {
			return fmt.Errorf("spectra: raw input: %w", err)
		}
	}
	words := 4 * int64((chunk+31)/32)
	if p.flags, err = dev.NewBuffer(words); err != nil {
		return fmt.Errorf("spectra: transform flags: %w", err)
	}
	p.words, p.zeros = make([]byte, words), make([]byte, words)
	return nil
}

// packPush is spectra_pack.comp's push constants.
type packPush struct {
	m, n0, n1 int
	per       int64
	real      bool
	g, t0     int
	ostride   int
	istride   int
	lead      int64
}

// record uploads the span of transforms lo … lo+m−1 and packs them into
// buf (per values of T each, rows of n0, the real-to-complex layout when
// real); download brings their flags back.
func (p *packer) record(s *engine.Sequence, buf *engine.Buffer, lo, m, n1, n0 int, per int64, real bool) error {
	raw := p.raw
	a, e := raw.span(lo, m)
	es := int64(raw.t.DType.Size())
	src := raw.t.Raw()
	have := int64(len(src))
	// A window of the batch the device holds (engine.Device.Hold), from an
	// aligned element before a; else the span goes up into p.in.
	al := a / (p.dev.Alignment() / es) * (p.dev.Alignment() / es)
	in, ok := p.dev.Window(src[al*es:min(e*es, have)], ((e-al)*es+3)&^3)
	if ok {
		a = al
	} else {
		if p.in == nil {
			var err error
			if p.in, err = p.dev.NewBuffer(p.inBytes); err != nil {
				return fmt.Errorf("spectra: raw input: %w", err)
			}
		}
		in = engine.Bind(p.in)
		err := s.UploadFrom(p.in, 0, (e-a)*es, func(dst []byte, at int64) error {
			from := a*es + at
			part := src[min(from, have):min(from+int64(len(dst)), have)]
			par.Copy(dst[:len(part)], part)
			clear(dst[len(part):]) // the last 16-bit word's missing half
			return nil
		})
		if err != nil {
			return err
		}
	}
	words := 4 * ((m + 31) / 32)
	if err := s.Upload(p.flags, 0, p.zeros[:words]); err != nil {
		return err
	}
	push := packPush{m: m, n0: n0, n1: n1, per: per, real: real, g: raw.g, t0: lo % raw.g,
		ostride: raw.ostride, istride: raw.istride, lead: raw.index(lo, 0) - a}
	tpg := packGroup / p.lanes // transforms per workgroup
	return s.Dispatch(p.kern, p.dev.Groups((m+tpg-1)/tpg), push, in, engine.Bind(buf), engine.Bind(p.flags))
}

// download downloads the flags of a chunk of m transforms, once the
// submission's last use of them (spectra_groups) is recorded.
func (p *packer) download(s *engine.Sequence, m int) error {
	return s.Download(p.flags, 0, p.words[:4*((m+31)/32)])
}

// finish reads the chunk's flags into raw.bad.
func (p *packer) finish(lo, m int) {
	for i := range m {
		p.raw.bad[lo+i] = binary.LittleEndian.Uint32(p.words[4*(i/32):])&(1<<(i%32)) != 0
	}
}

func (p *packer) close() {
	p.in.Release()
	p.flags.Release()
}

// spatialSpectraOf is SpatialSpectra of the b frames of h×w of x as it is
// stored (float32, float64, float16 or bfloat16; b·h·w = x.Len()), with
// bad[i] telling which frames hold a NaN or ±Inf: those come out as zeros
// (no power). It is spatialGroupsOf with groups of one frame.
func spatialSpectraOf(ctx context.Context, x *tensor.Tensor, b, h, w int, opt Options) (*Spatial, []bool, engine.Timing, error) {
	g, tm, err := spatialGroupsOf(ctx, x, b, 1, h, w, opt)
	if err != nil {
		return nil, nil, tm, err
	}
	return g.spatial(false), badOf(g.Bad), tm, nil
}

// temporalSpectraOf is TemporalSpectra of the series of x seen as (g, f,
// hw) (g·f·hw = x.Len(); a latent's (N·C, F, H·W)): series i·hw + p is
// values x[i, 0 … f−1, p]. bad is as for spatialSpectraOf. It is
// temporalGroupsOf with groups of one series.
func temporalSpectraOf(ctx context.Context, x *tensor.Tensor, g, f, hw int, opt Options) (*Temporal, []bool, engine.Timing, error) {
	if err := checkShape(x.Len(), g, f, hw); err != nil {
		return nil, nil, engine.Timing{}, err
	}
	// Groups of one series: the series seen as (g·hw groups, f, 1 pixel)
	// would number them wrongly (x's pixels are its fastest axis), so the
	// raw input is built here with the transposing strides.
	r := &rawInput{t: x, n: f, g: hw, ostride: f * hw, istride: hw, bad: make([]bool, g*hw)}
	t := newTemporalGroups(g*hw, 1, f)
	tm, err := temporalGroups(ctx, opt, r, t)
	if err != nil {
		return nil, nil, tm, err
	}
	return t.temporal(false), badOf(t.Bad), tm, nil
}
