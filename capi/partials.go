package capi

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"sync"

	"github.com/vkstat/vkstat/engine"
	"github.com/vkstat/vkstat/formats"
	"github.com/vkstat/vkstat/pipelines/cov"
	"github.com/vkstat/vkstat/pipelines/latent"
	"github.com/vkstat/vkstat/pipelines/reduce"
	"github.com/vkstat/vkstat/pipelines/stack"
	"github.com/vkstat/vkstat/tensor"
)

// The partial results (issue 43) as operations, for the Python package's
// Dask front end: <workload>_partial computes a chunk's partial, whose
// arrays are the outputs and whose facts are the Info; <workload>_merge
// takes any number of partials (arrays "I.NAME" for part I, their facts in
// the parameter parts) and returns their merge, or with finish the
// statistics of all of them.

func init() {
	ops["reduce_partial"] = runReducePartial
	ops["reduce_merge"] = runReduceMerge
	ops["cov_partial"] = runCovPartial
	ops["cov_merge"] = runCovMerge
	ops["latent_partial"] = runLatentPartial
	ops["latent_merge"] = runLatentMerge
	ops["latent_block"] = runLatentBlock
	ops["latent_block_merge"] = runLatentBlockMerge
	ops["stack_partial"] = runStackPartial
	ops["stack_merge"] = runStackMerge
}

// partTensors are the float64 arrays names of each of n parts.
func partTensors(c *Call, n int, names ...string) ([]map[string]*tensor.Tensor, error) {
	if n < 1 {
		return nil, inputf("parts: none given")
	}
	out := make([]map[string]*tensor.Tensor, n)
	for i := range out {
		out[i] = map[string]*tensor.Tensor{}
		for _, name := range names {
			t, err := c.Tensor(fmt.Sprintf("%d.%s", i, name), tensor.F64)
			if err != nil {
				return nil, err
			}
			out[i][name] = t
		}
	}
	return out, nil
}

// ---- reduce ---------------------------------------------------------------

// reducePartialParams is the type reduce_partial's parameters decode
// into: reduce's own (reduce.Params; its ddof is the merge's).
var reducePartialParams = sync.OnceValue(func() reflect.Type { return paramsType(reduce.Params()) })

// reducePart is a reduce partial's facts.
type reducePart struct {
	Rows    int    `json:"rows"`
	DType   string `json:"dtype"`
	SkipNaN bool   `json:"skipnan"`
}

var reduceArrays = []string{"count", "sum", "m2", "min", "max"}

// runReducePartial is reduce.CPUPartial of array a along axis.
func runReducePartial(_ context.Context, _ *engine.Device, c *Call) (*Result, error) {
	v := reflect.New(reducePartialParams())
	if err := c.Params(v.Interface()); err != nil {
		return nil, err
	}
	opt, a, _, err := reduceInput(c, v.Elem())
	if err != nil && !errors.Is(err, reduce.ErrEmptyAxis) {
		return nil, err
	}
	pt, err := reduce.CPUPartial(a, opt)
	if err != nil {
		return nil, inputError(err)
	}
	return reduceOut(c, pt), nil
}

// reduceOut is pt as outputs and Info.
func reduceOut(c *Call, pt *reduce.Partial) *Result {
	res := c.Result()
	for i, v := range [][]float64{pt.Count, pt.Sum, pt.M2, pt.Min, pt.Max} {
		res.add(reduceArrays[i], tensor.FromF64(v, pt.OutShape...))
	}
	res.Info = reducePart{Rows: pt.Rows, DType: pt.DType.String(), SkipNaN: pt.SkipNaN}
	return res
}

// reduceMergeList are the parameters of reduce's (reduce.Params) that
// reduce_merge takes: all but the axes, over which the parts were reduced.
var reduceMergeList = sync.OnceValue(func() []engine.Param {
	return slices.DeleteFunc(reduce.Params(), func(p engine.Param) bool { return p.Name == "axis" })
})

// reduceMergeParams is the type reduce_merge's parameters decode into:
// reduceMergeList, then Parts and Finish (compute the statistics from the
// merge).
var reduceMergeParams = sync.OnceValue(func() reflect.Type {
	return paramsType(reduceMergeList(),
		reflect.StructField{Name: "Parts", Type: reflect.TypeFor[[]reducePart](), Tag: `json:"parts"`},
		reflect.StructField{Name: "Finish", Type: reflect.TypeFor[bool](), Tag: `json:"finish"`})
})

// runReduceMerge merges reduce partials (reduce.Merge), and with finish
// computes stats from the merge.
func runReduceMerge(_ context.Context, _ *engine.Device, c *Call) (*Result, error) {
	v := reflect.New(reduceMergeParams())
	if err := c.Params(v.Interface()); err != nil {
		return nil, err
	}
	opt := reduce.DefaultOptions()
	if err := setParams(v.Elem(), reduceMergeList(), &opt); err != nil {
		return nil, err
	}
	given := v.Elem().FieldByName("Parts").Interface().([]reducePart)
	ts, err := partTensors(c, len(given), reduceArrays...)
	if err != nil {
		return nil, err
	}
	parts := make([]*reduce.Partial, len(ts))
	for i, t := range ts {
		dt, err := tensor.ParseDType(given[i].DType)
		if err != nil {
			return nil, inputf("parts[%d]: %v", i, err)
		}
		pt := &reduce.Partial{DType: dt, OutShape: t["count"].Shape, SkipNaN: given[i].SkipNaN, Rows: given[i].Rows}
		for k, to := range []*[]float64{&pt.Count, &pt.Sum, &pt.M2, &pt.Min, &pt.Max} {
			if *to = t[reduceArrays[k]].F64; !tensor.SameShape(t[reduceArrays[k]].Shape, pt.OutShape) {
				return nil, inputf("parts[%d]: %s has shape %s, count %s", i, reduceArrays[k],
					tensor.ShapeString(t[reduceArrays[k]].Shape), tensor.ShapeString(pt.OutShape))
			}
		}
		parts[i] = pt
	}
	m, err := reduce.Merge(parts...)
	if err != nil {
		return nil, inputError(err)
	}
	if !v.Elem().FieldByName("Finish").Bool() {
		return reduceOut(c, m), nil
	}
	stats := opt.Stats
	opt.Out = c.outputs(nil)
	out, err := m.Finish(opt, stats)
	if err != nil {
		return nil, inputError(err)
	}
	res := c.Result()
	for _, s := range stats {
		res.add(s.String(), out[s])
	}
	return res, nil
}

// ---- cov ------------------------------------------------------------------

// covPart is a cov partial's facts.
type covPart struct {
	T     int    `json:"t"`
	DType string `json:"dtype"`
}

var covArrays = []string{"mean", "c", "r", "q4"}

// runCovPartial is cov.CPUPartial of the sample sets x, (N, T, P) or one
// set (T, P).
func runCovPartial(ctx context.Context, _ *engine.Device, c *Call) (*Result, error) {
	if err := c.Params(&struct{}{}); err != nil {
		return nil, err
	}
	x, err := c.Tensor("x", Floats16...)
	if err != nil {
		return nil, err
	}
	x, _, err = cov.Sets(x, 0)
	if err != nil {
		return nil, inputf("x has %v", err)
	}
	pt, err := cov.CPUPartial(ctx, x, cov.Options{})
	if err != nil {
		return nil, inputError(err)
	}
	return covOut(c, pt), nil
}

// covOut is pt as outputs and Info.
func covOut(c *Call, pt *cov.Partial) *Result {
	res := c.Result()
	res.add("mean", tensor.FromF64(pt.Mean, pt.N, pt.P))
	res.add("c", tensor.FromF64(pt.C, pt.N, pt.P, pt.P))
	res.add("r", tensor.FromF64(pt.R, pt.N, pt.P))
	res.add("q4", tensor.FromF64(pt.Q4, pt.N))
	res.Info = covPart{T: pt.T, DType: pt.DType.String()}
	return res
}

// covFinishParams are the parameters of cov's that finishing a merge
// takes (cov.Params): estimator and ddof.
var covFinishParams = sync.OnceValue(func() []engine.Param {
	return slices.DeleteFunc(cov.Params(), func(p engine.Param) bool { return p.Name != "estimator" && p.Name != "ddof" })
})

// covMergeParams is the type cov_merge's parameters decode into: the
// partials and finish, then covFinishParams.
var covMergeParams = sync.OnceValue(func() reflect.Type {
	return paramsType(covFinishParams(),
		reflect.StructField{Name: "Parts", Type: reflect.TypeFor[[]covPart](), Tag: `json:"parts"`},
		reflect.StructField{Name: "Finish", Type: reflect.TypeFor[bool](), Tag: `json:"finish"`})
})

// runCovMerge merges cov partials (cov.Merge), and with finish estimates
// the covariances from the merge (the shrinkage only then).
func runCovMerge(_ context.Context, _ *engine.Device, c *Call) (*Result, error) {
	v := reflect.New(covMergeParams())
	if err := c.Params(v.Interface()); err != nil {
		return nil, err
	}
	var opt cov.Options
	if err := setParams(v.Elem(), covFinishParams(), &opt); err != nil {
		return nil, err
	}
	parts, finish := v.Elem().FieldByName("Parts").Interface().([]covPart), v.Elem().FieldByName("Finish").Bool()
	ts, err := partTensors(c, len(parts), covArrays...)
	if err != nil {
		return nil, err
	}
	partials := make([]*cov.Partial, len(ts))
	for i, t := range ts {
		dt, err := tensor.ParseDType(parts[i].DType)
		if err != nil {
			return nil, inputf("parts[%d]: %v", i, err)
		}
		m := t["mean"]
		if len(m.Shape) != 2 {
			return nil, inputf("parts[%d]: mean has shape %s; want (N, P)", i, tensor.ShapeString(m.Shape))
		}
		partials[i] = &cov.Partial{DType: dt, N: m.Shape[0], P: m.Shape[1], T: parts[i].T,
			Mean: m.F64, C: t["c"].F64, R: t["r"].F64, Q4: t["q4"].F64}
	}
	m, err := cov.Merge(partials...)
	if err != nil {
		return nil, inputError(err)
	}
	if !finish {
		return covOut(c, m), nil
	}
	opt.Out = c.outputs(nil)
	r, err := m.Finish(opt)
	if err != nil {
		return nil, inputError(err)
	}
	res := c.Result()
	res.add("mean", r.Mean)
	res.add("cov", r.Cov)
	res.add("rho", r.Rho)
	return res, nil
}

// ---- latent ---------------------------------------------------------------

// latentPartialParams are latent_partial's parameters beside latent's
// (latentDecode).
type latentPartialParams struct {
	// First is the index of x's first sample in the whole data set.
	First int `json:"first"`
}

// latentPart is a latent partial's or block's facts: the library's (F), the input's
// dtype, and the names of its arrays.
type latentPart[F any] struct {
	Facts  F        `json:"facts"`
	DType  string   `json:"in_dtype"`
	Arrays []string `json:"arrays"`
}

// runLatentPartial is latent.RunPartial of the samples x, the data set's
// from First on.
func runLatentPartial(ctx context.Context, dev *engine.Device, c *Call) (*Result, error) {
	var p latentPartialParams
	v, lp, err := latentDecode(c, &p)
	if err != nil {
		return nil, err
	}
	x, err := c.Tensor("x", Floats16...)
	if err != nil {
		return nil, err
	}
	opt, err := latentWork(v, lp, x.Shape, x.DType)
	if err != nil {
		return nil, err
	}
	src := latent.TensorSource(x)
	src.First = p.First
	pt, err := latent.RunPartial(ctx, dev, src, opt)
	if err != nil {
		return nil, latentRunError(err)
	}
	f, arrays := pt.Store()
	return latentOut(c, f, arrays, x.DType), nil
}

// latentOut is a stored partial or block (Store's facts f and arrays)
// as outputs and Info.
func latentOut[F any](c *Call, f F, arrays map[string]*tensor.Tensor, in tensor.DType) *Result {
	res := c.Result()
	info := latentPart[F]{Facts: f, DType: in.String()}
	for name, t := range arrays {
		res.add(name, t)
		info.Arrays = append(info.Arrays, name)
	}
	res.Info = info
	return res
}

// latentMergeParams are latent_merge's parameters beside latent's
// (latentDecode), which a merge takes and leaves: the partials hold them.
type latentMergeParams struct {
	Parts  []latentPart[latent.PartialFacts] `json:"parts"`
	Finish bool                              `json:"finish"`
}

// runLatentMerge merges latent partials of consecutive samples
// (latent.Merge), and with finish returns what the latent operation
// returns for all of them.
func runLatentMerge(_ context.Context, _ *engine.Device, c *Call) (*Result, error) {
	var p latentMergeParams
	if _, _, err := latentDecode(c, &p); err != nil {
		return nil, err
	}
	return latentMerge(c, p.Parts, p.Finish, latent.RestorePartial, latent.Merge, func(m *latent.Partial) (*latent.Result, latent.Options, []int, error) {
		r, err := m.Finish()
		return r, m.Opt, m.Shape, err
	}, func(m *latent.Partial) tensor.DType { return m.DType })
}

// latentMerge restores parts (restore), merges them (merge) and returns
// the merge as outputs and Info, or with finish what the latent operation
// returns for all of them (done, of work type dt).
func latentMerge[F any, P interface {
	Store() (F, map[string]*tensor.Tensor)
}](c *Call, parts []latentPart[F], finish bool, restore func(F, map[string]*tensor.Tensor) (P, error), merge func(...P) (P, error),
	done func(P) (*latent.Result, latent.Options, []int, error), dt func(P) tensor.DType) (*Result, error) {
	if len(parts) == 0 {
		return nil, inputf("parts: none given")
	}
	ps := make([]P, len(parts))
	for i, pp := range parts {
		arrays, err := partArrays(c, i, pp.Arrays)
		if err != nil {
			return nil, err
		}
		if ps[i], err = restore(pp.Facts, arrays); err != nil {
			return nil, inputf("parts[%d]: %v", i, err)
		}
	}
	m, err := merge(ps...)
	if err != nil {
		return nil, inputError(err)
	}
	in, err := tensor.ParseDType(parts[0].DType)
	if err != nil {
		return nil, inputf("parts[0]: %v", err)
	}
	if !finish {
		f, arrays := m.Store()
		return latentOut(c, f, arrays, in), nil
	}
	r, opt, shape, err := done(m)
	if err != nil {
		return nil, err
	}
	opt.DType = dt(m)
	return latentResult(c.Result(), r, opt, shape, in), nil
}

// latentBlockParams are latent_block's parameters beside latent's
// (latentDecode).
type latentBlockParams struct {
	// Origin is the index of x's first element in the whole tensor, Full
	// that tensor's shape.
	Origin []int `json:"origin"`
	Full   []int `json:"full"`
}

// runLatentBlock is latent.RunBlock of x, the chunk of a tensor of shape
// Full at Origin.
func runLatentBlock(ctx context.Context, _ *engine.Device, c *Call) (*Result, error) {
	var p latentBlockParams
	v, lp, err := latentDecode(c, &p)
	if err != nil {
		return nil, err
	}
	x, err := c.Tensor("x", Floats16...)
	if err != nil {
		return nil, err
	}
	if len(p.Full) != len(x.Shape) {
		return nil, inputf("full: %v is not the shape of a tensor of which x, of shape %s, is a chunk", p.Full, tensor.ShapeString(x.Shape))
	}
	opt, err := latentWork(v, lp, p.Full, x.DType)
	if err != nil {
		return nil, err
	}
	b, err := latent.RunBlock(ctx, nil, latent.Chunk{X: x, Origin: p.Origin, Full: p.Full}, opt)
	if err != nil {
		return nil, inputError(err)
	}
	f, arrays := b.Store()
	return latentOut(c, f, arrays, x.DType), nil
}

// latentBlockMergeParams are latent_block_merge's parameters beside
// latent's (latentDecode), which a merge takes and leaves.
type latentBlockMergeParams struct {
	Parts  []latentPart[latent.BlockFacts] `json:"parts"`
	Finish bool                            `json:"finish"`
}

// runLatentBlockMerge merges latent blocks (latent.MergeBlocks), and with
// finish returns what the latent operation returns for the whole tensor.
func runLatentBlockMerge(ctx context.Context, _ *engine.Device, c *Call) (*Result, error) {
	var p latentBlockMergeParams
	if _, _, err := latentDecode(c, &p); err != nil {
		return nil, err
	}
	return latentMerge(c, p.Parts, p.Finish, latent.RestoreBlock, latent.MergeBlocks, func(m *latent.Block) (*latent.Result, latent.Options, []int, error) {
		r, err := m.Finish(ctx)
		if err != nil {
			err = inputError(err)
		}
		return r, m.Opt, m.Full, err
	}, func(m *latent.Block) tensor.DType { return m.DType })
}

// partArrays are the float64 arrays names of part i.
func partArrays(c *Call, i int, names []string) (map[string]*tensor.Tensor, error) {
	arrays := map[string]*tensor.Tensor{}
	for _, name := range names {
		t, err := c.Tensor(fmt.Sprintf("%d.%s", i, name), tensor.F64)
		if err != nil {
			return nil, err
		}
		arrays[name] = t
	}
	return arrays, nil
}

// ---- stack ----------------------------------------------------------------

// stackPart is a stack partial's facts: its dates and their grid.
type stackPart struct {
	Dates   int  `json:"dates"`
	Width   int  `json:"width"`
	Height  int  `json:"height"`
	Complex bool `json:"complex"`
}

var stackArrays = []string{"count", "mean", "m2", "min", "max", "samples"}

// runStackPartial is stack.RunPartial of the dates (the call's arrays).
func runStackPartial(ctx context.Context, dev *engine.Device, c *Call) (*Result, error) {
	j, err := prepareStack(c)
	if err != nil {
		return nil, err
	}
	pt, err := stack.RunPartial(ctx, dev, j.dates, stack.Options{Plan: j.plan})
	if err != nil {
		return nil, err
	}
	return stackOut(c, pt, j.grid), nil
}

// stackOut is pt, of dates of grid g, as outputs and Info.
func stackOut(c *Call, pt *stack.Partial, g stack.Grid) *Result {
	res := c.Result()
	for i, v := range [][]float64{pt.Count, pt.Mean, pt.M2, pt.Min, pt.Max, pt.Samples} {
		res.add(stackArrays[i], tensor.FromF64(v, pt.H, pt.W))
	}
	res.Info = stackPart{Dates: pt.Dates, Width: g.Width, Height: g.Height, Complex: g.Complex}
	return res
}

// stackMerge are stack_merge's parameters beside stack's (stackConfig's).
type stackMerge struct {
	Parts  []stackPart `json:"parts"`
	Finish bool        `json:"finish"`
	// Geotransform (GDAL's six coefficients) and Projection (WKT), when
	// given, place the dates' grid: the outputs' grid is then worked out
	// as for dates from files (shifted to the window, scaled by the looks).
	Geotransform []float64 `json:"geotransform"`
	Projection   string    `json:"projection"`
}

// stackMergeParams is the type stack_merge's parameters decode into:
// stackParams', then stackMerge's.
var stackMergeParams = sync.OnceValue(func() reflect.Type {
	return paramsType(stack.Params(), extraFields(stackCall{}, stackMerge{})...)
})

// runStackMerge merges stack partials of the same plan (stack.Merge), and
// with finish returns what the stack operation returns for all the dates.
func runStackMerge(_ context.Context, _ *engine.Device, c *Call) (*Result, error) {
	var sc stackCall
	var p stackMerge
	v, err := decodeCall(c, stackMergeParams(), stack.Params(), &sc, &p)
	if err != nil {
		return nil, err
	}
	ts, err := partTensors(c, len(p.Parts), stackArrays...)
	if err != nil {
		return nil, err
	}
	f := p.Parts[0]
	g := stack.Grid{Width: f.Width, Height: f.Height, Complex: f.Complex}
	parts := make([]*stack.Partial, len(ts))
	for i, t := range ts {
		if pp := p.Parts[i]; pp.Width != f.Width || pp.Height != f.Height || pp.Complex != f.Complex {
			return nil, inputf("parts[%d]: dates of %d×%d pixels, parts[0]'s %d×%d", i, pp.Width, pp.Height, f.Width, f.Height)
		}
		cnt := t["count"]
		if len(cnt.Shape) != 2 {
			return nil, inputf("parts[%d]: count has shape %s; want (H, W)", i, tensor.ShapeString(cnt.Shape))
		}
		parts[i] = &stack.Partial{H: cnt.Shape[0], W: cnt.Shape[1], Dates: p.Parts[i].Dates,
			Count: cnt.F64, Mean: t["mean"].F64, M2: t["m2"].F64, Min: t["min"].F64, Max: t["max"].F64, Samples: t["samples"].F64}
	}
	m, err := stack.Merge(parts...)
	if err != nil {
		return nil, inputError(err)
	}
	if !p.Finish {
		return stackOut(c, m, g), nil
	}
	cfg, err := stackConfig(v, sc.Crop)
	if err != nil {
		return nil, err
	}
	j := &stackJob{grid: g, db: sc.DB}
	switch n := len(p.Geotransform); {
	case n != 0 && n != 6:
		return nil, inputf("geotransform: %d coefficients; want GDAL's 6", n)
	case n == 6 || p.Projection != "":
		j.georef = &formats.Georef{Projection: p.Projection, HasTransform: n == 6}
		copy(j.georef.Transform[:], p.Geotransform)
	}
	if j.names, err = stackNames(sc); err != nil {
		return nil, err
	}
	if j.plan, err = stackPlan(cfg, g); err != nil {
		return nil, err
	}
	if j.plan.H != m.H || j.plan.W != m.W {
		return nil, inputf("parts of %d×%d outputs, but the parameters make %d×%d", m.H, m.W, j.plan.H, j.plan.W)
	}
	return j.result(c, m.Finish(cfg.Ddof)), nil
}
