package capi

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"reflect"
	"slices"
	"sync"
	"unsafe"

	"github.com/vkstat/vkstat/engine"
	"github.com/vkstat/vkstat/pipelines/chol"
	"github.com/vkstat/vkstat/pipelines/cov"
	"github.com/vkstat/vkstat/pipelines/mapx"
	"github.com/vkstat/vkstat/pipelines/reduce"
	"github.com/vkstat/vkstat/tensor"
	"github.com/vkstat/vkstat/workloads"
)

// Op runs one operation on dev (nil: the CPU path).
type Op func(ctx context.Context, dev *engine.Device, c *Call) (*Result, error)

// ops are the operations by name; each workload's is in a file of its own
// over its library's Run (latent.go, stack.go, paco.go). A new operation
// registers itself from its file's init (ops["name"] = runName, as
// partials.go's do): adding one edits no table here.
var ops = map[string]Op{
	"map":    runMap,
	"reduce": runReduce,
	"cov":    runCov,
	"chol":   runChol,
	"verify": runVerify,
	"latent": runLatent,
	"stack":  runStack,
	"paco":   runPaco,
	"shader": runShader,
}

// inspects are what operations open before the session's lock (the files
// they read), by name (Session.Run).
var inspects = map[string]func(c *Call) error{
	"stack": inspectStack,
}

// Defaults are the operations' defaults by Python parameter: each
// workload's own (its Spec's Defaults) for every workload with a front end
// of its own (workloads.Fronted), which the Python package's signatures
// show, or leave None for.
func Defaults() map[string]map[string]any {
	out := map[string]map[string]any{}
	for _, spec := range workloads.Fronted() {
		py := map[string]any{}
		for field, v := range spec.Defaults() {
			py[pyName(field)] = v
		}
		out[spec.Name] = py
	}
	return out
}

// DefaultsJSON is Defaults as JSON.
func DefaultsJSON() ([]byte, error) { return json.Marshal(Defaults()) }

// OpNames lists the operations.
func OpNames() []string {
	var names []string
	for n := range ops {
		names = append(names, n)
	}
	slices.Sort(names)
	return names
}

// ---- map ----------------------------------------------------------------------

// mapParams is the type map's parameters decode into (mapx.Params).
var mapParams = sync.OnceValue(func() reflect.Type { return paramsType(mapx.Params()) })

// runMap evaluates z = a·x² + b·y + c on arrays x and y (the same dtype and
// shape), writing z into the caller's memory.
func runMap(ctx context.Context, dev *engine.Device, c *Call) (*Result, error) {
	p := reflect.New(mapParams())
	if err := c.Params(p.Interface()); err != nil {
		return nil, err
	}
	mp := mapx.DefaultOptions()
	if err := setParams(p.Elem(), mapx.Params(), &mp); err != nil {
		return nil, err
	}
	x, err := c.Tensor("x", Floats...)
	if err != nil {
		return nil, err
	}
	y, err := c.Tensor("y", Floats...)
	if err != nil {
		return nil, err
	}
	if !tensor.SameShape(x.Shape, y.Shape) {
		return nil, inputf("shape mismatch: x is %s but y is %s", tensor.ShapeString(x.Shape), tensor.ShapeString(y.Shape))
	}
	if x.DType != y.DType {
		return nil, inputf("dtype mismatch: x is %s but y is %s", x.DType, y.DType)
	}
	res := c.Result()
	z := c.outputs(nil).New("z", x.DType, x.Shape...)
	r, err := mapx.Run(ctx, dev, mapx.Input{X: x, Y: y, Z: z}, mp)
	if err != nil {
		return nil, err
	}
	res.add("z", z)
	ix, iy, n := c.specs["x"].Ptr, c.specs["y"].Ptr, x.Len()
	in := mapx.Input{X: &tensor.Tensor{Shape: x.Shape, DType: x.DType}, Y: &tensor.Tensor{Shape: x.Shape, DType: x.DType},
		Z: &tensor.Tensor{Shape: z.Shape, DType: x.DType}}
	c.plan(dev, func(ctx context.Context, ptrs, outs []unsafe.Pointer) (engine.Timing, error) {
		over(in.X, ptrs[ix], n)
		over(in.Y, ptrs[iy], n)
		over(in.Z, outs[0], n)
		r, err := mapx.Run(ctx, nil, in, mp)
		if err != nil {
			return engine.Timing{}, err
		}
		return r.Timing, nil
	})
	return res.timed(r.Timing), nil
}

// ---- reduce -------------------------------------------------------------------

// reduceParams is the type reduce's parameters decode into: reduce's own
// (reduce.Params: axis an integer, a list of them or null for every
// axis), then KeepDims, which keeps the reduced axes as axes of length 1,
// as NumPy's keepdims.
var reduceParams = sync.OnceValue(func() reflect.Type {
	return paramsType(reduce.Params(), reflect.StructField{Name: "KeepDims", Type: reflect.TypeFor[bool](), Tag: `json:"keepdims"`})
})

// reduceSetting names a reduce option in a warning as Python's message
// has it: "ddof 2", "the axis".
func reduceSetting(field, value string) string {
	if field == "axis" {
		return "the axis"
	}
	return pyName(field) + " " + value
}

// runReduce computes statistics of array a over its axes (reduce.Axes),
// one output per statistic, named by it.
func runReduce(ctx context.Context, dev *engine.Device, c *Call) (*Result, error) {
	v := reflect.New(reduceParams())
	if err := c.Params(v.Interface()); err != nil {
		return nil, err
	}
	opt, a, g, err := reduceInput(c, v.Elem())
	empty := errors.Is(err, reduce.ErrEmptyAxis)
	if err != nil && !empty {
		return nil, err
	}
	res := c.Result()
	switch {
	case empty && g.Outputs() > 0 && slices.ContainsFunc(opt.Stats, func(s reduce.Stat) bool { return s != reduce.Sum && s != reduce.Min && s != reduce.Max }):
		res.warnf("mean of empty slice: an axis of length 0 gives NaN mean, var and std (and a sum of 0), as NumPy")
	case !empty:
		for _, w := range opt.Warnings(g.N, "") {
			res.Warnings = append(res.Warnings, w.Words(reduceSetting))
		}
	}
	if v.Elem().FieldByName("KeepDims").Bool() {
		kept := keptShape(a.Shape, opt.Axes)
		opt.Out = c.outputs(func([]int) []int { return kept })
	} else {
		opt.Out = c.outputs(nil)
	}
	out, err := reduce.Run(ctx, dev, a, opt)
	if errors.Is(err, reduce.ErrEmptyAxis) { // min or max of nothing: the input's, on every device
		return nil, InputError{err}
	}
	if err != nil {
		return nil, err
	}
	for _, s := range opt.Stats {
		res.add(s.String(), out.Stats[s])
	}
	if g.Perm == nil && !empty {
		c.plan(dev, reducePlan(c, a, opt))
	}
	return res.timed(out.Timing), nil
}

// reducePlan is the repeat of reduce's call c on the caller's array a
// with opt: the reduction planned once (reduce.CPUPlan) on the outputs in
// the order the call asked for them; nil where it has no plan (16-bit
// data).
func reducePlan(c *Call, a *tensor.Tensor, opt reduce.Options) planned {
	p, err := reduce.NewCPUPlan(a.Shape, a.DType, opt)
	if err != nil {
		return nil
	}
	var outs reduce.Outs
	var order []reduce.Stat // the statistic of each output, in order
	m := tensor.NumElements(p.OutShape())
	c.mu.Lock()
	for _, b := range c.bufs {
		for _, s := range opt.Stats {
			if s.String() == b.name {
				order = append(order, s)
				outs[s] = &tensor.Tensor{Shape: p.OutShape(), DType: a.DType}
				break
			}
		}
	}
	c.mu.Unlock()
	x, ia, n := &tensor.Tensor{Shape: a.Shape, DType: a.DType}, c.specs["a"].Ptr, a.Len()
	return func(ctx context.Context, ptrs, given []unsafe.Pointer) (engine.Timing, error) {
		over(x, ptrs[ia], n)
		for k, s := range order {
			over(outs[s], given[k], m)
		}
		return p.Run(ctx, x, &outs)
	}
}

// reduceInput decodes reduce's options from v (a reduceParams or
// reducePartialParams value), checks them, and reads the call's array a
// and the geometry of its reduction (reduce.Options.Geometry; with
// reduce.ErrEmptyAxis for an axis of length 0).
func reduceInput(c *Call, v reflect.Value) (opt reduce.Options, a *tensor.Tensor, g reduce.Geometry, err error) {
	opt = reduce.DefaultOptions()
	if err = setParams(v, reduce.Params(), &opt); err != nil {
		return opt, nil, g, err
	}
	if err = opt.Check(); err != nil {
		return opt, nil, g, inputError(err)
	}
	if a, err = c.Tensor("a", Floats16...); err != nil {
		return opt, nil, g, err
	}
	g, err = opt.Geometry(a.Shape)
	var ae reduce.AxisError
	switch {
	case errors.As(err, &ae):
		return opt, a, g, AxisError{InputError{err}}
	case err != nil && !errors.Is(err, reduce.ErrEmptyAxis):
		return opt, a, g, inputf("axis: %v", err)
	}
	return opt, a, g, err
}

// keptShape is shape with axes (reduce.Axes: nil for every axis) kept, of
// length 1 (NumPy's keepdims).
func keptShape(shape []int, axes reduce.Axes) []int {
	kept := slices.Clone(shape)
	for i := range kept {
		if axes == nil || slices.ContainsFunc(axes, func(a int) bool { return a == i || a == i-len(shape) }) {
			kept[i] = 1
		}
	}
	return kept
}

// ---- cov ------------------------------------------------------------------------

// covParams is the type cov's parameters decode into: cov's own
// (cov.Params), then shrinkage, estimator shrunk's weight (null: 0.1),
// and radius, which when set makes array x a (T, H, W) cube whose PACO
// patches of that radius are the sample sets.
var covParams = sync.OnceValue(func() reflect.Type {
	return paramsType(cov.Params(),
		reflect.StructField{Name: "Shrinkage", Type: reflect.TypeFor[*float64](), Tag: `json:"shrinkage"`},
		reflect.StructField{Name: "Radius", Type: reflect.TypeFor[*int](), Tag: `json:"radius"`})
})

// runCov estimates means and covariances of sample sets, array x of shape
// (N, T, P) or (T, P), or the patches of a cube.
func runCov(ctx context.Context, dev *engine.Device, c *Call) (*Result, error) {
	v := reflect.New(covParams())
	if err := c.Params(v.Interface()); err != nil {
		return nil, err
	}
	var opt cov.Options
	if err := setParams(v.Elem(), cov.Params(), &opt); err != nil {
		return nil, err
	}
	opt.Shrinkage = v.Elem().FieldByName("Shrinkage").Interface().(*float64)
	radius := v.Elem().FieldByName("Radius").Interface().(*int)
	if err := opt.Check(); err != nil {
		return nil, inputError(err)
	}
	allowed := Floats16
	if radius != nil {
		allowed = Floats // a 16-bit cube would be widened (copied) by the pipeline
	}
	x, err := c.Tensor("x", allowed...)
	if err != nil {
		return nil, err
	}
	res := c.Result()
	if radius != nil {
		if err := cov.CheckRadius(*radius); err != nil {
			return nil, inputError(err)
		}
		g, err := cov.CubePatches(x.Shape, *radius, opt.DDof)
		if err != nil {
			return nil, inputf("x has %v", err)
		}
		opt.Out = c.outputs(nil)
		opt.Gather = &g
		r, err := cov.Run(ctx, dev, x, opt)
		if err != nil {
			return nil, err
		}
		res.add("mean", r.Mean)
		res.add("cov", r.Cov)
		res.add("rho", r.Rho)
		res.addRaw("locations", "int64", []int{len(g.Locations), 2}, 16*int64(len(g.Locations)), func(b []byte) {
			for i, l := range g.Locations {
				binary.LittleEndian.PutUint64(b[16*i:], uint64(l[0]))
				binary.LittleEndian.PutUint64(b[16*i+8:], uint64(l[1]))
			}
		})
		return res.timed(r.Timing), nil
	}
	x, single, err := cov.Sets(x, opt.DDof)
	if err != nil {
		return nil, inputf("x has %v", err)
	}
	opt.Out = c.outputs(squeezed(single))
	r, err := cov.Run(ctx, dev, x, opt)
	if err != nil {
		return nil, err
	}
	if single {
		r.Squeeze()
	}
	res.add("mean", r.Mean)
	res.add("cov", r.Cov)
	res.add("rho", r.Rho)
	if res.CopiedBytes == 0 { // every output the pipeline's, in the caller's memory
		ro, xs, ix, n := c.repeatOutputs(), &tensor.Tensor{Shape: x.Shape, DType: x.DType}, c.specs["x"].Ptr, x.Len()
		c.plan(dev, func(ctx context.Context, ptrs, given []unsafe.Pointer) (engine.Timing, error) {
			over(xs, ptrs[ix], n)
			opt.Out = ro.start(given)
			r, err := cov.Run(ctx, nil, xs, opt)
			if err == nil {
				err = ro.end()
			}
			if err != nil {
				return engine.Timing{}, err
			}
			return r.Timing, nil
		})
	}
	return res.timed(r.Timing), nil
}

// squeezed is the view of a call on one matrix or sample set made a batch
// of one: the outputs without their leading axis (nil: as they are).
func squeezed(single bool) func([]int) []int {
	if !single {
		return nil
	}
	return func(shape []int) []int { return shape[1:] }
}

// ---- chol -------------------------------------------------------------------------

// cholParams is the type chol's parameters decode into (chol.Params).
var cholParams = sync.OnceValue(func() reflect.Type { return paramsType(chol.Params()) })

// runChol factors matrices a, (N, P, P) or (P, P), and solves with
// right-hand sides b when given.
func runChol(ctx context.Context, dev *engine.Device, c *Call) (*Result, error) {
	v := reflect.New(cholParams())
	if err := c.Params(v.Interface()); err != nil {
		return nil, err
	}
	var opt chol.Options // what is not asked for is not computed: l too, which Python asks for by default
	if err := setParams(v.Elem(), chol.Params(), &opt); err != nil {
		return nil, err
	}
	a, err := c.Tensor("a", Floats...)
	if err != nil {
		return nil, err
	}
	a, single, err := chol.Matrices(a)
	if err != nil {
		return nil, inputf("a has %v", err)
	}
	if opt.Quad && !c.Has("b") {
		return nil, inputf("quad needs right-hand sides b")
	}
	opt.Out = c.outputs(squeezed(single))
	req := chol.Request{Input: chol.Input{A: a}, Options: opt}
	n := a.Shape[0]
	var bShape []int
	if c.Has("b") {
		b, err := c.Tensor("b", Floats...)
		if err != nil {
			return nil, err
		}
		if b.DType != a.DType {
			return nil, inputf("dtype mismatch: a is %s but b is %s", a.DType, b.DType)
		}
		bShape = b.Shape
		if b, err = chol.RightHandSides(b, c.Spec("a").Shape); err != nil {
			return nil, inputf("b has %v", err)
		}
		req.B = b
	}
	r, err := chol.Run(ctx, dev, req.Input, req.Options)
	if err != nil {
		return nil, err
	}
	infoShape := []int{n}
	if single {
		r.Squeeze(bShape)
		infoShape = []int{}
	}
	res := c.Result()
	res.add("l", r.L)
	res.add("x", r.X)
	res.add("inverse", r.Inverse)
	res.add("logdet", r.LogDet)
	res.add("quad", r.Quad)
	res.addRaw("info", "int32", infoShape, 4*int64(len(r.Info)), func(b []byte) { copy(b, r.InfoBytes()) })
	if res.CopiedBytes == 0 {
		c.plan(dev, cholPlan(c, req, bShape != nil))
	}
	return res.timed(r.Timing), nil
}

// cholPlan is the repeat of chol's call c (req its request, b whether it
// has right-hand sides): the pipeline on the caller's new pointers and
// outputs, its info written last as the call does; nil where the call
// asked for its outputs otherwise.
func cholPlan(c *Call, req chol.Request, b bool) planned {
	ro := c.repeatOutputs()
	k := len(ro.specs) - 1
	if k < 0 || ro.specs[k].name != "info" {
		return nil
	}
	ro.specs = ro.specs[:k]
	in := chol.Input{A: &tensor.Tensor{Shape: req.A.Shape, DType: req.A.DType}}
	ia, ib := c.specs["a"].Ptr, -1
	if b {
		in.B, ib = &tensor.Tensor{Shape: req.B.Shape, DType: req.B.DType}, c.specs["b"].Ptr
	}
	opt, na, nb := req.Options, req.A.Len(), 0
	if b {
		nb = req.B.Len()
	}
	return func(ctx context.Context, ptrs, given []unsafe.Pointer) (engine.Timing, error) {
		over(in.A, ptrs[ia], na)
		if b {
			over(in.B, ptrs[ib], nb)
		}
		opt.Out = ro.start(given)
		r, err := chol.Run(ctx, nil, in, opt)
		if err == nil {
			err = ro.end()
		}
		if err != nil {
			return engine.Timing{}, err
		}
		info := unsafe.Slice((*byte)(given[k]), 4*len(r.Info))
		for i, v := range r.Info {
			binary.LittleEndian.PutUint32(info[4*i:], uint32(v))
		}
		return r.Timing, nil
	}
}

// ParamDoc is one parameter of an operation's description (engine.Param)
// as the C ABI exports it (ParamsJSON): Python's keyword (Name), the JSON
// key the call takes where not Name, the kind ("float", "int", "bool",
// "string", "list" or "text"), the default as Defaults gives it (else
// the description's), the
// choices of an enumeration (or of a list's items), the help text, and
// whether null is a value of its own (None: every axis).
type ParamDoc struct {
	Name    string   `json:"name"`
	Key     string   `json:"key,omitempty"`
	Kind    string   `json:"kind"`
	Default any      `json:"default"`
	Choices []string `json:"choices,omitempty"`
	Help    string   `json:"help"`
	None    bool     `json:"none,omitempty"`
}

// Params are the descriptions of the operations of every workload with a
// front end of its own (workloads.Fronted), by operation: what Python's
// signatures are held to (python/tests/test_signatures.py).
func Params() map[string][]ParamDoc {
	out := map[string][]ParamDoc{}
	for _, spec := range workloads.Fronted() {
		defaults := spec.Defaults()
		docs := []ParamDoc{}
		for _, p := range spec.Params() {
			kind := p.Kind.String()
			switch {
			case p.Text:
				kind = "text"
			case p.Kind == reflect.Float64:
				kind = "float"
			case p.Kind == reflect.Slice:
				kind = "list"
			}
			def, ok := defaults[p.Name]
			if !ok {
				def = p.Default
			}
			docs = append(docs, ParamDoc{Name: pyName(p.Name), Key: p.Key, Kind: kind, Default: def,
				Choices: p.Choices, Help: p.Help, None: p.None})
		}
		out[spec.Name] = docs
	}
	return out
}

// ParamsJSON is Params as JSON.
func ParamsJSON() ([]byte, error) { return json.Marshal(Params()) }
