// Package chol factors batches of symmetric positive-definite matrices by
// Cholesky, A = L·Lᵀ with L lower triangular, and uses the factors to solve
// A·X = B, to invert A and to take log det A, on a Vulkan device or on the
// CPU.
//
// Only the lower triangle of each A is read, as LAPACK's potrf with uplo
// 'L' (and numpy.linalg.cholesky) read it. Each matrix gets an info code as
// potrf gives it: 0 on success, else the 1-based index j of the first pivot
// that is not positive (or is NaN), i.e. the order of the first leading
// minor that is not positive definite. A matrix that fails gets NaN in every
// output (L, X, inverse, log-det, quadratic form) and never disturbs the
// others.
package chol

import (
	"context"
	"fmt"
	"strings"

	"github.com/vkstat/vkstat/engine"
	"github.com/vkstat/vkstat/tensor"
)

// Input holds the matrices to factor and the right-hand sides to solve.
type Input struct {
	// A holds N symmetric positive-definite P×P matrices, shape (N, P, P);
	// only the lower triangle is read.
	A *tensor.Tensor
	// B, optional, holds right-hand sides: (N, P, K), or (N, P) for one
	// each. Its dtype must be A's.
	B *tensor.Tensor
}

// Options say what to compute from the factors. The fields' parameter
// names, which Defaults uses, are in their `param` tags.
type Options struct {
	// L asks for the factors, Inverse for A⁻¹, LogDet for log det A: the
	// command line's output files (engine.Param.Output).
	L       bool `param:"l" kind:"output" help:"Cholesky factors L, lower triangular (.npy)"`
	Inverse bool `param:"inverse" kind:"output" help:"inverses A⁻¹ (.npy)"`
	LogDet  bool `param:"logdet" kind:"output" help:"log-determinants (.npy)"`
	// Quad asks for bᵀA⁻¹b for each right-hand side b (needs B).
	Quad bool `param:"quad" kind:"output" help:"bᵀA⁻¹b per right-hand side (.npy); needs --solve"`
	// Factored says that A holds Cholesky factors L already (a previous
	// run's, or NumPy's), not matrices: they are used as they are, not
	// factored again (SciPy's cho_solve). Only their lower triangles are
	// read; info is the 1-based index of the first diagonal entry that is
	// not positive (a factor no SPD matrix has). The work is two triangular
	// solves per right-hand side (P² per column, memory-bound): it runs on
	// the CPU path, on every device.
	Factored bool `param:"factored" help:"--in holds Cholesky factors L (--out-l's), not matrices: solve, invert and take log-determinants from them without factoring again (SciPy's cho_solve)"`
	// Out gives the results their memory (nil: Go memory), named l, x,
	// quad, inverse and logdet.
	Out *tensor.Outputs

	// test steers the Vulkan path in tests; nil is what runs otherwise.
	test *testOptions
}

// DefaultOptions are what a front end computes unless told: the factors
// L, as Python's chol returns them.
func DefaultOptions() Options { return Options{L: true} }

// Defaults are DefaultOptions by parameter name (engine.Defaults).
func Defaults() map[string]any { return engine.Defaults(DefaultOptions()) }

// Params describe the options every front end takes (engine.Describe),
// with DefaultOptions' defaults.
func Params() []engine.Param { return engine.Describe(DefaultOptions()) }

// Request is an Input with its Options: what CPU, Vulkan and Reference
// serve.
type Request struct {
	Input
	Options
}

// Run serves in and opt on dev, or on the CPU when dev is nil.
func Run(ctx context.Context, dev *engine.Device, in Input, opt Options) (*Result, error) {
	r := Request{in, opt}
	var res *Result
	var tm engine.Timing
	var err error
	if dev == nil || opt.Factored {
		res, tm, err = engine.TimeCPU(func() (*Result, error) { return cpu(ctx, r) })
	} else {
		res, tm, err = Vulkan(ctx, dev, r)
	}
	if err != nil {
		return nil, err
	}
	res.Timing = tm
	return res, nil
}

// Result holds what a Request asked for, in A's dtype (float64 for
// Reference); fields not asked for are nil.
type Result struct {
	// Info is the potrf info code of each matrix: 0, or the 1-based index
	// of the failing pivot.
	Info []int32
	// L is (N, P, P), lower triangular, zero above the diagonal.
	L *tensor.Tensor
	// X = A⁻¹B, B's shape.
	X *tensor.Tensor
	// Inverse is (N, P, P), symmetric.
	Inverse *tensor.Tensor
	// LogDet is (N,).
	LogDet *tensor.Tensor
	// Quad is bᵀA⁻¹b: (N, K), or (N,) when B is (N, P).
	Quad *tensor.Tensor
	// Timing is what the call cost (Run).
	Timing engine.Timing
}

// Failed counts the matrices whose factorisation failed (Info != 0).
func (r *Result) Failed() int {
	n := 0
	for _, v := range r.Info {
		if v != 0 {
			n++
		}
	}
	return n
}

// dims are a checked request's sizes.
type dims struct {
	n, p, k int
	rhs     bool // B given
	vecB    bool // B is (N, P)
}

func dataOK(t *tensor.Tensor) bool {
	n := t.Len()
	if t.DType == tensor.F64 {
		return len(t.F64) == n
	}
	return len(t.F32) == n
}

// check validates r and returns its sizes.
func (r Request) check() (dims, error) {
	var d dims
	a := r.A
	if a == nil {
		return d, fmt.Errorf("chol: no matrices given")
	}
	if len(a.Shape) != 3 {
		return d, fmt.Errorf("chol: the matrices must be a 3-d array (N, P, P), got shape %s", tensor.ShapeString(a.Shape))
	}
	if a.Shape[1] != a.Shape[2] {
		return d, fmt.Errorf("chol: the matrices must be square, got shape %s (%d×%d)", tensor.ShapeString(a.Shape), a.Shape[1], a.Shape[2])
	}
	if a.Shape[1] < 1 {
		return d, fmt.Errorf("chol: empty matrices of shape %s", tensor.ShapeString(a.Shape))
	}
	if !dataOK(a) {
		return d, fmt.Errorf("chol: matrices of shape %s need %d values", tensor.ShapeString(a.Shape), a.Len())
	}
	d.n, d.p, d.k = a.Shape[0], a.Shape[1], 0
	if b := r.B; b != nil {
		if b.DType != a.DType {
			return d, fmt.Errorf("chol: the matrices are %s but the right-hand sides are %s", a.DType, b.DType)
		}
		switch {
		case len(b.Shape) == 2 && b.Shape[0] == d.n && b.Shape[1] == d.p:
			d.k, d.vecB = 1, true
		case len(b.Shape) == 3 && b.Shape[0] == d.n && b.Shape[1] == d.p:
			d.k = b.Shape[2]
		default:
			return d, fmt.Errorf("chol: right-hand sides of shape %s do not fit matrices of shape %s (want (%d, %d, K) or (%d, %d))",
				tensor.ShapeString(b.Shape), tensor.ShapeString(a.Shape), d.n, d.p, d.n, d.p)
		}
		if !dataOK(b) {
			return d, fmt.Errorf("chol: right-hand sides of shape %s need %d values", tensor.ShapeString(b.Shape), b.Len())
		}
		d.rhs = true
	}
	if r.Quad && !d.rhs {
		return d, fmt.Errorf("chol: the quadratic form bᵀA⁻¹b needs right-hand sides")
	}
	return d, nil
}

// newResult allocates the outputs r asks for.
func (r Request) newResult(d dims, dt tensor.DType) *Result {
	res := &Result{Info: make([]int32, d.n)}
	if r.L {
		res.L = r.Out.New("l", dt, d.n, d.p, d.p)
	}
	if d.rhs {
		res.X = r.Out.New("x", dt, r.B.Shape...)
		if r.Quad {
			if d.vecB {
				res.Quad = r.Out.New("quad", dt, d.n)
			} else {
				res.Quad = r.Out.New("quad", dt, d.n, d.k)
			}
		}
	}
	if r.Inverse {
		res.Inverse = r.Out.New("inverse", dt, d.n, d.p, d.p)
	}
	if r.LogDet {
		res.LogDet = r.Out.New("logdet", dt, d.n)
	}
	return res
}

// Words reports how many of r's matrices of p×p failed, and the first
// five with their info codes.
func (r *Result) Words(p int) string {
	n, failed := len(r.Info), r.Failed()
	line := fmt.Sprintf("chol: %d matrices of %d×%d, %d failed (not positive definite)", n, p, p, failed)
	if failed == 0 {
		return line
	}
	var parts []string
	for m, v := range r.Info {
		if v != 0 {
			if len(parts) == 5 {
				parts = append(parts, "...")
				break
			}
			parts = append(parts, fmt.Sprintf("%d (pivot %d)", m, v))
		}
	}
	return line + ": " + strings.Join(parts, ", ")
}

// Failures are the first most failed matrices, each its index ("matrix")
// and info code ("info"); nil when none failed.
func (r *Result) Failures(most int) []map[string]int {
	var out []map[string]int
	for m, v := range r.Info {
		if v != 0 && len(out) < most {
			out = append(out, map[string]int{"matrix": m, "info": int(v)})
		}
	}
	return out
}
