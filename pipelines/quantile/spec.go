package quantile

import (
	"github.com/vkstat/vkstat/engine"
	"github.com/vkstat/vkstat/pipelines/reduce"
	"github.com/vkstat/vkstat/tensor"
)

// Spec is quantile's entry in the registry of workloads (package
// workloads): --device auto prices it, with no built-in rates of its own
// (the path's default until `vkstat bench --tune` measures them; no GPU
// has timed it yet).
var Spec = engine.Spec{Name: "quantile", Cases: cases, Defaults: Defaults, Params: Params, Auto: &engine.BuiltinRate{}}

// Work is what the quantiles opt.Q of an array of shape in precision dt
// along opt.Axis do: the array read once and each quantile written once;
// per value and quantile about 4 comparisons of a selection, counted as 4
// flops. An axis the shape lacks counts one slice.
func Work(shape []int, dt tensor.DType, opt Options) (engine.Work, error) {
	n := int64(tensor.NumElements(shape))
	slices := int64(1)
	if g, err := reduce.Plan(shape, opt.Axis); err == nil {
		slices = int64(g.Outputs())
	}
	q := int64(len(opt.Q))
	return engine.Work{Bytes: (n + slices*q) * int64(dt.Size()), Flops: 4 * n * q, Items: slices}, nil
}
