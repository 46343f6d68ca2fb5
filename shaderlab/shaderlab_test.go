package shaderlab_test

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/vkstat/vkstat/device/testdev"
	"github.com/vkstat/vkstat/engine"
	"github.com/vkstat/vkstat/shaderlab"
)

func compile(t *testing.T, name, src string) *shaderlab.Shader {
	t.Helper()
	sh, err := shaderlab.Compile(name, []byte(src), shaderlab.CompileOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return sh
}

// tile has a specialization constant for its local size and a fixed-size
// block.
const tile = `#version 450
layout(constant_id = 0) const uint TILE = 16;
layout(local_size_x_id = 0, local_size_y_id = 0) in;
layout(std430, binding = 0) buffer Out { float v[]; };
layout(std430, binding = 1) readonly buffer Params { uint scale[4]; };
layout(push_constant) uniform P { uint rows; float gain; } p;
void main() { v[gl_GlobalInvocationID.x] *= p.gain * float(scale[0] + TILE); }
`

// TestPlanErrors: each setting the shader cannot take is named by its
// field and index, with what the shader has instead; a plan without data
// or dispatch gets its typed error.
func TestPlanErrors(t *testing.T) {
	sh := compile(t, "tile.comp", tile)
	v, params := float32s(make([]float32, 64)...), &shaderlab.Array{Elem: "uint32", Shape: []int{4}, Data: make([]byte, 16)}
	ok := shaderlab.Options{Bind: []shaderlab.Bind{{Name: "v", Data: v}, {Name: "Params", Data: params}}, Groups: [3]uint32{1}}
	for _, c := range []struct {
		name  string
		edit  func(o *shaderlab.Options)
		field string
		index int
		want  string
	}{
		{"unknown binding", func(o *shaderlab.Options) { o.Bind[1].Name = "w" }, "Bind", 1, `no binding "w"; the shader has binding 0 (v), binding 1 (scale)`},
		{"bound twice", func(o *shaderlab.Options) { o.Bind[1] = shaderlab.Bind{Name: "0", Data: v} }, "Bind", 1, "binding 0 (v) is bound twice"},
		{"unknown push constant", func(o *shaderlab.Options) {
			o.Push = []shaderlab.Setting{{Name: "rows", Value: "1"}, {Name: "cols", Value: "1"}}
		}, "Push", 1, `no push constant "cols"; the block P has rows, gain`},
		{"push value", func(o *shaderlab.Options) { o.Push = []shaderlab.Setting{{Name: "rows", Value: "-1"}} }, "Push", 0, `"-1" is not a uint32`},
		{"unknown spec constant", func(o *shaderlab.Options) { o.Spec = []shaderlab.Setting{{Name: "WIDTH", Value: "8"}} }, "Spec", 0, `no specialization constant "WIDTH"; the shader has 0 (TILE)`},
		{"spec value", func(o *shaderlab.Options) { o.Spec = []shaderlab.Setting{{Name: "0", Value: "x"}} }, "Spec", 0, `"x" is not a uint32`},
	} {
		t.Run(c.name, func(t *testing.T) {
			o := ok
			o.Bind = append([]shaderlab.Bind(nil), ok.Bind...)
			c.edit(&o)
			_, err := shaderlab.NewPlan(sh, o)
			var se *shaderlab.SettingError
			if !errors.As(err, &se) || se.Field != c.field || se.Index != c.index || se.Err.Error() != c.want {
				t.Errorf("got %v; want %s[%d]: %s", err, c.field, c.index, c.want)
			}
		})
	}

	var nd *shaderlab.NoDataError
	if _, err := shaderlab.NewPlan(sh, shaderlab.Options{Bind: ok.Bind[:1], Groups: [3]uint32{1}}); !errors.As(err, &nd) || nd.Binding.Binding != 1 {
		t.Errorf("binding 1 without data: %v", err)
	}
	var de *shaderlab.DispatchError
	o := ok
	o.Groups, o.Spec = [3]uint32{}, []shaderlab.Setting{{Name: "TILE", Value: "4"}}
	if _, err := shaderlab.NewPlan(sh, o); !errors.As(err, &de) || de.Both || de.Local != [3]uint32{4, 4, 1} {
		t.Errorf("no dispatch: %v (%+v); want a DispatchError with the local size 4×4×1", err, de)
	}
	o.Groups, o.Global = [3]uint32{1}, [3]uint64{1}
	if _, err := shaderlab.NewPlan(sh, o); !errors.As(err, &de) || !de.Both {
		t.Errorf("two dispatches: %v", err)
	}
	o.Bind = []shaderlab.Bind{{Name: "v", Data: v}, {Name: "Params", Data: float32s(1, 2, 3, 4)}}
	if _, err := shaderlab.NewPlan(sh, o); err == nil || err.Error() != "binding 1 (scale): the data is float32(4,), but the block holds uint32" {
		t.Errorf("wrong element type: %v", err)
	}
}

// TestPlanLayout: push constants land at their members' offsets, the
// specialization constants shape the local size, and Global is divided
// by it, rounded up.
func TestPlanLayout(t *testing.T) {
	sh := compile(t, "tile.comp", tile)
	p, err := shaderlab.NewPlan(sh, shaderlab.Options{
		Bind: []shaderlab.Bind{{Name: "v", Data: float32s(make([]float32, 4096)...)}, {Name: "1", Data: &shaderlab.Array{Elem: "uint32", Shape: []int{4}, Data: make([]byte, 16)}}},
		Push: []shaderlab.Setting{{Name: "gain", Value: "0.5"}, {Name: "rows", Value: "0x10"}},
		Spec: []shaderlab.Setting{{Name: "TILE", Value: "8"}},
		// 100 invocations along x in tiles of 8: 13 workgroups; y as given.
		Global: [3]uint64{100, 17},
	})
	if err != nil {
		t.Fatal(err)
	}
	want := []byte{16, 0, 0, 0, 0, 0, 0, 0x3f} // 16, then 0.5 = 0x3f000000
	if string(p.Push) != string(want) || p.Spec[0] != 8 || p.Local != [3]uint32{8, 8, 1} || p.Groups != [3]uint32{13, 3, 1} {
		t.Errorf("push % x, spec %v, local %v, groups %v; want % x, [8], [8 8 1], [13 3 1]", p.Push, p.Spec, p.Local, p.Groups, want)
	}
	// v read and written: twice its 16384 bytes; Params read once.
	if n := p.BytesMoved(); n != 2*16384+16 {
		t.Errorf("BytesMoved %d, want %d", n, 2*16384+16)
	}
}

// TestPlanReach: a runtime array indexed by gl_GlobalInvocationID.x, with
// the index compared with a push constant, must hold that many elements.
func TestPlanReach(t *testing.T) {
	sh := compile(t, "saxpy.comp", saxpy)
	opt := func(ny int) shaderlab.Options {
		y := float32s(make([]float32, ny)...)
		y.Source = "y.npy"
		return shaderlab.Options{Bind: []shaderlab.Bind{{Name: "x", Data: float32s(make([]float32, 1000)...)}, {Name: "y", Data: y}},
			Push: []shaderlab.Setting{{Name: "n", Value: "1000"}}, Global: [3]uint64{1000}}
	}
	_, err := shaderlab.NewPlan(sh, opt(999))
	if err == nil || !strings.Contains(err.Error(), "binding 1 (y): the shader indexes y[] with gl_GlobalInvocationID.x and the dispatch reaches element 999 (1024 invocations along x, 1000 of them below the values the index is compared with), but y.npy gives it 999 elements: bind at least 1000") {
		t.Errorf("y one short: %v", err)
	}
	if _, err := shaderlab.NewPlan(sh, opt(1000)); err != nil {
		t.Errorf("y long enough: %v", err)
	}
}

// TestCompare on values worked by hand: got 1, 2, NaN, 4, 7 against want
// 1, 2.5, NaN, 2, NaN.
func TestCompare(t *testing.T) {
	got := &shaderlab.Array{Elem: "float64", Shape: []int{5}, Data: make([]byte, 40)}
	for i, v := range []float64{1, 2, math.NaN(), 4, 7} {
		binary.LittleEndian.PutUint64(got.Data[8*i:], math.Float64bits(v))
	}
	want := float32s(1, 2.5, float32(math.NaN()), 2, float32(math.NaN()))
	d, err := shaderlab.Compare(got, want)
	if err != nil {
		t.Fatal(err)
	}
	// |errors| 0, 0.5, -, 2: max 2, over max |want| 2.5; Σe² 4.25 over Σw² 11.25.
	if d.MaxAbs != 2 || d.MaxRel != 0.8 || math.Abs(d.NMSE-4.25/11.25) > 1e-15 || d.NaNs != 1 || d.OK(1) {
		t.Errorf("got %+v; want MaxAbs 2, MaxRel 0.8, NMSE %g, 1 NaN mismatch, not OK", d, 4.25/11.25)
	}
	if _, err := shaderlab.Compare(got, float32s(1)); err == nil || err.Error() != "5 elements, expected 1" {
		t.Errorf("length mismatch: %v", err)
	}
}

// TestCheckFeatures: a device without float64 is named, with what it
// lacks, for a shader needing Float64.
func TestCheckFeatures(t *testing.T) {
	mod := &shaderlab.Module{Capabilities: []string{"Shader", "Float64", "GroupNonUniformArithmetic"}}
	info := engine.DeviceInfo{Name: "Old GPU", Float64: false, SubgroupOps: []string{"basic"}, MaxSharedMemory: 16384}
	err := shaderlab.CheckFeatures(mod, info, 20000)
	if err == nil || !strings.Contains(err.Error(), "Old GPU lacks: Float64 (shaderFloat64); GroupNonUniformArithmetic") ||
		!strings.Contains(err.Error(), "20000 bytes of shared memory (the device has 16384)") {
		t.Errorf("got %v", err)
	}
	info.Float64, info.SubgroupOps = true, []string{"basic", "arithmetic"}
	if err := shaderlab.CheckFeatures(mod, info, 16384); err != nil {
		t.Errorf("a capable device refused: %v", err)
	}
	// Issue 25, item 10: what vkstat does not enable is refused, known or
	// not (a buffer_reference shader crashed lavapipe with SIGSEGV).
	for _, c := range []string{"PhysicalStorageBufferAddresses", "VariablePointersStorageBuffer", "VulkanMemoryModel", "Capability9999"} {
		if err := shaderlab.CheckFeatures(&shaderlab.Module{Capabilities: []string{"Shader", c}}, info, 0); err == nil || !strings.Contains(err.Error(), c) {
			t.Errorf("%s: %v; want a refusal naming it", c, err)
		}
	}
	// Issue 45, item 1: 16-bit storage, the memory model and the integer
	// dot product run where the device offers the feature, and a refusal
	// names the feature, with the Vulkan version where that is what lacks.
	mod = &shaderlab.Module{Capabilities: []string{"Shader", "StorageBuffer16BitAccess", "Float16", "VulkanMemoryModel", "DotProduct"}}
	info = engine.DeviceInfo{Name: "GPU", APIVersion: "1.3.250", ShaderFeatures: []string{"storageBuffer16BitAccess", "shaderFloat16", "vulkanMemoryModel", "shaderIntegerDotProduct"}}
	if err := shaderlab.CheckFeatures(mod, info, 0); err != nil {
		t.Errorf("a device with the features refused: %v", err)
	}
	info.ShaderFeatures = []string{"vulkanMemoryModel"}
	err = shaderlab.CheckFeatures(mod, info, 0)
	if want := "GPU lacks: StorageBuffer16BitAccess (storageBuffer16BitAccess: the device does not offer it); Float16 (shaderFloat16: the device does not offer it); DotProduct (shaderIntegerDotProduct: the device does not offer it)"; err == nil || err.Error() != "the shader needs what "+want {
		t.Errorf("got %v; want ...%s", err, want)
	}
	info.APIVersion = "1.2.0"
	if err := shaderlab.CheckFeatures(mod, info, 0); err == nil || !strings.Contains(err.Error(), "DotProduct (shaderIntegerDotProduct: a Vulkan 1.3 feature; the device runs at Vulkan 1.2)") {
		t.Errorf("a Vulkan 1.2 device: %v", err)
	}
}

// TestWatch: the callback runs at once, again after its file changes (the
// first run edits it), and Watch stops when it says so, or when its
// context ends.
func TestWatch(t *testing.T) {
	file := filepath.Join(t.TempDir(), "a.comp")
	if err := os.WriteFile(file, []byte("v1"), 0o644); err != nil {
		t.Fatal(err)
	}
	runs := 0
	err := shaderlab.Watch(context.Background(), func() []string { return []string{file} }, time.Millisecond, func() bool {
		runs++
		if runs == 1 {
			if err := os.WriteFile(file, []byte("version 2"), 0o644); err != nil {
				t.Error(err)
			}
		}
		return runs < 2
	})
	if err != nil || runs != 2 {
		t.Errorf("Watch: %v after %d runs; want nil after 2", err, runs)
	}
	ctx, cancel := context.WithCancel(context.Background())
	runs = 0
	err = shaderlab.Watch(ctx, func() []string { return []string{file} }, time.Millisecond, func() bool { runs++; cancel(); return true })
	if !errors.Is(err, context.Canceled) || runs != 1 {
		t.Errorf("cancelled Watch: %v after %d runs; want context.Canceled after 1", err, runs)
	}
}

// TestFolderLoader: a variant is compiled from the listed source with its
// defines; a name not listed is an error naming the list; a folder without
// variants.txt gives its NAME.spv files as they are.
func TestFolderLoader(t *testing.T) {
	dir := t.TempDir()
	src := "#version 450\nlayout(local_size_x = WG) in;\nlayout(std430, binding = 0) buffer B { float v[]; };\nvoid main() { v[gl_GlobalInvocationID.x] = 1.0; }\n"
	if os.WriteFile(filepath.Join(dir, "k.comp"), []byte(src), 0o644) != nil ||
		os.WriteFile(filepath.Join(dir, "variants.txt"), []byte("# name source defines\nk_32 k.comp -DWG=32\n"), 0o644) != nil {
		t.Fatal("writing the sources")
	}
	load := shaderlab.FolderLoader(dir)
	code, err := load("k_32")
	if err != nil {
		t.Fatal(err)
	}
	sh, err := shaderlab.Compile("k_32.spv", code, shaderlab.CompileOptions{})
	if err != nil || sh.Module.LocalSize[0] != 32 {
		t.Errorf("k_32: %v, local size %v; want 32", err, sh.Module.LocalSize)
	}
	if _, err := load("k_64"); err == nil || !strings.Contains(err.Error(), "shader k_64 is not listed in "+filepath.Join(dir, "variants.txt")) {
		t.Errorf("k_64: %v", err)
	}
	spv := t.TempDir()
	if err := os.WriteFile(filepath.Join(spv, "k_32.spv"), code, 0o644); err != nil {
		t.Fatal(err)
	}
	load = shaderlab.FolderLoader(spv)
	if got, err := load("k_32"); err != nil || !bytes.Equal(got, code) {
		t.Errorf("k_32.spv: %d bytes, %v; want the %d written", len(got), err, len(code))
	}
	if _, err := load("k_64"); !errors.Is(err, fs.ErrNotExist) || !strings.HasPrefix(err.Error(), "shader k_64: ") {
		t.Errorf("no k_64.spv: %v", err)
	}
}

// TestRun runs saxpy on every Vulkan device, twice, on values whose
// results are exact in float32 (2.5·x + y for small integers), and holds
// the outputs to them bit for bit.
func TestRun(t *testing.T) {
	const n = 1000
	x, y, want := make([]float32, n), make([]float32, n), make([]float32, n)
	for i := range x {
		x[i], y[i] = float32(i%17), float32(i%5-2)
		want[i] = 2.5*x[i] + y[i]
	}
	var progress []int
	p, err := shaderlab.NewPlan(compile(t, "saxpy.comp", saxpy), shaderlab.Options{
		Bind:     []shaderlab.Bind{{Name: "x", Data: float32s(x...)}, {Name: "y", Data: float32s(y...)}},
		Push:     []shaderlab.Setting{{Name: "a", Value: "2.5"}, {Name: "n", Value: "1000"}},
		Global:   [3]uint64{n},
		Repeat:   2,
		Progress: func(done, total int) { progress = append(progress, done, total) },
	})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.Run(context.Background(), nil); !errors.Is(err, shaderlab.ErrNoDevice) {
		t.Errorf("running on the CPU path: %v", err)
	}
	for _, dev := range testdev.Devices(t) {
		progress = nil
		r, err := p.Run(context.Background(), dev)
		if err != nil {
			t.Fatalf("%s: %v", dev.Info.Name, err)
		}
		if r.Device != dev.Info.Name || len(r.Kernel) != 2 || len(progress) != 4 || progress[2] != 2 || progress[3] != 2 {
			t.Errorf("%s: device %q, %d GPU times, progress %v", dev.Info.Name, r.Device, len(r.Kernel), progress)
		}
		if d, err := shaderlab.Compare(r.Outputs[1], float32s(want...)); err != nil || d.MaxAbs != 0 || d.NaNs != 0 {
			t.Errorf("%s: y %v %v; want exactly 2.5·x + y", dev.Info.Name, d, err)
		}
		if d, err := shaderlab.Compare(r.Outputs[0], float32s(x...)); err != nil || d.MaxAbs != 0 {
			t.Errorf("%s: x, read only, changed: %v %v", dev.Info.Name, d, err)
		}
	}
}

// TestWorst: the verdict of the largest relative error, the zero Diff for
// none.
func TestWorst(t *testing.T) {
	vs := []shaderlab.Verdict{{Diff: shaderlab.Diff{MaxRel: 0.1, MaxAbs: 1}}, {Diff: shaderlab.Diff{MaxRel: 0.3, MaxAbs: 2}}, {Diff: shaderlab.Diff{MaxRel: 0.2}}}
	if w := shaderlab.Worst(vs); w.MaxRel != 0.3 || w.MaxAbs != 2 {
		t.Errorf("Worst = %+v", w)
	}
	if w := shaderlab.Worst(nil); w != (shaderlab.Diff{}) {
		t.Errorf("shaderlab.Worst(nil) = %+v", w)
	}
}

// TestSequence runs two sequences on every Vulkan device, their buffers
// staying on the device between dispatches: the two passes of a
// reduction (examples/shaders/reduce_shared.comp over NumPy's data into
// 16 partial sums, then over those into one), held to NumPy's partial
// sums (reduce_expected.npy) and their float64 total; and an iteration,
// x ← x/2 + 1 dispatched 20 times, whose every value is exact in float32:
// 2 + (x₀ − 2)/2²⁰.
func TestSequence(t *testing.T) {
	dir := filepath.Join("..", "examples", "shaders")
	red, err := shaderlab.Load(filepath.Join(dir, "reduce_shared.comp"), shaderlab.CompileOptions{})
	if err != nil {
		t.Fatal(err)
	}
	data, err := shaderlab.ReadNPY(filepath.Join(dir, "reduce_in.npy"))
	if err != nil {
		t.Fatal(err)
	}
	partsWant, err := shaderlab.ReadNPY(filepath.Join(dir, "reduce_expected.npy"))
	if err != nil {
		t.Fatal(err)
	}
	total := 0.0
	for _, v := range partsWant.Values() {
		total += v
	}
	zeros := func(n int) *shaderlab.Array {
		return &shaderlab.Array{Elem: "float32", Shape: []int{n}, Data: make([]byte, 4*n)}
	}
	buffers := []shaderlab.Buffer{{Name: "data", Data: data}, {Name: "parts", Data: zeros(16)}, {Name: "total", Data: zeros(1)}}
	steps := []shaderlab.Step{
		{Shader: red, Options: shaderlab.Options{
			Bind: []shaderlab.Bind{{Name: "data", Buffer: "data"}, {Name: "sums", Buffer: "parts"}},
			Push: []shaderlab.Setting{{Name: "n", Value: "4000"}, {Name: "chunk", Value: "250"}}, Groups: [3]uint32{16}}},
		{Shader: red, Options: shaderlab.Options{
			Bind: []shaderlab.Bind{{Name: "data", Buffer: "parts"}, {Name: "sums", Buffer: "total"}},
			Push: []shaderlab.Setting{{Name: "n", Value: "16"}, {Name: "chunk", Value: "16"}}, Groups: [3]uint32{1}}},
	}
	twoPass, err := shaderlab.NewSequence(buffers, steps, shaderlab.Options{Repeat: 3, Warmup: 1})
	if err != nil {
		t.Fatal(err)
	}
	bad := slices.Clone(steps)
	bad[1].Options.Bind = []shaderlab.Bind{{Name: "data", Buffer: "part"}, {Name: "sums", Buffer: "total"}}
	if _, err := shaderlab.NewSequence(buffers, bad, shaderlab.Options{}); err == nil || err.Error() != `step 2 (reduce_shared.comp): Bind[0]: no buffer "part"; the sequence has data, parts, total` {
		t.Errorf("an unknown buffer: %v", err)
	}

	iterate, err := shaderlab.Load(filepath.Join(dir, "iterate.comp"), shaderlab.CompileOptions{})
	if err != nil {
		t.Fatal(err)
	}
	const n = 1000
	x0, want := make([]float32, n), make([]float32, n)
	for i := range x0 {
		x0[i] = float32(i % 17)
		want[i] = 2 + (x0[i]-2)/(1<<20)
	}
	iter, err := shaderlab.NewSequence([]shaderlab.Buffer{{Name: "x", Data: float32s(x0...)}}, []shaderlab.Step{{
		Shader: iterate, Times: 20,
		Options: shaderlab.Options{Bind: []shaderlab.Bind{{Name: "x", Buffer: "x"}},
			Push: []shaderlab.Setting{{Name: "a", Value: "0.5"}, {Name: "b", Value: "1"}, {Name: "n", Value: "1000"}}, Global: [3]uint64{n}},
	}}, shaderlab.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, dev := range testdev.Devices(t) {
		r, err := twoPass.Run(context.Background(), dev)
		if err != nil {
			t.Fatalf("%s: %v", dev.Info.Name, err)
		}
		if len(r.Kernel) != 3 || r.Build <= 0 || r.First < r.Build {
			t.Errorf("%s: %d GPU times (want 3 after a warm-up), build %v, first run %v", dev.Info.Name, len(r.Kernel), r.Build, r.First)
		}
		if d, err := shaderlab.Compare(r.Outputs[1], partsWant); err != nil || d.MaxRel > 1e-6 {
			t.Errorf("%s: partial sums %v %v", dev.Info.Name, d, err)
		}
		if got := r.Outputs[2].Values()[0]; math.Abs(got-total) > 1e-6*math.Abs(total)+1e-6 {
			t.Errorf("%s: total %v; want %v", dev.Info.Name, got, total)
		}
		r, err = iter.Run(context.Background(), dev)
		if err != nil {
			t.Fatalf("%s: %v", dev.Info.Name, err)
		}
		if d, err := shaderlab.Compare(r.Outputs[0], float32s(want...)); err != nil || d.MaxAbs != 0 {
			t.Errorf("%s: x after 20 steps %v %v; want exactly 2 + (x₀ − 2)/2²⁰", dev.Info.Name, d, err)
		}
	}
}

// TestRandom: random inputs follow from the seed and the name, floats in
// [-1, 1), integers in [-100, 100] (unsigned [0, 100]).
func TestRandom(t *testing.T) {
	a, err := shaderlab.Random("float32", []int{100, 10}, 3, "x")
	if err != nil {
		t.Fatal(err)
	}
	same, _ := shaderlab.Random("float32", []int{100, 10}, 3, "x")
	other, _ := shaderlab.Random("float32", []int{100, 10}, 3, "y")
	seed, _ := shaderlab.Random("float32", []int{100, 10}, 4, "x")
	if !slices.Equal(a.Data, same.Data) || slices.Equal(a.Data, other.Data) || slices.Equal(a.Data, seed.Data) {
		t.Error("random data do not follow from the seed and the name alone")
	}
	lo, hi := 0.0, 0.0
	for _, v := range a.Values() {
		lo, hi = min(lo, v), max(hi, v)
	}
	if lo < -1 || hi >= 1 || lo > -0.9 || hi < 0.9 {
		t.Errorf("float32 in [%g, %g]; want spread over [-1, 1)", lo, hi)
	}
	for _, c := range []struct {
		elem   string
		lo, hi float64
	}{{"int32", -100, 100}, {"uint16", 0, 100}, {"float16", -1, 1}} {
		r, err := shaderlab.Random(c.elem, []int{1000}, 1, "x")
		if err != nil {
			t.Fatal(err)
		}
		for _, v := range r.Values() {
			if v < c.lo || v > c.hi {
				t.Errorf("%s: %g outside [%g, %g]", c.elem, v, c.lo, c.hi)
				break
			}
		}
	}
	if _, err := shaderlab.Random("float8", []int{4}, 1, "x"); err == nil {
		t.Error("no error for float8")
	}
}

// TestRunsTrend: no trend before two timed runs; then the last time's
// change against the one before (6 ms → 3 ms is −50 %) and the last n+1
// times.
func TestRunsTrend(t *testing.T) {
	var h shaderlab.Runs
	if _, recent := h.Trend(4); recent != nil {
		t.Errorf("no runs: trend %v", recent)
	}
	h.Times = []time.Duration{2 * time.Millisecond}
	if _, recent := h.Trend(4); recent != nil {
		t.Errorf("one run: trend %v", recent)
	}
	ms := time.Millisecond
	h.Times = []time.Duration{2 * ms, ms, 3 * ms / 2, 3 * ms, 6 * ms, 3 * ms}
	change, recent := h.Trend(4)
	if change != -0.5 || !slices.Equal(recent, h.Times[1:]) {
		t.Errorf("change %v, recent %v; want -0.5 and the last 5", change, recent)
	}
}
