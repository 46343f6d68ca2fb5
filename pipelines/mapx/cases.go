package mapx

import (
	"context"
	"strconv"

	"github.com/vkstat/vkstat/engine"
	"github.com/vkstat/vkstat/internal/inputs"
	"github.com/vkstat/vkstat/tensor"
)

// cases are map's operations as verify checks and bench times them (Spec.Cases).
func cases() []engine.Op { return []engine.Op{mapOp()} }

// ---- map: z = a·x² + b·y + c ---------------------------------------------

// mapParams are the seed document's coefficients. With x in [-2, 2) and y
// in [-1, 1), |z| >= 7.2: no cancellation.
var mapParams = Options{A: 3.5, B: 2.8, C: 10}

func mapOp() engine.Op {
	nan := func(shape ...int) engine.Case { return engine.Case{Shape: shape, Note: "with NaNs", Arg: true} }
	return engine.Op{
		Name:  "map",
		Suite: "map",
		Doc:   "z = 3.5·x² + 2.8·y + 10 elementwise (pipelines/mapx)",
		Verify: []engine.Case{
			{Shape: []int{1}}, {Shape: []int{257}}, nan(1_000_003), {Shape: []int{3, 257, 5}},
		},
		Bench: map[engine.BenchSize][]engine.BenchCase{
			engine.BenchSmall: {{Case: engine.Case{Shape: []int{1_000_000}}, DType: tensor.F32}, {Case: engine.Case{Shape: []int{1_000_000}}, DType: tensor.F64}},
			engine.BenchPaper: {{Case: engine.Case{Shape: []int{5_000_000}}, DType: tensor.F32}, {Case: engine.Case{Shape: []int{5_000_000}}, DType: tensor.F64}},
		},
		// The seed document's 5·10⁶ elements (2²⁰ on CPU-type devices).
		Tune: &engine.Tuning{Pipeline: "mapx", Candidates: Candidates,
			GPU: []engine.BenchCase{{Case: engine.Case{Shape: []int{5_000_000}}, DType: tensor.F32}}, CPU: []engine.BenchCase{{Case: engine.Case{Shape: []int{1 << 20}}, DType: tensor.F32}}},
		Build: func(c engine.Case, dt tensor.DType) []*tensor.Tensor {
			x := inputs.UniformTensor(dt, c.Shape, c.Seed, -2, 2)
			y := inputs.UniformTensor(dt, c.Shape, c.Seed+1, -1, 1)
			if withNaN, _ := c.Arg.(bool); withNaN {
				inputs.PlantNaNTensor(x, c.Seed)
				inputs.PlantNaNTensor(y, c.Seed+1)
			}
			return []*tensor.Tensor{x, y}
		},
		Run: func(ctx context.Context, dev *engine.Device, c engine.Case, in []*tensor.Tensor) ([]engine.Output, engine.Timing, error) {
			r, err := Run(ctx, dev, Input{X: in[0], Y: in[1]}, mapParams)
			if err != nil {
				return nil, engine.Timing{}, err
			}
			return []engine.Output{{Name: "z", T: r.Z}}, r.Timing, nil
		},
		Reference: func(c engine.Case, in []*tensor.Tensor) ([]engine.RefOutput, error) {
			return []engine.RefOutput{{Name: "z", V: Reference(in[0].Float64s(), in[1].Float64s(), mapParams)}}, nil
		},
		// A few roundings of values bounded away from zero.
		Tol: map[tensor.DType]engine.Tol{tensor.F32: {MaxErr: 1e-6, NMSE: 1e-12}, tensor.F64: {MaxErr: 1e-14, NMSE: 1e-26}},
		Work: func(c engine.Case, dt tensor.DType) engine.Work {
			w, _ := Work(c.Shape, dt, mapParams)
			return w
		},
		Unit: engine.GBs,
		Peer: func(c engine.Case, dt tensor.DType) *engine.Peer {
			return &engine.Peer{Script: "map", Args: []string{"--n", strconv.FormatInt(int64(tensor.NumElements(c.Shape)), 10), "--dtype", dt.String()}}
		},
	}
}
