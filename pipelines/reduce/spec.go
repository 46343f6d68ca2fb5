package reduce

import (
	"github.com/vkstat/vkstat/engine"
	"github.com/vkstat/vkstat/tensor"
)

// Spec is reduce's entry in the registry of workloads (package workloads).
// Built-in rates: (64, 1024, 1024) axis 0 (2.7·10⁸ flops): 10.4 ms on 16
// threads, 0.26 ms on the H100 (2026-11-28).
var Spec = engine.Spec{Name: "reduce", Cases: cases, Defaults: Defaults, Params: Params, Auto: &engine.BuiltinRate{CPU: engine.OpRate{Flops: 1.6e9}, GPU: engine.OpRate{Flops: 1e12, FixedMs: 2, FirstMs: 20}}}

// Work is what reducing an array of shape in precision dt over opt.Axes
// to the statistics opt.Stats does: the array read once and each
// statistic written once; per element a sum, a squared deviation (3
// flops) and min/max comparisons counted as 4 flops. An axis the shape
// lacks counts one output.
func Work(shape []int, dt tensor.DType, opt Options) (engine.Work, error) {
	n := int64(tensor.NumElements(shape))
	outs := int64(1)
	if g, err := opt.Geometry(shape); err == nil {
		outs = int64(g.Outputs())
	}
	return engine.Work{Bytes: (n + outs*int64(len(opt.Stats))) * int64(dt.Size()), Flops: 4 * n}, nil
}
