package cov

import (
	"context"
	"fmt"

	"github.com/vkstat/vkstat/engine"
	"github.com/vkstat/vkstat/internal/inputs"
	"github.com/vkstat/vkstat/tensor"
)

// cases are cov's operations as verify checks and bench times them (Spec.Cases).
func cases() []engine.Op { return []engine.Op{covOp()} }

// ---- cov: batched mean and covariance with shrinkage ----------------------

type covArg struct {
	opt Options
	// moments gives each variable's mean and spread (inputs.Sets); nil
	// draws them per set.
	moments func(i int) (mean, sd float64)
}

func covCase(n, t, p int, est Estimator, ddof int) engine.Case {
	note := est.String()
	if ddof != 0 {
		note += fmt.Sprintf(" ddof %d", ddof)
	}
	return engine.Case{Shape: []int{n, t, p}, Note: note, Arg: covArg{opt: Options{Estimator: est, DDof: ddof}}}
}

// covHard is a case whose variables have the moments m, where a float
// accumulation can lose what the other cases do not show.
func covHard(n, t, p int, est Estimator, note string, m func(i int) (mean, sd float64)) engine.Case {
	return engine.Case{Shape: []int{n, t, p}, Note: est.String() + " " + note, Arg: covArg{opt: Options{Estimator: est}, moments: m}}
}

// covBuild makes N sets of T samples of P correlated variables
// (inputs.Sets: means around 100, so centring matters, and spreads falling
// with the index, unless the case gives the moments); 16-bit ones are the
// float32 ones rounded.
func covBuild(c engine.Case, dt tensor.DType) []*tensor.Tensor {
	n, t, p := c.Shape[0], c.Shape[1], c.Shape[2]
	m := c.Arg.(covArg).moments
	if dt == tensor.F64 {
		x := tensor.New(dt, c.Shape...)
		inputs.Sets(x.F64, n, t, p, c.Seed, m)
		return []*tensor.Tensor{x}
	}
	x := tensor.New(tensor.F32, c.Shape...)
	inputs.Sets(x.F32, n, t, p, c.Seed, m)
	return []*tensor.Tensor{x.As(dt)}
}

func covOp() engine.Op {
	none, paco, lw, oas := None, PACO, LedoitWolf, OAS
	return engine.Op{
		Name:  "cov",
		Suite: "cov",
		Doc:   "batched mean, covariance and shrinkage weight of (N, T, P) sample sets (pipelines/cov)",
		Verify: []engine.Case{
			covCase(64, 252, 5, none, 0),
			covCase(63, 24, 13, paco, 0),
			covCase(65, 252, 29, lw, 0),
			covCase(1, 40, 49, oas, 0),
			covCase(64, 64, 81, paco, 0),
			covCase(9, 20, 7, none, 1),
		},
		Bench: map[engine.BenchSize][]engine.BenchCase{
			// PACO's patch of P = 49 pixels over T = 64 frames, at 2048
			// and 16384 locations.
			engine.BenchSmall: {{Case: covCase(2048, 64, 49, paco, 0), DType: tensor.F32}},
			engine.BenchPaper: {{Case: covCase(16384, 64, 49, paco, 0), DType: tensor.F32}},
		},
		Tune: &engine.Tuning{
			Pipeline: "cov", Candidates: Candidates,
			// PACO's case of issue 10 (N = 1024 on CPU-type devices), a
			// wide one and a long one.
			GPU: covTuneCases(16384), CPU: covTuneCases(1024),
			// What the test suites hold cov (and latent's correlations
			// over it) to, where float accumulation can fail: the H100's
			// tune chose it and then failed the suites
			// (docs/benchmarks/gpu/2026-11-26-h100).
			Hard: []engine.BenchCase{
				{Case: covHard(2, 30011, 3, lw, "mean 1000", func(int) (float64, float64) { return 1000, 1 }), DType: tensor.F32},
				{Case: covHard(64, 64, 49, paco, "means 1e6 and 100", func(i int) (float64, float64) {
					if i%2 == 0 {
						return 1e6, 0.5
					}
					return 100, 1e-3
				}), DType: tensor.F32},
				{Case: covHard(65, 251, 13, none, "mean 100", func(int) (float64, float64) { return 100, 1 }), DType: tensor.BF16},
			},
		},
		Build: covBuild,
		Run: func(ctx context.Context, dev *engine.Device, c engine.Case, in []*tensor.Tensor) ([]engine.Output, engine.Timing, error) {
			r, err := Run(ctx, dev, in[0], c.Arg.(covArg).opt)
			if err != nil {
				return nil, engine.Timing{}, err
			}
			return []engine.Output{{Name: "mean", T: r.Mean}, {Name: "cov", T: r.Cov}, {Name: "rho", T: r.Rho}}, r.Timing, nil
		},
		Reference: func(c engine.Case, in []*tensor.Tensor) ([]engine.RefOutput, error) {
			r, err := Reference(in[0], c.Arg.(covArg).opt)
			if err != nil {
				return nil, err
			}
			return []engine.RefOutput{{Name: "mean", V: r.Mean.Float64s()}, {Name: "cov", V: r.Cov.Float64s()}, {Name: "rho", V: r.Rho.Float64s()}}, nil
		},
		// float32 outputs are roundings of float64 accumulations (float32
		// ones on devices without shaderFloat64).
		Tol: map[tensor.DType]engine.Tol{tensor.F32: {MaxErr: 1e-4, NMSE: 1e-8}, tensor.F64: {MaxErr: 1e-10, NMSE: 1e-20}},
		Work: func(c engine.Case, dt tensor.DType) engine.Work {
			w, _ := Work(c.Shape, dt, c.Arg.(covArg).opt) // every case is (N, T, P)
			return w
		},
		Unit: engine.GFlops,
		Peer: func(c engine.Case, dt tensor.DType) *engine.Peer {
			return &engine.Peer{Script: "cov", Args: []string{"--shape", engine.ShapeArg(c.Shape), "--estimator", c.Arg.(covArg).opt.Estimator.String(),
				"--dtype", dt.String()}}
		},
	}
}

// covTuneCases are the float32 sets the cov tuner times: PACO's patches
// of P = 49 over T = 64 frames at n locations, wide sets (P = 130) and
// long ones (T = 512).
func covTuneCases(n int) []engine.BenchCase {
	return []engine.BenchCase{
		{Case: covCase(n, 64, 49, PACO, 0), DType: tensor.F32}, {Case: covCase(n/16, 128, 130, OAS, 0), DType: tensor.F32}, {Case: covCase(n/8, 512, 16, LedoitWolf, 0), DType: tensor.F32},
	}
}
