package mapx

import (
	"context"
	"fmt"
	"runtime"
	"sync"

	"github.com/vkstat/vkstat/tensor"
)

// parallelMin is the element count below which CPU runs on the calling
// goroutine only: under it, starting goroutines costs more than it saves.
const parallelMin = 1 << 16

// CPU evaluates z = a·x² + b·y + c elementwise in native Go. x and y must
// have the same dtype and shape; z has them too. float32 inputs are computed
// in float32 (with a, b and c rounded to float32), float64 inputs in float64.
// Large inputs are split across runtime.GOMAXPROCS goroutines.
func CPU(x, y *tensor.Tensor, p Options) (*tensor.Tensor, error) {
	if x == nil || y == nil {
		return nil, fmt.Errorf("mapx: nil input tensor")
	}
	z := tensor.New(x.DType, x.Shape...)
	if err := cpuInto(context.Background(), z, x, y, p); err != nil {
		return nil, err
	}
	return z, nil
}

// cpuPiece is the most elements cpuInto computes between two looks at its
// context: a millisecond or so, so that a cancelled map stops at once.
const cpuPiece = 1 << 20

// cpuInto is CPU writing into z, which must have x's dtype and shape; it
// stops with ctx's error when ctx ends.
func cpuInto(ctx context.Context, z, x, y *tensor.Tensor, p Options) error {
	if x == nil || y == nil || z == nil {
		return fmt.Errorf("mapx: nil tensor")
	}
	if err := checkPair(x, y); err != nil {
		return fmt.Errorf("mapx: %w", err)
	}
	if z.DType != x.DType || !tensor.SameShape(z.Shape, x.Shape) {
		return fmt.Errorf("mapx: z is %s %s but x is %s %s (want the same dtype and shape)",
			z.DType, tensor.ShapeString(z.Shape), x.DType, tensor.ShapeString(x.Shape))
	}
	if err := checkLens(x, y, z); err != nil {
		return err
	}
	n := x.Len()
	for lo := 0; lo < n; lo += cpuPiece {
		if err := ctx.Err(); err != nil {
			return err
		}
		hi := min(lo+cpuPiece, n)
		switch {
		case x.DType == tensor.F64 && hi-lo <= parallelMin: // inline: no closure to allocate
			grade2F64(z.F64[lo:hi], x.F64[lo:hi], y.F64[lo:hi], p.A, p.B, p.C)
		case x.DType == tensor.F64:
			xs, ys, zs := x.F64[lo:hi], y.F64[lo:hi], z.F64[lo:hi]
			a, b, c := p.A, p.B, p.C
			parallelRange(hi-lo, func(lo, hi int) { grade2F64(zs[lo:hi], xs[lo:hi], ys[lo:hi], a, b, c) })
		case hi-lo <= parallelMin:
			grade2F32(z.F32[lo:hi], x.F32[lo:hi], y.F32[lo:hi], float32(p.A), float32(p.B), float32(p.C))
		default:
			xs, ys, zs := x.F32[lo:hi], y.F32[lo:hi], z.F32[lo:hi]
			a, b, c := float32(p.A), float32(p.B), float32(p.C)
			parallelRange(hi-lo, func(lo, hi int) { grade2F32(zs[lo:hi], xs[lo:hi], ys[lo:hi], a, b, c) })
		}
	}
	return nil
}

// checkLens reports an x, y or z whose data slice does not match its shape.
func checkLens(x, y, z *tensor.Tensor) error {
	n := x.Len()
	for _, t := range []struct {
		name string
		t    *tensor.Tensor
	}{{"x", x}, {"y", y}, {"z", z}} {
		if err := checkLen(t.name, t.t, n); err != nil {
			return err
		}
	}
	return nil
}

// checkLen reports a tensor whose data slice does not match its shape.
func checkLen(name string, t *tensor.Tensor, n int) error {
	got := len(t.F32)
	if t.DType == tensor.F64 {
		got = len(t.F64)
	}
	if got != n {
		return fmt.Errorf("mapx: %s has shape %s (%d elements) but holds %d %s values",
			name, tensor.ShapeString(t.Shape), n, got, t.DType)
	}
	return nil
}

// parallelRange calls fn on contiguous pieces covering [0, n): one piece on
// the calling goroutine when n is small, otherwise one piece per GOMAXPROCS.
func parallelRange(n int, fn func(lo, hi int)) {
	workers := runtime.GOMAXPROCS(0)
	if n <= parallelMin || workers <= 1 {
		fn(0, n)
		return
	}
	if limit := n / (parallelMin / 2); workers > limit {
		workers = limit
	}
	// Pieces are multiples of 64 elements so that no cache line is shared
	// between two writers.
	piece := (n/workers + 63) &^ 63
	var wg sync.WaitGroup
	lo := 0
	for w := 0; w < workers-1 && lo+piece < n; w++ {
		wg.Add(1)
		go func(lo, hi int) {
			defer wg.Done()
			fn(lo, hi)
		}(lo, lo+piece)
		lo += piece
	}
	fn(lo, n)
	wg.Wait()
}

// grade2F64 writes z[i] = a*x[i]*x[i] + b*y[i] + c. The reslicing lets the
// compiler drop the bounds checks in the loop.
func grade2F64(z, x, y []float64, a, b, c float64) {
	x = x[:len(z)]
	y = y[:len(z)]
	for i := range z {
		xi := x[i]
		z[i] = a*xi*xi + b*y[i] + c
	}
}

// grade2F32 is grade2F64 in float32 arithmetic.
func grade2F32(z, x, y []float32, a, b, c float32) {
	x = x[:len(z)]
	y = y[:len(z)]
	for i := range z {
		xi := x[i]
		z[i] = a*xi*xi + b*y[i] + c
	}
}
