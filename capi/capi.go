// Package capi is the Go side of vkstat's C ABI (cmd/libvkstat, built with
// -buildmode=c-shared and loaded by the Python package in python/): sessions
// that keep a device open across calls, one entry point that runs any
// operation by name on arrays the caller lends by pointer, results written
// into memory the caller gives, and cancellation by token.
//
// Everything here is plain Go, testable with go test; cmd/libvkstat only
// converts C types and calls these functions.
//
// An operation (ops.go) takes its parameters as JSON and its arrays by
// name. Arrays in are borrowed for the call: their memory belongs to the
// caller, who keeps it alive and unchanged until the call returns; nothing
// here keeps a reference to it afterwards. Outputs go where the caller
// wants them: the operation asks the caller for each output's memory
// (Alloc: its name, dtype and shape, known before it computes; Python
// answers with a NumPy array of its own, or the out= array it was given)
// and the pipeline writes the result there (tensor.Outputs), so nothing is
// copied out afterwards. Outputs a pipeline makes in Go memory (small:
// tables, the workloads' summaries) are copied into the caller's.
//
// Adding an operation: one function of type Op in a file of its own, over
// the workload's library (latent.go over latent.Run, stack.go over
// stack.Run, paco.go over paco.Run), and one line in the ops table. The
// ABI does not change. Tables (PACO's detections) go as one output per
// column, named table.column, each of its own dtype, from the workload's
// list of its columns. An operation's parameters absent or null take the
// workload's defaults, which Defaults (vks_defaults) lists for Python (null
// is a value of its own only where the description says so: reduce's axis,
// every axis); Params (vks_params) exports each workload's description,
// which Python's signatures are held to; a workload's *engine.FieldError is
// a bad input, worded with the Python parameter's name.
package capi

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strconv"
	"strings"
	"sync"
	"unsafe"

	"github.com/vkstat/vkstat/engine"
	"github.com/vkstat/vkstat/formats"
	"github.com/vkstat/vkstat/tensor"
)

// Version is vkstat's version, set at build time with -ldflags -X.
var Version = "dev"

// Status codes of the C ABI's calls.
const (
	StatusOK        = 0
	StatusValue     = 1 // bad input: Python's ValueError
	StatusDevice    = 2 // the device failed or cannot do it: vkstat.DeviceError
	StatusCancelled = 3 // the call's token was cancelled: KeyboardInterrupt
	StatusError     = 4 // anything else: vkstat.Error
	StatusAxis      = 5 // an axis out of range: NumPy's AxisError (a ValueError too)
)

// InputError marks an error in what the caller passed.
type InputError struct{ Err error }

func (e InputError) Error() string { return e.Err.Error() }
func (e InputError) Unwrap() error { return e.Err }

// AxisError is an InputError that names an axis out of range of the
// array's dimensions: StatusAxis, NumPy's AxisError in Python.
type AxisError struct{ InputError }

// pyNames are the Python parameters named otherwise than the library's
// fields (engine.FieldError); every other field is its parameter.
var pyNames = map[string]string{"device_memory": "memory"}

// pyName is the Python parameter of a library field.
func pyName(field string) string {
	if n, ok := pyNames[field]; ok {
		return n
	}
	return field
}

// pySetting names a library field set to value as Python's keyword
// argument: center='auto', center=(y, x) for "y,x", the parameter alone
// when value is "".
func pySetting(field, value string) string {
	switch value {
	case "":
		return pyName(field)
	case "y,x":
		return pyName(field) + "=(y, x)"
	}
	return pyName(field) + "='" + value + "'"
}

// inputError is err an InputError, a *engine.FieldError (or another
// error that names options, as an *engine.OptionsError) worded with the Python
// parameters' names.
func inputError(err error) error {
	w, _ := engine.InWords(err, pySetting)
	return InputError{w}
}

// inputf is an InputError with a formatted message.
func inputf(format string, args ...any) error {
	return InputError{fmt.Errorf(format, args...)}
}

// deviceErrors are the engine's errors that say the device, not the input,
// is at fault.
var deviceErrors = []error{engine.ErrNoLoader, engine.ErrNoDriver, engine.ErrNoDevice, engine.ErrValidation,
	engine.ErrOutOfMemory, engine.ErrBudget, engine.ErrTooLarge, engine.ErrDeviceLimit, engine.ErrNoFit, engine.ErrTimeout}

// Status classifies err for the caller: cancelled, bad input, device
// trouble or another failure. onDevice says whether the call ran on a
// Vulkan device, where any failure that is not the input's is the
// device's; on the CPU path the pipelines fail only on their input.
func Status(err error, onDevice bool) int {
	var ie InputError
	var ae AxisError
	var fe *engine.FieldError
	switch {
	case err == nil:
		return StatusOK
	case errors.Is(err, context.Canceled):
		return StatusCancelled
	case errors.As(err, &ae):
		return StatusAxis
	case errors.As(err, &ie), errors.As(err, &fe):
		return StatusValue
	}
	for _, e := range deviceErrors {
		if errors.Is(err, e) {
			return StatusDevice
		}
	}
	if onDevice {
		return StatusDevice
	}
	return StatusValue
}

// ArraySpec describes one array of a request: its dtype (NumPy's name:
// float32, float64, float16, bfloat16), its shape, its size in bytes and
// which of the call's pointers holds its data.
type ArraySpec struct {
	DType  string `json:"dtype"`
	Shape  []int  `json:"shape"`
	NBytes int64  `json:"nbytes"`
	Ptr    int    `json:"ptr"`
}

// Request is what the caller sends with a call, as JSON: the operation's
// parameters and its arrays by name.
type Request struct {
	Params json.RawMessage      `json:"params"`
	Arrays map[string]ArraySpec `json:"arrays"`
	// Prepare asks the session to keep the call, once it succeeds, for
	// repeats with other pointers and no JSON (CallPrepared); the result
	// names it (Result.Prepared).
	Prepare bool `json:"prepare,omitempty"`
}

// Alloc gives the memory of one output of a call: nbytes bytes of the
// caller's for output name, of dtype (NumPy's name) and shape, which the
// operation writes. It returns nil when the caller refuses (a NumPy out=
// array that does not fit: the caller raises its own error then).
type Alloc func(name, dtype string, shape []int, nbytes int64) unsafe.Pointer

// Output is one result array, in the caller's memory.
type Output struct {
	Name  string `json:"name"`
	DType string `json:"dtype"` // NumPy's name: float32, float64, int32, int64, bool
	Shape []int  `json:"shape"`
	// NBytes is the size of the data.
	NBytes int64 `json:"nbytes"`
	// Buffer is the caller's buffer that holds it: the index, from 0, of
	// the Alloc call that gave its memory.
	Buffer int `json:"buffer"`
}

// Result is what a call returns: its outputs in order, anything else it
// reports (Info, as JSON) and warnings for the caller to raise.
type Result struct {
	Outputs  []Output `json:"outputs"`
	Info     any      `json:"info,omitempty"`
	Warnings []string `json:"warnings,omitempty"`
	// Timing is where the library's time went, as `vkstat --time` reports
	// it; nil for operations that do not time themselves (verify).
	Timing *Timing `json:"timing,omitempty"`
	// CopiedBytes counts the bytes of outputs the pipeline made in Go
	// memory, copied into the caller's: none for map, reduce, cov and
	// chol, whose pipelines write into the caller's memory.
	CopiedBytes int64 `json:"copied_bytes"`
	// Prepared names the call kept for repeats (Request.Prepare), 0 for
	// none.
	Prepared int64 `json:"prepared,omitempty"`
	call     *Call
	timing   engine.Timing
	hasTime  bool
}

// Timing is engine.Timing in milliseconds (engine.TimingReport): the
// copies to and from the device, the kernels (GPU timestamps when
// GPUTimed; the compute on the CPU path), the call's wall time, the phases
// that split it ("phases": [{"name", "ms"}], with "other_ms" what they
// leave) and what the device counted over the call ("counts":
// allocations, pipelines, submits, host bytes copied, ...).
type Timing = engine.TimingReport

// timed records the call's timing; the report (Timing, in milliseconds)
// is made when the result is described (CallHandle) or asked for
// (LastTimingJSON), not on every call.
func (r *Result) timed(t engine.Timing) *Result {
	r.timing, r.hasTime = t, true
	return r
}

// report fills Timing from the recorded timing.
func (r *Result) report() {
	if r.hasTime && r.Timing == nil {
		rep := r.timing.Report()
		r.Timing = &rep
	}
}

// add appends t (nil: nothing) as output name: where it lies when the
// pipeline wrote it into the caller's memory (Call.outputs), else copied
// into memory the caller gives for it.
func (r *Result) add(name string, t *tensor.Tensor) {
	if t == nil {
		return
	}
	raw := t.Raw()
	c := r.call
	k, shape := c.holding(raw), t.Shape
	if k >= 0 {
		shape = c.bufs[k].shape // the caller's view (keepdims)
	} else {
		var b []byte
		if b, k = c.buffer(name, t.DType.String(), t.Shape, int64(len(raw))); b == nil {
			return
		}
		r.CopiedBytes += int64(copy(b, raw))
	}
	r.Outputs = append(r.Outputs, Output{Name: name, DType: t.DType.String(), Shape: nonNil(shape), NBytes: int64(len(raw)), Buffer: k})
}

// addRaw appends output name, of a NumPy dtype and shape, filled by fill
// in the caller's memory (little-endian, nbytes bytes).
func (r *Result) addRaw(name, dtype string, shape []int, nbytes int64, fill func(b []byte)) {
	b, k := r.call.buffer(name, dtype, shape, nbytes)
	if b == nil {
		return
	}
	fill(b)
	r.Outputs = append(r.Outputs, Output{Name: name, DType: dtype, Shape: nonNil(shape), NBytes: nbytes, Buffer: k})
}

func (r *Result) warnf(format string, args ...any) {
	r.Warnings = append(r.Warnings, fmt.Sprintf(format, args...))
}

// nonNil keeps a 0-d shape as [] in JSON, not null.
func nonNil(s []int) []int {
	if s == nil {
		return []int{}
	}
	return s
}

// Call is one operation's view of a request: its parameters, its arrays
// and where its outputs go.
type Call struct {
	params json.RawMessage
	specs  map[string]ArraySpec
	ptrs   []unsafe.Pointer
	alloc  Alloc
	// prep is the prepared call this one repeats (its parameters decoded
	// once, its outputs' memory given before the call), or the one being
	// prepared; nil for neither.
	prep *prepared
	// given is the outputs' memory the caller passed, in the order they
	// are asked for (a repeat of a prepared call); nil: ask alloc.
	given []unsafe.Pointer

	mu      sync.Mutex
	bufs    []outBuf // the memory the caller gave, in order
	refused error    // the first output the caller refused
	cancel  context.CancelFunc
	// ctx is the call's (Session.Run's); once it is done no memory is
	// asked of the caller, so nothing is written there: its caller may
	// have returned already (Ctrl-C in Python).
	ctx context.Context

	// dates are stack's files, inspected before the session's lock
	// (inspectStack), or nil.
	dates []formats.DateFile
}

// outBuf is one buffer the caller gave: where, its size, and the shape it
// was asked for.
type outBuf struct {
	p           unsafe.Pointer
	n           int64
	shape       []int
	name, dtype string
}

// NewCall checks req against the pointers the caller passed; alloc gives
// the outputs' memory (nil: Go memory, for callers in Go).
func NewCall(req Request, ptrs []unsafe.Pointer, alloc Alloc) (*Call, error) {
	for name, a := range req.Arrays {
		if a.Ptr < 0 || a.Ptr >= len(ptrs) {
			return nil, inputf("array %s: pointer %d of %d", name, a.Ptr, len(ptrs))
		}
	}
	if alloc == nil {
		alloc = goAlloc
	}
	return &Call{params: req.Params, specs: req.Arrays, ptrs: ptrs, alloc: alloc, cancel: func() {}}, nil
}

// goAlloc is Go memory, 8-byte aligned, for calls from Go.
func goAlloc(_, _ string, _ []int, nbytes int64) unsafe.Pointer {
	return unsafe.Pointer(unsafe.SliceData(make([]uint64, (nbytes+7)/8+1)))
}

// Result is an empty result of the call, whose outputs go into the
// caller's memory.
func (c *Call) Result() *Result { return &Result{call: c} }

// Bytes is the memory that holds output o (tests, and callers in Go).
func (c *Call) Bytes(o Output) []byte {
	c.mu.Lock()
	defer c.mu.Unlock()
	return unsafe.Slice((*byte)(c.bufs[o.Buffer].p), c.bufs[o.Buffer].n)
}

// buffer asks the caller for nbytes of memory for output name of dtype and
// shape; it returns the memory and its index, or nil when the caller
// refuses, recording the refusal and cancelling the call. A cancelled
// call asks nothing more and fails with the context's error.
func (c *Call) buffer(name, dtype string, shape []int, nbytes int64) ([]byte, int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.refused == nil && c.ctx != nil {
		c.refused = c.ctx.Err()
	}
	if c.refused != nil {
		return nil, -1
	}
	var p unsafe.Pointer
	if c.given != nil {
		k := len(c.bufs)
		if k >= len(c.prep.allocs) || !c.prep.allocs[k].same(name, dtype, shape, nbytes) {
			c.refused = fmt.Errorf("vkstat: internal error: prepared call: output %d (%s %s %v) is not the one prepared", k, name, dtype, shape)
			c.cancel()
			return nil, -1
		}
		p = c.given[k]
	} else {
		p = c.alloc(name, dtype, nonNil(shape), nbytes)
	}
	if p == nil {
		c.refused = inputf("output %s: the caller gave no memory for it", name)
		c.cancel()
		return nil, -1
	}
	c.bufs = append(c.bufs, outBuf{p, nbytes, append([]int{}, shape...), name, dtype})
	return unsafe.Slice((*byte)(p), nbytes), len(c.bufs) - 1
}

// holding is the index of the caller's buffer that is exactly b, -1 for
// none.
func (c *Call) holding(b []byte) int {
	if len(b) == 0 {
		return -1
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	p := unsafe.Pointer(unsafe.SliceData(b))
	for i, o := range c.bufs {
		if o.p == p && o.n == int64(len(b)) {
			return i
		}
	}
	return -1
}

// outputs is a pipeline's tensor.Outputs for this call: each result is
// asked of the caller under the pipeline's name for it, with the shape
// view gives (nil: the pipeline's shape; the caller's may drop or add axes
// of length 1), and the pipeline writes it there. A result the caller
// refuses gets Go memory, and the call fails when the pipeline returns.
func (c *Call) outputs(view func(shape []int) []int) *tensor.Outputs {
	return &tensor.Outputs{Alloc: func(name string, dt tensor.DType, shape []int) *tensor.Tensor {
		caller := shape
		if view != nil {
			caller = view(shape)
		}
		b, _ := c.buffer(name, dt.String(), caller, int64(tensor.NumElements(shape))*int64(dt.Size()))
		if b == nil {
			return tensor.New(dt, shape...)
		}
		return tensor.Over(b, dt, shape...)
	}}
}

// Params decodes the parameters into v, refusing unknown ones. Numbers
// in fields of type any are json.Number, so that 1 and 1.0 differ (an axis
// is an integer). Errors name the parameter and what it takes, in the
// caller's words, not Go's types.
func (c *Call) Params(v any) error {
	if c.prep != nil && c.prep.decoded.IsValid() && c.prep.decoded.Type() == reflect.TypeOf(v).Elem() {
		reflect.ValueOf(v).Elem().Set(c.prep.decoded) // a repeat: decoded once
		return nil
	}
	if len(c.params) == 0 || string(c.params) == "null" {
		return nil
	}
	if err := decodeStrict(c.params, v, "parameters"); err != nil {
		return err
	}
	if c.prep != nil { // being prepared: keep the decoded parameters
		d := reflect.New(reflect.TypeOf(v).Elem()).Elem()
		d.Set(reflect.ValueOf(v).Elem())
		c.prep.decoded = d
	}
	return nil
}

// decodeStrict decodes the JSON object js into v as Params does; what
// names the object in messages.
func decodeStrict(js []byte, v any, what string) error {
	jsonCodings.Add(1)
	dec := json.NewDecoder(bytes.NewReader(js))
	dec.DisallowUnknownFields()
	dec.UseNumber()
	err := dec.Decode(v)
	var te *json.UnmarshalTypeError
	switch {
	case err == nil:
		return nil
	case errors.As(err, &te):
		te.Field = te.Field[strings.LastIndex(te.Field, ".")+1:] // OpenOptions.disable: the parameter's own name
		num, isNum := strings.CutPrefix(te.Value, "number ")
		switch {
		case isNum && kindWords(te.Type.Kind()) == "an integer" && !strings.ContainsAny(num, ".eE"):
			return inputf("%s: %s is out of range", te.Field, num)
		case isNum:
			return inputf("%s: want %s, got %s", te.Field, kindWords(te.Type.Kind()), num)
		}
		return inputf("%s: want %s, got %s", te.Field, kindWords(te.Type.Kind()), kindWords(jsonKind(te.Value)))
	case strings.HasPrefix(err.Error(), "json: unknown field "):
		return inputf("%s: unknown %s", what, strings.TrimPrefix(err.Error(), "json: "))
	}
	return inputf("%s: %v", what, err)
}

// jsonKind is the Go kind a JSON value of UnmarshalTypeError.Value decodes
// to.
func jsonKind(value string) reflect.Kind {
	switch {
	case strings.HasPrefix(value, "number"):
		return reflect.Float64
	case value == "string":
		return reflect.String
	case value == "bool":
		return reflect.Bool
	case value == "array":
		return reflect.Slice
	}
	return reflect.Map
}

// kindWords says what a value of kind k is, in words.
func kindWords(k reflect.Kind) string {
	switch k {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return "an integer"
	case reflect.Float32, reflect.Float64:
		return "a number"
	case reflect.String:
		return "a string"
	case reflect.Bool:
		return "True or False"
	case reflect.Slice, reflect.Array:
		return "a list"
	}
	return "a mapping"
}

// jsonWords is a decoded JSON value as the caller wrote it: "0" for a
// string, 1.5 for a number.
func jsonWords(v any) string {
	if s, ok := v.(string); ok {
		return strconv.Quote(s)
	}
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(b)
}

// Has reports whether the caller passed array name.
func (c *Call) Has(name string) bool {
	_, ok := c.specs[name]
	return ok
}

// Spec is array name's description.
func (c *Call) Spec(name string) ArraySpec { return c.specs[name] }

// Tensor wraps the caller's array name without copying it, checking its
// dtype against allowed (tensor dtypes) and its size against its shape.
func (c *Call) Tensor(name string, allowed ...tensor.DType) (*tensor.Tensor, error) {
	a, ok := c.specs[name]
	if !ok {
		return nil, inputf("%s: no such array given", name)
	}
	dt, err := tensor.ParseDType(a.DType)
	if err != nil || !dtypeIn(dt, allowed) {
		var names []string
		for _, d := range allowed {
			names = append(names, d.String())
		}
		return nil, inputf("%s is %s; want %s", name, a.DType, strings.Join(names, " or "))
	}
	p, n, err := c.data(name, dt.Size(), dt.Size())
	if err != nil {
		return nil, err
	}
	return tensor.Over(unsafe.Slice((*byte)(p), n*dt.Size()), dt, a.Shape...), nil
}

// Float32s wraps the caller's array name, float32 or complex64 (as
// interleaved re, im float32 pairs), without copying it; complex says
// which.
func (c *Call) Float32s(name string) (v []float32, complex bool, err error) {
	a, ok := c.specs[name]
	if !ok {
		return nil, false, inputf("%s: no such array given", name)
	}
	size := 4
	switch a.DType {
	case "float32":
	case "complex64":
		size, complex = 8, true
	default:
		return nil, false, inputf("%s is %s; want float32 or complex64", name, a.DType)
	}
	p, n, err := c.data(name, size, 4)
	if err != nil || n == 0 {
		return []float32{}, complex, err
	}
	return unsafe.Slice((*float32)(p), n*size/4), complex, nil
}

// data checks array name's size (n elements of size bytes) against its
// shape and its pointer's alignment to align bytes, and returns them.
func (c *Call) data(name string, size, align int) (unsafe.Pointer, int, error) {
	a := c.specs[name]
	n := 1
	for _, s := range a.Shape {
		if s < 0 {
			return nil, 0, inputf("%s: negative dimension in shape %v", name, a.Shape)
		}
	}
	for _, s := range a.Shape {
		if s == 0 {
			n = 0
			break
		}
		if n > (1<<62)/size/s { // the bytes, not only the elements, within int64
			return nil, 0, inputf("%s: shape %v is too large", name, a.Shape)
		}
		n *= s
	}
	if int64(n)*int64(size) != a.NBytes {
		return nil, 0, inputf("%s: shape %s of %s needs %d bytes, the array has %d", name, tensor.ShapeString(a.Shape), a.DType, n*size, a.NBytes)
	}
	p := c.ptrs[a.Ptr]
	if p == nil && n > 0 {
		return nil, 0, inputf("%s: null data pointer", name)
	}
	if uintptr(p)%uintptr(align) != 0 {
		return nil, 0, inputf("%s: data pointer %p is not aligned to %d bytes", name, p, align)
	}
	return p, n, nil
}

func dtypeIn(dt tensor.DType, set []tensor.DType) bool {
	for _, d := range set {
		if d == dt {
			return true
		}
	}
	return false
}

// Floats are the dtypes every operation takes.
var Floats = []tensor.DType{tensor.F32, tensor.F64}

// Floats16 adds the 16-bit storage types, for the operations that widen
// them as they read.
var Floats16 = []tensor.DType{tensor.F32, tensor.F64, tensor.F16, tensor.BF16}

// paramsType is a struct type that a workload's parameters, as params
// describe them, decode into (Call.Params): a field per parameter, keyed
// by its name (or Key), a pointer to its kind of value (nil: absent or null, the
// default), or any for one given as text or a number and for a list;
// then extra.
func paramsType(params []engine.Param, extra ...reflect.StructField) reflect.Type {
	var fs []reflect.StructField
	for i, p := range params {
		var t reflect.Type
		switch {
		case p.None: // null is a value: told from a key left out
			t = reflect.TypeFor[json.RawMessage]()
		case p.Text, p.Kind == reflect.Slice: // a list: JSON's, or one value
			t = reflect.TypeFor[any]()
		case p.Kind == reflect.Float64:
			t = reflect.TypeFor[*float64]()
		case p.Kind == reflect.Int:
			t = reflect.TypeFor[*int]()
		case p.Kind == reflect.Bool:
			t = reflect.TypeFor[*bool]()
		default:
			t = reflect.TypeFor[*string]()
		}
		key := p.Name
		if p.Key != "" {
			key = p.Key
		}
		fs = append(fs, reflect.StructField{Name: fmt.Sprintf("P%d", i), Type: t, Tag: reflect.StructTag(`json:"` + key + `"`)})
	}
	return reflect.StructOf(append(fs, extra...))
}

// setParams sets in opt (a pointer to a workload's options) the
// parameters that v, a paramsType(params) value, gives. An error that
// names its parameter (an *engine.FieldError) is worded as it says.
func setParams(v reflect.Value, params []engine.Param, opt any) error {
	for i, p := range params {
		f := v.Field(i)
		if f.IsNil() {
			continue
		}
		val, err := paramValue(f)
		if err == nil {
			err = p.SetValue(opt, val)
		}
		if err != nil {
			if fe := (*engine.FieldError)(nil); errors.As(err, &fe) {
				return inputError(err)
			}
			return inputf("%s: %v", p.Name, err)
		}
	}
	return nil
}

// paramValue is the value of f, a paramsType field that is set: a
// pointer's, or a json.RawMessage's decoded as Params decodes (nil for
// null).
func paramValue(f reflect.Value) (any, error) {
	raw, ok := f.Interface().(json.RawMessage)
	if !ok {
		return f.Elem().Interface(), nil
	}
	var v any
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	return v, dec.Decode(&v)
}

// extraFields are the fields of the structs extras, in order, as
// paramsType's extra fields: a call's parameters beside its workload's.
func extraFields(extras ...any) []reflect.StructField {
	var out []reflect.StructField
	for _, x := range extras {
		t := reflect.TypeOf(x)
		for i := range t.NumField() {
			out = append(out, t.Field(i))
		}
	}
	return out
}

// decodeCall decodes c's parameters, of type t (paramsType(params,
// extraFields(extras' values)...)), the call's own into extras (pointers
// to the structs whose fields they are); setParams sets the workload's
// from what it returns.
func decodeCall(c *Call, t reflect.Type, params []engine.Param, extras ...any) (reflect.Value, error) {
	v := reflect.New(t)
	if err := c.Params(v.Interface()); err != nil {
		return v, err
	}
	k := len(params)
	for _, x := range extras {
		e := reflect.ValueOf(x).Elem()
		for i := range e.NumField() {
			e.Field(i).Set(v.Elem().Field(k))
			k++
		}
	}
	return v.Elem(), nil
}
