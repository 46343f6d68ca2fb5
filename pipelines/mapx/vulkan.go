package mapx

import (
	"context"
	"fmt"
	"time"

	"github.com/vkstat/vkstat/engine"
	"github.com/vkstat/vkstat/internal/vkpush"
	"github.com/vkstat/vkstat/shaders"
	"github.com/vkstat/vkstat/tensor"
)

const workgroup = 256

// Run evaluates z = a·x² + b·y + c on dev, or on the CPU when dev is nil.
func Run(ctx context.Context, dev *engine.Device, x, y *tensor.Tensor, p Params) (*tensor.Tensor, engine.Timing, error) {
	if dev == nil {
		t0 := time.Now()
		z, err := CPU(x, y, p)
		el := time.Since(t0)
		return z, engine.Timing{Kernel: el, Wall: el}, err
	}
	return Vulkan(ctx, dev, x, y, p)
}

func check(x, y *tensor.Tensor) error {
	if x.DType != y.DType {
		return fmt.Errorf("x is %s but y is %s", x.DType, y.DType)
	}
	if !tensor.SameShape(x.Shape, y.Shape) {
		return fmt.Errorf("x has shape %s but y has shape %s", tensor.ShapeString(x.Shape), tensor.ShapeString(y.Shape))
	}
	return nil
}

// Vulkan evaluates the map on dev in one submission: upload x and y, one
// dispatch per chunk of at most maxStorageBufferRange bytes, download z.
func Vulkan(ctx context.Context, dev *engine.Device, x, y *tensor.Tensor, p Params) (*tensor.Tensor, engine.Timing, error) {
	var tm engine.Timing
	if err := check(x, y); err != nil {
		return nil, tm, err
	}
	double := x.DType == tensor.F64
	if double && !dev.Info.Float64 {
		return nil, tm, fmt.Errorf("%s has no float64 support (shaderFloat64); use --precision f32 or --device cpu", dev.Info.Name)
	}
	name, es := "map_f32", int64(4)
	if double {
		name, es = "map_f64", 8
	}
	code, err := shaders.Code(name)
	if err != nil {
		return nil, tm, err
	}
	push := func(n int64) []byte {
		var b vkpush.Block
		b.Float(p.A, double).Float(p.B, double).Float(p.C, double).U32(uint32(n))
		return b.Bytes()
	}
	k, err := dev.Kernel(engine.KernelSpec{Name: name, Code: code, Bindings: 3, PushSize: len(push(0)), Spec: []uint32{workgroup}})
	if err != nil {
		return nil, tm, err
	}
	n := int64(x.Len())
	z := tensor.New(x.DType, x.Shape...)
	if n == 0 {
		return z, tm, nil
	}
	bytes := n * es
	bufs := make([]*engine.Buffer, 3)
	for i := range bufs {
		if bufs[i], err = dev.NewBuffer(bytes); err != nil {
			for _, b := range bufs[:i] {
				b.Release()
			}
			return nil, tm, err
		}
	}
	defer func() {
		for _, b := range bufs {
			b.Release()
		}
	}()
	seq, err := dev.NewSequence()
	if err != nil {
		return nil, tm, err
	}
	defer seq.Release()
	seq.Upload(bufs[0], 0, x.Raw())
	seq.Upload(bufs[1], 0, y.Raw())
	chunk := dev.MaxBinding() / es // elements per dispatch; a multiple of 64
	for off := int64(0); off < n; off += chunk {
		m := min(chunk, n-off)
		binds := make([]engine.Binding, 3)
		for i, b := range bufs {
			binds[i] = engine.Binding{Buf: b, Offset: off * es, Size: m * es}
		}
		groups := dev.Groups(int((m + workgroup - 1) / workgroup))
		seq.Dispatch(k, groups, push(m), binds...)
	}
	if err := seq.Download(bufs[2], 0, z.Raw()); err != nil {
		return nil, tm, err
	}
	tm, err = seq.Run(ctx)
	if err != nil {
		return nil, tm, err
	}
	return z, tm, nil
}
