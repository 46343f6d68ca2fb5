package capi

import (
	"context"
	"errors"
	"os"
	"strings"
	"testing"
	"unsafe"
)

// TestShader runs the shader op on a Vulkan device, on the source of
// examples/shaders/iterate.comp: x ← x/2 + 1 as one step dispatched 10 times, the whole 2 times, every value exact in
// float32 (2 + (x₀ − 2)/2²⁰); the caller's array is left as it was; the
// CPU path and a shader naming no array are refused as bad input.
func TestShader(t *testing.T) {
	x := make([]float32, 300)
	for i := range x {
		x[i] = float32(i % 9)
	}
	src, err := os.ReadFile("../examples/shaders/iterate.comp")
	if err != nil {
		t.Fatal(err)
	}
	iterate := string(src)
	arrays := map[string]ArraySpec{"x": {DType: "float32", Shape: []int{300}, NBytes: 1200, Ptr: 0}}
	params := map[string]any{"times": 2, "repeat": 2, "steps": []map[string]any{{
		"source": iterate, "name": "iterate.comp", "bind": map[string]string{"x": "x"}, "times": 10,
		"push": map[string]string{"a": "0.5", "b": "1", "n": "300"}, "global": []int{300}}}}
	s := openVulkan(t)
	r, err := call(t, s, context.Background(), "shader", params, arrays, ptrOf(x))
	if err != nil {
		t.Fatal(err)
	}
	info := r.Info.(*ShaderInfo)
	if len(r.Outputs) != 1 || r.Outputs[0].Name != "x" || r.Outputs[0].DType != "float32" || info.Dispatches != 20 || len(info.GPUms) != 2 {
		t.Fatalf("outputs %+v, info %+v", r.Outputs, info)
	}
	b := r.call.Bytes(r.Outputs[0])
	got := unsafe.Slice((*float32)(unsafe.Pointer(unsafe.SliceData(b))), 300)
	for i, v := range got {
		if want := 2 + (float32(i%9)-2)/(1<<20); v != want || x[i] != float32(i%9) {
			t.Fatalf("x[%d] = %v (given %v); want %v, the given array unchanged", i, v, x[i], want)
		}
	}
	bad := map[string]any{"steps": []map[string]any{{"source": iterate, "bind": map[string]string{"x": "y"}, "global": []int{300}}}}
	var ie InputError
	if _, err := call(t, s, context.Background(), "shader", bad, arrays, ptrOf(x)); !errors.As(err, &ie) || !strings.Contains(err.Error(), `no buffer "y"; the sequence has x`) {
		t.Errorf("an unknown array: %v", err)
	}
	if _, err := call(t, openCPU(t), context.Background(), "shader", params, arrays, ptrOf(x)); !errors.As(err, &ie) || !strings.Contains(err.Error(), "Vulkan devices") {
		t.Errorf("the CPU path: %v", err)
	}
}
