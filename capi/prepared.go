package capi

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"sync/atomic"
	"unsafe"

	"github.com/vkstat/vkstat/engine"
	"github.com/vkstat/vkstat/tensor"
)

// A repeated call costs no JSON: the caller sends a call once as JSON with
// Request.Prepare (CallHandle), the session keeps it (its parameters
// decoded, its arrays' dtypes and shapes, the outputs it asked for and the
// result it described) and names it; the caller then repeats it on arrays
// of the same dtypes and shapes with CallPrepared, giving the pointers of
// its inputs and of its outputs, allocated before the call in the order
// the first call asked for them (so no callback either), and learns the
// result's description from the first call. Only the operations whose
// outputs follow from their parameters and their arrays' shapes are kept.
var preparable = map[string]bool{"map": true, "reduce": true, "cov": true, "chol": true}

// maxPrepared bounds the calls a session keeps.
const maxPrepared = 256

// jsonCodings counts the JSON documents the call path encoded or decoded
// (requests, parameters, results): a repeat of a prepared call adds none.
var jsonCodings atomic.Int64

// JSONCodings is the number of JSON documents calls have encoded or
// decoded so far (tests: a repeated call adds none).
func JSONCodings() int64 { return jsonCodings.Load() }

// prepared is a call kept for repeats.
type prepared struct {
	op      string
	params  json.RawMessage
	decoded reflect.Value // the parameters as the operation decoded them
	specs   map[string]ArraySpec
	nptrs   int
	// allocs are the outputs the call asked memory for, in order.
	allocs []outSpec
	// outputs and warnings are the first call's result, which every
	// repeat must give again.
	outputs  []Output
	warnings []string
	// repeat, when the operation left one while the call was prepared,
	// is its plan: what the parameters and shapes decide made once (the
	// statistics parsed, the axes merged, the geometry, the work's
	// division), run on a repeat's pointers (inputs as the call's, the
	// outputs' memory in the order allocs are) without a Call or a Result.
	repeat planned
}

// planned repeats a prepared call on the CPU path with the caller's
// pointers, under the session's lock, and gives its timing.
type planned func(ctx context.Context, ptrs, outs []unsafe.Pointer) (engine.Timing, error)

// plan leaves f as the repeat of the call c that is being prepared (no
// repeat of one, and not on a device: the device's path runs on the Call).
func (c *Call) plan(dev *engine.Device, f planned) {
	if c.prep != nil && c.given == nil && dev == nil {
		c.prep.repeat = f
	}
}

// repeatOutputs gives a planned repeat's pipeline its outputs: the k-th
// it asks for lies in the caller's k-th buffer, as when the call was
// prepared (its name and size checked), over a header kept from one
// repeat to the next.
type repeatOutputs struct {
	specs []outSpec
	ts    []tensor.Tensor
	given []unsafe.Pointer
	k     int
	err   error
	out   tensor.Outputs
}

// repeatOutputs are the outputs of the call c being prepared, in order.
func (c *Call) repeatOutputs() *repeatOutputs {
	o := &repeatOutputs{}
	c.mu.Lock()
	for _, b := range c.bufs {
		o.specs = append(o.specs, outSpec{b.name, b.dtype, b.shape, b.n})
	}
	c.mu.Unlock()
	o.ts = make([]tensor.Tensor, len(o.specs))
	o.out.Alloc = o.alloc
	return o
}

// start is the pipeline's Outputs for a repeat on the caller's buffers.
func (o *repeatOutputs) start(given []unsafe.Pointer) *tensor.Outputs {
	o.given, o.k, o.err = given, 0, nil
	return &o.out
}

// end is the repeat's error: an output not the one prepared, or fewer
// than were prepared.
func (o *repeatOutputs) end() error {
	if o.err == nil && o.k != len(o.specs) {
		o.err = fmt.Errorf("vkstat: internal error: prepared call: %d outputs, %d prepared", o.k, len(o.specs))
	}
	return o.err
}

func (o *repeatOutputs) alloc(name string, dt tensor.DType, shape []int) *tensor.Tensor {
	n := tensor.NumElements(shape)
	if k := o.k; k >= len(o.specs) || o.specs[k].name != name || o.specs[k].nbytes != int64(n*dt.Size()) {
		o.err = fmt.Errorf("vkstat: internal error: prepared call: output %d (%s %s %v) is not the one prepared", k, name, dt, shape)
		return tensor.New(dt, shape...)
	}
	t := &o.ts[o.k]
	*t = tensor.Tensor{Shape: shape, DType: dt}
	over(t, o.given[o.k], n)
	o.k++
	return t
}

// over points t at the n elements at p.
func over(t *tensor.Tensor, p unsafe.Pointer, n int) {
	switch {
	case t.DType == tensor.F64:
		t.F64 = unsafe.Slice((*float64)(p), n)
	case t.DType.Is16():
		t.U16 = unsafe.Slice((*uint16)(p), n)
	default:
		t.F32 = unsafe.Slice((*float32)(p), n)
	}
}

// outSpec is one output's memory as the call asked for it.
type outSpec struct {
	name, dtype string
	shape       []int
	nbytes      int64
}

func (o outSpec) same(name, dtype string, shape []int, nbytes int64) bool {
	return o.name == name && o.dtype == dtype && o.nbytes == nbytes && slices.Equal(o.shape, shape)
}

// keep stores p, the call c being prepared that gave r, and returns its
// id; 0 when the result cannot be repeated without the first call's Info
// (none of the preparable operations has one).
func (s *Session) keep(p *prepared, c *Call, r *Result) int64 {
	if r.Info != nil {
		return 0
	}
	c.mu.Lock()
	for _, b := range c.bufs {
		p.allocs = append(p.allocs, outSpec{b.name, b.dtype, b.shape, b.n})
	}
	c.mu.Unlock()
	p.outputs, p.warnings = slices.Clone(r.Outputs), slices.Clone(r.Warnings)
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return 0
	}
	if s.prep == nil {
		s.prep = map[int64]*prepared{}
	}
	for id := range s.prep { // a bound the Python package, which forgets what it evicts, never reaches
		if len(s.prep) < maxPrepared {
			break
		}
		delete(s.prep, id)
	}
	s.nextPrep++
	s.prep[s.nextPrep] = p
	return s.nextPrep
}

// Forget drops the prepared call id of session h (unknown ids: nothing).
func Forget(h, id int64) {
	if s, ok := sessions.Get(h).(*Session); ok {
		s.mu.Lock()
		delete(s.prep, id)
		s.mu.Unlock()
	}
}

// CallPrepared repeats the prepared call id on session h, under token's
// context, with the caller's array pointers (as the first call's, in
// order) and its outputs' memory (outs, in the order the first call asked
// for them: the sizes it asked). It returns the library's wall time in
// milliseconds; the result's description is the first call's, and its
// timing LastTimingJSON's.
func CallPrepared(h, token, id int64, ptrs, outs []unsafe.Pointer) (float64, int, error) {
	s, ok := sessions.Get(h).(*Session)
	if !ok {
		return 0, StatusValue, fmt.Errorf("the session is closed")
	}
	s.mu.Lock()
	p := s.prep[id]
	s.mu.Unlock()
	switch {
	case p == nil:
		return 0, StatusValue, inputf("no prepared call %d on this session", id)
	case len(ptrs) != p.nptrs || len(outs) != len(p.allocs):
		return 0, StatusValue, inputf("prepared call %d: %d arrays and %d outputs given, it takes %d and %d",
			id, len(ptrs), len(outs), p.nptrs, len(p.allocs))
	}
	for i, o := range outs {
		if o == nil && p.allocs[i].nbytes > 0 {
			return 0, StatusValue, inputf("output %s: the caller gave no memory for it", p.allocs[i].name)
		}
	}
	var ctx context.Context = context.Background()
	if token != 0 {
		ctx = tokens.Context(token)
	}
	if p.repeat != nil {
		t, err := s.runPlanned(ctx, p, ptrs, outs)
		if err != nil {
			return 0, Status(err, false), err
		}
		return engine.Ms(t.Wall), StatusOK, nil
	}
	c := &Call{params: p.params, specs: p.specs, ptrs: ptrs, prep: p, given: outs, cancel: func() {}}
	r, err := s.Run(ctx, p.op, c)
	if err != nil {
		return 0, Status(err, s.OnDevice()), err
	}
	if len(c.bufs) != len(p.allocs) || !slices.EqualFunc(r.Outputs, p.outputs, sameOutput) || !slices.Equal(r.Warnings, p.warnings) {
		return 0, StatusError, fmt.Errorf("vkstat: internal error: prepared call %d (%s) gave another result than when prepared", id, p.op)
	}
	return engine.Ms(r.timing.Wall), StatusOK, nil
}

// runPlanned runs p's plan on ptrs and outs under the session's lock, as
// Run runs an operation, and keeps its timing as the last call's.
func (s *Session) runPlanned(ctx context.Context, p *prepared, ptrs, outs []unsafe.Pointer) (engine.Timing, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return engine.Timing{}, inputf("the session is closed")
	}
	if err := ctx.Err(); err != nil {
		return engine.Timing{}, err
	}
	t, err := p.repeat(ctx, ptrs, outs)
	if err == nil {
		s.last, s.hasLast = t, true
	}
	return t, err
}

func sameOutput(a, b Output) bool {
	return a.Name == b.Name && a.DType == b.DType && a.NBytes == b.NBytes && a.Buffer == b.Buffer && slices.Equal(a.Shape, b.Shape)
}

// LastTimingJSON is the timing of session h's last call (engine's report
// in milliseconds) as JSON; null when it was not timed.
func LastTimingJSON(h int64) ([]byte, int, error) {
	s, ok := sessions.Get(h).(*Session)
	if !ok {
		return nil, StatusValue, fmt.Errorf("the session is closed")
	}
	s.mu.Lock()
	t, has := s.last, s.hasLast
	s.mu.Unlock()
	if !has {
		return []byte("null"), StatusOK, nil
	}
	b, err := json.Marshal(t.Report())
	if err != nil {
		return nil, StatusError, err
	}
	return b, StatusOK, nil
}
