package spirv

import (
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"testing"
)

// TestUniformsAsStorage: the uniform block of examples/shaders/
// uniform_params.comp, compiled for every target (SPIR-V 1.0, where
// storage buffers are BufferBlock, to 1.6, where they are StorageBuffer
// class), becomes a storage buffer with the same members and offsets, and
// the module still passes spirv-val for its target.
func TestUniformsAsStorage(t *testing.T) {
	for _, tool := range []string{"glslc", "spirv-val"} {
		if _, err := exec.LookPath(tool); err != nil {
			if os.Getenv("CI") == "true" {
				t.Fatalf("%s not found", tool)
			}
			t.Skipf("%s not found", tool)
		}
	}
	dir := t.TempDir()
	for _, env := range []string{"vulkan1.0", "vulkan1.1", "vulkan1.2", "vulkan1.3"} {
		spv := filepath.Join(dir, env+".spv")
		if out, err := exec.Command("glslc", "--target-env="+env, "../../examples/shaders/uniform_params.comp", "-o", spv).CombinedOutput(); err != nil {
			t.Fatalf("glslc: %v: %s", err, out)
		}
		code, err := os.ReadFile(spv)
		if err != nil {
			t.Fatal(err)
		}
		before, err := Reflect(code)
		if err != nil {
			t.Fatal(err)
		}
		out, err := UniformsAsStorage(code)
		if err != nil {
			t.Fatal(err)
		}
		after, err := Reflect(out)
		if err != nil {
			t.Fatal(err)
		}
		if before.Bindings[0].Kind != "uniform" || after.Bindings[0].Kind != "storage" {
			t.Errorf("%s: binding 0 is %s, then %s; want uniform, then storage", env, before.Bindings[0].Kind, after.Bindings[0].Kind)
		}
		for i := 1; i < 3; i++ {
			if !reflect.DeepEqual(before.Bindings[i], after.Bindings[i]) {
				t.Errorf("%s: binding %d changed: %+v, then %+v", env, i, before.Bindings[i], after.Bindings[i])
			}
		}
		if !reflect.DeepEqual(before.Bindings[0].Block, after.Bindings[0].Block) {
			t.Errorf("%s: the block changed: %+v, then %+v", env, before.Bindings[0].Block, after.Bindings[0].Block)
		}
		rewritten := filepath.Join(dir, env+"-storage.spv")
		if err := os.WriteFile(rewritten, out, 0o644); err != nil {
			t.Fatal(err)
		}
		if msg, err := exec.Command("spirv-val", "--target-env", env, rewritten).CombinedOutput(); err != nil {
			t.Errorf("%s: spirv-val: %v: %s", env, err, msg)
		}
	}
	if _, err := UniformsAsStorage([]byte("not a module at all!")); err == nil {
		t.Error("no error for bytes that are not SPIR-V")
	}
}

// TestUsesArrayLength: .length() is found (the guard bytes stay out of the
// range bound then), and a shader without it is not.
func TestUsesArrayLength(t *testing.T) {
	if _, err := exec.LookPath("glslc"); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("glslc not found")
		}
		t.Skip("glslc not found")
	}
	dir := t.TempDir()
	src := filepath.Join(dir, "len.comp")
	if err := os.WriteFile(src, []byte("#version 450\nlayout(local_size_x = 64) in;\nlayout(std430, binding = 0) buffer Y { float y[]; };\n"+
		"void main() { uint i = gl_GlobalInvocationID.x; if (i < y.length()) y[i] = 1.0; }\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for file, want := range map[string]bool{src: true, "../../examples/shaders/uniform_params.comp": false} {
		spv := filepath.Join(dir, filepath.Base(file)+".spv")
		if out, err := exec.Command("glslc", file, "-o", spv).CombinedOutput(); err != nil {
			t.Fatalf("glslc: %v: %s", err, out)
		}
		code, err := os.ReadFile(spv)
		if err != nil {
			t.Fatal(err)
		}
		if got := UsesArrayLength(code); got != want {
			t.Errorf("%s: UsesArrayLength = %v, want %v", file, got, want)
		}
	}
}
