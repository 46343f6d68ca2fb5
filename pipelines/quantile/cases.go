package quantile

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/vkstat/vkstat/engine"
	"github.com/vkstat/vkstat/internal/inputs"
	"github.com/vkstat/vkstat/pipelines/reduce"
	"github.com/vkstat/vkstat/tensor"
)

// cases are quantile's operations as verify checks and bench times them (Spec.Cases).
func cases() []engine.Op { return []engine.Op{quantileOp()} }

// ---- quantile: quantiles along one axis ----------------------------------------

// quantileArg are a quantile case's options, and whether NaN slices are
// planted.
type quantileArg struct {
	opt Options
	nan bool
}

// qList is q comma-separated, as --q and the peer take it.
func qList(q []float64) string {
	qs := make([]string, len(q))
	for i, v := range q {
		qs[i] = strconv.FormatFloat(v, 'g', -1, 64)
	}
	return strings.Join(qs, ",")
}

func quantileCase(shape []int, axis int, q []float64, skipNaN bool) engine.Case {
	note := fmt.Sprintf("axis %d q %s", axis, qList(q))
	if skipNaN {
		note += " skip-nan"
	}
	return engine.Case{Shape: shape, Note: note, Arg: quantileArg{opt: Options{Axis: axis, Q: q, SkipNaN: skipNaN}, nan: skipNaN}}
}

// quantileBuild: normal values (no ties), NaNs planted in some slices
// (some wholly NaN) for the skip-nan cases.
func quantileBuild(c engine.Case, dt tensor.DType) []*tensor.Tensor {
	a := c.Arg.(quantileArg)
	in := inputs.NormalTensor(dt, c.Shape, c.Seed, 0, 3)
	if g, err := reduce.Plan(c.Shape, a.opt.Axis); err == nil && a.nan {
		inputs.PlantNaNSlicesTensor(in, g.Outer, g.N, g.Inner, c.Seed)
	}
	return []*tensor.Tensor{in}
}

// quantileReference is Reference of each slice along the axis,
// laid out as Run lays out its result: (len(q),) + the other axes.
func quantileReference(c engine.Case, in []*tensor.Tensor) ([]engine.RefOutput, error) {
	opt := c.Arg.(quantileArg).opt
	g, err := reduce.Plan(c.Shape, opt.Axis)
	if err != nil {
		return nil, err
	}
	x, m := in[0].Float64s(), g.Outputs()
	out, slice := make([]float64, len(opt.Q)*m), make([]float64, g.N)
	for o := range g.Outer {
		for i := range g.Inner {
			for k := range slice {
				slice[k] = x[(o*g.N+k)*g.Inner+i]
			}
			for k, v := range Reference(slice, opt.Q, opt.SkipNaN) {
				out[k*m+o*g.Inner+i] = v
			}
		}
	}
	return []engine.RefOutput{{Name: "q", V: out}}, nil
}

func quantileOp() engine.Op {
	med, three := []float64{0.5}, []float64{0.1, 0.5, 0.9}
	all := []float64{0, 0.1, 0.25, 0.5, 0.75, 0.9, 0.999, 1}
	return engine.Op{
		Name:  "quantile",
		Suite: "quantile",
		Doc:   "quantiles along one axis, NumPy's linear method; the median is q 0.5 (pipelines/quantile)",
		// Slices of 1, of up to 64 values (one invocation a slice), of
		// more (one workgroup a slice, bitonic sort), straddling the
		// sorting network's powers of two, and beyond shared memory (the
		// CPU fallback on devices with 32 KiB).
		Verify: []engine.Case{
			quantileCase([]int{1}, 0, all, false),
			quantileCase([]int{16, 64, 64}, 0, all, false),
			quantileCase([]int{65, 33}, 0, all, false),
			quantileCase([]int{33, 257}, -1, all, false),
			quantileCase([]int{3, 1025, 5}, 1, all, false),
			quantileCase([]int{2, 10_000}, -1, med, false),
			quantileCase([]int{40, 8, 8}, 0, all, true),
			quantileCase([]int{33, 257}, 1, all, true),
		},
		Bench: map[engine.BenchSize][]engine.BenchCase{
			// The temporal median of an image stack, three quantiles of
			// it, and the median of rows.
			engine.BenchSmall: {
				{Case: quantileCase([]int{64, 256, 256}, 0, med, false), DType: tensor.F32},
				{Case: quantileCase([]int{64, 256, 256}, 0, three, false), DType: tensor.F32},
				{Case: quantileCase([]int{4096, 1024}, -1, med, false), DType: tensor.F32},
			},
			engine.BenchPaper: {
				{Case: quantileCase([]int{64, 1024, 1024}, 0, med, false), DType: tensor.F32},
				{Case: quantileCase([]int{64, 1024, 1024}, 0, three, false), DType: tensor.F32},
				{Case: quantileCase([]int{65536, 1024}, -1, med, false), DType: tensor.F32},
			},
		},
		Build: quantileBuild,
		Run: func(ctx context.Context, dev *engine.Device, c engine.Case, in []*tensor.Tensor) ([]engine.Output, engine.Timing, error) {
			r, err := Run(ctx, dev, in[0], c.Arg.(quantileArg).opt)
			if err != nil {
				return nil, engine.Timing{}, err
			}
			return []engine.Output{{Name: "q", T: r.Q}}, r.Timing, nil
		},
		Reference: quantileReference,
		// Each quantile is a value of the input or interpolated between
		// two: float64 within rounding; float32 within a few float32 ulps
		// (interpolated in float on a device without shaderFloat64).
		Tol: map[tensor.DType]engine.Tol{tensor.F32: {MaxErr: 1e-6, NMSE: 1e-13}, tensor.F64: {MaxErr: 1e-14, NMSE: 1e-28}},
		Work: func(c engine.Case, dt tensor.DType) engine.Work {
			w, _ := Work(c.Shape, dt, c.Arg.(quantileArg).opt)
			return w
		},
		Unit: engine.GBs,
		Peer: func(c engine.Case, dt tensor.DType) *engine.Peer {
			opt := c.Arg.(quantileArg).opt
			if opt.SkipNaN {
				return nil // the peer times np.quantile
			}
			return &engine.Peer{Script: "quantile", Args: []string{"--shape", engine.ShapeArg(c.Shape), "--axis", strconv.Itoa(opt.Axis),
				"--q", qList(opt.Q), "--dtype", dt.String()}}
		},
	}
}
