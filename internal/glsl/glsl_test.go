package glsl

import (
	"bufio"
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vkstat/vkstat/internal/spirv"
)

func needCompiler(t *testing.T) {
	t.Helper()
	if err := load(); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal(err)
		}
		t.Skip(err)
	}
}

// spirvVal runs spirv-val on code when it is installed.
func spirvVal(t *testing.T, code []byte, env string) {
	t.Helper()
	if _, err := exec.LookPath("spirv-val"); err != nil {
		t.Log("spirv-val not found: not validating")
		return
	}
	f := filepath.Join(t.TempDir(), "x.spv")
	if err := os.WriteFile(f, code, 0o644); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command("spirv-val", "--target-env", env, f).CombinedOutput(); err != nil {
		t.Fatalf("spirv-val: %v\n%s", err, out)
	}
}

// TestBuiltinVariants compiles every built-in shader variant with
// libshaderc, as make shaders does with glslc and spirv-opt, and validates
// the result; optimised, it is the committed SPIR-V word for word (-short:
// the first variant only).
func TestBuiltinVariants(t *testing.T) {
	needCompiler(t)
	f, err := os.Open("../../shaders/variants.txt")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	n := 0
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) < 2 || strings.HasPrefix(fields[0], "#") {
			continue
		}
		var defs []string
		for _, d := range fields[2:] {
			defs = append(defs, strings.TrimPrefix(d, "-D"))
		}
		opts := []bool{false, true}
		if testing.Short() && n > 0 {
			opts = opts[:1]
		}
		for _, opt := range opts {
			r, err := CompileFile(filepath.Join("../../shaders", fields[1]), Options{Defines: defs, Optimize: opt})
			if err != nil {
				t.Fatalf("%s: %v", fields[0], err)
			}
			spirvVal(t, r.SPIRV, "vulkan1.1")
			if want, err := os.ReadFile(filepath.Join("../../shaders/spv", fields[0]+".spv")); opt && (err != nil || !bytes.Equal(r.SPIRV, want)) {
				t.Errorf("%s: compiled and optimised in process, not the SPIR-V make shaders made (%v)", fields[0], err)
			}
			m, err := spirv.Reflect(r.SPIRV)
			if err != nil {
				t.Fatalf("%s: %v", fields[0], err)
			}
			if len(m.Bindings) == 0 {
				t.Errorf("%s: no bindings reflected", fields[0])
			}
		}
		n++
	}
	if n < 20 {
		t.Fatalf("compiled %d variants", n)
	}
}

func write(t *testing.T, dir, name, src string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestIncludesDefinesEnv(t *testing.T) {
	needCompiler(t)
	dir := t.TempDir()
	write(t, dir, "lib/near.glsl", "#define NEAR 2.0\n")
	write(t, dir, "inc/far.glsl", "#define FAR 3.0\n")
	src := `#version 450
#extension GL_GOOGLE_include_directive : require
#include "lib/near.glsl"
#include <far.glsl>
#include "common.glsl"
layout(std430, binding = 0) buffer Out { float v[]; };
void main() { v[flat_index()] = NEAR + FAR + SCALE; }
`
	p := write(t, dir, "k.comp", src)
	for _, env := range []string{"vulkan1.0", "vulkan1.1", "vulkan1.2", "vulkan1.3"} {
		r, err := CompileFile(p, Options{Includes: []string{filepath.Join(dir, "inc")}, Defines: []string{"SCALE=4.0"}, TargetEnv: env})
		if err != nil {
			t.Fatalf("%s: %v", env, err)
		}
		spirvVal(t, r.SPIRV, env)
	}
	_, err := CompileFile(p, Options{Defines: []string{"SCALE=4.0"}})
	var ce *CompileError
	if !errors.As(err, &ce) || !strings.Contains(err.Error(), "far.glsl") {
		t.Fatalf("missing include: %v", err)
	}
	if _, err := CompileFile(p, Options{TargetEnv: "opengl"}); err == nil || !strings.Contains(err.Error(), "vulkan1.1") {
		t.Errorf("bad target env: %v", err)
	}
	if _, err := CompileFile(p, Options{Defines: []string{"1X=2"}}); err == nil {
		t.Error("bad macro name accepted")
	}
}

func TestCompileErrorPointsAtLine(t *testing.T) {
	needCompiler(t)
	p := write(t, t.TempDir(), "bad.comp", `#version 450
layout(local_size_x = 64) in;
layout(std430, binding = 0) buffer Out { float v[]; };
void main() {
    v[gl_GlobalInvocationID.x] = undefined_thing * 2.0;
}
`)
	_, err := CompileFile(p, Options{})
	var ce *CompileError
	if !errors.As(err, &ce) {
		t.Fatalf("want a CompileError, got %v", err)
	}
	if len(ce.Diagnostics) == 0 {
		t.Fatalf("no diagnostics in %q", ce.Log)
	}
	d := ce.Diagnostics[0]
	if d.File != p || d.Line != 5 || d.Col != 34 || d.Severity != "error" {
		t.Errorf("diagnostic %+v, want %s:5:34", d, p)
	}
	if !strings.Contains(err.Error(), p+":5:34: error:") {
		t.Errorf("message %q", err)
	}
}

// TestExamples compiles the shaders of examples/shaders and validates the
// SPIR-V, for every target environment (scale.comp's type T as float).
func TestExamples(t *testing.T) {
	needCompiler(t)
	files, _ := filepath.Glob("../../examples/shaders/*.comp")
	if len(files) < 4 {
		t.Fatalf("found %d examples", len(files))
	}
	for _, f := range files {
		for _, env := range []string{"vulkan1.1", "vulkan1.2", "vulkan1.3"} {
			r, err := CompileFile(f, Options{TargetEnv: env, Defines: []string{"T=float"}})
			if err != nil {
				t.Fatalf("%s: %v", f, err)
			}
			if len(r.Warnings) > 0 {
				t.Errorf("%s: warnings %v", f, r.Warnings)
			}
			spirvVal(t, r.SPIRV, env)
		}
	}
}

// TestUndefinedMacroHint (issue 45, item 7): an undefined macro's error
// shows the source line and names the macro with the -D that defines it;
// a word that is #defined, or given with -D, is not named.
func TestUndefinedMacroHint(t *testing.T) {
	const file = "../../testdata/shaders/undefined_macro.comp"
	_, err := CompileFile(file, Options{})
	var ce *CompileError
	if !errors.As(err, &ce) || len(ce.Diagnostics) == 0 {
		t.Fatalf("got %v; want a compile error", err)
	}
	d := ce.Diagnostics[0]
	if d.Line != 6 || d.Source != "layout(std430, binding = 0) buffer Y { A_TYPE y[]; };" ||
		d.Hint != "A_TYPE is defined nowhere (no #define, no -D): if a macro, give it: -D A_TYPE=..." {
		t.Errorf("got %+v", d)
	}
	if !strings.Contains(err.Error(), "      6 | layout(std430") || !strings.Contains(err.Error(), "hint: A_TYPE is defined nowhere") {
		t.Errorf("the message lacks the line or the hint:\n%v", err)
	}
	if _, err := CompileFile(file, Options{Defines: []string{"A_TYPE=float"}}); err != nil {
		t.Errorf("-D A_TYPE=float: %v", err)
	}
	src := []byte("#version 450\n#define N 4\nlayout(local_size_x = N) in;\nvoid main() { N N; }\n")
	_, err = Compile(src, "n.comp", Options{})
	if !errors.As(err, &ce) || len(ce.Diagnostics) == 0 || ce.Diagnostics[0].Hint != "" || ce.Diagnostics[0].Source != "void main() { N N; }" {
		t.Errorf("a #defined word: %v", err)
	}
}
