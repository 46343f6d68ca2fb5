// Package eig computes the eigendecomposition of batches of real symmetric
// matrices, A = V·diag(λ)·Vᵀ, on a Vulkan device or on the CPU, by Jacobi
// rotations; Reference does the same with gonum's EigenSym.
//
// Only the lower triangle of each A is read (the upper is taken to mirror
// it), as LAPACK's syev with uplo 'L' reads it. Outputs:
//
//   - Values (B, n): the eigenvalues in descending order (ties keep the
//     order in which the method leaves them);
//   - Vectors (B, n, n): the unit eigenvectors as columns, Vectors[b, :, k]
//     for Values[b, k], each signed so that its component of largest
//     magnitude (the first such on ties) is positive;
//   - Info (B): 0, NotConverged when MaxSweeps sweeps left the
//     off-diagonal part above the stopping threshold, NonFinite when A
//     holds a NaN or ±Inf. A matrix whose Info is not 0 has NaN in every
//     output; the others are never disturbed by it;
//   - Sweeps (B): the Jacobi sweeps each matrix took.
//
// The Jacobi method (both paths): a sweep rotates every pair (p, q) once;
// a rotation is skipped when |a_pq| <= ε·√|a_pp·a_qq| (ε the working
// precision's machine epsilon), and a matrix has converged after a sweep
// when ‖off(A)‖_F <= ε·‖A‖_F or when the sweep skipped every rotation.
// The CPU path runs the cyclic-by-rows order in float64 whatever the input's
// dtype; the Vulkan kernel runs the round-robin (chess tournament) order,
// n/2 disjoint rotations at once, in the input's precision, one workgroup
// per matrix (see vulkan.go and docs/latent.md).
package eig

import (
	"context"
	"fmt"
	"math"
	"sort"

	"github.com/vkstat/vkstat/engine"
	"github.com/vkstat/vkstat/tensor"
)

// Info codes.
const (
	OK           = 0
	NotConverged = 1
	NonFinite    = 2
)

// DefaultMaxSweeps bounds the sweeps when Options.MaxSweeps is 0. Cyclic
// Jacobi converges quadratically once the off-diagonal part is small:
// matrices of order a few hundred take 6 to 12 sweeps.
const DefaultMaxSweeps = 40

// Options tune the iteration. The fields' parameter names, which
// Defaults uses, are in their `param` tags.
type Options struct {
	// MaxSweeps bounds the sweeps per matrix (0: DefaultMaxSweeps).
	MaxSweeps int `param:"max_sweeps"`

	// test steers the Vulkan path in tests; nil is what runs otherwise.
	test *testOptions
}

// DefaultOptions are what a front end runs unless told: at most
// DefaultMaxSweeps sweeps.
func DefaultOptions() Options { return Options{MaxSweeps: DefaultMaxSweeps} }

// Defaults are DefaultOptions by parameter name (engine.Defaults).
func Defaults() map[string]any { return engine.Defaults(DefaultOptions()) }

func (o Options) maxSweeps() int {
	if o.MaxSweeps <= 0 {
		return DefaultMaxSweeps
	}
	return o.MaxSweeps
}

// Run decomposes a's matrices on dev, or on the CPU when dev is nil.
func Run(ctx context.Context, dev *engine.Device, a *tensor.Tensor, opt Options) (*Result, error) {
	var r *Result
	var tm engine.Timing
	var err error
	if dev == nil {
		r, tm, err = engine.TimeCPU(func() (*Result, error) { return cpu(ctx, a, opt) })
	} else {
		r, tm, err = Vulkan(ctx, dev, a, opt)
	}
	if err != nil {
		return nil, err
	}
	r.Timing = tm
	return r, nil
}

// Result holds the decomposition, in A's dtype (float64 for Reference).
type Result struct {
	Values  *tensor.Tensor // (B, n), descending
	Vectors *tensor.Tensor // (B, n, n), eigenvectors as columns
	Info    []int32
	Sweeps  []int32
	// Timing is what the call cost (Run).
	Timing engine.Timing
}

// Failed counts the matrices whose Info is not OK.
func (r *Result) Failed() int {
	n := 0
	for _, v := range r.Info {
		if v != OK {
			n++
		}
	}
	return n
}

// Notes words the failures, one line per kind, for a summary.
func (r *Result) Notes() []string {
	var nonFinite, notConv []int
	for b, v := range r.Info {
		switch v {
		case NonFinite:
			nonFinite = append(nonFinite, b)
		case NotConverged:
			notConv = append(notConv, b)
		}
	}
	var out []string
	if len(nonFinite) > 0 {
		out = append(out, fmt.Sprintf("%d matrix(es) with NaN/Inf entries, eigenpairs NaN: %s", len(nonFinite), listInts(nonFinite)))
	}
	if len(notConv) > 0 {
		out = append(out, fmt.Sprintf("%d matrix(es) not converged within the sweep limit, eigenpairs NaN: %s", len(notConv), listInts(notConv)))
	}
	return out
}

func listInts(v []int) string {
	s := ""
	for i, x := range v {
		if i == 8 {
			return s + fmt.Sprintf(", ... (%d in all)", len(v))
		}
		if i > 0 {
			s += ", "
		}
		s += fmt.Sprint(x)
	}
	return s
}

// dims checks a and returns (B, n).
func dims(a *tensor.Tensor) (int, int, error) {
	if a == nil {
		return 0, 0, fmt.Errorf("eig: no matrices given")
	}
	if len(a.Shape) != 3 || a.Shape[1] != a.Shape[2] {
		return 0, 0, fmt.Errorf("eig: want square matrices (B, n, n), got shape %s", tensor.ShapeString(a.Shape))
	}
	if a.Shape[1] < 1 {
		return 0, 0, fmt.Errorf("eig: empty matrices of shape %s", tensor.ShapeString(a.Shape))
	}
	n := a.Len()
	if (a.DType == tensor.F64 && len(a.F64) != n) || (a.DType == tensor.F32 && len(a.F32) != n) {
		return 0, 0, fmt.Errorf("eig: matrices of shape %s need %d values", tensor.ShapeString(a.Shape), n)
	}
	return a.Shape[0], a.Shape[1], nil
}

func newResult(dt tensor.DType, b, n int) *Result {
	return &Result{Values: tensor.New(dt, b, n), Vectors: tensor.New(dt, b, n, n), Info: make([]int32, b), Sweeps: make([]int32, b)}
}

// finish turns one matrix's raw output — the diagonal d of the rotated
// matrix and the accumulated rotations v (n×n, row-major, eigenvectors as
// columns) — into sorted, signed values and vectors, written to vals and
// vecs; a failed matrix (info != OK) gets NaN. Both fast paths use it; the
// reference has its own.
func finish(d, v []float64, n int, info int32, vals, vecs []float64) {
	if info != OK {
		for i := range vals {
			vals[i] = math.NaN()
		}
		for i := range vecs {
			vecs[i] = math.NaN()
		}
		return
	}
	order := make([]int, n)
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(i, j int) bool { return d[order[i]] > d[order[j]] })
	for k, src := range order {
		vals[k] = d[src]
		big, at := -1.0, 0
		for i := range n {
			if m := math.Abs(v[i*n+src]); m > big {
				big, at = m, i
			}
		}
		sg := 1.0
		if v[at*n+src] < 0 {
			sg = -1
		}
		for i := range n {
			vecs[i*n+k] = sg * v[i*n+src]
		}
	}
}
