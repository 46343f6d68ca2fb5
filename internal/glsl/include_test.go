package glsl

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Issue 25, item 2: an #include cycle is an error naming the chain, not an
// expansion until memory runs out.
func TestIncludeCycle(t *testing.T) {
	needCompiler(t)
	dir := t.TempDir()
	self := write(t, dir, "loop.comp", "#version 450\n#extension GL_GOOGLE_include_directive : require\n#include \"loop.comp\"\nlayout(local_size_x = 1) in;\nvoid main() {}\n")
	write(t, dir, "a.glsl", "#include \"b.glsl\"\n")
	write(t, dir, "b.glsl", "// b\n#include \"a.glsl\"\n")
	two := write(t, dir, "two.comp", "#version 450\n#extension GL_GOOGLE_include_directive : require\n#include \"a.glsl\"\nlayout(local_size_x = 1) in;\nvoid main() {}\n")
	for _, c := range []struct {
		file  string
		chain string
	}{
		{self, self + " → " + self},
		{two, dir + "/a.glsl → " + dir + "/b.glsl → " + dir + "/a.glsl"},
	} {
		_, err := CompileFile(c.file, Options{})
		var ce *CompileError
		if !errors.As(err, &ce) || ce.Include == nil || !strings.Contains(err.Error(), "#include cycle that no include guard ends") || !strings.Contains(err.Error(), "): "+c.chain) {
			t.Errorf("%s: %v; want a CompileError naming the cycle %s", c.file, err, c.chain)
		}
	}
}

// Headers that include each other behind include guards compile: the
// guard ends the chain on the second visit. A file included many times
// over without guards (each level including the next twice) is stopped by
// the count of #includes, not by memory.
func TestIncludeGuardsAndFanOut(t *testing.T) {
	needCompiler(t)
	dir := t.TempDir()
	write(t, dir, "a.glsl", "#ifndef A_GLSL\n#define A_GLSL\n#include \"b.glsl\"\nfloat fa() { return 1.0; }\n#endif\n")
	write(t, dir, "b.glsl", "#ifndef B_GLSL\n#define B_GLSL\n#include \"a.glsl\"\nfloat fb() { return 2.0; }\n#endif\n")
	guarded := write(t, dir, "guarded.comp", "#version 450\n#extension GL_GOOGLE_include_directive : require\n#include \"a.glsl\"\nlayout(local_size_x = 1) in;\nlayout(std430, binding = 0) buffer O { float o[]; };\nvoid main() { o[0] = fa() + fb(); }\n")
	if _, err := CompileFile(guarded, Options{}); err != nil {
		t.Errorf("guarded headers that include each other: %v", err)
	}
	files := map[string]string{}
	for i := range 20 {
		files[fmt.Sprintf("/mem/g%d.glsl", i)] = fmt.Sprintf("#include \"g%d.glsl\"\n#include \"g%d.glsl\"\n", i+1, i+1)
	}
	files["/mem/g20.glsl"] = "// leaf\n"
	read := func(p string) ([]byte, error) {
		if s, ok := files[p]; ok {
			return []byte(s), nil
		}
		return nil, errNotFound
	}
	src := "#version 450\n#extension GL_GOOGLE_include_directive : require\n#include \"g0.glsl\"\nlayout(local_size_x = 1) in;\nvoid main() {}\n"
	_, err := Compile([]byte(src), "/mem/main.comp", Options{readFile: read})
	var ce *CompileError
	if !errors.As(err, &ce) || ce.Include == nil || !strings.Contains(err.Error(), fmt.Sprintf("more than %d #includes", maxIncludes)) {
		t.Errorf("2^20 includes: %v; want a CompileError counting them", err)
	}
}

// Issue 25, item 2: a chain of distinct files deeper than maxIncludeDepth
// is refused too (files read through Options.readFile: in memory).
func TestIncludeDepth(t *testing.T) {
	needCompiler(t)
	files := map[string]string{}
	for i := range maxIncludeDepth + 5 {
		files[fmt.Sprintf("/mem/f%d.glsl", i)] = fmt.Sprintf("#include \"f%d.glsl\"\n", i+1)
	}
	files[fmt.Sprintf("/mem/f%d.glsl", maxIncludeDepth+5)] = "// the end\n"
	read := func(p string) ([]byte, error) {
		if s, ok := files[p]; ok {
			return []byte(s), nil
		}
		return nil, errNotFound
	}
	src := "#version 450\n#extension GL_GOOGLE_include_directive : require\n#include \"f0.glsl\"\nlayout(local_size_x = 1) in;\nvoid main() {}\n"
	_, err := Compile([]byte(src), "/mem/main.comp", Options{readFile: read})
	var ce *CompileError
	if !errors.As(err, &ce) || ce.Include == nil || !strings.Contains(err.Error(), fmt.Sprintf("nested deeper than %d files: /mem/main.comp → /mem/f0.glsl → /mem/f1.glsl", maxIncludeDepth)) {
		t.Errorf("%v; want a CompileError naming the chain", err)
	}
	// Within the limit, the same chain compiles.
	files[fmt.Sprintf("/mem/f%d.glsl", maxIncludeDepth-2)] = "// the end\n"
	if _, err := Compile([]byte(src), "/mem/main.comp", Options{readFile: read}); err != nil {
		t.Errorf("a chain of %d files: %v", maxIncludeDepth, err)
	}
}

// Issue 25, item 8: vkstat's built-in includes are read from the binary,
// not from a shared folder of the temporary directory: nothing is written
// there, and a temporary directory that cannot be written to does not
// matter.
func TestBuiltinIncludesInMemory(t *testing.T) {
	needCompiler(t)
	src := []byte("#version 450\n#extension GL_GOOGLE_include_directive : require\n#include \"include/common.glsl\"\n#define ACC float\n#include <record.glsl>\nlayout(std430, binding = 0) buffer Out { float v[]; };\nvoid main() { v[flat_index()] = 1.0; }\n")
	for _, tmp := range []string{t.TempDir(), "/nonexistent/tmp"} {
		t.Setenv("TMPDIR", tmp)
		if _, err := Compile(src, filepath.Join(t.TempDir(), "k.comp"), Options{}); err != nil {
			t.Errorf("TMPDIR=%s: %v", tmp, err)
		}
		if e, _ := os.ReadDir(tmp); len(e) > 0 {
			t.Errorf("TMPDIR=%s: %s written", tmp, e[0].Name())
		}
	}
	// An error in a built-in include names it as such.
	_, err := Compile([]byte("#version 450\n#define WG_SIZE oops(\n#include \"include/common.glsl\"\nvoid main() {}\n"), "k.comp", Options{})
	if err == nil || !strings.Contains(err.Error(), builtinPrefix+"include/common.glsl") {
		t.Errorf("an error in common.glsl: %v; want it named %sinclude/common.glsl", err, builtinPrefix)
	}
}
