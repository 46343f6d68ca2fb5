package mapx

import (
	"context"
	"fmt"
	"time"

	"github.com/vkstat/vkstat/engine"
	"github.com/vkstat/vkstat/tensor"
)

// checkPair checks that x and y have the same dtype and shape.
func checkPair(x, y *tensor.Tensor) error {
	if x.DType != y.DType {
		return fmt.Errorf("x is %s but y is %s (want the same dtype)", x.DType, y.DType)
	}
	if !tensor.SameShape(x.Shape, y.Shape) {
		return fmt.Errorf("x has shape %s but y has shape %s (want the same shape)", tensor.ShapeString(x.Shape), tensor.ShapeString(y.Shape))
	}
	return nil
}

// Vulkan evaluates the map on dev. When x, y and z fit the device at once
// (one submission: upload x and y, one dispatch per binding-sized piece,
// download z); otherwise in passes of as many elements as fit the budget
// and one allocation, the same three buffers reused.
func Vulkan(ctx context.Context, dev *engine.Device, x, y *tensor.Tensor, p Options) (*tensor.Tensor, engine.Timing, error) {
	if x == nil || y == nil {
		return nil, engine.Timing{}, fmt.Errorf("mapx: nil input tensor")
	}
	m := engine.Begin(dev)
	t0 := time.Now()
	z := tensor.New(x.DType, x.Shape...)
	made := time.Since(t0)
	tm, err := vulkanInto(ctx, dev, z, x, y, p)
	tm.AddPhase(engine.TimeResults, made)
	m.End(&tm)
	if err != nil {
		return nil, tm, err
	}
	return z, tm, nil
}

// vulkanInto is Vulkan downloading into z.
func vulkanInto(ctx context.Context, dev *engine.Device, z, x, y *tensor.Tensor, p Options) (tm engine.Timing, err error) {
	defer engine.Begin(dev).End(&tm)
	if x == nil || y == nil || z == nil {
		return tm, fmt.Errorf("mapx: nil tensor")
	}
	if err := checkPair(x, y); err != nil {
		return tm, fmt.Errorf("mapx: %w", err)
	}
	if z.DType != x.DType || !tensor.SameShape(z.Shape, x.Shape) {
		return tm, fmt.Errorf("mapx: z is %s %s but x is %s %s (want the same dtype and shape)",
			z.DType, tensor.ShapeString(z.Shape), x.DType, tensor.ShapeString(x.Shape))
	}
	if x.DType != tensor.F32 && x.DType != tensor.F64 {
		return tm, fmt.Errorf("mapx: x is %s (want float32 or float64)", x.DType)
	}
	if err := checkLens(x, y, z); err != nil {
		return tm, err
	}
	v, err := dev.Variant(x.DType, false)
	if err != nil {
		return tm, err
	}
	name, es := "map"+v.TypeSuffix(), int64(v.ValueSize())
	workgroup, err := workgroupSize(ctx, dev.Info)
	if err != nil {
		return tm, err
	}
	k, err := dev.Kernel(engine.KernelSpec{Name: name, Push: mapPush{}, Spec: []uint32{uint32(workgroup)}})
	if err != nil {
		return tm, err
	}
	n := int64(x.Len())
	if n == 0 {
		return tm, nil
	}
	// Elements per pass: three buffers within the budget and one
	// allocation each; whole bindings (multiples of 64 elements) within.
	pass := int64(n)
	if c, err := chunkElems(dev, n, es); err != nil {
		return tm, err
	} else if c < n {
		pass = c
	}
	bufs, err := dev.Buffers(pass*es, pass*es, pass*es)
	if err != nil {
		return tm, err
	}
	defer engine.ReleaseAll(bufs)
	xr, yr, zr := x.Raw(), y.Raw(), z.Raw()
	binding := dev.MaxBinding() / es // elements per dispatch; a multiple of 64
	for p0 := int64(0); p0 < n; p0 += pass {
		m := min(pass, n-p0)
		st, err := dev.Run(ctx, func(seq *engine.Sequence) {
			seq.Upload(bufs[0], 0, xr[p0*es:(p0+m)*es])
			seq.Upload(bufs[1], 0, yr[p0*es:(p0+m)*es])
			for off := int64(0); off < m; off += binding {
				c := min(binding, m-off)
				binds := make([]engine.Binding, 3)
				for i, b := range bufs {
					binds[i] = engine.Binding{Buf: b, Offset: off * es, Size: c * es}
				}
				seq.Dispatch(k, dev.Groups(int((c+int64(workgroup)-1)/int64(workgroup))), mapPush{a: p.A, b: p.B, c: p.C, n: c}, binds...)
			}
			seq.Download(bufs[2], 0, zr[p0*es:(p0+m)*es])
		})
		tm.Add(st)
		if err != nil {
			return tm, err
		}
	}
	return tm, nil
}

// mapPush is map.comp's push constants; a, b and c are float or double
// as the variant's T.
type mapPush struct {
	a, b, c float64
	n       int64
}

// chunkElems is how many elements one pass takes: n when x, y and z fit,
// else a multiple of the binding's alignment that does.
func chunkElems(dev *engine.Device, n, es int64) (int64, error) {
	c, err := dev.ChunkItems(int(min(n, 1<<40)), []int64{es, es, es}, 0, int(dev.Alignment()/es))
	return int64(c), err
}
