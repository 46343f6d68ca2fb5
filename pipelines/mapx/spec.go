package mapx

import (
	"github.com/vkstat/vkstat/engine"
	"github.com/vkstat/vkstat/tensor"
)

// Spec is map's entry in the registry of workloads (package workloads).
// Built-in rates: 5·10⁶ float64 (2.5·10⁷ flops): 5.8 ms on 16 threads,
// 0.042 ms on the H100 (2026-11-28).
var Spec = engine.Spec{Name: "map", Cases: cases, Defaults: Defaults, Params: Params, Auto: &engine.BuiltinRate{CPU: engine.OpRate{Flops: 2.7e8}, GPU: engine.OpRate{Flops: 6e11, FixedMs: 2, FirstMs: 20}}}

// Work is what a call on arrays of shape in precision dt does: 5 flops an
// element, x and y read and z written once.
func Work(shape []int, dt tensor.DType, _ Options) (engine.Work, error) {
	n := int64(tensor.NumElements(shape))
	return engine.Work{Bytes: 3 * n * int64(dt.Size()), Flops: 5 * n}, nil
}
