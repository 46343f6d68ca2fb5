package capi

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"math"
	"os"
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
	c, err := NewCall(Request{Params: p, Arrays: arrays}, ptrs)
	if err != nil {
		return nil, err
	}
	return s.Run(ctx, op, c)
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
	c, err := NewCall(Request{Arrays: map[string]ArraySpec{"a": lendF64(v, []int{2, 3}, 0)}}, []unsafe.Pointer{ptrOf(v)})
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
		c, err := NewCall(Request{Arrays: map[string]ArraySpec{"a": cs.spec}}, p)
		if err == nil {
			_, err = c.Tensor("a", Floats...)
		}
		var ie InputError
		if err == nil || !errors.As(err, &ie) || !strings.Contains(err.Error(), cs.want) {
			t.Errorf("%+v: got %v, want an InputError containing %q", cs.spec, err, cs.want)
		}
	}
}

// TestMapWritesIntoOut: with an out array the map writes the caller's
// memory and reports it written, with nothing left to copy; the values are
// a·x² + b·y + c computed by hand, exact in float64 and in float32 (on a
// device without float64, SwiftShader's).
func TestMapWritesIntoOut(t *testing.T) {
	for _, s := range []*Session{openCPU(t), openVulkan(t)} {
		if s.Device.Float64 {
			mapIntoOut[float64](t, s, "float64")
		} else {
			mapIntoOut[float32](t, s, "float32")
		}
	}
}

func mapIntoOut[T float32 | float64](t *testing.T, s *Session, dtype string) {
	t.Helper()
	x, y, z := []T{1, 2, -3}, []T{0.5, -1, 2}, []T{0, 0, 0}
	lend := func(v []T, ptr int) ArraySpec {
		return ArraySpec{DType: dtype, Shape: []int{3}, NBytes: int64(len(v)) * int64(unsafe.Sizeof(v[0])), Ptr: ptr}
	}
	arr := map[string]ArraySpec{"x": lend(x, 0), "y": lend(y, 1), "out": lend(z, 2)}
	r, err := call(t, s, context.Background(), "map", map[string]float64{"a": 2, "b": 4, "c": 1}, arr, ptrOf(x), ptrOf(y), ptrOf(z))
	if err != nil {
		t.Fatalf("%s: %v", s.Device.Name, err)
	}
	want := []T{5, 5, 27} // 2·1+2+1, 2·4−4+1, 2·9+8+1
	for i := range want {
		if z[i] != want[i] {
			t.Errorf("%s: z[%d] = %g, want %g", s.Device.Name, i, z[i], want[i])
		}
	}
	if len(r.Outputs) != 1 || !r.Outputs[0].Written {
		t.Errorf("%s: outputs %+v, want z written", s.Device.Name, r.Outputs)
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
// others are refused; the sums are checked against hand-computed ones.
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
		out := make([]float64, o.NBytes/8)
		for i := range out {
			out[i] = math.Float64frombits(binary.LittleEndian.Uint64(o.data[8*i:]))
		}
		return out, o.Shape, nil
	}
	got, shape, err := run(nil)
	if err != nil || len(shape) != 0 || got[0] != 276 {
		t.Errorf("axis None: got %v shape %v (%v), want 276 with shape ()", got, shape, err)
	}
	got, shape, err = run([]int{-2, -1})
	if err != nil || len(shape) != 1 || got[0] != 66 || got[1] != 210 {
		t.Errorf("axis (-2, -1): got %v shape %v (%v), want [66 210]", got, shape, err)
	}
	got, _, err = run(1)
	if err != nil || got[0] != 12 || got[4] != 48 {
		t.Errorf("axis 1: got %v (%v), want 12 at [0, 0] and 48 (12+16+20) at [1, 0]", got, err)
	}
	for _, bad := range []any{[]int{0, 2}, 3, []int{1, 1}, "x"} {
		if _, _, err := run(bad); Status(err, false) != StatusValue {
			t.Errorf("axis %v: got %v, want bad input", bad, err)
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
	if info.DType != "int32" || binary.LittleEndian.Uint32(info.data) != 0 || binary.LittleEndian.Uint32(info.data[4:]) != 2 {
		t.Errorf("info %+v, want int32 [0 2]", info)
	}
	ld0 := math.Float64frombits(binary.LittleEndian.Uint64(logdet.data))
	ld1 := math.Float64frombits(binary.LittleEndian.Uint64(logdet.data[8:]))
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
// Close and Free.
func TestHandles(t *testing.T) {
	h, info, st, err := OpenHandle("cpu", `{"memory": "1GiB"}`)
	if err != nil || st != StatusOK || !strings.Contains(string(info), `"path":"cpu"`) {
		t.Fatalf("OpenHandle: %d %s %v", st, info, err)
	}
	x := []float64{1, 2}
	req := `{"params": {"stats": ["mean"]}, "arrays": {"a": {"dtype": "float64", "shape": [2], "nbytes": 16, "ptr": 0}}}`
	id, desc, st, err := CallHandle(h, 0, "reduce", []byte(req), []unsafe.Pointer{ptrOf(x)})
	if err != nil || st != StatusOK || id == 0 {
		t.Fatalf("CallHandle: %d %s %v", st, desc, err)
	}
	dst := make([]byte, 8)
	if err := CopyResult(id, 0, dst); err != nil || math.Float64frombits(binary.LittleEndian.Uint64(dst)) != 1.5 {
		t.Errorf("CopyResult: %v %v, want 1.5", dst, err)
	}
	if err := CopyResult(id, 0, make([]byte, 4)); err == nil {
		t.Errorf("CopyResult into 4 bytes: no error")
	}
	FreeResult(id)
	if _, err := CloseHandle(h); err != nil {
		t.Fatal(err)
	}
	if _, _, st, _ := CallHandle(h, 0, "reduce", []byte(req), []unsafe.Pointer{ptrOf(x)}); st != StatusValue {
		t.Errorf("a call on a closed session: status %d, want %d", st, StatusValue)
	}
	if s, r, tk := Live(); s != 0 || r != 0 || tk != 0 {
		t.Errorf("live after close: %d sessions, %d results, %d tokens", s, r, tk)
	}
	if _, _, st, err := OpenHandle("no-such-device", ""); st == StatusOK {
		t.Errorf("OpenHandle on a device that does not exist: no error (%v)", err)
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
	mean := unsafe.Slice((*float32)(unsafe.Pointer(&r.Outputs[0].data[0])), 2)
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
// input's fault (ValueError) on a Vulkan device too, where any other
// failure is the device's.
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
		if Status(err, s.OnDevice()) != StatusValue {
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
	c, err := NewCall(Request{Params: p, Arrays: specs}, append(all, ptrs...))
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
		{6, 16, 16, map[string]any{"fwhm": 2.0, "radius": 8}, nil, "patch radius 8 needs at least 17×17 pixels"},
		{6, 16, 16, map[string]any{"radius": 2}, evenSpec, "square with an odd size"},
		{6, 16, 16, map[string]any{"fwhm": 2.0, "radius": 2}, evenSpec, "give psf or fwhm, not both"},
		{6, 16, 16, map[string]any{"radius": 2}, nil, "give psf (the off-axis PSF stamp) or fwhm"},
		{6, 16, 16, map[string]any{"fwhm": 2.0, "radius": 0}, nil, "radius must be at least 1"},
		{6, 16, 16, map[string]any{"fwhm": 2.0, "radius": 2, "center": "given", "center_yx": []float64{3, 20}}, nil, "centre (3, 20) is outside the 16×16 frame"},
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
