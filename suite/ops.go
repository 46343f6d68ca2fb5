package suite

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"strconv"
	"strings"

	"github.com/vkstat/vkstat/engine"
	"github.com/vkstat/vkstat/internal/inputs"
	"github.com/vkstat/vkstat/pipelines/chol"
	"github.com/vkstat/vkstat/pipelines/cov"
	"github.com/vkstat/vkstat/pipelines/mapx"
	"github.com/vkstat/vkstat/pipelines/paco"
	"github.com/vkstat/vkstat/pipelines/reduce"
	"github.com/vkstat/vkstat/pipelines/synth"
	"github.com/vkstat/vkstat/tensor"
)

// The operations. Adding a pipeline: write a func returning its Op below
// (cases, inputs, Run, Reference, tolerances, work) and register it here.
func init() {
	Register(mapOp())
	Register(reduceOp())
	Register(reduceNaNOp())
	Register(covOp())
	Register(cholOp())
	Register(pacoOp())
}

const (
	f32 = tensor.F32
	f64 = tensor.F64
)

func numel(c Case) int64 { return int64(tensor.NumElements(c.Shape)) }

func shapeArg(shape []int) string {
	parts := make([]string, len(shape))
	for i, s := range shape {
		parts[i] = strconv.Itoa(s)
	}
	return strings.Join(parts, ",")
}

// ---- map: z = a·x² + b·y + c ---------------------------------------------

// mapParams are the seed document's coefficients. With x in [-2, 2) and y
// in [-1, 1), |z| >= 7.2: no cancellation.
var mapParams = mapx.Options{A: 3.5, B: 2.8, C: 10}

func mapOp() Op {
	nan := func(shape ...int) Case { return Case{Shape: shape, Note: "with NaNs", Arg: true} }
	return Op{
		Name:  "map",
		Suite: "map",
		Doc:   "z = 3.5·x² + 2.8·y + 10 elementwise (pipelines/mapx)",
		Verify: []Case{
			{Shape: []int{1}}, {Shape: []int{257}}, nan(1_000_003), {Shape: []int{3, 257, 5}},
		},
		Bench: map[Size][]BenchCase{
			Small: {{Case{Shape: []int{1_000_000}}, f32}, {Case{Shape: []int{1_000_000}}, f64}},
			Paper: {{Case{Shape: []int{5_000_000}}, f32}, {Case{Shape: []int{5_000_000}}, f64}},
		},
		// The seed document's 5·10⁶ elements (2²⁰ on CPU-type devices).
		Tune: &Tuning{Pipeline: "mapx", Candidates: mapx.Candidates,
			GPU: []BenchCase{{Case{Shape: []int{5_000_000}}, f32}}, CPU: []BenchCase{{Case{Shape: []int{1 << 20}}, f32}}},
		Build: func(c Case, dt tensor.DType) []*tensor.Tensor {
			x := uniform(dt, c.Shape, c.Seed, -2, 2)
			y := uniform(dt, c.Shape, c.Seed+1, -1, 1)
			if withNaN, _ := c.Arg.(bool); withNaN {
				plantNaN(x, c.Seed)
				plantNaN(y, c.Seed+1)
			}
			return []*tensor.Tensor{x, y}
		},
		Run: func(ctx context.Context, dev *engine.Device, c Case, in []*tensor.Tensor) ([]Output, engine.Timing, error) {
			r, err := mapx.Run(ctx, dev, mapx.Input{X: in[0], Y: in[1]}, mapParams)
			if err != nil {
				return nil, engine.Timing{}, err
			}
			return []Output{{"z", r.Z}}, r.Timing, nil
		},
		Reference: func(c Case, in []*tensor.Tensor) ([]RefOutput, error) {
			return []RefOutput{{"z", mapx.Reference(in[0].Float64s(), in[1].Float64s(), mapParams)}}, nil
		},
		// A few roundings of values bounded away from zero.
		Tol: map[tensor.DType]Tol{f32: {MaxErr: 1e-6, NMSE: 1e-12}, f64: {MaxErr: 1e-14, NMSE: 1e-26}},
		Work: func(c Case, dt tensor.DType) Work {
			w, _ := mapx.Work(c.Shape, dt, mapParams)
			return w
		},
		Unit: GBs,
		Peer: func(c Case, dt tensor.DType) *Peer {
			return &Peer{Script: "map", Args: []string{"--n", strconv.FormatInt(numel(c), 10), "--dtype", dt.String()}}
		},
	}
}

// ---- reduce: sum, mean, var, std, min, max along an axis -------------------

type reduceArg struct {
	opt   reduce.Options
	stats []reduce.Stat
	nan   bool // plant NaNs along the axis
}

// reduceCase builds a case; the data are 1000 + N(0, 1), whose mean is far
// from zero against their spread, so a float32 accumulation or a one-pass
// variance fails the tolerance.
func reduceCase(shape []int, axis int, opt reduce.Options, stats []reduce.Stat, nan bool) Case {
	opt.Axes = reduce.Axes{axis}
	note := fmt.Sprintf("axis %d", axis)
	if opt.DDof != 0 {
		note += fmt.Sprintf(" ddof %d", opt.DDof)
	}
	if opt.SkipNaN {
		note += " skip-nan"
	}
	if len(stats) != len(reduce.AllStats()) {
		var names []string
		for _, s := range stats {
			names = append(names, s.String())
		}
		note += " " + strings.Join(names, ",")
	}
	return Case{Shape: shape, Note: note, Arg: reduceArg{opt: opt, stats: stats, nan: nan}}
}

func reduceBuild(c Case, dt tensor.DType) []*tensor.Tensor {
	a := c.Arg.(reduceArg)
	in := normal(dt, c.Shape, c.Seed, 1000, 1)
	if a.nan {
		if g, err := a.opt.Geometry(c.Shape); err == nil {
			plantNaNSlices(in, g.Outer, g.N, g.Inner, c.Seed)
		}
	}
	return []*tensor.Tensor{in}
}

func reduceRun(ctx context.Context, dev *engine.Device, c Case, in []*tensor.Tensor) ([]Output, engine.Timing, error) {
	a := c.Arg.(reduceArg)
	opt := a.opt
	opt.Stats = a.stats
	res, err := reduce.Run(ctx, dev, in[0], opt)
	if err != nil {
		return nil, engine.Timing{}, err
	}
	out := make([]Output, len(a.stats))
	for i, s := range a.stats {
		out[i] = Output{s.String(), res.Stats[s]}
	}
	return out, res.Timing, nil
}

func reduceReference(c Case, in []*tensor.Tensor) ([]RefOutput, error) {
	a := c.Arg.(reduceArg)
	ref, err := reduce.Reference(in[0].Float64s(), in[0].Shape, a.opt)
	if err != nil {
		return nil, err
	}
	out := make([]RefOutput, len(a.stats))
	for i, s := range a.stats {
		out[i] = RefOutput{s.String(), ref[s]}
	}
	return out, nil
}

func reduceWork(c Case, dt tensor.DType) Work {
	a := c.Arg.(reduceArg)
	opt := a.opt
	opt.Stats = a.stats
	w, _ := reduce.Work(c.Shape, dt, opt)
	return w
}

// Float32 outputs are rounded from float64 accumulations; float64 ones agree
// with the compensated reference to rounding.
var reduceTol = map[tensor.DType]Tol{f32: {MaxErr: 1e-5, NMSE: 1e-10}, f64: {MaxErr: 1e-12, NMSE: 1e-24}}

func reduceOp() Op {
	all := reduce.AllStats()
	meanStd := []reduce.Stat{reduce.Mean, reduce.Std}
	var o reduce.Options
	return Op{
		Name:  "reduce",
		Suite: "reduce",
		Doc:   "sum, mean, var, std, min, max along one axis (pipelines/reduce)",
		Verify: []Case{
			reduceCase([]int{1}, 0, o, all, false),
			reduceCase([]int{1_000_003}, 0, o, all, false),
			reduceCase([]int{33, 257}, 0, o, all, false),
			reduceCase([]int{33, 257}, -1, o, all, false),
			reduceCase([]int{3, 257, 5}, 1, o, all, false),
			reduceCase([]int{16, 64, 64}, 0, o, all, false),
		},
		Bench: map[Size][]BenchCase{
			// The seed's per-pixel mean and std of an image stack, and a
			// reduction along the last (contiguous) axis.
			Small: {
				{reduceCase([]int{16, 512, 512}, 0, o, meanStd, false), f32},
				{reduceCase([]int{4096, 1024}, -1, o, meanStd, false), f32},
			},
			Paper: {
				{reduceCase([]int{64, 1024, 1024}, 0, o, meanStd, false), f32},
				{reduceCase([]int{65536, 1024}, -1, o, meanStd, false), f32},
			},
		},
		// Rows of 256, 1024 and 65536 reduced along the last axis (the
		// H100 case of issue 10 is (65536, 1024)), fewer on CPU-type
		// devices.
		Tune:      &Tuning{Pipeline: "reduce", Candidates: reduce.Candidates, GPU: reduceTuneCases(65536), CPU: reduceTuneCases(4096)},
		Build:     reduceBuild,
		Run:       reduceRun,
		Reference: reduceReference,
		Tol:       reduceTol,
		Work:      reduceWork,
		Unit:      GBs,
		Peer: func(c Case, dt tensor.DType) *Peer {
			a := c.Arg.(reduceArg)
			if a.opt.SkipNaN || len(a.stats) != 2 || a.stats[0] != reduce.Mean || a.stats[1] != reduce.Std {
				return nil // the peers time mean and std only
			}
			return &Peer{Script: "reduce", Args: []string{"--shape", shapeArg(c.Shape), "--axis", a.opt.Axes.String(),
				"--ddof", strconv.Itoa(a.opt.DDof), "--dtype", dt.String()}}
		},
	}
}

// reduceTuneCases are the float32 arrays the reduce tuner times: rows of
// 256, rows/4 of 1024 and 16 of 65536, reduced to mean and std along the
// last axis.
func reduceTuneCases(rows int) []BenchCase {
	meanStd := []reduce.Stat{reduce.Mean, reduce.Std}
	var cs []BenchCase
	for _, s := range [][]int{{rows, 256}, {rows / 4, 1024}, {16, 65536}} {
		cs = append(cs, BenchCase{reduceCase(s, -1, reduce.Options{}, meanStd, false), f32})
	}
	return cs
}

// reduceNaNOp is reduce with NaNs planted, ignored as NumPy's nan*
// functions do, and the sample (ddof 1) variance: verify's cases only.
func reduceNaNOp() Op {
	all := reduce.AllStats()
	o := reduce.Options{DDof: 1, SkipNaN: true}
	op := reduceOp()
	op.Name, op.Doc = "reduce_nan", "reduce with NaNs planted and skipped (nanmean, nanstd, ...), ddof 1"
	op.Verify = []Case{
		reduceCase([]int{4099}, 0, o, all, true),
		reduceCase([]int{33, 257}, 1, o, all, true),
		reduceCase([]int{3, 257, 5}, 0, o, all, true),
	}
	op.Bench, op.Peer, op.Tune = nil, nil, nil
	return op
}

// ---- cov: batched mean and covariance with shrinkage ----------------------

type covArg struct {
	opt cov.Options
	// moments gives each variable's mean and spread (inputs.Sets); nil
	// draws them per set.
	moments func(i int) (mean, sd float64)
}

func covCase(n, t, p int, est cov.Estimator, ddof int) Case {
	note := est.String()
	if ddof != 0 {
		note += fmt.Sprintf(" ddof %d", ddof)
	}
	return Case{Shape: []int{n, t, p}, Note: note, Arg: covArg{opt: cov.Options{Estimator: est, DDof: ddof}}}
}

// covHard is a case whose variables have the moments m, where a float
// accumulation can lose what the other cases do not show.
func covHard(n, t, p int, est cov.Estimator, note string, m func(i int) (mean, sd float64)) Case {
	return Case{Shape: []int{n, t, p}, Note: est.String() + " " + note, Arg: covArg{opt: cov.Options{Estimator: est}, moments: m}}
}

// covBuild makes N sets of T samples of P correlated variables
// (inputs.Sets: means around 100, so centring matters, and spreads falling
// with the index, unless the case gives the moments); 16-bit ones are the
// float32 ones rounded.
func covBuild(c Case, dt tensor.DType) []*tensor.Tensor {
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

func covOp() Op {
	none, paco, lw, oas := cov.None, cov.PACO, cov.LedoitWolf, cov.OAS
	return Op{
		Name:  "cov",
		Suite: "cov",
		Doc:   "batched mean, covariance and shrinkage weight of (N, T, P) sample sets (pipelines/cov)",
		Verify: []Case{
			covCase(64, 252, 5, none, 0),
			covCase(63, 24, 13, paco, 0),
			covCase(65, 252, 29, lw, 0),
			covCase(1, 40, 49, oas, 0),
			covCase(64, 64, 81, paco, 0),
			covCase(9, 20, 7, none, 1),
		},
		Bench: map[Size][]BenchCase{
			// PACO's patch of P = 49 pixels over T = 64 frames, at 2048
			// and 16384 locations.
			Small: {{covCase(2048, 64, 49, paco, 0), f32}},
			Paper: {{covCase(16384, 64, 49, paco, 0), f32}},
		},
		Tune: &Tuning{
			Pipeline: "cov", Candidates: cov.Candidates,
			// PACO's case of issue 10 (N = 1024 on CPU-type devices), a
			// wide one and a long one.
			GPU: covTuneCases(16384), CPU: covTuneCases(1024),
			// What the test suites hold cov (and latent's correlations
			// over it) to, where float accumulation can fail: the H100's
			// tune chose it and then failed the suites
			// (docs/benchmarks/gpu/2026-11-26-h100).
			Hard: []BenchCase{
				{covHard(2, 30011, 3, lw, "mean 1000", func(int) (float64, float64) { return 1000, 1 }), f32},
				{covHard(64, 64, 49, paco, "means 1e6 and 100", func(i int) (float64, float64) {
					if i%2 == 0 {
						return 1e6, 0.5
					}
					return 100, 1e-3
				}), f32},
				{covHard(65, 251, 13, none, "mean 100", func(int) (float64, float64) { return 100, 1 }), tensor.BF16},
			},
		},
		Build: covBuild,
		Run: func(ctx context.Context, dev *engine.Device, c Case, in []*tensor.Tensor) ([]Output, engine.Timing, error) {
			r, err := cov.Run(ctx, dev, in[0], c.Arg.(covArg).opt)
			if err != nil {
				return nil, engine.Timing{}, err
			}
			return []Output{{"mean", r.Mean}, {"cov", r.Cov}, {"rho", r.Rho}}, r.Timing, nil
		},
		Reference: func(c Case, in []*tensor.Tensor) ([]RefOutput, error) {
			r, err := cov.Reference(in[0], c.Arg.(covArg).opt)
			if err != nil {
				return nil, err
			}
			return []RefOutput{{"mean", r.Mean.Float64s()}, {"cov", r.Cov.Float64s()}, {"rho", r.Rho.Float64s()}}, nil
		},
		// float32 outputs are roundings of float64 accumulations (float32
		// ones on devices without shaderFloat64).
		Tol: map[tensor.DType]Tol{f32: {MaxErr: 1e-4, NMSE: 1e-8}, f64: {MaxErr: 1e-10, NMSE: 1e-20}},
		Work: func(c Case, dt tensor.DType) Work {
			w, _ := cov.Work(c.Shape, dt, c.Arg.(covArg).opt) // every case is (N, T, P)
			return w
		},
		Unit: GFlops,
		Peer: func(c Case, dt tensor.DType) *Peer {
			return &Peer{Script: "cov", Args: []string{"--shape", shapeArg(c.Shape), "--estimator", c.Arg.(covArg).opt.Estimator.String(),
				"--dtype", dt.String()}}
		},
	}
}

// covTuneCases are the float32 sets the cov tuner times: PACO's patches
// of P = 49 over T = 64 frames at n locations, wide sets (P = 130) and
// long ones (T = 512).
func covTuneCases(n int) []BenchCase {
	return []BenchCase{
		{covCase(n, 64, 49, cov.PACO, 0), f32}, {covCase(n/16, 128, 130, cov.OAS, 0), f32}, {covCase(n/8, 512, 16, cov.LedoitWolf, 0), f32},
	}
}

// ---- chol: batched Cholesky, solves, inverse, log det -----------------------

type cholArg struct {
	k           int  // right-hand sides per matrix; 0: B is (N, P)
	inv, lout   bool // ask for the inverse and L
	quad, solve bool
	nanPivot    bool // the last matrix's last pivot is NaN: its factorisation fails
}

func cholCase(n, p int, a cholArg) Case {
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
	return Case{Shape: []int{n, p, p}, Note: strings.Join(parts, ","), Arg: a}
}

// cholConds are the condition numbers the matrices of a batch cycle
// through (the float32 tolerance holds up to 10⁴).
var cholConds = []float64{1, 10, 1e2, 1e3}

// cholBuild makes N SPD matrices U·D·Uᵀ (inputs.WithEigen: U three random
// Householder reflections, eigenvalues log-spaced over the condition
// number, as gonum's testlapack does) and right-hand sides.
func cholBuild(c Case, dt tensor.DType) []*tensor.Tensor {
	a := c.Arg.(cholArg)
	n, p := c.Shape[0], c.Shape[1]
	r := rand.New(rand.NewPCG(c.Seed, 0x63686f6c))
	A := tensor.New(dt, n, p, p)
	m := make([]float64, p*p)
	for k := 0; k < n; k++ {
		cond, scale := cholConds[k%len(cholConds)], math.Exp2(float64(r.IntN(9)-4))
		inputs.WithEigen(m, inputs.LogSpaced(p, cond, scale), 3, r)
		for i, v := range m {
			set(A, k*p*p+i, v)
		}
	}
	if a.nanPivot {
		set(A, n*p*p-1, math.NaN())
	}
	bshape := []int{n, p}
	if a.k > 0 {
		bshape = []int{n, p, a.k}
	}
	B := normal(dt, bshape, c.Seed+1, 0, 1)
	return []*tensor.Tensor{A, B}
}

func cholRequest(c Case, in []*tensor.Tensor, dt tensor.DType) chol.Request {
	a := c.Arg.(cholArg)
	r := chol.Request{Input: chol.Input{A: in[0].As(dt)}, Options: chol.Options{L: a.lout, Inverse: a.inv, LogDet: true, Quad: a.quad}}
	if a.solve || a.quad {
		r.B = in[1].As(dt)
	}
	return r
}

// cholOutputs lists the outputs in a fixed order; info codes become a
// tensor of dt so that a failed factorisation shows as an error.
func cholOutputs(r *chol.Result, dt tensor.DType) []Output {
	info := tensor.New(dt, len(r.Info))
	for i, v := range r.Info {
		set(info, i, float64(v))
	}
	out := []Output{{"info", info}}
	for _, o := range []Output{{"L", r.L}, {"X", r.X}, {"inverse", r.Inverse}, {"logdet", r.LogDet}, {"quad", r.Quad}} {
		if o.T != nil {
			out = append(out, o)
		}
	}
	return out
}

func cholOp() Op {
	all := cholArg{k: 2, inv: true, lout: true, quad: true, solve: true}
	return Op{
		Name:  "chol",
		Suite: "chol",
		Doc:   "batched Cholesky of SPD matrices, solves, inverse, log det, bᵀA⁻¹b (pipelines/chol)",
		Verify: []Case{
			cholCase(16, 1, all), cholCase(16, 3, all), cholCase(16, 10, all), cholCase(16, 30, all),
			cholCase(8, 63, all), cholCase(8, 65, all), cholCase(4, 129, all),
		},
		Bench: map[Size][]BenchCase{
			// PACO's use: P = 49 covariance matrices, one solve each, at
			// 4096 and 16384 locations.
			Small: {{cholCase(4096, 49, cholArg{solve: true}), f32}},
			Paper: {{cholCase(16384, 49, cholArg{solve: true}), f32}},
		},
		// Factor, one solve and the log-det of issue 10's (16384, 49) and
		// a small and a large P, fewer matrices on CPU-type devices.
		Tune: &Tuning{Pipeline: "chol", Candidates: chol.Candidates,
			GPU: cholTuneCases(65536, 16384, 4096), CPU: cholTuneCases(4096, 512, 64)},
		Build: cholBuild,
		Run: func(ctx context.Context, dev *engine.Device, c Case, in []*tensor.Tensor) ([]Output, engine.Timing, error) {
			dt := in[0].DType
			req := cholRequest(c, in, dt)
			r, err := chol.Run(ctx, dev, req.Input, req.Options)
			if err != nil {
				return nil, engine.Timing{}, err
			}
			return cholOutputs(r, dt), r.Timing, nil
		},
		Reference: func(c Case, in []*tensor.Tensor) ([]RefOutput, error) {
			r, err := chol.Reference(cholRequest(c, in, tensor.F64))
			if err != nil {
				return nil, err
			}
			return refOutputs(cholOutputs(r, tensor.F64)), nil
		},
		// float32 on condition numbers up to 10³: errors grow as cond·eps.
		Tol: map[tensor.DType]Tol{f32: {MaxErr: 1e-3, NMSE: 1e-6}, f64: {MaxErr: 1e-10, NMSE: 1e-20}},
		Work: func(c Case, dt tensor.DType) Work {
			a := c.Arg.(cholArg)
			rhs := 0
			if a.solve || a.quad {
				rhs = max(a.k, 1)
			}
			w, _ := chol.Work(c.Shape, dt, chol.Options{L: a.lout, Inverse: a.inv}, rhs) // every case is (N, P, P)
			return w
		},
		Unit: Matrices,
		Peer: func(c Case, dt tensor.DType) *Peer {
			a := c.Arg.(cholArg)
			if a.inv || a.lout || a.quad || a.k > 0 {
				return nil // the peers time factor + one solve + log det
			}
			return &Peer{Script: "chol", Args: []string{"--n", strconv.Itoa(c.Shape[0]), "--p", strconv.Itoa(c.Shape[1]), "--dtype", dt.String()}}
		},
	}
}

// cholTuneCases are the float32 batches the chol tuner times: n8 matrices
// of P = 8, n49 of P = 49 and n100 of P = 100, one solve and the log-det;
// the last matrix of each fails (a NaN pivot), so that a candidate is
// checked on the failure path too (its info code, NaN log-det and X).
func cholTuneCases(n8, n49, n100 int) []BenchCase {
	solve := cholArg{solve: true, nanPivot: true}
	return []BenchCase{{cholCase(n8, 8, solve), f32}, {cholCase(n49, 49, solve), f32}, {cholCase(n100, 100, solve), f32}}
}

// ---- paco: detection maps of fast PACO ------------------------------------

// pacoArg is a paco case's patch radius and PSF placement.
type pacoArg struct {
	R         int
	Placement paco.Placement
}

// pacoCase is a synthetic ADI sequence (T, H, W) with patch radius r and
// companions; the case's shape is the cube's.
func pacoCase(t, h, w, r int) Case {
	return Case{Shape: []int{t, h, w}, Note: fmt.Sprintf("R=%d", r), Arg: pacoArg{R: r}}
}

// pacoSubpixelCase is pacoCase with the PSF placed at every exact
// trajectory position (paco.PlacementSubpixel).
func pacoSubpixelCase(t, h, w, r int) Case {
	return Case{Shape: []int{t, h, w}, Note: fmt.Sprintf("R=%d subpixel", r), Arg: pacoArg{R: r, Placement: paco.PlacementSubpixel}}
}

func pacoInput(c Case, in []*tensor.Tensor) paco.Input {
	a := c.Arg.(pacoArg)
	return paco.Input{Cube: in[0], Angles: in[1].Float64s(), PSF: in[2], Radius: a.R, Placement: a.Placement}
}

func pacoOp() Op {
	return Op{
		Name:        "paco",
		Suite:       "paco",
		Doc:         "PACO SNR, flux and σ maps of a synthetic ADI sequence (pipelines/paco)",
		CPUComputes: tensor.F64,
		Verify: []Case{
			pacoCase(24, 32, 32, 2), pacoCase(40, 40, 44, 4), pacoSubpixelCase(24, 32, 32, 2),
		},
		Bench: map[Size][]BenchCase{
			Small: {{pacoCase(64, 64, 64, 4), f32}, {pacoCase(252, 100, 100, 4), f32}},
			Paper: {{pacoCase(252, 100, 100, 4), f32}, {pacoCase(128, 256, 256, 4), f32}},
		},
		Build: func(c Case, dt tensor.DType) []*tensor.Tensor {
			t, h, w := c.Shape[0], c.Shape[1], c.Shape[2]
			cfg := synth.Default()
			cfg.Frames, cfg.H, cfg.W, cfg.Seed, cfg.DType = t, h, w, c.Seed, tensor.F64
			sep := float64(min(h, w)) / 4
			cfg.Companions = []synth.Companion{{SepPx: sep, ThetaDeg: 45, Flux: 100}, {SepPx: 1.5 * sep, ThetaDeg: 200, Flux: 20}}
			ds, err := synth.Generate(cfg)
			if err != nil {
				panic(fmt.Sprintf("suite: paco case %s: %v", c.Label(), err)) // the cases above are valid
			}
			return []*tensor.Tensor{ds.Cube.As(dt), tensor.FromF64(ds.Angles, t).As(dt), ds.PSF.As(dt)}
		},
		Run: func(ctx context.Context, dev *engine.Device, c Case, in []*tensor.Tensor) ([]Output, engine.Timing, error) {
			a := c.Arg.(pacoArg)
			opt := paco.DefaultOptions()
			opt.PSF, opt.Radius, opt.Placement = in[2], a.R, a.Placement
			// The geometric centre, as the reference takes it (not measured).
			opt.Center, opt.CenterYX = paco.CenterGiven, [2]float64{float64(c.Shape[1] / 2), float64(c.Shape[2] / 2)}
			m, err := paco.RunMaps(ctx, dev, paco.ADI{Cube: in[0], Angles: in[1].Float64s()}, opt)
			if err != nil {
				return nil, engine.Timing{}, err
			}
			if os.Getenv("VKSTAT_BENCH_STAGES") != "" {
				// Each run's stages, as `vkstat --time paco` prints them
				// (scripts/gpu-run.sh's paco-time step compares the two).
				where := "the CPU path"
				if dev != nil {
					where = dev.Info.Name
				}
				fmt.Fprintf(os.Stderr, "paco %s on %s:", c.Label(), where)
				for _, st := range m.Stages {
					fmt.Fprintf(os.Stderr, " %s %.3f ms;", st.Name, float64(st.Time.Microseconds())/1000)
				}
				fmt.Fprintln(os.Stderr)
			}
			snr, flux, sigma := m.Tensors()
			dt := in[0].DType // the maps come back in float64 from every path
			return []Output{{"snr", snr.As(dt)}, {"flux", flux.As(dt)}, {"sigma", sigma.As(dt)}}, m.Timing, nil
		},
		Reference: func(c Case, in []*tensor.Tensor) ([]RefOutput, error) {
			pin := pacoInput(c, in)
			pin.Cube = in[0].As(tensor.F64)
			m, err := paco.Reference(pin)
			if err != nil {
				return nil, err
			}
			return []RefOutput{{"snr", m.SNR}, {"flux", m.Flux}, {"sigma", m.Sigma}}, nil
		},
		// float32: PACO.md allows |ΔSNR| ≤ 2e-2 on SNRs of order 10.
		Tol: map[tensor.DType]Tol{f32: {MaxErr: 2e-3, NMSE: 1e-6}, f64: {MaxErr: 1e-9, NMSE: 1e-18}},
		Work: func(c Case, dt tensor.DType) Work {
			a := c.Arg.(pacoArg)
			w, _ := paco.Work(c.Shape, dt, paco.Options{Radius: a.R, Placement: a.Placement}) // every case's patch fits its frames
			return w
		},
		Unit: GFlops,
		Peer: func(c Case, dt tensor.DType) *Peer {
			a := c.Arg.(pacoArg)
			if a.Placement != paco.PlacementNearest {
				return nil // the peers place the PSF on the nearest pixel
			}
			return &Peer{Script: "paco", Args: []string{"--frames", strconv.Itoa(c.Shape[0]), "--size", strconv.Itoa(c.Shape[1]), "--radius", strconv.Itoa(a.R)}}
		},
	}
}
