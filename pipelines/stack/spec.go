package stack

import "github.com/vkstat/vkstat/engine"

// Spec is stack's entry in the registry of workloads (package workloads):
// --device auto prices it, with no built-in rates of its own (the path's
// default until `vkstat bench --tune` measures them).
var Spec = engine.Spec{Name: "stack", Cases: cases, Defaults: Defaults, Params: Params, Auto: &engine.BuiltinRate{}}

// Work is what the statistics of dates dates of the grid g do: every
// float32 sample (two a pixel when complex) read once, 4 flops a pixel.
func Work(dates int, g Grid) (engine.Work, error) {
	n := int64(dates) * int64(g.Height) * int64(g.Width)
	per := int64(1)
	if g.Complex {
		per = 2
	}
	return engine.Work{Bytes: n * per * 4, Flops: 4 * n}, nil
}
