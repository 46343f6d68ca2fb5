// Package capi is the Go side of vkstat's C ABI (cmd/libvkstat, built with
// -buildmode=c-shared and loaded by the Python package in python/): sessions
// that keep a device open across calls, one entry point that runs any
// operation by name on arrays the caller lends by pointer, results held
// until the caller copies them out, and cancellation by token.
//
// Everything here is plain Go, testable with go test; cmd/libvkstat only
// converts C types and calls these functions.
//
// An operation (ops.go) takes its parameters as JSON and its arrays by
// name. Arrays in are borrowed for the call: their memory belongs to the
// caller, who keeps it alive and unchanged until the call returns; nothing
// here keeps a reference to it afterwards. An operation may write an
// output straight into an array the caller lends for it ("out"); every
// other output is Go memory that the caller copies into memory of its own
// (CopyOutput) and then frees (FreeResult).
//
// Adding an operation: one function of type Op in a file of its own, over
// the workload's library (latent.go over latent.Run, stack.go over
// stack.Run, paco.go over paco.Run), and one line in the ops table. The
// ABI does not change. Tables (PACO's detections) go as one output per
// column, named table.column, each of its own dtype.
package capi

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"unsafe"

	"github.com/vkstat/vkstat/engine"
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
)

// InputError marks an error in what the caller passed.
type InputError struct{ Err error }

func (e InputError) Error() string { return e.Err.Error() }
func (e InputError) Unwrap() error { return e.Err }

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
	switch {
	case err == nil:
		return StatusOK
	case errors.Is(err, context.Canceled):
		return StatusCancelled
	case errors.As(err, &ie):
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
}

// Output is one result array.
type Output struct {
	Name  string `json:"name"`
	DType string `json:"dtype"` // NumPy's name: float32, float64, int32, int64
	Shape []int  `json:"shape"`
	// NBytes is the size of the data.
	NBytes int64 `json:"nbytes"`
	// Written says the operation wrote this output into the array the
	// caller lent for it: there is nothing to copy.
	Written bool   `json:"written"`
	data    []byte // Go memory, when not Written
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
}

// Timing is engine.Timing in milliseconds (engine.TimingReport): the
// copies to and from the device, the kernels (GPU timestamps when
// GPUTimed; the compute on the CPU path), the call's wall time, the phases
// that split it ("phases": [{"name", "ms"}], with "other_ms" what they
// leave) and what the device counted over the call ("counts":
// allocations, pipelines, submits, host bytes copied, ...).
type Timing = engine.TimingReport

func (r *Result) timed(t engine.Timing) *Result {
	rep := t.Report()
	r.Timing = &rep
	return r
}

// add appends t (nil: nothing) as output name.
func (r *Result) add(name string, t *tensor.Tensor) {
	if t == nil {
		return
	}
	r.Outputs = append(r.Outputs, Output{Name: name, DType: t.DType.String(), Shape: nonNil(t.Shape), NBytes: int64(len(t.Raw())), data: t.Raw()})
}

// addRaw appends little-endian data of a NumPy dtype as output name.
func (r *Result) addRaw(name, dtype string, shape []int, data []byte) {
	r.Outputs = append(r.Outputs, Output{Name: name, DType: dtype, Shape: nonNil(shape), NBytes: int64(len(data)), data: data})
}

// addWritten records that output name went into the caller's array.
func (r *Result) addWritten(name string, a ArraySpec) {
	r.Outputs = append(r.Outputs, Output{Name: name, DType: a.DType, Shape: nonNil(a.Shape), NBytes: a.NBytes, Written: true})
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

// CopyOutput copies output i of r into dst, which holds nbytes bytes.
func CopyOutput(r *Result, i int, dst []byte) error {
	if i < 0 || i >= len(r.Outputs) {
		return fmt.Errorf("no output %d (the result has %d)", i, len(r.Outputs))
	}
	o := r.Outputs[i]
	if o.Written {
		return fmt.Errorf("output %s was written into the caller's array: nothing to copy", o.Name)
	}
	if len(dst) != len(o.data) {
		return fmt.Errorf("output %s holds %d bytes, the destination %d", o.Name, len(o.data), len(dst))
	}
	copy(dst, o.data)
	return nil
}

// Call is one operation's view of a request: its parameters and arrays.
type Call struct {
	params json.RawMessage
	specs  map[string]ArraySpec
	ptrs   []unsafe.Pointer
}

// NewCall checks req against the pointers the caller passed.
func NewCall(req Request, ptrs []unsafe.Pointer) (*Call, error) {
	for name, a := range req.Arrays {
		if a.Ptr < 0 || a.Ptr >= len(ptrs) {
			return nil, inputf("array %s: pointer %d of %d", name, a.Ptr, len(ptrs))
		}
	}
	return &Call{params: req.Params, specs: req.Arrays, ptrs: ptrs}, nil
}

// Params decodes the parameters into v, refusing unknown ones.
func (c *Call) Params(v any) error {
	if len(c.params) == 0 || string(c.params) == "null" {
		return nil
	}
	dec := json.NewDecoder(strings.NewReader(string(c.params)))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return inputf("parameters: %v", err)
	}
	return nil
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
	t := &tensor.Tensor{Shape: append([]int{}, a.Shape...), DType: dt}
	switch {
	case n == 0:
		switch {
		case dt == tensor.F64:
			t.F64 = []float64{}
		case dt.Is16():
			t.U16 = []uint16{}
		default:
			t.F32 = []float32{}
		}
	case dt == tensor.F64:
		t.F64 = unsafe.Slice((*float64)(p), n)
	case dt.Is16():
		t.U16 = unsafe.Slice((*uint16)(p), n)
	default:
		t.F32 = unsafe.Slice((*float32)(p), n)
	}
	return t, nil
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
		if s > 0 && n > (1<<62)/s {
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
