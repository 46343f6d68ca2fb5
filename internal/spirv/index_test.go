package spirv_test

import (
	"encoding/binary"
	"errors"
	"reflect"
	"testing"

	"github.com/vkstat/vkstat/internal/glsl"
	"github.com/vkstat/vkstat/internal/spirv"
)

// Issue 25, item 9: which bindings a shader indexes with
// gl_GlobalInvocationID.x, and what it compares that index with, read
// from the code glslang makes (unoptimised and optimised).
func TestGIDIndexing(t *testing.T) {
	const head = "#version 450\nlayout(local_size_x = 64) in;\n" +
		"layout(std430, binding = 0) readonly buffer X { float x[]; };\n" +
		"layout(std430, binding = 1) buffer Y { float y[]; };\n" +
		"layout(push_constant) uniform P { float a; uint n; int m; } p;\n"
	push := func(a float32, n uint32, m int32) []byte {
		b := make([]byte, 12)
		binary.LittleEndian.PutUint32(b[4:], n)
		binary.LittleEndian.PutUint32(b[8:], uint32(m))
		return b
	}
	for _, c := range []struct {
		name, body string
		bindings   []uint32
		unknown    bool
		reach      uint64 // of 1024 invocations, with n = 1000 and m = 300; 0: cannot be told
	}{
		{"guarded by n", "void main() { uint i = gl_GlobalInvocationID.x; if (i < p.n) { y[i] = p.a * x[i] + y[i]; } }", []uint32{0, 1}, false, 1000},
		{"early return", "void main() { uint i = gl_GlobalInvocationID.x; if (i >= p.n) return; y[i] = x[i]; }", []uint32{0, 1}, false, 1000},
		{"signed", "void main() { int i = int(gl_GlobalInvocationID.x); if (i < p.m) { y[i] = 1.0; } }", []uint32{1}, false, 300},
		{"constant", "void main() { if (gl_GlobalInvocationID.x < 100u) { y[gl_GlobalInvocationID.x] = 1.0; } }", []uint32{1}, false, 100},
		{"unguarded", "void main() { y[gl_GlobalInvocationID.x] *= 2.0; }", []uint32{1}, false, 1024},
		{"guarded by the length", "void main() { uint i = gl_GlobalInvocationID.x; if (i < uint(y.length())) { y[i] = 0.0; } }", []uint32{1}, true, 0},
		{"offset index", "void main() { uint i = gl_GlobalInvocationID.x; y[i + 1u] = x[2u * i]; }", nil, false, 0},
		{"reassigned", "void main() { uint i = gl_GlobalInvocationID.x; i = i * 3u; y[i] = 0.0; }", nil, false, 0},
	} {
		for _, opt := range []bool{false, true} {
			r, err := glsl.Compile([]byte(head+c.body+"\n"), c.name+".comp", glsl.Options{Optimize: opt})
			if err != nil {
				if errors.Is(err, glsl.ErrNoCompiler) {
					t.Skip(err)
				}
				t.Fatalf("%s: %v", c.name, err)
			}
			m, err := spirv.Reflect(r.SPIRV)
			if err != nil {
				t.Fatal(err)
			}
			g := m.GID
			if !reflect.DeepEqual(g.Bindings, c.bindings) || g.Unknown != c.unknown {
				t.Errorf("%s (optimised %v): bindings %v, unknown %v; want %v, %v", c.name, opt, g.Bindings, g.Unknown, c.bindings, c.unknown)
			}
			n, ok := g.Reach(1024, push(2.5, 1000, 300))
			if !ok {
				n = 0
			}
			if n != c.reach {
				t.Errorf("%s (optimised %v): reach %d (%v), want %d", c.name, opt, n, ok, c.reach)
			}
		}
	}
	// A negative signed bound lets no invocation through.
	r, err := glsl.Compile([]byte(head+"void main() { int i = int(gl_GlobalInvocationID.x); if (i < p.m) { y[i] = 1.0; } }\n"), "s.comp", glsl.Options{})
	if err != nil {
		t.Fatal(err)
	}
	m, _ := spirv.Reflect(r.SPIRV)
	if n, ok := m.GID.Reach(1024, push(0, 0, -5)); !ok || n != 0 {
		t.Errorf("m = -5: reach %d, %v; want 0", n, ok)
	}
}
