package chol

import (
	"github.com/vkstat/vkstat/engine"
	"github.com/vkstat/vkstat/tensor"
)

// Spec is chol's entry in the registry of workloads (package workloads).
// Built-in rates: (16384, 49, 49), a solve and the log det (7.2·10⁸
// flops): 33 ms on 16 threads, 0.96 ms on the H100 (2026-11-28).
var Spec = engine.Spec{Name: "chol", Cases: cases, Defaults: Defaults, Params: Params, Auto: &engine.BuiltinRate{CPU: engine.OpRate{Flops: 1.4e9}, GPU: engine.OpRate{Flops: 7.5e11, FixedMs: 3, FirstMs: 20}}}

// Work is what factoring N matrices of shape (N, P, P) in precision dt
// does, with rhs right-hand sides each (0: no solve nor quad): P³/3 flops
// a factorisation, 2P²·rhs the solves, 2P³/3 the inverse (opt.Inverse);
// A read once, B read and X written once, L (opt.L) and the inverse
// written once, and two values a matrix (log det, info).
func Work(shape []int, dt tensor.DType, opt Options, rhs int) (engine.Work, error) {
	n, p, _, err := engine.Dims3("chol", shape, "(N, P, P)")
	if err != nil {
		return engine.Work{}, err
	}
	k := int64(rhs)
	flops := p * p * p / 3
	bytes := p * p
	if k > 0 {
		flops += 2 * p * p * k
		bytes += 2 * p * k
	}
	if opt.Inverse {
		flops += 2 * p * p * p / 3
		bytes += p * p
	}
	if opt.L {
		bytes += p * p
	}
	return engine.Work{Bytes: n * (bytes + 2) * int64(dt.Size()), Flops: n * flops, Items: n}, nil
}
