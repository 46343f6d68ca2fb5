package cov

import (
	"github.com/vkstat/vkstat/engine"
	"github.com/vkstat/vkstat/tensor"
)

// Spec is cov's entry in the registry of workloads (package workloads).
// Built-in rates: PACO's (16384, 64, 49) (2.7·10⁹ flops): 32.4 ms on 16
// threads, 0.80 ms on the H100 (2026-11-28).
var Spec = engine.Spec{Name: "cov", Cases: cases, Defaults: Defaults, Params: Params, Auto: &engine.BuiltinRate{CPU: engine.OpRate{Flops: 5.1e9}, GPU: engine.OpRate{Flops: 3.3e12, FixedMs: 3, FirstMs: 20}}}

// Work is what the covariances of N sets of T samples of P variables
// (shape (N, T, P)), or of the sets opt.Gather takes from a cube (T, H,
// W), in precision dt do: centring (2 flops a sample) and the upper
// triangle of XᵀX (a multiply-add per pair and sample); the samples read
// once, the means, covariances and shrinkage written once.
func Work(shape []int, dt tensor.DType, opt Options) (engine.Work, error) {
	if g := opt.Gather; g != nil && len(g.Locations) > 0 && len(shape) == 3 {
		shape = []int{len(g.Locations), shape[0], len(g.Offsets)}
	}
	n, t, p, err := engine.Dims3("cov", shape, "(N, T, P)")
	return engine.Work{Bytes: (n*t*p + n*(p+p*p+1)) * int64(dt.Size()), Flops: n * t * (2*p + p*(p+1)), Items: n}, err
}
