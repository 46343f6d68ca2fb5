package paco

import (
	"context"
	"encoding/binary"
	"fmt"
	"math"

	"github.com/vkstat/vkstat/engine"
)

// deviceMoments computes Algorithm 3's moments on a device (paco_unbiased):
// the cube is uploaded once; each call uploads the source's footprint (a
// window of the interpolated PSF per frame) and the locations, and
// downloads each location's means and packed second moments. The host
// keeps the α iteration, the shrinkage and the factorisation, which cost
// P² and P³ per location against the T·(2P)² the device does.
type deviceMoments struct {
	ctx    context.Context
	dev    *engine.Device
	u      *unbiasedCtx
	v      engine.Variant
	kernel *engine.Kernel
	cube   *engine.Buffer
	offs   *engine.Buffer
	half   int // window half-size: the stamp, the kernel's support and rounding
	maxB   int64
}

// unbiasedPush is paco_unbiased.comp's push constants.
type unbiasedPush struct {
	h, w, t, s, nlocs, t0, t1, pass int
	first                           bool
}

// newDeviceMoments uploads in's cube to dev. It fails with
// engine.ErrTooLarge when the cube does not fit one binding.
func newDeviceMoments(ctx context.Context, dev *engine.Device, u *unbiasedCtx) (*deviceMoments, error) {
	v, err := pickVariant(dev, u.p.Cube.DType)
	if err != nil {
		return nil, err
	}
	p := u.p
	maxB := min(dev.MaxBinding(), dev.MaxBuffer())
	if n := int64(p.T) * int64(p.H*p.W) * int64(v.ValueSize()); n > maxB {
		return nil, fmt.Errorf("paco: Algorithm 3 on %s needs the whole cube (%d MiB) in one binding, at most %d MiB: %w",
			dev.Info.Name, n>>20, maxB>>20, engine.ErrTooLarge)
	}
	name := "paco_unbiased" + v.Suffix()
	k, err := dev.Kernel(engine.KernelSpec{Name: name, Push: unbiasedPush{}, Spec: []uint32{workgroup, uint32(p.P())}})
	if err != nil {
		return nil, err
	}
	raw := u.p.Cube.As(v.DType).Raw()
	bufs, err := dev.Buffers(int64(len(raw)), int64(8*p.P()))
	if err != nil {
		return nil, fmt.Errorf("paco: %w", err)
	}
	offB := make([]byte, 0, 8*p.P())
	for _, o := range p.Offsets {
		offB = binary.LittleEndian.AppendUint32(binary.LittleEndian.AppendUint32(offB, uint32(int32(o[0]))), uint32(int32(o[1])))
	}
	if _, err := dev.Run(ctx, func(seq *engine.Sequence) {
		seq.Upload(bufs[0], 0, raw)
		seq.Upload(bufs[1], 0, offB)
	}); err != nil {
		engine.ReleaseAll(bufs)
		return nil, err
	}
	return &deviceMoments{ctx: ctx, dev: dev, u: u, v: v, kernel: k, cube: bufs[0], offs: bufs[1], half: u.n/2 + 3, maxB: maxB}, nil
}

func (d *deviceMoments) close() { engine.ReleaseAll([]*engine.Buffer{d.cube, d.offs}) }

// moments is momentsFunc on the device.
func (d *deviceMoments) moments(locs []int, pos [][2]float64) ([]*locMoments, error) {
	p, u := d.u.p, d.u
	T, P := p.T, p.P()
	Z := 2 * P
	E := Z * (Z + 1) / 2
	out := make([]*locMoments, len(locs))
	var inside []int // indices into locs
	for i, k := range locs {
		if p.Inside(k/p.W, k%p.W) {
			inside = append(inside, i)
		} else {
			out[i] = &locMoments{}
		}
	}
	if len(inside) == 0 {
		return out, nil
	}

	// The footprint windows: frame t's is s×s pixels from org[t], the
	// normalised stamp interpolated at the source's exact position.
	le := binary.LittleEndian
	s := 2*d.half + 1
	win := make([]float64, T*s*s)
	orgB := make([]byte, 0, 8*T)
	for t := 0; t < T; t++ {
		y0, x0 := int(math.Round(pos[t][0]))-d.half, int(math.Round(pos[t][1]))-d.half
		orgB = le.AppendUint32(le.AppendUint32(orgB, uint32(int32(y0))), uint32(int32(x0)))
		for wy := 0; wy < s; wy++ {
			for wx := 0; wx < s; wx++ {
				win[(t*s+wy)*s+wx] = u.psfAt(float64(y0+wy)-pos[t][0], float64(x0+wx)-pos[t][1])
			}
		}
	}
	winB := make([]byte, 0, len(win)*d.v.AccSize())
	for _, x := range win {
		if d.v.AccSize() == 8 {
			winB = le.AppendUint64(winB, math.Float64bits(x))
		} else {
			winB = le.AppendUint32(winB, math.Float32bits(float32(x)))
		}
	}

	// Locations in chunks whose moments fit one binding and stay modest.
	per := int64((Z + E) * d.v.AccSize())
	chunk := int(max(min(d.maxB, 64<<20)/per, 1))
	chunk = min(chunk, len(inside))
	bufs, err := d.dev.Buffers(int64(len(winB)), int64(len(orgB)), int64(4*chunk), int64(chunk)*per)
	if err != nil {
		return nil, fmt.Errorf("paco: %w", err)
	}
	defer engine.ReleaseAll(bufs)
	winBuf, orgBuf, locBuf, momBuf := bufs[0], bufs[1], bufs[2], bufs[3]
	norm := u.norm()
	first := true
	// Frames per dispatch: lavapipe ends a loop after 65,535 iterations of
	// one invocation without a word; pass 1 runs about 9 per frame for
	// each of its ⌈E/(256·8)⌉ blocks of entries. 30,000 leaves a margin.
	block := max(1, 30000/(9*((E+workgroup*8-1)/(workgroup*8))))
	res := make([]byte, int64(chunk)*per)
	for c0 := 0; c0 < len(inside); c0 += chunk {
		n := min(chunk, len(inside)-c0)
		locB := make([]byte, 0, 4*n)
		for _, i := range inside[c0 : c0+n] {
			locB = le.AppendUint32(locB, uint32(locs[i]))
		}
		_, err := d.dev.Run(d.ctx, func(seq *engine.Sequence) {
			if first {
				seq.Upload(winBuf, 0, winB)
				seq.Upload(orgBuf, 0, orgB)
			}
			seq.Upload(locBuf, 0, locB)
			for pass := 0; pass < 2; pass++ {
				for t0 := 0; t0 < T; t0 += block {
					pc := unbiasedPush{h: p.H, w: p.W, t: T, s: s, nlocs: n, t0: t0, t1: min(t0+block, T), pass: pass, first: t0 == 0}
					seq.Dispatch(d.kernel, d.dev.Groups(n), pc, engine.Bind(d.cube), engine.Bind(d.offs), engine.Bind(winBuf),
						engine.Bind(orgBuf), engine.Bind(locBuf), engine.Bind(momBuf))
				}
			}
			seq.Download(momBuf, 0, res[:int64(n)*per])
		})
		if err != nil {
			return nil, err
		}
		first = false
		val := func(i int) float64 {
			if d.v.AccSize() == 8 {
				return math.Float64frombits(le.Uint64(res[8*i:]))
			}
			return float64(math.Float32frombits(le.Uint32(res[4*i:])))
		}
		tri := func(r, c int) int { return r*(r+1)/2 + c } // r ≥ c
		for j, i := range inside[c0 : c0+n] {
			b := j * (Z + E)
			m := &locMoments{mr: make([]float64, P), hbar: make([]float64, P), zaa: make([]float64, P*P),
				zab: make([]float64, P*P), zbb: make([]float64, P*P), ok: true}
			for q := 0; q < P; q++ {
				m.mr[q], m.hbar[q] = val(b+q)/float64(T), val(b+P+q)/float64(T)
			}
			for r := 0; r < P; r++ {
				for c := 0; c < P; c++ {
					// Σ a_r b_c sits in row P+c, column r of the (a, b) triangle.
					m.zab[r*P+c] = val(b+Z+tri(P+c, r)) / norm
					if c <= r {
						m.zaa[r*P+c] = val(b+Z+tri(r, c)) / norm
						m.zbb[r*P+c] = val(b+Z+tri(P+r, P+c)) / norm
					}
				}
			}
			out[i] = m
		}
	}
	return out, nil
}

// useDevice makes u compute its moments on dev; the returned function
// releases the device buffers.
func (u *unbiasedCtx) useDevice(ctx context.Context, dev *engine.Device) (func(), error) {
	d, err := newDeviceMoments(ctx, dev, u)
	if err != nil {
		return nil, err
	}
	u.momentsOf = d.moments
	return d.close, nil
}
