package reduce

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/vkstat/vkstat/engine"
	"github.com/vkstat/vkstat/internal/inputs"
	"github.com/vkstat/vkstat/tensor"
)

// cases are reduce's operations as verify checks and bench times them (Spec.Cases).
func cases() []engine.Op { return []engine.Op{reduceOp(), reduceNaNOp()} }

// ---- reduce: sum, mean, var, std, min, max along an axis -------------------

type reduceArg struct {
	opt   Options
	stats []Stat
	nan   bool // plant NaNs along the axis
}

// NewCase is a reduce case as verify and bench make them, for other
// packages' tests (suite's repeat and replay tests).
func NewCase(shape []int, axis int, opt Options, stats []Stat, nan bool) engine.Case {
	return reduceCase(shape, axis, opt, stats, nan)
}

// reduceCase builds a case; the data are 1000 + N(0, 1), whose mean is far
// from zero against their spread, so a float32 accumulation or a one-pass
// variance fails the tolerance.
func reduceCase(shape []int, axis int, opt Options, stats []Stat, nan bool) engine.Case {
	opt.Axes = Axes{axis}
	note := fmt.Sprintf("axis %d", axis)
	if opt.DDof != 0 {
		note += fmt.Sprintf(" ddof %d", opt.DDof)
	}
	if opt.SkipNaN {
		note += " skip-nan"
	}
	if len(stats) != len(AllStats()) {
		var names []string
		for _, s := range stats {
			names = append(names, s.String())
		}
		note += " " + strings.Join(names, ",")
	}
	return engine.Case{Shape: shape, Note: note, Arg: reduceArg{opt: opt, stats: stats, nan: nan}}
}

func reduceBuild(c engine.Case, dt tensor.DType) []*tensor.Tensor {
	a := c.Arg.(reduceArg)
	in := inputs.NormalTensor(dt, c.Shape, c.Seed, 1000, 1)
	if a.nan {
		if g, err := a.opt.Geometry(c.Shape); err == nil {
			inputs.PlantNaNSlicesTensor(in, g.Outer, g.N, g.Inner, c.Seed)
		}
	}
	return []*tensor.Tensor{in}
}

func reduceRun(ctx context.Context, dev *engine.Device, c engine.Case, in []*tensor.Tensor) ([]engine.Output, engine.Timing, error) {
	a := c.Arg.(reduceArg)
	opt := a.opt
	opt.Stats = a.stats
	res, err := Run(ctx, dev, in[0], opt)
	if err != nil {
		return nil, engine.Timing{}, err
	}
	out := make([]engine.Output, len(a.stats))
	for i, s := range a.stats {
		out[i] = engine.Output{Name: s.String(), T: res.Stats[s]}
	}
	return out, res.Timing, nil
}

func reduceReference(c engine.Case, in []*tensor.Tensor) ([]engine.RefOutput, error) {
	a := c.Arg.(reduceArg)
	ref, err := Reference(in[0].Float64s(), in[0].Shape, a.opt)
	if err != nil {
		return nil, err
	}
	out := make([]engine.RefOutput, len(a.stats))
	for i, s := range a.stats {
		out[i] = engine.RefOutput{Name: s.String(), V: ref[s]}
	}
	return out, nil
}

func reduceWork(c engine.Case, dt tensor.DType) engine.Work {
	a := c.Arg.(reduceArg)
	opt := a.opt
	opt.Stats = a.stats
	w, _ := Work(c.Shape, dt, opt)
	return w
}

// Float32 outputs are rounded from float64 accumulations; float64 ones agree
// with the compensated reference to rounding.
var reduceTol = map[tensor.DType]engine.Tol{tensor.F32: {MaxErr: 1e-5, NMSE: 1e-10}, tensor.F64: {MaxErr: 1e-12, NMSE: 1e-24}}

func reduceOp() engine.Op {
	all := AllStats()
	meanStd := []Stat{Mean, Std}
	var o Options
	return engine.Op{
		Name:  "reduce",
		Suite: "reduce",
		Doc:   "sum, mean, var, std, min, max along one axis (pipelines/reduce)",
		Verify: []engine.Case{
			reduceCase([]int{1}, 0, o, all, false),
			reduceCase([]int{1_000_003}, 0, o, all, false),
			reduceCase([]int{33, 257}, 0, o, all, false),
			reduceCase([]int{33, 257}, -1, o, all, false),
			reduceCase([]int{3, 257, 5}, 1, o, all, false),
			reduceCase([]int{16, 64, 64}, 0, o, all, false),
		},
		Bench: map[engine.BenchSize][]engine.BenchCase{
			// The seed's per-pixel mean and std of an image stack, and a
			// reduction along the last (contiguous) axis.
			engine.BenchSmall: {
				{Case: reduceCase([]int{16, 512, 512}, 0, o, meanStd, false), DType: tensor.F32},
				{Case: reduceCase([]int{4096, 1024}, -1, o, meanStd, false), DType: tensor.F32},
			},
			engine.BenchPaper: {
				{Case: reduceCase([]int{64, 1024, 1024}, 0, o, meanStd, false), DType: tensor.F32},
				{Case: reduceCase([]int{65536, 1024}, -1, o, meanStd, false), DType: tensor.F32},
			},
		},
		// Rows of 256, 1024 and 65536 reduced along the last axis (the
		// H100 case of issue 10 is (65536, 1024)), fewer on CPU-type
		// devices.
		Tune:      &engine.Tuning{Pipeline: "reduce", Candidates: Candidates, GPU: reduceTuneCases(65536), CPU: reduceTuneCases(4096)},
		Build:     reduceBuild,
		Run:       reduceRun,
		Reference: reduceReference,
		Tol:       reduceTol,
		Work:      reduceWork,
		Unit:      engine.GBs,
		Peer: func(c engine.Case, dt tensor.DType) *engine.Peer {
			a := c.Arg.(reduceArg)
			if a.opt.SkipNaN || len(a.stats) != 2 || a.stats[0] != Mean || a.stats[1] != Std {
				return nil // the peers time mean and std only
			}
			return &engine.Peer{Script: "reduce", Args: []string{"--shape", engine.ShapeArg(c.Shape), "--axis", a.opt.Axes.String(),
				"--ddof", strconv.Itoa(a.opt.DDof), "--dtype", dt.String()}}
		},
	}
}

// reduceTuneCases are the float32 arrays the reduce tuner times: rows of
// 256, rows/4 of 1024 and 16 of 65536, reduced to mean and std along the
// last axis.
func reduceTuneCases(rows int) []engine.BenchCase {
	meanStd := []Stat{Mean, Std}
	var cs []engine.BenchCase
	for _, s := range [][]int{{rows, 256}, {rows / 4, 1024}, {16, 65536}} {
		cs = append(cs, engine.BenchCase{Case: reduceCase(s, -1, Options{}, meanStd, false), DType: tensor.F32})
	}
	return cs
}

// reduceNaNOp is reduce with NaNs planted, ignored as NumPy's nan*
// functions do, and the sample (ddof 1) variance: verify's cases only.
func reduceNaNOp() engine.Op {
	all := AllStats()
	o := Options{DDof: 1, SkipNaN: true}
	op := reduceOp()
	op.Name, op.Doc = "reduce_nan", "reduce with NaNs planted and skipped (nanmean, nanstd, ...), ddof 1"
	op.Verify = []engine.Case{
		reduceCase([]int{4099}, 0, o, all, true),
		reduceCase([]int{33, 257}, 1, o, all, true),
		reduceCase([]int{3, 257, 5}, 0, o, all, true),
	}
	op.Bench, op.Peer, op.Tune = nil, nil, nil
	return op
}
