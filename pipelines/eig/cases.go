package eig

import (
	"context"
	"math"
	"math/rand/v2"

	"github.com/vkstat/vkstat/engine"
	"github.com/vkstat/vkstat/internal/inputs"
	"github.com/vkstat/vkstat/tensor"
)

// cases are eig's operations as verify checks and bench times them (Spec.Cases).
func cases() []engine.Op { return []engine.Op{eigOp()} }

// ---- eig: batched symmetric eigendecomposition --------------------------------

// eigBuild makes N symmetric matrices U·D·Uᵀ (inputs.WithEigen), U the
// product of n random Householder reflections (a random orthogonal
// matrix), D evenly spaced values of both signs, at least 2/n of the
// largest apart (inputs.Separated, so that the eigenvectors, signed by
// their largest component, are well defined), scaled by 2^k, k in −4..4,
// rounded to float32.
func eigBuild(c engine.Case, dt tensor.DType) []*tensor.Tensor {
	b, n := c.Shape[0], c.Shape[1]
	r := rand.New(rand.NewPCG(c.Seed, 0x656967))
	a := tensor.New(dt, b, n, n)
	m := make([]float64, n*n)
	for k := range b {
		scale := math.Exp2(float64(r.IntN(9) - 4))
		inputs.WithEigen(m, inputs.Separated(n, scale, r), n, r)
		for i, v := range m {
			inputs.Set(a, k*n*n+i, float64(float32(v)))
		}
	}
	return []*tensor.Tensor{a}
}

// eigOutputs: info codes (a tensor of dt, so a failure shows as an error),
// eigenvalues, eigenvectors.
func eigOutputs(r *Result, dt tensor.DType) []engine.Output {
	info := tensor.New(dt, len(r.Info))
	for i, v := range r.Info {
		inputs.Set(info, i, float64(v))
	}
	return []engine.Output{{Name: "info", T: info}, {Name: "values", T: r.Values}, {Name: "vectors", T: r.Vectors}}
}

func eigOp() engine.Op {
	mats := func(b, n int) engine.Case { return engine.Case{Shape: []int{b, n, n}} }
	return engine.Op{
		Name:  "eig",
		Suite: "eig",
		Doc:   "batched symmetric eigendecomposition by parallel Jacobi, values descending, vectors signed (pipelines/eig)",
		Verify: []engine.Case{
			mats(8, 1), mats(8, 2), mats(8, 3), mats(4, 31), mats(4, 32), mats(4, 33), mats(2, 64), mats(2, 65), mats(1, 128),
		},
		Bench: map[engine.BenchSize][]engine.BenchCase{
			// PCA of latent channels: 16×16 and 64×64 covariances.
			engine.BenchSmall: {{Case: mats(256, 16), DType: tensor.F32}, {Case: mats(16, 64), DType: tensor.F32}},
			engine.BenchPaper: {{Case: mats(16384, 16), DType: tensor.F32}, {Case: mats(1024, 64), DType: tensor.F32}},
		},
		Build: eigBuild,
		Run: func(ctx context.Context, dev *engine.Device, c engine.Case, in []*tensor.Tensor) ([]engine.Output, engine.Timing, error) {
			dt := in[0].DType
			r, err := Run(ctx, dev, in[0], Options{})
			if err != nil {
				return nil, engine.Timing{}, err
			}
			return eigOutputs(r, dt), r.Timing, nil
		},
		Reference: func(c engine.Case, in []*tensor.Tensor) ([]engine.RefOutput, error) {
			r, err := Reference(in[0].As(tensor.F64))
			if err != nil {
				return nil, err
			}
			return engine.RefOutputs(eigOutputs(r, tensor.F64)), nil
		},
		// float32: eigenvalues to about 1e-6 of the largest and vectors to
		// about 1e-7·n/gap (gap 2/n here); float64 to about 1e-14.
		Tol: map[tensor.DType]engine.Tol{tensor.F32: {MaxErr: 1e-4, NMSE: 1e-8}, tensor.F64: {MaxErr: 1e-10, NMSE: 1e-20}},
		Work: func(c engine.Case, dt tensor.DType) engine.Work {
			b, n := int64(c.Shape[0]), int64(c.Shape[1])
			// About 8 sweeps of n²/2 rotations of 4 rows and columns (A
			// twice, V once): 8·(n²/2)·(12n) flops.
			return engine.Work{Bytes: b * (2*n*n + n) * int64(dt.Size()), Flops: b * 48 * n * n * n, Items: b}
		},
		Unit: engine.Matrices,
	}
}
