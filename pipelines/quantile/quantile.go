// Package quantile computes quantiles of an N-d array along one axis, as
// NumPy's np.quantile(a, q, axis) with its default method, "linear"
// (Hyndman and Fan's type 7): the temporal median of an image stack (T, H,
// W) along axis 0, or per-row quantiles of a (batch, n) array along axis
// −1. The median is q = 0.5.
//
// Sorted, a slice x₀ ≤ … ≤ xₙ₋₁ has the quantile q at h = (n−1)·q:
// x⌊h⌋ + (h−⌊h⌋)·(x⌊h⌋+1 − x⌊h⌋), interpolated in float64 (float on a
// device without shaderFloat64) and stored in the input's type. A NaN makes
// its slice's quantiles NaN unless Options.SkipNaN (np.nanquantile), which
// takes the quantiles of the slice's other values (NaN when all are NaN).
package quantile

import (
	"context"
	"errors"
	"fmt"
	"math"

	"github.com/vkstat/vkstat/engine"
	"github.com/vkstat/vkstat/pipelines/reduce"
	"github.com/vkstat/vkstat/tensor"
)

// Options describe the quantiles to take. DefaultOptions are the front
// ends' defaults (Defaults): the median along axis 0, NaNs propagated.
// Check refuses what no call can use, as an *engine.FieldError naming the
// parameter (the `param` tags).
type Options struct {
	// Axis to take the quantiles along; negative counts from the end, as
	// in NumPy.
	Axis int `param:"axis" help:"axis to take the quantiles along (negative counts from the end)"`
	// Q are the quantiles, each in [0, 1]: the result's first axis, in
	// this order.
	Q []float64 `param:"q" flag:"quantiles" help:"comma-separated quantiles, each in [0, 1] (0.5: the median)"`
	// SkipNaN leaves NaN elements out (np.nanquantile); otherwise a NaN
	// makes its slice's quantiles NaN.
	SkipNaN bool `param:"skip_nan" help:"leave NaNs out (np.nanquantile) instead of making their slices' quantiles NaN"`
	// Out gives the result its memory (nil: Go memory), named "q".
	Out *tensor.Outputs
}

// DefaultOptions are what the front ends compute unless told: the median
// along axis 0 (np.median(a, 0)'s value).
func DefaultOptions() Options { return Options{Q: []float64{0.5}} }

// Defaults are DefaultOptions by parameter name (engine.Defaults).
func Defaults() map[string]any { return engine.Defaults(DefaultOptions()) }

// Params describe the options every front end takes (engine.Describe),
// with DefaultOptions' defaults.
func Params() []engine.Param { return engine.Describe(DefaultOptions()) }

// Check refuses no quantile, or one outside [0, 1] (NaN included).
func (o Options) Check() error {
	if len(o.Q) == 0 {
		return engine.Fieldf("q", " is empty: give one or more quantiles in [0, 1] (0.5 is the median)")
	}
	for i, q := range o.Q {
		if !(q >= 0 && q <= 1) {
			return engine.Fieldf("q", " must be in [0, 1], got %g (quantile %d of %d)", q, i+1, len(o.Q))
		}
	}
	return nil
}

// Result holds the quantiles, of shape (len(Q),) + the input's shape
// without the axis (NumPy's), with what the call cost.
type Result struct {
	Q *tensor.Tensor
	// Fallback, when not empty, says why the CPU took the quantiles of a
	// call given a device: slices longer than the device's shared memory
	// holds (PlanDevice).
	Fallback string
	Timing   engine.Timing
}

// ErrDType refuses an input that is neither float32 nor float64.
var ErrDType = errors.New("quantiles take float32 or float64 arrays")

// Run takes the quantiles of in along opt.Axis on dev, or on the CPU when
// dev is nil or when the slices are too long for dev (Result.Fallback).
func Run(ctx context.Context, dev *engine.Device, in *tensor.Tensor, opt Options) (*Result, error) {
	g, err := geometry(in, opt)
	if err != nil {
		return nil, err
	}
	out := opt.Out.New("q", in.DType, append([]int{len(opt.Q)}, g.OutShape...)...)
	res := &Result{Q: out}
	if dev != nil {
		p, err := PlanDevice(g.N, in.DType, dev.Info)
		if err != nil {
			return nil, err
		}
		if p.Device {
			if res.Timing, err = vulkan(ctx, dev, in, g, opt, p, out); err != nil {
				return nil, err
			}
			return res, nil
		}
		res.Fallback = p.Why
	}
	_, res.Timing, err = engine.TimeCPU(func() (struct{}, error) { return struct{}{}, cpu(ctx, in, g, opt, out) })
	if err != nil {
		return nil, err
	}
	return res, nil
}

// geometry checks in and opt and views in along the axis.
func geometry(in *tensor.Tensor, opt Options) (reduce.Geometry, error) {
	if in == nil {
		return reduce.Geometry{}, fmt.Errorf("quantile: nil input")
	}
	if in.DType != tensor.F32 && in.DType != tensor.F64 {
		return reduce.Geometry{}, fmt.Errorf("quantile: the input is %s: %w", in.DType, ErrDType)
	}
	if err := opt.Check(); err != nil {
		return reduce.Geometry{}, err
	}
	nd := len(in.Shape)
	switch {
	case nd == 0:
		return reduce.Geometry{}, fmt.Errorf("quantile of a 0-d array: give an array of 1 or more dimensions")
	case opt.Axis < -nd || opt.Axis >= nd:
		return reduce.Geometry{}, engine.Fieldf("axis", " must be in %d..%d for an array of shape %s, got %d", -nd, nd-1, tensor.ShapeString(in.Shape), opt.Axis)
	case in.Shape[(opt.Axis+nd)%nd] == 0:
		return reduce.Geometry{}, fmt.Errorf("quantile along axis %d of an array of shape %s: %w (no values to take quantiles of)", opt.Axis, tensor.ShapeString(in.Shape), reduce.ErrEmptyAxis)
	}
	g, err := reduce.Plan(in.Shape, opt.Axis)
	if err != nil {
		return g, fmt.Errorf("quantile: %w", err)
	}
	n := len(in.F32)
	if in.DType == tensor.F64 {
		n = len(in.F64)
	}
	if n != tensor.NumElements(in.Shape) {
		return g, fmt.Errorf("quantile: the input has shape %s but holds %d values", tensor.ShapeString(in.Shape), n)
	}
	return g, nil
}

// position is where quantile q of m sorted values lies: index lo, and the
// weight g of index lo+1 (0 when lo is the last index, m−1).
func position(q float64, m int) (lo int, g float64) {
	h := float64(m-1) * q
	lo = int(math.Floor(h))
	if lo >= m-1 {
		return m - 1, 0
	}
	return lo, h - float64(lo)
}

// lerp is NumPy's interpolation between a and b at weight g (its _lerp:
// from b for g ≥ 0.5, which keeps it monotonic), exact at g = 0 and where
// a = b. Where NumPy 1.24 gives NaN (∞ − ∞) or ±Inf (b − a overflows),
// it gives the limit: an infinite neighbour's infinity (NaN between −∞ and
// +∞), and (1−g)·a + g·b between finite neighbours.
func lerp(a, b, g float64) float64 {
	if g == 0 || a == b {
		return a
	}
	if math.IsInf(a, 0) || math.IsInf(b, 0) {
		return a + b
	}
	d := b - a
	switch {
	case math.IsInf(d, 0):
		return (1-g)*a + g*b
	case g < 0.5:
		return a + d*g
	}
	return b - d*(1-g)
}
