package capi

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"reflect"
	"slices"
	"strconv"
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
// (reduce.Params), then Axis, an int, null (every axis: the array
// flattened) or a list of axes; and KeepDims, which keeps the reduced axes
// as axes of length 1, as NumPy's keepdims.
var reduceParams = sync.OnceValue(func() reflect.Type {
	return paramsType(reduce.Params(),
		reflect.StructField{Name: "Axis", Type: reflect.TypeFor[any](), Tag: `json:"axis"`},
		reflect.StructField{Name: "KeepDims", Type: reflect.TypeFor[bool](), Tag: `json:"keepdims"`})
})

// reduceSetting names a reduce option in a warning as Python's message
// has it: "ddof 2", "the axis".
func reduceSetting(field, value string) string {
	if field == "axis" {
		return "the axis"
	}
	return pyName(field) + " " + value
}

// runReduce computes statistics of array a along one axis (or adjacent
// axes, or all), one output per statistic, named by it.
func runReduce(ctx context.Context, dev *engine.Device, c *Call) (*Result, error) {
	v := reflect.New(reduceParams())
	if err := c.Params(v.Interface()); err != nil {
		return nil, err
	}
	opt := reduce.DefaultOptions()
	if err := setParams(v.Elem(), reduce.Params(), &opt); err != nil {
		return nil, err
	}
	stats := opt.Stats
	if err := opt.Check(); err != nil {
		return nil, inputError(err)
	}
	a, in, axis, kept, perm, err := reduceInput(c, v.Elem().FieldByName("Axis").Interface())
	if err != nil {
		return nil, err
	}
	g, err := reduce.Plan(in.Shape, axis)
	empty := errors.Is(err, reduce.ErrEmptyAxis)
	if err != nil && !empty {
		return nil, inputf("axis: an array of shape %s: %v", tensor.ShapeString(a.Shape), err)
	}
	res := c.Result()
	switch {
	case empty && g.Outputs() > 0 && slices.ContainsFunc(stats, func(s reduce.Stat) bool { return s != reduce.Sum && s != reduce.Min && s != reduce.Max }):
		res.warnf("mean of empty slice: an axis of length 0 gives NaN mean, var and std (and a sum of 0), as NumPy")
	case !empty:
		for _, w := range opt.Warnings(g.N, "") {
			res.Warnings = append(res.Warnings, w.Words(reduceSetting))
		}
	}
	var view func([]int) []int
	if v.Elem().FieldByName("KeepDims").Bool() {
		view = func([]int) []int { return kept }
	}
	opt.Axis, opt.Out = axis, c.outputs(view)
	out, err := reduce.Run(ctx, dev, in, opt)
	if errors.Is(err, reduce.ErrEmptyAxis) { // min or max of nothing: the input's, on every device
		return nil, InputError{err}
	}
	if err != nil {
		return nil, err
	}
	for _, s := range stats {
		res.add(s.String(), out.Stats[s])
	}
	if perm == nil && !empty {
		c.plan(dev, reducePlan(c, in, opt))
	}
	return res.timed(out.Timing), nil
}

// reducePlan is the repeat of reduce's call c on input in (a view of the
// caller's array a) with opt: the reduction planned once (reduce.CPUPlan)
// on the outputs in the order the call asked for them; nil where it has
// no plan (16-bit data).
func reducePlan(c *Call, in *tensor.Tensor, opt reduce.Options) planned {
	p, err := reduce.NewCPUPlan(in.Shape, in.DType, opt)
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
				outs[s] = &tensor.Tensor{Shape: p.OutShape(), DType: in.DType}
				break
			}
		}
	}
	c.mu.Unlock()
	x, ia, n := &tensor.Tensor{Shape: in.Shape, DType: in.DType}, c.specs["a"].Ptr, in.Len()
	return func(ctx context.Context, ptrs, given []unsafe.Pointer) (engine.Timing, error) {
		over(x, ptrs[ia], n)
		for k, s := range order {
			over(outs[s], given[k], m)
		}
		return p.Run(ctx, x, &outs)
	}
}

// reduceInput is the call's array a and the view of it that is reduced
// along one axis for NumPy's axis (mergeAxes): a itself, reshaped, or a
// permuted copy for axes that are not adjacent; kept is the output's shape
// with keepdims.
func reduceInput(c *Call, axisParam any) (a, in *tensor.Tensor, axis int, kept, perm []int, err error) {
	if a, err = c.Tensor("a", Floats16...); err != nil {
		return nil, nil, 0, nil, nil, err
	}
	shape, axis, perm, kept, err := mergeAxes(a.Shape, axisParam)
	if err != nil {
		return nil, nil, 0, nil, nil, err
	}
	in = &tensor.Tensor{Shape: shape, DType: a.DType, F32: a.F32, F64: a.F64, U16: a.U16}
	if perm != nil {
		in = reduce.Permuted(a, perm)
		in.Shape = shape
	}
	return a, in, axis, kept, perm, nil
}

// mergeAxes turns NumPy's axis (an int, None, or a tuple of axes) into one
// axis of a view of shape (reduce.MergeAxes): None flattens the array, a
// tuple of adjacent axes merges them, other tuples are reduced from a copy
// permuted by perm (non-nil then). kept is the output's shape with the
// reduced axes kept, of length 1 (NumPy's keepdims).
func mergeAxes(shape []int, axis any) (view []int, a int, perm, kept []int, err error) {
	var axes []int
	switch ax := axis.(type) {
	case nil:
	case json.Number:
		axes = []int{0}
		if axes[0], err = strconv.Atoi(string(ax)); err != nil {
			return nil, 0, nil, nil, inputf("axis: %s is not an integer", jsonWords(axis))
		}
	case []any:
		if len(ax) == 0 {
			return nil, 0, nil, nil, inputf("axis: an empty tuple of axes")
		}
		for _, v := range ax {
			n, ok := v.(json.Number)
			i, err := strconv.Atoi(string(n))
			if !ok || err != nil {
				return nil, 0, nil, nil, inputf("axis: %s is not an integer", jsonWords(v))
			}
			axes = append(axes, i)
		}
	default:
		return nil, 0, nil, nil, inputf("axis: %s is not an integer, a tuple of integers or None", jsonWords(axis))
	}
	if view, a, perm, err = reduce.MergeAxes(shape, axes); err != nil {
		var ae reduce.AxisError
		if errors.As(err, &ae) {
			return nil, 0, nil, nil, AxisError{InputError{err}}
		}
		return nil, 0, nil, nil, inputf("axis: %v", err)
	}
	kept = slices.Clone(shape)
	if perm != nil {
		for _, i := range perm[a:] {
			kept[i] = 1
		}
		return view, a, perm, kept, nil
	}
	for i := a; i < a+len(shape)-len(view)+1; i++ {
		kept[i] = 1
	}
	return view, a, nil, kept, nil
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
