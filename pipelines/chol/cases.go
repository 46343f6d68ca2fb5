package chol

import (
	"context"
	"math"
	"math/rand/v2"
	"strconv"
	"strings"

	"github.com/vkstat/vkstat/engine"
	"github.com/vkstat/vkstat/internal/inputs"
	"github.com/vkstat/vkstat/tensor"
)

// cases are chol's operations as verify checks and bench times them (Spec.Cases).
func cases() []engine.Op { return []engine.Op{cholOp()} }

// ---- chol: batched Cholesky, solves, inverse, log det -----------------------

type cholArg struct {
	k           int  // right-hand sides per matrix; 0: B is (N, P)
	inv, lout   bool // ask for the inverse and L
	quad, solve bool
	nanPivot    bool // the last matrix's last pivot is NaN: its factorisation fails
}

func cholCase(n, p int, a cholArg) engine.Case {
	var parts []string
	if a.lout {
		parts = append(parts, "L")
	}
	if a.solve {
		parts = append(parts, "solve")
	}
	if a.inv {
		parts = append(parts, "inverse")
	}
	parts = append(parts, "logdet")
	if a.quad {
		parts = append(parts, "quad")
	}
	if a.nanPivot {
		parts = append(parts, "nan-pivot")
	}
	return engine.Case{Shape: []int{n, p, p}, Note: strings.Join(parts, ","), Arg: a}
}

// cholConds are the condition numbers the matrices of a batch cycle
// through (the float32 tolerance holds up to 10⁴).
var cholConds = []float64{1, 10, 1e2, 1e3}

// cholBuild makes N SPD matrices U·D·Uᵀ (inputs.WithEigen: U three random
// Householder reflections, eigenvalues log-spaced over the condition
// number, as gonum's testlapack does) and right-hand sides.
func cholBuild(c engine.Case, dt tensor.DType) []*tensor.Tensor {
	a := c.Arg.(cholArg)
	n, p := c.Shape[0], c.Shape[1]
	r := rand.New(rand.NewPCG(c.Seed, 0x63686f6c))
	A := tensor.New(dt, n, p, p)
	m := make([]float64, p*p)
	for k := 0; k < n; k++ {
		cond, scale := cholConds[k%len(cholConds)], math.Exp2(float64(r.IntN(9)-4))
		inputs.WithEigen(m, inputs.LogSpaced(p, cond, scale), 3, r)
		for i, v := range m {
			inputs.Set(A, k*p*p+i, v)
		}
	}
	if a.nanPivot {
		inputs.Set(A, n*p*p-1, math.NaN())
	}
	bshape := []int{n, p}
	if a.k > 0 {
		bshape = []int{n, p, a.k}
	}
	B := inputs.NormalTensor(dt, bshape, c.Seed+1, 0, 1)
	return []*tensor.Tensor{A, B}
}

func cholRequest(c engine.Case, in []*tensor.Tensor, dt tensor.DType) Request {
	a := c.Arg.(cholArg)
	r := Request{Input: Input{A: in[0].As(dt)}, Options: Options{L: a.lout, Inverse: a.inv, LogDet: true, Quad: a.quad}}
	if a.solve || a.quad {
		r.B = in[1].As(dt)
	}
	return r
}

// cholOutputs lists the outputs in a fixed order; info codes become a
// tensor of dt so that a failed factorisation shows as an error.
func cholOutputs(r *Result, dt tensor.DType) []engine.Output {
	info := tensor.New(dt, len(r.Info))
	for i, v := range r.Info {
		inputs.Set(info, i, float64(v))
	}
	out := []engine.Output{{Name: "info", T: info}}
	for _, o := range []engine.Output{{Name: "L", T: r.L}, {Name: "X", T: r.X}, {Name: "inverse", T: r.Inverse}, {Name: "logdet", T: r.LogDet}, {Name: "quad", T: r.Quad}} {
		if o.T != nil {
			out = append(out, o)
		}
	}
	return out
}

func cholOp() engine.Op {
	all := cholArg{k: 2, inv: true, lout: true, quad: true, solve: true}
	return engine.Op{
		Name:  "chol",
		Suite: "chol",
		Doc:   "batched Cholesky of SPD matrices, solves, inverse, log det, bᵀA⁻¹b (pipelines/chol)",
		Verify: []engine.Case{
			cholCase(16, 1, all), cholCase(16, 3, all), cholCase(16, 10, all), cholCase(16, 30, all),
			cholCase(8, 63, all), cholCase(8, 65, all), cholCase(4, 129, all),
		},
		Bench: map[engine.BenchSize][]engine.BenchCase{
			// PACO's use: P = 49 covariance matrices, one solve each, at
			// 4096 and 16384 locations.
			engine.BenchSmall: {{Case: cholCase(4096, 49, cholArg{solve: true}), DType: tensor.F32}},
			engine.BenchPaper: {{Case: cholCase(16384, 49, cholArg{solve: true}), DType: tensor.F32}},
		},
		// Factor, one solve and the log-det of issue 10's (16384, 49) and
		// a small and a large P, fewer matrices on CPU-type devices.
		Tune: &engine.Tuning{Pipeline: "chol", Candidates: Candidates,
			GPU: cholTuneCases(65536, 16384, 4096), CPU: cholTuneCases(4096, 512, 64)},
		Build: cholBuild,
		Run: func(ctx context.Context, dev *engine.Device, c engine.Case, in []*tensor.Tensor) ([]engine.Output, engine.Timing, error) {
			dt := in[0].DType
			req := cholRequest(c, in, dt)
			r, err := Run(ctx, dev, req.Input, req.Options)
			if err != nil {
				return nil, engine.Timing{}, err
			}
			return cholOutputs(r, dt), r.Timing, nil
		},
		Reference: func(c engine.Case, in []*tensor.Tensor) ([]engine.RefOutput, error) {
			r, err := Reference(cholRequest(c, in, tensor.F64))
			if err != nil {
				return nil, err
			}
			return engine.RefOutputs(cholOutputs(r, tensor.F64)), nil
		},
		// float32 on condition numbers up to 10³: errors grow as cond·eps.
		Tol: map[tensor.DType]engine.Tol{tensor.F32: {MaxErr: 1e-3, NMSE: 1e-6}, tensor.F64: {MaxErr: 1e-10, NMSE: 1e-20}},
		Work: func(c engine.Case, dt tensor.DType) engine.Work {
			a := c.Arg.(cholArg)
			rhs := 0
			if a.solve || a.quad {
				rhs = max(a.k, 1)
			}
			w, _ := Work(c.Shape, dt, Options{L: a.lout, Inverse: a.inv}, rhs) // every case is (N, P, P)
			return w
		},
		Unit: engine.Matrices,
		Peer: func(c engine.Case, dt tensor.DType) *engine.Peer {
			a := c.Arg.(cholArg)
			if a.inv || a.lout || a.quad || a.k > 0 {
				return nil // the peers time factor + one solve + log det
			}
			return &engine.Peer{Script: "chol", Args: []string{"--n", strconv.Itoa(c.Shape[0]), "--p", strconv.Itoa(c.Shape[1]), "--dtype", dt.String()}}
		},
	}
}

// cholTuneCases are the float32 batches the chol tuner times: n8 matrices
// of P = 8, n49 of P = 49 and n100 of P = 100, one solve and the log-det;
// the last matrix of each fails (a NaN pivot), so that a candidate is
// checked on the failure path too (its info code, NaN log-det and X).
func cholTuneCases(n8, n49, n100 int) []engine.BenchCase {
	solve := cholArg{solve: true, nanPivot: true}
	return []engine.BenchCase{{Case: cholCase(n8, 8, solve), DType: tensor.F32}, {Case: cholCase(n49, 49, solve), DType: tensor.F32}, {Case: cholCase(n100, 100, solve), DType: tensor.F32}}
}
