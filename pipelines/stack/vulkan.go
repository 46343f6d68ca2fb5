package stack

import (
	"context"
	"encoding/binary"
	"fmt"
	"math"
	"time"
	"unsafe"

	"github.com/vkstat/vkstat/engine"
)

const workgroup = 256

func kernel(dev *engine.Device, name string, push any) (*engine.Kernel, error) {
	return dev.Kernel(engine.KernelSpec{Name: name, Push: push, Spec: []uint32{workgroup}})
}

// lookPush is stack_look.comp's push constants, filterPush
// stack_filter.comp's.
type (
	lookPush struct {
		inW, outW, rows, row0 int
		la, lr                int
		hasNodata             bool
		nodata                float32
		amplitude             bool
	}
	filterPush struct {
		w, h, halfK int
		cu2         float64
		amplitude   bool
	}
)

func f32bytes(v []float32) []byte {
	if len(v) == 0 {
		return nil
	}
	return unsafe.Slice((*byte)(unsafe.Pointer(&v[0])), 4*len(v))
}

// Vulkan computes the statistics on dev: each strip of each date is
// uploaded and multilooked (and, without a filter, added to the statistics)
// by one dispatch; with a filter the date's image is filtered and added once
// its last strip is in. The state (count, mean, M2, min, max) stays on the
// device until the last date; only it comes back.
func Vulkan(ctx context.Context, dev *engine.Device, p *Plan, dates []Date) (*Result, error) {
	return vulkanRun(ctx, dev, p, dates, false)
}

// vulkanRun is Vulkan, keeping the state (Result.state) when keep.
func vulkanRun(ctx context.Context, dev *engine.Device, p *Plan, dates []Date, keep bool) (*Result, error) {
	N := int64(p.H) * int64(p.W)
	filter := p.Filter.Kind != NoFilter
	amp := p.Quantity == Amplitude
	suffix := "_r"
	if p.Complex {
		suffix = "_c"
	}
	look1 := func(s *strip, amp bool) lookPush {
		return lookPush{inW: p.InW, outW: p.W, rows: s.rows, row0: s.row0, la: p.LooksAz, lr: p.LooksRg,
			hasNodata: s.hasNodata, nodata: s.nodata, amplitude: amp}
	}
	filter1 := filterPush{w: p.W, h: p.H, halfK: p.Filter.Size / 2, cu2: 1 / p.ENL, amplitude: amp}
	if err := checkLoops(dev, p); err != nil {
		return nil, err
	}
	var look, filt *engine.Kernel
	var err error
	if filter {
		if look, err = kernel(dev, "stack_look"+suffix, lookPush{}); err != nil {
			return nil, err
		}
		name := "stack_boxcar"
		switch p.Filter.Kind {
		case Lee:
			name = "stack_lee"
		case RefinedLee:
			name = "stack_refined_lee"
		}
		if filt, err = kernel(dev, name, filterPush{}); err != nil {
			return nil, err
		}
	} else if look, err = kernel(dev, "stack_look_acc"+suffix, lookPush{}); err != nil {
		return nil, err
	}
	if N*4 > dev.MaxBinding() {
		return nil, fmt.Errorf("%w: the %d×%d output takes %d bytes per statistic, more than one binding of %s (%d); crop it smaller or use the CPU path",
			engine.ErrNoFit, p.H, p.W, N*4, dev.Info.Name, dev.MaxBinding())
	}
	rowBytes := int64(p.InW) * int64(p.LooksAz) * int64(p.Per) * 4
	maxStrip := min(dev.MaxBinding(), dev.MaxBuffer())
	if rowBytes > maxStrip {
		return nil, fmt.Errorf("%w: one multilooked row needs %d bytes of input, more than one binding of %s (%d)", engine.ErrNoFit, rowBytes, dev.Info.Name, maxStrip)
	}
	stripRows := p.StripRows(min(p.stripBytes(), maxStrip))
	sizes := []int64{int64(stripRows) * rowBytes, N * 4, N * 4, N * 4, N * 4, N * 4}
	if filter {
		sizes = append(sizes, N*4)
	}
	bufs, err := dev.Buffers(sizes...)
	if err != nil {
		return nil, err
	}
	defer engine.ReleaseAll(bufs)
	in, acc := bufs[0], bufs[1:6]
	var img *engine.Buffer
	if filter {
		img = bufs[6]
	}
	zeros := make([]byte, N*4)
	if _, err := dev.Run(ctx, func(seq *engine.Sequence) {
		for _, b := range acc {
			seq.Upload(b, 0, zeros)
		}
	}); err != nil {
		return nil, err
	}
	accBinds := func() []engine.Binding {
		bs := make([]engine.Binding, 5)
		for i, b := range acc {
			bs[i] = engine.Binding{Buf: b, Size: N * 4}
		}
		return bs
	}
	tm, err := run(ctx, p, dates, stripRows, func(s *strip) error {
		n := int64(s.rows) * rowBytes
		_, err := dev.Run(ctx, func(seq *engine.Sequence) {
			seq.Upload(in, 0, f32bytes(s.buf)[:n])
			groups := dev.Groups((s.rows*p.W + workgroup - 1) / workgroup)
			inb := engine.Binding{Buf: in, Size: n}
			if filter {
				seq.Dispatch(look, groups, look1(s, false), inb, engine.Binding{Buf: img, Size: N * 4})
				if s.last {
					seq.Dispatch(filt, dev.Groups(int((N+workgroup-1)/workgroup)), filter1,
						append([]engine.Binding{{Buf: img, Size: N * 4}}, accBinds()...)...)
				}
			} else {
				seq.Dispatch(look, groups, look1(s, amp), append([]engine.Binding{inb}, accBinds()...)...)
			}
		})
		return err
	})
	if err != nil {
		return nil, err
	}
	t1 := time.Now()
	out := make([][]byte, 5)
	for i := range out {
		out[i] = make([]byte, N*4)
	}
	results := time.Since(t1)
	if _, err := dev.Run(ctx, func(seq *engine.Sequence) {
		for i, b := range acc {
			seq.Download(b, 0, out[i])
		}
	}); err != nil {
		return nil, err
	}
	tc := time.Now()
	st := make([][]float64, 5)
	for i := range st {
		st[i] = make([]float64, N)
		for j := range st[i] {
			st[i][j] = float64(math.Float32frombits(binary.LittleEndian.Uint32(out[i][4*j:])))
		}
	}
	res := finish(p, st[0], st[1], st[2], st[3], st[4], len(dates), tm.samples)
	if keep {
		res.state = &Partial{H: p.H, W: p.W, Dates: len(dates), Count: st[0], Mean: st[1], M2: st[2], Min: st[3], Max: st[4],
			Samples: samplesOf(tm.samples)}
	}
	// The host's work on the downloaded state: its arrays, then the
	// statistics from it (phases of their own: --time).
	res.Timing.AddPhase(engine.TimeResults, results)
	res.Timing.AddPhase(engine.TimeConvert, time.Since(tc))
	res.Read, res.Timing.Kernel = tm.read, tm.compute+time.Since(t1)
	res.Timing.AddPhase("read-buffers", tm.buffers)
	res.Timing.AddPhase("read-wait", tm.wait)
	return res, nil
}

// checkLoops refuses, on lavapipe, a multilook box or a filter window whose
// loops would pass the 65,535 iterations after which llvmpipe silently ends
// a shader invocation's loops (its guard against endless loops): the
// results would be wrong and no error said. stack_look loops a·(r + 1)
// times per output pixel; stack_filter k(k + 1) times per pass over a k×k
// window (clipped to the image), one pass for the boxcar, two for Lee,
// three for refined Lee. Both are far beyond the sizes people use (a
// 256×256 multilook, a 147-pixel window); other devices have no such limit.
func checkLoops(dev *engine.Device, p *Plan) error {
	if !dev.Info.IsLavapipe() {
		return nil
	}
	const budget = 60000
	if n := p.LooksAz * (p.LooksRg + 1); n > budget {
		return fmt.Errorf("%w: a %d×%d multilook loops %d times per pixel, past the 65,535 iterations after which %s silently ends a shader's loops; use the CPU path",
			engine.ErrDeviceLimit, p.LooksAz, p.LooksRg, n, dev.Info.Name)
	}
	passes := map[FilterKind]int{Boxcar: 1, Lee: 2, RefinedLee: 3}[p.Filter.Kind]
	kh, kw := min(p.Filter.Size, p.H), min(p.Filter.Size, p.W)
	if n := passes*kh*(kw+1) + 64; passes > 0 && n > budget {
		return fmt.Errorf("%w: a %d-pixel filter window loops about %d times per pixel, past the 65,535 iterations after which %s silently ends a shader's loops; use the CPU path",
			engine.ErrDeviceLimit, p.Filter.Size, n, dev.Info.Name)
	}
	return nil
}
