package capi

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"slices"
	"strings"
	"testing"
	"unsafe"

	"github.com/vkstat/vkstat/engine"
)

func TestMain(m *testing.M) {
	os.Setenv("VKSTAT_TUNE_DIR", "off")
	os.Exit(m.Run())
}

// lendF64 describes v as array ptr of a request, as the Python side does.
func lendF64(v []float64, shape []int, ptr int) ArraySpec {
	return ArraySpec{DType: "float64", Shape: shape, NBytes: int64(8 * len(v)), Ptr: ptr}
}

func ptrOf[T any](v []T) unsafe.Pointer { return unsafe.Pointer(unsafe.SliceData(v)) }

// call runs op on s with params and the arrays as the C ABI passes them.
func call(t *testing.T, s *Session, ctx context.Context, op string, params any, arrays map[string]ArraySpec, ptrs ...unsafe.Pointer) (*Result, error) {
	t.Helper()
	p, err := json.Marshal(params)
	if err != nil {
		t.Fatal(err)
	}
	c, err := NewCall(Request{Params: p, Arrays: arrays}, ptrs, nil)
	if err != nil {
		return nil, err
	}
	return s.Run(ctx, op, c)
}

// f64s is output o of r as float64s.
func f64s(r *Result, o Output) []float64 {
	b := r.call.Bytes(o)
	return unsafe.Slice((*float64)(unsafe.Pointer(unsafe.SliceData(b))), len(b)/8)
}

func openCPU(t *testing.T) *Session {
	t.Helper()
	s, err := Open("cpu", OpenOptions{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// openVulkan opens a Vulkan device, any one (index 0: lavapipe here, the
// GPU on a machine whose only driver is NVIDIA's or SwiftShader's), with
// the validation layer on; without one the test skips (fails under CI).
func openVulkan(t *testing.T) *Session {
	t.Helper()
	s, err := Open("0", OpenOptions{Validate: true})
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("Vulkan device 0: %v", err)
		}
		t.Skipf("no Vulkan device: %v", err)
	}
	t.Cleanup(func() {
		if err := s.Close(); err != nil {
			t.Errorf("closing %s: %v", s.Device.Name, err)
		}
	})
	return s
}

// TestTensorBorrows: the tensor a call sees is the caller's memory, not a
// copy: a write through the caller's slice shows in it.
func TestTensorBorrows(t *testing.T) {
	v := []float64{1, 2, 3, 4, 5, 6}
	c, err := NewCall(Request{Arrays: map[string]ArraySpec{"a": lendF64(v, []int{2, 3}, 0)}}, []unsafe.Pointer{ptrOf(v)}, nil)
	if err != nil {
		t.Fatal(err)
	}
	x, err := c.Tensor("a", Floats...)
	if err != nil {
		t.Fatal(err)
	}
	v[4] = 42
	if x.F64[4] != 42 || &x.F64[0] != &v[0] {
		t.Errorf("the tensor does not alias the caller's array: x[4] = %g", x.F64[4])
	}
}

// TestTensorRefuses: a wrong dtype, size or pointer is an InputError
// naming the array.
func TestTensorRefuses(t *testing.T) {
	v := []float64{1, 2, 3, 4}
	p := []unsafe.Pointer{ptrOf(v)}
	cases := []struct {
		spec ArraySpec
		want string
	}{
		{ArraySpec{DType: "int32", Shape: []int{4}, NBytes: 16}, "a is int32; want float32 or float64"},
		{ArraySpec{DType: "float16", Shape: []int{4}, NBytes: 8}, "a is float16; want float32 or float64"},
		{ArraySpec{DType: "float64", Shape: []int{5}, NBytes: 32}, "needs 40 bytes, the array has 32"},
		{ArraySpec{DType: "float64", Shape: []int{-1, 4}, NBytes: 32}, "negative dimension"},
		{ArraySpec{DType: "float64", Shape: []int{4}, NBytes: 32, Ptr: 3}, "pointer 3 of 1"},
	}
	for _, cs := range cases {
		c, err := NewCall(Request{Arrays: map[string]ArraySpec{"a": cs.spec}}, p, nil)
		if err == nil {
			_, err = c.Tensor("a", Floats...)
		}
		var ie InputError
		if err == nil || !errors.As(err, &ie) || !strings.Contains(err.Error(), cs.want) {
			t.Errorf("%+v: got %v, want an InputError containing %q", cs.spec, err, cs.want)
		}
	}
}

// TestOutputsInCallersMemory: the outputs of map, reduce, cov and chol
// are written by the pipeline into the memory the caller gives for them
// (Alloc, asked with the shape the caller sees: one matrix without the
// batch axis, keepdims), with nothing copied afterwards; the values are
// computed by hand.
func TestOutputsInCallersMemory(t *testing.T) {
	for _, s := range []*Session{openCPU(t), openVulkan(t)} {
		if !s.Device.Float64 {
			t.Logf("%s has no float64: the float64 outputs are held on the other sessions", s.Device.Name)
			continue
		}
		mem := map[string][]float64{}
		asked := map[string][]int{}
		alloc := func(name, dtype string, shape []int, nbytes int64) unsafe.Pointer {
			v := make([]float64, max(nbytes/8, 1))
			mem[name], asked[name] = v, shape
			return unsafe.Pointer(&v[0])
		}
		run := func(op string, params any, arrays map[string]ArraySpec, ptrs ...unsafe.Pointer) *Result {
			t.Helper()
			p, _ := json.Marshal(params)
			c, err := NewCall(Request{Params: p, Arrays: arrays}, ptrs, alloc)
			if err != nil {
				t.Fatal(err)
			}
			r, err := s.Run(context.Background(), op, c)
			if err != nil {
				t.Fatalf("%s: %s: %v", s.Device.Name, op, err)
			}
			if r.CopiedBytes != 0 {
				t.Errorf("%s: %s copied %d bytes of outputs into the caller's memory, want none", s.Device.Name, op, r.CopiedBytes)
			}
			return r
		}
		x, y := []float64{1, 2, -3}, []float64{0.5, -1, 2}
		r := run("map", map[string]float64{"a": 2, "b": 4, "c": 1}, map[string]ArraySpec{"x": lendF64(x, []int{3}, 0), "y": lendF64(y, []int{3}, 1)}, ptrOf(x), ptrOf(y))
		if z := mem["z"]; z[0] != 5 || z[1] != 5 || z[2] != 27 || len(r.Outputs) != 1 || r.Outputs[0].Buffer != 0 { // 2·1+2+1, 2·4−4+1, 2·9+8+1
			t.Errorf("%s: map wrote %v (outputs %+v), want [5 5 27] in buffer 0", s.Device.Name, z, r.Outputs)
		}
		a := []float64{1, 2, 3, 4, 5, 6} // (2, 3)
		run("reduce", map[string]any{"stats": []string{"sum", "max"}, "axis": 1, "keepdims": true}, map[string]ArraySpec{"a": lendF64(a, []int{2, 3}, 0)}, ptrOf(a))
		if sum := mem["sum"]; sum[0] != 6 || sum[1] != 15 || mem["max"][1] != 6 || !slices.Equal(asked["sum"], []int{2, 1}) {
			t.Errorf("%s: reduce wrote sum %v (asked %v), max %v; want [6 15] as (2, 1), max 6", s.Device.Name, sum, asked["sum"], mem["max"])
		}
		m := []float64{4, 2, 2, 3} // [[4, 2], [2, 3]]: L = [[2, 0], [1, √2]]
		run("chol", map[string]bool{"l": true, "logdet": true}, map[string]ArraySpec{"a": lendF64(m, []int{2, 2}, 0)}, ptrOf(m))
		if l := mem["l"]; l[0] != 2 || l[1] != 0 || l[2] != 1 || math.Abs(l[3]-math.Sqrt2) > 1e-15 || math.Abs(mem["logdet"][0]-math.Log(8)) > 1e-14 ||
			!slices.Equal(asked["l"], []int{2, 2}) || len(asked["logdet"]) != 0 {
			t.Errorf("%s: chol wrote l %v (asked %v), logdet %v (asked %v)", s.Device.Name, l, asked["l"], mem["logdet"], asked["logdet"])
		}
		smp := []float64{1, 0, 3, 2} // (T=2, P=2): mean (2, 1), cov [[1, 1], [1, 1]]
		run("cov", map[string]any{}, map[string]ArraySpec{"x": lendF64(smp, []int{2, 2}, 0)}, ptrOf(smp))
		if mean, cv := mem["mean"], mem["cov"]; mean[0] != 2 || mean[1] != 1 || !slices.Equal(cv, []float64{1, 1, 1, 1}) || !slices.Equal(asked["cov"], []int{2, 2}) {
			t.Errorf("%s: cov wrote mean %v, cov %v (asked %v)", s.Device.Name, mean, cv, asked["cov"])
		}
	}
}

// TestRefusedOutput: an output the caller refuses (nil) fails the call as
// bad input, naming it.
func TestRefusedOutput(t *testing.T) {
	s := openCPU(t)
	a := []float64{1, 2}
	c, err := NewCall(Request{Params: []byte(`{"stats": ["mean"]}`), Arrays: map[string]ArraySpec{"a": lendF64(a, []int{2}, 0)}}, []unsafe.Pointer{ptrOf(a)},
		func(string, string, []int, int64) unsafe.Pointer { return nil })
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Run(context.Background(), "reduce", c); Status(err, false) != StatusValue || !strings.Contains(err.Error(), "output mean") {
		t.Errorf("a refused output: got %v, want bad input naming mean", err)
	}
}

// TestCancelledCallAsksNothingMore: once a call's context is done it asks
// the caller for no more memory and writes nothing into what it was given
// (issue 41, defect 1: Python's KeyboardInterrupt has returned by then,
// and the memory may be its out=), and fails as cancelled.
func TestCancelledCallAsksNothingMore(t *testing.T) {
	s := openCPU(t)
	a := make([]float64, 1<<18)
	var tk Tokens
	id := tk.New()
	defer tk.Done(id)
	var asked []string
	var given []float64
	c, err := NewCall(Request{Params: []byte(`{"stats": ["mean", "var"], "axis": 0}`), Arrays: map[string]ArraySpec{"a": lendF64(a, []int{256, 1024}, 0)}},
		[]unsafe.Pointer{ptrOf(a)}, func(name, _ string, _ []int, nbytes int64) unsafe.Pointer {
			asked = append(asked, name)
			tk.Cancel(id) // Ctrl-C, as the first output is given
			given = make([]float64, nbytes/8)
			for i := range given {
				given[i] = -7
			}
			return ptrOf(given)
		})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Run(tk.Context(id), "reduce", c); Status(err, false) != StatusCancelled {
		t.Errorf("cancelled while its outputs were asked for: got %v, want cancelled", err)
	}
	if !slices.Equal(asked, []string{"mean"}) {
		t.Errorf("asked the caller for %v after the cancel, want [mean] only", asked)
	}
	for i, v := range given {
		if v != -7 {
			t.Fatalf("mean[%d] written (%g) after the cancel", i, v)
		}
	}
}

// TestMapMismatch: shapes or dtypes that differ are the caller's error,
// worded with both.
func TestMapMismatch(t *testing.T) {
	s := openCPU(t)
	x, y := []float64{1, 2, 3}, []float64{1, 2}
	arr := map[string]ArraySpec{"x": lendF64(x, []int{3}, 0), "y": lendF64(y, []int{2}, 1)}
	_, err := call(t, s, context.Background(), "map", nil, arr, ptrOf(x), ptrOf(y))
	if Status(err, false) != StatusValue || err.Error() != "shape mismatch: x is (3,) but y is (2,)" {
		t.Errorf("got %v (status %d), want the shape mismatch as bad input", err, Status(err, false))
	}
}

// TestReduceAxes: None flattens, a tuple of adjacent axes merges them,
// a tuple with a gap (0, 2) is reduced from a transposed copy, repeats and
// axes out of range are refused; the sums are checked against
// hand-computed ones.
func TestReduceAxes(t *testing.T) {
	s := openCPU(t)
	v := make([]float64, 24) // shape (2, 3, 4), v[i] = i
	for i := range v {
		v[i] = float64(i)
	}
	arr := map[string]ArraySpec{"a": lendF64(v, []int{2, 3, 4}, 0)}
	run := func(axis any) ([]float64, []int, error) {
		r, err := call(t, s, context.Background(), "reduce", map[string]any{"stats": []string{"sum"}, "axis": axis}, arr, ptrOf(v))
		if err != nil {
			return nil, nil, err
		}
		o := r.Outputs[0]
		return f64s(r, o), o.Shape, nil
	}
	got, shape, err := run(nil)
	if err != nil || len(shape) != 0 || got[0] != 276 {
		t.Errorf("axis None: got %v shape %v (%v), want 276 with shape ()", got, shape, err)
	}
	// the key left out: the description's default, axis 0 (null is a value:
	// every axis); x[0, j, k] + x[1, j, k] = 12 + 2(4j + k)
	r, err := call(t, s, context.Background(), "reduce", map[string]any{"stats": []string{"sum"}}, arr, ptrOf(v))
	if err != nil || fmt.Sprint(r.Outputs[0].Shape) != "[3 4]" || f64s(r, r.Outputs[0])[0] != 12 || f64s(r, r.Outputs[0])[11] != 34 {
		t.Errorf("no axis: %v, want axis 0's sums 12..34 of shape (3, 4)", err)
	}
	got, shape, err = run([]int{-2, -1})
	if err != nil || len(shape) != 1 || got[0] != 66 || got[1] != 210 {
		t.Errorf("axis (-2, -1): got %v shape %v (%v), want [66 210]", got, shape, err)
	}
	got, _, err = run(1)
	if err != nil || got[0] != 12 || got[4] != 48 {
		t.Errorf("axis 1: got %v (%v), want 12 at [0, 0] and 48 (12+16+20) at [1, 0]", got, err)
	}
	// Σ_i Σ_k (12i + 4j + k) = 48 + 32j + 12
	got, shape, err = run([]int{0, 2})
	if err != nil || len(shape) != 1 || got[0] != 60 || got[1] != 92 || got[2] != 124 {
		t.Errorf("axis (0, 2): got %v shape %v (%v), want [60 92 124]", got, shape, err)
	}
	for _, bad := range []any{[]int{1, 1}, "x"} {
		if _, _, err := run(bad); Status(err, false) != StatusValue {
			t.Errorf("axis %v: got %v, want bad input", bad, err)
		}
	}
	for _, bad := range []any{3, []int{0, -4}} { // NumPy's AxisError in Python
		if _, _, err := run(bad); Status(err, false) != StatusAxis {
			t.Errorf("axis %v: got %v (status %d), want StatusAxis", bad, err, Status(err, false))
		}
	}
}

// TestCholInfo: a matrix that is not positive definite gets its potrf
// code (the 1-based failing pivot) and NaN, the other is factored.
func TestCholInfo(t *testing.T) {
	s := openCPU(t)
	a := []float64{4, 2, 2, 3, 1, 2, 2, 1} // [[4,2],[2,3]] and [[1,2],[2,1]] (eigenvalue −1)
	r, err := call(t, s, context.Background(), "chol", map[string]bool{"logdet": true}, map[string]ArraySpec{"a": lendF64(a, []int{2, 2, 2}, 0)}, ptrOf(a))
	if err != nil {
		t.Fatal(err)
	}
	var info, logdet Output
	for _, o := range r.Outputs {
		switch o.Name {
		case "info":
			info = o
		case "logdet":
			logdet = o
		}
	}
	ib := r.call.Bytes(info)
	if info.DType != "int32" || binary.LittleEndian.Uint32(ib) != 0 || binary.LittleEndian.Uint32(ib[4:]) != 2 {
		t.Errorf("info %+v, want int32 [0 2]", info)
	}
	ld0, ld1 := f64s(r, logdet)[0], f64s(r, logdet)[1]
	if math.Abs(ld0-math.Log(8)) > 1e-14 || !math.IsNaN(ld1) {
		t.Errorf("logdet [%g %g], want [log 8, NaN]", ld0, ld1)
	}
}

// TestCancelledToken: a call under a cancelled token stops with
// StatusCancelled, and the session serves the next call.
func TestCancelledToken(t *testing.T) {
	s := openCPU(t)
	var tk Tokens
	id := tk.New()
	tk.Cancel(id)
	_, err := call(t, s, tk.Context(id), "verify", map[string]any{"ops": []string{"map"}}, nil)
	if Status(err, false) != StatusCancelled {
		t.Fatalf("cancelled verify: got %v, want cancelled", err)
	}
	tk.Done(id)
	if tk.Len() != 0 {
		t.Errorf("%d token(s) left after Done", tk.Len())
	}
	r, err := call(t, s, context.Background(), "verify", map[string]any{"ops": []string{"map"}, "precisions": []string{"float64"}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	rep := r.Info.(*VerifyReport)
	if rep.Passed != 4 || rep.Failed != 0 {
		t.Errorf("verify map float64 after a cancelled call: %d passed, %d failed; want 4 and 0", rep.Passed, rep.Failed)
	}
}

// TestStatus classifies errors as the Python side raises them.
func TestStatus(t *testing.T) {
	cases := []struct {
		err      error
		onDevice bool
		want     int
	}{
		{inputf("bad"), true, StatusValue},
		{context.Canceled, true, StatusCancelled},
		{errors.Join(errors.New("x"), engine.ErrOutOfMemory), false, StatusDevice},
		{errors.New("vkQueueSubmit: VK_ERROR_DEVICE_LOST"), true, StatusDevice},
		{errors.New("chol: empty"), false, StatusValue},
	}
	for _, c := range cases {
		if got := Status(c.err, c.onDevice); got != c.want {
			t.Errorf("Status(%v, %v) = %d, want %d", c.err, c.onDevice, got, c.want)
		}
	}
}

// TestHandles: the C side's integers round-trip and nothing stays after
// Close; a device is a name or an index (-1: the CPU path), not "".
func TestHandles(t *testing.T) {
	h, info, st, err := OpenHandle(`{"device": "cpu", "memory": "1GiB"}`)
	if err != nil || st != StatusOK || !strings.Contains(string(info), `"path":"cpu"`) {
		t.Fatalf("OpenHandle: %d %s %v", st, info, err)
	}
	x := []float64{1, 2}
	var out []float64
	alloc := func(name, dtype string, shape []int, nbytes int64) unsafe.Pointer {
		out = make([]float64, nbytes/8)
		return unsafe.Pointer(&out[0])
	}
	req := `{"params": {"stats": ["mean"]}, "arrays": {"a": {"dtype": "float64", "shape": [2], "nbytes": 16, "ptr": 0}}}`
	desc, st, err := CallHandle(h, 0, "reduce", []byte(req), []unsafe.Pointer{ptrOf(x)}, alloc)
	if err != nil || st != StatusOK || len(out) != 1 || out[0] != 1.5 || !strings.Contains(string(desc), `"buffer":0`) {
		t.Fatalf("CallHandle: %d %s %v, wrote %v; want 1.5 in buffer 0", st, desc, err, out)
	}
	if _, err := CloseHandle(h); err != nil {
		t.Fatal(err)
	}
	if _, st, _ := CallHandle(h, 0, "reduce", []byte(req), []unsafe.Pointer{ptrOf(x)}, alloc); st != StatusValue {
		t.Errorf("a call on a closed session: status %d, want %d", st, StatusValue)
	}
	for _, js := range []string{`{"device": -1}`, `{"device": "-1"}`} {
		h, info, st, err := OpenHandle(js)
		if err != nil || !strings.Contains(string(info), `"path":"cpu"`) {
			t.Errorf("OpenHandle(%s): %d %s %v; want the CPU path", js, st, info, err)
		}
		CloseHandle(h)
	}
	if s, tk := Live(); s != 0 || tk != 0 {
		t.Errorf("live after close: %d sessions, %d tokens", s, tk)
	}
	for js, want := range map[string]string{
		`{"device": "no-such-device"}`:      "no-such-device",
		`{"device": ""}`:                    "device: an empty name",
		`{"device": "cpu\u0000gpu"}`:        `cpu\x00gpu`,
		`{"device": 1.5}`:                   "device: want a name or an index",
		`{"device": "cpu", "disable": 123}`: "disable: want a string, got a number",
	} {
		if _, _, st, err := OpenHandle(js); st != StatusValue || !strings.Contains(fmt.Sprint(err), want) {
			t.Errorf("OpenHandle(%s): status %d, %v; want bad input containing %q", js, st, err, want)
		}
	}
}

// TestStackDatesBorrowed: complex64 dates are the caller's memory, read as
// interleaved (re, im) pairs: |S|² of hand-picked samples, averaged over the
// dates, is the mean; one date of another shape is refused, naming it.
func TestStackDatesBorrowed(t *testing.T) {
	s := openCPU(t)
	// Two 1×2 dates: (3+4i, 1) and (0, 2i): intensities (25, 1) and (0, 4).
	d0, d1 := []float32{3, 4, 1, 0}, []float32{0, 0, 0, 2}
	spec := func(ptr int) ArraySpec {
		return ArraySpec{DType: "complex64", Shape: []int{1, 2}, NBytes: 16, Ptr: ptr}
	}
	r, err := call(t, s, context.Background(), "stack", map[string]any{"stats": []string{"mean", "max"}},
		map[string]ArraySpec{"date0": spec(0), "date1": spec(1)}, ptrOf(d0), ptrOf(d1))
	if err != nil {
		t.Fatal(err)
	}
	mean := unsafe.Slice((*float32)(unsafe.Pointer(&r.call.Bytes(r.Outputs[0])[0])), 2)
	if r.Outputs[0].Name != "mean" || r.Outputs[1].Name != "max" || mean[0] != 12.5 || mean[1] != 2.5 {
		t.Errorf("outputs %s, %s: mean %v; want mean, max and [12.5 2.5]", r.Outputs[0].Name, r.Outputs[1].Name, mean)
	}
	bad := ArraySpec{DType: "complex64", Shape: []int{2, 1}, NBytes: 16, Ptr: 1}
	_, err = call(t, s, context.Background(), "stack", nil, map[string]ArraySpec{"date0": spec(0), "date1": bad}, ptrOf(d0), ptrOf(d1))
	var ie InputError
	if !errors.As(err, &ie) || !strings.Contains(err.Error(), "date1 is complex64 (2, 1), but date0 is complex64 (1, 2)") {
		t.Errorf("a date of another shape: got %v", err)
	}
}

// TestLatentRefusesOnDevice: options that do not fit the tensor are the
// input's fault (ValueError; an axis out of range NumPy's AxisError, a
// ValueError too) on a Vulkan device too, where any other failure is the
// device's.
func TestLatentRefusesOnDevice(t *testing.T) {
	s := openVulkan(t)
	x := make([]float32, 2*3*2*4*4)
	spec := map[string]ArraySpec{"x": {DType: "float32", Shape: []int{2, 3, 2, 4, 4}, NBytes: int64(4 * len(x))}}
	for _, p := range []map[string]any{
		{"stats": []string{"lagcorr"}, "lags": 2},
		{"stats": []string{"moments"}, "axes": []int{5}},
		{"stats": []string{"spectra"}, "nan": "drop"},
	} {
		_, err := call(t, s, context.Background(), "latent", p, spec, ptrOf(x))
		if st := Status(err, s.OnDevice()); st != StatusValue && (st != StatusAxis || p["axes"] == nil) {
			t.Errorf("%v: got %v (status %d); want a ValueError", p, err, Status(err, s.OnDevice()))
		}
	}
}

// pacoCall is a PACO request on a random (T, H, W) float32 cube with T
// angles over 90° and a Gaussian PSF of FWHM 2 (or arrays of its own).
func pacoCall(t *testing.T, T, H, W int, params map[string]any, arrays map[string]ArraySpec, ptrs ...unsafe.Pointer) *Call {
	t.Helper()
	cube := make([]float32, T*H*W)
	for i := range cube {
		cube[i] = float32(math.Sin(float64(i) * 12.9898))
	}
	angles := make([]float64, T)
	for i := range angles {
		angles[i] = 90 * float64(i) / float64(T-1)
	}
	if params == nil {
		params = map[string]any{"fwhm": 2.0, "radius": 2}
	}
	specs := map[string]ArraySpec{"cube": {DType: "float32", Shape: []int{T, H, W}, NBytes: int64(4 * len(cube)), Ptr: 0},
		"angles": lendF64(angles, []int{T}, 1)}
	all := []unsafe.Pointer{ptrOf(cube), ptrOf(angles)}
	for name, a := range arrays {
		a.Ptr += 2
		specs[name] = a
	}
	p, err := json.Marshal(params)
	if err != nil {
		t.Fatal(err)
	}
	c, err := NewCall(Request{Params: p, Arrays: specs}, append(all, ptrs...), nil)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// TestPacoCancelled: paco.Run hears the call's context: a cancelled token
// stops it (KeyboardInterrupt in Python) instead of running the analysis.
func TestPacoCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := runPaco(ctx, nil, pacoCall(t, 6, 16, 16, nil, nil))
	if Status(err, false) != StatusCancelled {
		t.Fatalf("a cancelled paco: got %v, want cancelled", err)
	}
	r, err := runPaco(context.Background(), nil, pacoCall(t, 6, 16, 16, nil, nil))
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, o := range r.Outputs {
		names = append(names, o.Name)
	}
	if got := strings.Join(names[:5], " "); got != "snr flux sigma psf detections.rank" {
		t.Errorf("outputs %v: want the maps, the PSF, then the detections' columns", names)
	}
}

// TestPacoRefusesOnDevice: a cube, angles, PSF or option paco.Run would
// refuse is the input's fault (ValueError) on a Vulkan device too, in the
// Python parameters' words.
func TestPacoRefusesOnDevice(t *testing.T) {
	s := openVulkan(t)
	even := make([]float64, 16)
	evenSpec := map[string]ArraySpec{"psf": lendF64(even, []int{4, 4}, 0)}
	cases := []struct {
		T, H, W int
		params  map[string]any
		arrays  map[string]ArraySpec
		want    string
	}{
		{1, 16, 16, nil, nil, "PACO needs at least 2"},
		{6, 16, 16, map[string]any{"fwhm": 2.0, "radius": 8}, nil, "radius 8 needs at least 17×17 pixels"},
		{6, 16, 16, map[string]any{"radius": 2}, evenSpec, "square with an odd size"},
		{6, 16, 16, map[string]any{"fwhm": 2.0, "radius": 2}, evenSpec, "give psf or fwhm, not both"},
		{6, 16, 16, map[string]any{"radius": 2}, nil, "give psf (the off-axis PSF stamp) or fwhm"},
		{6, 16, 16, map[string]any{"fwhm": 2.0, "radius": 0}, nil, "radius must be at least 1"},
		{6, 16, 16, map[string]any{"fwhm": 2.0, "radius": 2, "center": []float64{3, 20}}, nil, "center (3, 20) is outside the 16×16 frame"},
		{6, 16, 16, map[string]any{"fwhm": 2.0, "radius": 2, "pixel_scale": 0.0}, nil, "pixel_scale: want arcseconds per pixel"},
		{6, 16, 16, map[string]any{"fwhm": 2.0, "radius": 2, "star_flux": -1.0}, nil, "star_flux must be a finite number ≥ 0"},
		{6, 16, 16, map[string]any{"fwhm": 2.0, "radius": 2, "precision": "f16"}, nil, `precision "f16": want float32 or float64`},
		{6, 16, 16, map[string]any{"fwhm": 2.0, "radius": 2, "placement": "exact"}, nil, "unknown PSF placement"},
	}
	for _, cs := range cases {
		_, err := s.Run(context.Background(), "paco", pacoCall(t, cs.T, cs.H, cs.W, cs.params, cs.arrays, ptrOf(even)))
		if Status(err, s.OnDevice()) != StatusValue || !strings.Contains(err.Error(), cs.want) {
			t.Errorf("%+v: got %v (status %d); want a ValueError containing %q", cs.params, err, Status(err, s.OnDevice()), cs.want)
		}
	}
}
