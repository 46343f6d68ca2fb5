package cli

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/vkstat/vkstat/device/testdev"
	"github.com/vkstat/vkstat/engine"
	"github.com/vkstat/vkstat/formats"
	"github.com/vkstat/vkstat/internal/spirv"
	"github.com/vkstat/vkstat/shaderlab"
	"github.com/vkstat/vkstat/tensor"
)

const examples = "../examples/shaders"

// needShaderDevice skips (or, under CI, fails) without a Vulkan device.
func needShaderDevice(t *testing.T) {
	t.Helper()
	testdev.Devices(t)
}

// shaderExample is one example shader with the flags that run it and the
// expected output of one binding.
type shaderExample struct {
	file     string
	flags    []string
	out      string // binding checked
	expected string
	bindings []string // names info must show
}

func shaderExamples() []shaderExample {
	e := func(f string) string { return filepath.Join(examples, f) }
	reduce := []string{"-b", "data=" + e("reduce_in.npy"), "-b", "sums=float32:16", "--push", "n=4000", "--push", "chunk=250", "--groups", "16"}
	return []shaderExample{
		{"saxpy.comp", []string{"-b", "x=" + e("saxpy_x.npy"), "-b", "y=" + e("saxpy_y.npy"), "--push", "a=2.5", "--push", "n=1000", "--global", "1000"},
			"y", e("saxpy_expected.npy"), []string{"x", "y"}},
		{"reduce_shared.comp", reduce, "sums", e("reduce_expected.npy"), []string{"data", "sums"}},
		{"subgroup_sum.comp", reduce, "sums", e("reduce_expected.npy"), []string{"data", "sums"}},
		{"tile_transpose.comp", []string{"-b", "src=" + e("tile_in.npy"), "-b", "dst=float32:48x40", "--spec", "TILE=8", "--push", "rows=40", "--push", "cols=48", "--global", "48,40"},
			"dst", e("tile_expected.npy"), []string{"src", "dst"}},
	}
}

// TestShaderExamples runs every example through info (table and JSON),
// run on every device with validation (outputs compared with NumPy's) and
// check.
func TestShaderExamples(t *testing.T) {
	needShaderDevice(t)
	dir := t.TempDir()
	for _, ex := range shaderExamples() {
		t.Run(strings.TrimSuffix(ex.file, ".comp"), func(t *testing.T) {
			file := filepath.Join(examples, ex.file)
			code, stdout, stderr := run(t, "--device", "all", "shader", "info", file)
			if code != 0 {
				t.Fatalf("info: exit %d: %s", code, stderr)
			}
			for _, want := range append(ex.bindings, "local size:", "push constants:", "capabilities:", "Shader") {
				if !strings.Contains(stdout, want) {
					t.Errorf("info does not show %q:\n%s", want, stdout)
				}
			}
			if strings.Contains(stdout+stderr, "warning") {
				t.Errorf("compiler warnings:\n%s%s", stdout, stderr)
			}
			code, stdout, stderr = run(t, "shader", "info", "--json", file)
			var rep struct {
				Module spirv.Module `json:"module"`
			}
			if code != 0 || json.Unmarshal([]byte(stdout), &rep) != nil || len(rep.Module.Bindings) != 2 {
				t.Fatalf("info --json: exit %d: %s\n%s", code, stderr, stdout)
			}

			out := filepath.Join(dir, ex.file+".npy")
			args := append([]string{"--validate", "--device", "all", "shader", "run", file}, ex.flags...)
			code, stdout, stderr = run(t, append(args, "--repeat", "2", "-o", ex.out+"="+out)...)
			if code != 0 {
				t.Fatalf("run: exit %d: %s\n%s", code, stderr, stdout)
			}
			if !strings.Contains(stdout, "GPU time") || !strings.Contains(stdout, "moved") {
				t.Errorf("run does not report time and bytes:\n%s", stdout)
			}
			got, err := shaderlab.ReadNPY(out)
			if err != nil {
				t.Fatal(err)
			}
			want, err := shaderlab.ReadNPY(ex.expected)
			if err != nil {
				t.Fatal(err)
			}
			if d, err := shaderlab.Compare(got, want); err != nil || !d.OK(1e-5) || !reflect.DeepEqual(got.Shape, want.Shape) && len(got.Shape) == len(want.Shape) {
				t.Errorf("output %s: %v %v (shape %v, want %v)", ex.out, d, err, got.Shape, want.Shape)
			}

			args = append([]string{"--validate", "shader", "check", file}, ex.flags...)
			code, stdout, stderr = run(t, append(args, "-e", ex.out+"="+ex.expected)...)
			if code != 0 || !strings.Contains(stdout, "PASS") {
				t.Fatalf("check: exit %d: %s\n%s", code, stderr, stdout)
			}
		})
	}
}

// TestShaderCheck: a mismatch exits 1 and says FAIL; --against compares
// two shaders with the same bindings.
func TestShaderCheck(t *testing.T) {
	needShaderDevice(t)
	ex := shaderExamples()[2] // subgroup_sum
	file := filepath.Join(examples, ex.file)
	args := append([]string{"--validate", "shader", "check", file}, ex.flags...)
	code, stdout, stderr := run(t, append(args, "--against", filepath.Join(examples, "reduce_shared.comp"))...)
	if code != 0 || !strings.Contains(stdout, "against") || !strings.Contains(stdout, "PASS") {
		t.Fatalf("--against: exit %d: %s\n%s", code, stderr, stdout)
	}
	wrong := filepath.Join(examples, "saxpy_x.npy")
	ex = shaderExamples()[0]
	args = append([]string{"shader", "check", filepath.Join(examples, ex.file)}, ex.flags...)
	code, stdout, stderr = run(t, append(args, "-e", "y="+wrong)...)
	if code != ExitError || !strings.Contains(stdout, "FAIL y") || !strings.Contains(stderr, "1 binding(s) differ beyond the tolerance") ||
		!strings.Contains(stdout, "1000 of 1000 elements") || !strings.Contains(stdout, "first 5 of the 999 others:\n      y[0] got") {
		t.Fatalf("mismatch: exit %d: %s\n%s", code, stderr, stdout)
	}
	code, _, stderr = run(t, append(append([]string{}, args...), "--tol", "1e-5")...)
	if code != ExitUsage || !strings.Contains(stderr, "--expect") {
		t.Errorf("check without an expectation: exit %d: %s", code, stderr)
	}
}

func writeFile(t *testing.T, dir, name, text string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestShaderBadInput: each bad input gets a clear message naming what is
// wrong, a non-zero exit, and no output file.
func TestShaderBadInput(t *testing.T) {
	needShaderDevice(t)
	dir := t.TempDir()
	saxpy := filepath.Join(examples, "saxpy.comp")
	x, y := filepath.Join(examples, "saxpy_x.npy"), filepath.Join(examples, "saxpy_y.npy")
	bad := writeFile(t, dir, "bad.comp", `#version 450
layout(local_size_x = 64) in;
layout(std430, binding = 0) buffer Out { float v[]; };
void main() {
    v[gl_GlobalInvocationID.x] = undefined_thing * 2.0;
}
`)
	fixed := writeFile(t, dir, "fixed.comp", `#version 450
layout(local_size_x = 4) in;
layout(std430, binding = 0) buffer P { float v[4]; };
void main() { v[gl_LocalInvocationID.x] *= 2.0; }
`)
	half := writeFile(t, dir, "half.comp", `#version 450
#extension GL_EXT_shader_explicit_arithmetic_types_float16 : require
layout(local_size_x = 64) in;
layout(std430, binding = 0) buffer Out { float v[]; };
void main() { float16_t h = float16_t(v[gl_GlobalInvocationID.x]); v[gl_GlobalInvocationID.x] = float(h * h); }
`)
	bref := writeFile(t, dir, "bref.comp", `#version 450
#extension GL_EXT_buffer_reference : require
layout(local_size_x = 64) in;
layout(buffer_reference, std430) buffer Ptr { float v[]; };
layout(std430, binding = 0) buffer B { Ptr p; float o[]; };
void main() { o[gl_GlobalInvocationID.x] = p.v[gl_GlobalInvocationID.x]; }
`)
	slow := writeFile(t, dir, "slow.comp", `#version 450
layout(local_size_x = 64) in;
layout(std430, binding = 0) buffer O { float o[]; };
layout(push_constant) uniform P { uint iters; } p;
void main() {
	float s = float(gl_GlobalInvocationID.x);
	for (uint i = 0u; i < p.iters; i++) {
		s = s * 0.999 + float(i & 7u);
	}
	o[gl_GlobalInvocationID.x] = s;
}
`)
	f64 := filepath.Join(dir, "f64.npy")
	if err := os.WriteFile(f64, mustEncode(t, &shaderlab.Array{Elem: "float64", Shape: []int{1000}, Data: make([]byte, 8000)}), 0o644); err != nil {
		t.Fatal(err)
	}
	y500 := filepath.Join(dir, "y500.npy")
	if err := os.WriteFile(y500, mustEncode(t, &shaderlab.Array{Elem: "float32", Shape: []int{500}, Data: make([]byte, 2000)}), 0o644); err != nil {
		t.Fatal(err)
	}
	three := filepath.Join(dir, "three.npy")
	if err := os.WriteFile(three, mustEncode(t, &shaderlab.Array{Elem: "float32", Shape: []int{3}, Data: make([]byte, 12)}), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "out.npy")
	for _, c := range []struct {
		name string
		args []string
		exit int
		want []string
	}{
		{"compile error", []string{"shader", "run", bad, "-b", "v=float32:64", "--groups", "1"}, ExitError,
			[]string{bad + ":5:34: error:", "undefined_thing", "does not compile"}},
		{"binding without data", []string{"shader", "run", saxpy, "-b", "x=" + x, "--global", "1000"}, ExitUsage,
			[]string{"binding 1 (y) has no data", "--bind y="}},
		{"wrong dtype", []string{"shader", "run", saxpy, "-b", "x=" + f64, "-b", "y=" + y, "--global", "1000"}, ExitError,
			[]string{"binding 0 (x)", "float64", "the block holds float32"}},
		{"wrong size", []string{"shader", "run", fixed, "-b", "v=" + three, "--groups", "1"}, ExitError,
			[]string{"binding 0 (v)", "12 bytes", "the block is 16 bytes"}},
		{"binding shorter than the dispatch", []string{"shader", "run", saxpy, "-b", "x=" + x, "-b", "y=" + y500, "--push", "n=1000", "--global", "1000"}, ExitError,
			[]string{"binding 1 (y)", "reaches element 999", "gives it 500 elements: bind at least 1000"}},
		{"unknown push constant", []string{"shader", "run", saxpy, "-b", "x=" + x, "-b", "y=" + y, "--push", "b=1", "--global", "1000"}, ExitUsage,
			[]string{`no push constant "b"`, "a, n"}},
		{"unknown spec constant", []string{"shader", "run", saxpy, "-b", "x=" + x, "-b", "y=" + y, "--spec", "TILE=1", "--global", "1000"}, ExitUsage,
			[]string{"no specialization constants"}},
		{"unknown binding", []string{"shader", "run", saxpy, "-b", "z=" + x, "--global", "1000"}, ExitUsage,
			[]string{`no binding "z"`, "binding 0 (x), binding 1 (y)"}},
		{"output to a missing folder", []string{"shader", "run", saxpy, "-b", "x=" + x, "-b", "y=" + y, "--global", "1000", "-o", "y=" + filepath.Join(dir, "none", "y.npy")}, ExitError,
			[]string{"--out", "does not exist"}},
		{"no dispatch", []string{"shader", "run", saxpy, "-b", "x=" + x, "-b", "y=" + y}, ExitUsage,
			[]string{"--groups", "--global", "256×1×1"}},
		{"feature the device lacks", []string{"--disable", "float16", "shader", "run", half, "-b", "v=float32:64", "--groups", "1"}, ExitError,
			[]string{"lacks", "Float16"}},
		{"buffer_reference", []string{"shader", "run", bref, "-b", "B=float32:66", "--groups", "1"}, ExitError,
			[]string{"PhysicalStorageBufferAddresses", "bufferDeviceAddress"}},
		{"subgroups the device lacks", append([]string{"--disable", "subgroup", "shader", "run", filepath.Join(examples, "subgroup_sum.comp")}, shaderExamples()[2].flags...), ExitError,
			[]string{"[without subgroup]", "lacks: GroupNonUniformArithmetic"}},
		// Issue 34: a zeros binding's shape in the words of --bind, not
		// "stat float32:-5: no such file"; one too large says so, not only
		// its size; one past the device's range is refused before its
		// memory is taken (on lavapipe: 3.2 GB RSS and 8-13 s first).
		{"negative zeros size", []string{"shader", "run", fixed, "-b", "v=float32:-5", "--groups", "1"}, ExitUsage,
			[]string{"--bind v=float32:-5: want TYPE:SHAPE, sizes of 1 or more, e.g. float32:1024 or uint32:16x16"}},
		{"zeros shape not numbers", []string{"shader", "run", fixed, "-b", "v=float32:4xa", "--groups", "1"}, ExitUsage,
			[]string{"--bind v=float32:4xa: want TYPE:SHAPE"}},
		{"40 GB of zeros", []string{"shader", "run", fixed, "-b", "v=float32:100000x100000", "--groups", "1"}, ExitUsage,
			[]string{"--bind v=float32:100000x100000: more than the 16 GiB of zeros a binding may hold", "maxStorageBufferRange"}},
		{"zeros past int64", []string{"shader", "run", fixed, "-b", "v=float32:99999999999999999999", "--groups", "1"}, ExitUsage,
			[]string{"more than the 16 GiB of zeros"}},
		{"binding past maxStorageBufferRange", []string{"shader", "run", slow, "-b", "o=float32:1073741825", "--groups", "1"}, ExitError,
			[]string{"binding 0 (o) holds 4294967300 bytes, more than", "maxStorageBufferRange"}}, // past any device's (a uint32)
		{"runaway shader", []string{"shader", "run", slow, "-b", "o=float32:19200", "--push", "iters=60000", "--groups", "300", "--timeout", "1us"}, ExitError,
			[]string{"did not finish in time", "after 1µs", "raise --timeout"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			os.Remove(out)
			args := append([]string{"--validate"}, c.args...)
			// Every binding of these shaders written to out: none may appear.
			args = append(args, "--out-dir", filepath.Join(dir, "outdir-"+strings.ReplaceAll(c.name, " ", "-")))
			code, stdout, stderr := run(t, args...)
			if code != c.exit {
				t.Errorf("exit %d, want %d: %s\n%s", code, c.exit, stderr, stdout)
			}
			for _, w := range c.want {
				if !strings.Contains(stderr, w) {
					t.Errorf("stderr lacks %q:\n%s", w, stderr)
				}
			}
			if _, err := os.Stat(filepath.Join(dir, "outdir-"+strings.ReplaceAll(c.name, " ", "-"))); err == nil {
				t.Errorf("an output was written")
			}
		})
	}
}

func mustEncode(t *testing.T, a *shaderlab.Array) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := a.EncodeNPY(&b); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// syncBuffer is a bytes.Buffer safe to read while the watch writes it.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// watchSession is a shader watch running in the test's process, its file
// edited as an editor saves it.
type watchSession struct {
	t         *testing.T
	file      string
	out, errb syncBuffer
	done      chan int // Main's exit code
	cancel    context.CancelFunc
	mark      int // the output before the last edit
}

// startWatch runs vkstat --validate shader watch file flags... until the
// test ends (or cancel, or --max-runs).
func startWatch(t *testing.T, file string, flags ...string) *watchSession {
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	w := &watchSession{t: t, file: file, done: make(chan int, 1), cancel: cancel}
	args := append([]string{"vkstat", "--validate", "shader", "watch", file}, flags...)
	go func() { w.done <- Main(ctx, args, &w.out, &w.errb) }()
	return w
}

// waitUntil waits for ok to hold of the output of a run after the last
// edit, and returns that output.
func (w *watchSession) waitUntil(ok func(tail string) bool) string {
	w.t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for time.Now().Before(deadline) {
		if tail := w.out.String()[w.mark:]; strings.Contains(tail, "── run ") && ok(tail) {
			return tail
		}
		time.Sleep(20 * time.Millisecond)
	}
	w.t.Fatalf("no run as wanted after the edit in:\n%s\nstderr: %s", w.out.String()[w.mark:], w.errb.String())
	return ""
}

// waitFor waits for a run after the last edit that prints every one of want.
func (w *watchSession) waitFor(want ...string) {
	w.t.Helper()
	w.waitUntil(func(tail string) bool {
		for _, s := range want {
			if !strings.Contains(tail, s) {
				return false
			}
		}
		return true
	})
}

// edit saves text as editors do: a new file renamed over the old one.
func (w *watchSession) edit(text string) {
	w.t.Helper()
	w.mark = len(w.out.String())
	tmp := w.file + ".tmp"
	if err := os.WriteFile(tmp, []byte(text), 0o644); err != nil {
		w.t.Fatal(err)
	}
	if err := os.Rename(tmp, w.file); err != nil {
		w.t.Fatal(err)
	}
}

// exit waits for watch to end and returns its exit code.
func (w *watchSession) exit() int {
	w.t.Helper()
	select {
	case code := <-w.done:
		return code
	case <-time.After(30 * time.Second):
		w.t.Fatal("watch did not stop")
		return 0
	}
}

// TestShaderWatch scripts an editing session: the first run passes, an
// edit re-runs and shows the change (and the failed expectation), a broken
// edit shows the compile error with its line, and the fix runs again.
func TestShaderWatch(t *testing.T) {
	needShaderDevice(t)
	src, err := os.ReadFile(filepath.Join(examples, "saxpy.comp"))
	if err != nil {
		t.Fatal(err)
	}
	file := writeFile(t, t.TempDir(), "saxpy.comp", string(src))
	ex := shaderExamples()[0]
	w := startWatch(t, file, append(ex.flags, "-e", "y="+ex.expected, "--interval", "20ms")...)
	w.waitFor("GPU time", "PASS y")
	w.edit(strings.Replace(string(src), "p.a * x[i] + y[i]", "p.a * x[i] + y[i] + 1.0", 1))
	w.waitFor("change vs previous run, y: max error 1", "FAIL y", "previous", "trend ms")
	w.edit(strings.Replace(string(src), "p.a * x[i] + y[i];", "p.a * x[i] + y[i]", 1))
	w.waitFor("compile error", file+":1", ": error:")
	w.edit(string(src) + "\n")
	w.waitFor("PASS y")
	w.cancel()
	// Issue 25, messages: Ctrl-C ends watch with 130, as every command.
	if code := w.exit(); code != ExitInterrupted {
		t.Errorf("watch ended by its context: exit %d, want %d", code, ExitInterrupted)
	}
	if s := w.errb.String(); strings.Contains(s, "validation") {
		t.Errorf("validation messages: %s", s)
	}
}

// watchError finds the lines where watch says a run went wrong.
var watchError = regexp.MustCompile(`(?m)^(compile )?error`)

// TestShaderWatchOutputs: watch writes its --out-dir (or --out) files
// afresh on every run, not on the first only (each run's y is checked
// against NumPy's saxpy_expected.npy plus the constant the edit added),
// and leaves nothing but them (and the folder's list) behind.
func TestShaderWatchOutputs(t *testing.T) {
	needShaderDevice(t)
	src, err := os.ReadFile(filepath.Join(examples, "saxpy.comp"))
	if err != nil {
		t.Fatal(err)
	}
	ex := shaderExamples()[0]
	want, err := formats.ReadNPY(ex.expected) // 2.5·x + y, float64 rounded once
	if err != nil {
		t.Fatal(err)
	}
	body := "p.a * x[i] + y[i]"
	for _, tc := range []struct {
		name  string
		flags func(dir string) (path string, flags []string)
		files []string // what the folder holds after the runs
	}{
		{"out-dir", func(dir string) (string, []string) {
			d := filepath.Join(dir, "D")
			return filepath.Join(d, "y.npy"), []string{"--out-dir", d}
		}, []string{".vkstat-outputs", "y.npy"}},
		{"out", func(dir string) (string, []string) {
			return filepath.Join(dir, "y.npy"), []string{"-o", "y=" + filepath.Join(dir, "y.npy")}
		}, []string{"saxpy.comp", "y.npy"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			path, flags := tc.flags(dir)
			// Three runs: y + 1, then y + 2.25, then saxpy as written;
			// the last is the file NumPy wrote.
			adds := []string{" + 1.0", " + 2.25", ""}
			file := writeFile(t, dir, "saxpy.comp", strings.Replace(string(src), body, body+adds[0], 1))
			w := startWatch(t, file, append(ex.flags, append(flags, "--interval", "20ms", "--max-runs", "3")...)...)
			for k, add := range adds {
				if k > 0 {
					w.edit(strings.Replace(string(src), body, body+add, 1))
				}
				tail := w.waitUntil(func(tail string) bool {
					return strings.Contains(tail, "y → "+path) || watchError.MatchString(tail)
				})
				if watchError.MatchString(tail) {
					t.Fatalf("run %d: %s", k+1, tail)
				}
				got, err := formats.ReadNPY(path)
				if err != nil {
					t.Fatalf("run %d: %v", k+1, err)
				}
				c, _ := strconv.ParseFloat(strings.TrimPrefix(add, " + "), 64)
				if len(got.F32) != len(want.F32) {
					t.Fatalf("run %d: %d values, want %d", k+1, len(got.F32), len(want.F32))
				}
				for i, v := range want.F32 {
					// A few float32 roundings of values below 16 (ulp 2e-6).
					if e := float64(v) + c; math.Abs(float64(got.F32[i])-e) > 1e-5 {
						t.Fatalf("run %d: y[%d] = %v, want %v", k+1, i, got.F32[i], e)
					}
				}
			}
			if code := w.exit(); code != 0 {
				t.Errorf("watch --max-runs 3: exit %d, want 0; stderr %s", code, w.errb.String())
			}
			if out := w.out.String(); strings.Count(out, "y → "+path) != 3 || watchError.MatchString(out) {
				t.Errorf("three runs writing y, no error, wanted:\n%s", out)
			}
			entries, err := os.ReadDir(filepath.Dir(path))
			if err != nil {
				t.Fatal(err)
			}
			var names []string
			for _, e := range entries {
				names = append(names, e.Name())
			}
			if !slices.Equal(names, tc.files) {
				t.Errorf("%s holds %v, want %v (no temporary left)", filepath.Dir(path), names, tc.files)
			}
		})
	}
}

// TestShaderDirSources: --shader-dir on a folder of GLSL sources (a copy
// of shaders/) compiles the edited kernel, so verify --op re-checks one
// built-in operation against the float64 reference in one command.
func TestShaderDirSources(t *testing.T) {
	needShaderDevice(t)
	dir := t.TempDir()
	copyTree := func(src, dst string) {
		t.Helper()
		entries, err := os.ReadDir(src)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.MkdirAll(dst, 0o755); err != nil {
			t.Fatal(err)
		}
		for _, e := range entries {
			if e.IsDir() || !(strings.HasSuffix(e.Name(), ".comp") || strings.HasSuffix(e.Name(), ".glsl") || e.Name() == "variants.txt") {
				continue
			}
			b, err := os.ReadFile(filepath.Join(src, e.Name()))
			if err != nil {
				t.Fatal(err)
			}
			writeFile(t, dst, e.Name(), string(b))
		}
	}
	copyTree("../shaders", dir)
	copyTree("../shaders/include", filepath.Join(dir, "include"))
	code, stdout, stderr := run(t, "--validate", "--shader-dir", dir, "verify", "--op", "map", "--device", "vulkan")
	if code != 0 || !strings.Contains(stdout, "all passed") {
		t.Fatalf("unedited sources: exit %d: %s\n%s", code, stderr, stdout)
	}
	src, err := os.ReadFile(filepath.Join(dir, "map.comp"))
	if err != nil {
		t.Fatal(err)
	}
	body := string(src)
	if !strings.Contains(body, "p.c;") {
		t.Fatal("map.comp no longer ends its store with p.c;")
	}
	writeFile(t, dir, "map.comp", strings.Replace(body, "p.c;", "p.c + T(1);", 1)) // a planted error
	code, stdout, stderr = run(t, "--shader-dir", dir, "verify", "--op", "map", "--device", "vulkan")
	if code != ExitError || !strings.Contains(stdout, "FAIL") {
		t.Fatalf("edited source: exit %d: %s\n%s", code, stderr, stdout)
	}
	writeFile(t, dir, "map.comp", strings.Replace(body, "p.c;", "p.c", 1))
	code, stdout, _ = run(t, "--shader-dir", dir, "verify", "--op", "map", "--device", "vulkan")
	if code != ExitError || !strings.Contains(stdout, "does not compile") || !strings.Contains(stdout, "map.comp:") {
		t.Fatalf("broken source: exit %d:\n%s", code, stdout)
	}
}

// TestShaderHelp: every subcommand documents itself with examples; a .spv
// file is reflected as it is (no compiler).
func TestShaderHelp(t *testing.T) {
	for _, sub := range []string{"info", "run", "check", "watch"} {
		code, stdout, stderr := run(t, "shader", sub, "--help")
		if code != 0 || !strings.Contains(stdout, "Examples:") || !strings.Contains(stdout, "vkstat shader "+sub) {
			t.Errorf("shader %s --help: exit %d: %s\n%s", sub, code, stderr, stdout)
		}
	}
	code, _, stderr := run(t, "shader", "compile", "x.comp")
	if code != ExitUsage || !strings.Contains(stderr, "info, run, check, watch") {
		t.Errorf("unknown subcommand: exit %d: %s", code, stderr)
	}
	code, _, stderr = run(t, "shader", "info")
	if code != ExitUsage || !strings.Contains(stderr, "want one shader file") {
		t.Errorf("no file: exit %d: %s", code, stderr)
	}
	code, stdout, stderr := run(t, "--device", "cpu", "shader", "info", "../shaders/spv/cov_f32.spv")
	if code != 0 || !strings.Contains(stdout, "local size:   64 (spec 0)") || !strings.Contains(stdout, "Float64") {
		t.Errorf("info on SPIR-V: exit %d: %s\n%s", code, stderr, stdout)
	}
}

// Issue 25, item 2: a shader that includes itself is one compile error
// naming the cycle, in info and in watch (which printed 74,148 lines).
func TestShaderIncludeCycle(t *testing.T) {
	dir := t.TempDir()
	self := writeFile(t, dir, "self.comp", "#version 450\n#include \"self.comp\"\nlayout(local_size_x = 1) in;\nlayout(std430, binding = 0) buffer B { float v[]; };\nvoid main() {}\n")
	code, _, stderr := run(t, "shader", "info", self)
	if code != ExitError || strings.Count(stderr, "#include cycle that no include guard ends (32 files deep): "+self+" → "+self) != 1 {
		t.Errorf("info: exit %d, stderr %q; want %d and the cycle named once", code, stderr, ExitError)
	}
	t.Run("watch", func(t *testing.T) {
		needShaderDevice(t)
		code, stdout, stderr := run(t, "shader", "watch", self, "-b", "v=float32:4", "--groups", "1", "--max-runs", "1")
		if code != 0 || strings.Count(stdout, "#include cycle") != 1 || strings.Count(stdout, "\n") > 5 {
			t.Errorf("watch: exit %d, stdout %q, stderr %q; want the cycle named once", code, stdout, stderr)
		}
	})
}

// Issue 25, item 11: shaders built for Vulkan 1.2 and 1.3 (SPIR-V 1.5,
// 1.6) run under the validation layer on devices of those versions: the
// instance is created for the loader's version, not 1.1, and a 1.3 device
// gets maintenance4 (SPIR-V 1.6's LocalSizeId needs it).
func TestShaderTargetEnvValidated(t *testing.T) {
	needShaderDevice(t)
	saxpy := filepath.Join(examples, "saxpy.comp")
	ran := 0
	for _, env := range []struct {
		name  string
		minor int
	}{{"vulkan1.2", 2}, {"vulkan1.3", 3}} {
		for _, d := range testdev.Devices(t) {
			var major, minor int
			fmt.Sscanf(d.Info.APIVersion, "%d.%d", &major, &minor)
			if major != 1 || minor < env.minor {
				continue
			}
			ran++
			code, stdout, stderr := run(t, "--validate", "--device", strconv.Itoa(d.Info.Index), "shader", "check", saxpy,
				"-b", "x="+filepath.Join(examples, "saxpy_x.npy"), "-b", "y="+filepath.Join(examples, "saxpy_y.npy"),
				"--push", "a=2.5", "--push", "n=1000", "--global", "1000", "--target-env", env.name,
				"-e", "y="+filepath.Join(examples, "saxpy_expected.npy"))
			if code != 0 {
				t.Errorf("%s on %s (Vulkan %s): exit %d: %s%s", env.name, d.Info.Name, d.Info.APIVersion, code, stdout, stderr)
			}
		}
	}
	if ran == 0 {
		t.Skip("no device of Vulkan 1.2 or later")
	}
}

// Issue 25, messages: a .spv that is not SPIR-V, and binary data that is
// not GLSL, are said to be so, not compiled as GLSL into a heap of errors.
func TestShaderNotSPIRVNorGLSL(t *testing.T) {
	dir := t.TempDir()
	junk := writeFile(t, dir, "junk.spv", "void main() {}\n")
	zeros := writeFile(t, dir, "zeros.comp", string(make([]byte, 64)))
	for _, c := range []struct{ file, want string }{
		{junk, "not a SPIR-V module: it starts with 76 6f 69 64"},
		{zeros, "neither GLSL (it holds binary data: a NUL byte at byte 0) nor SPIR-V"},
	} {
		code, _, stderr := run(t, "shader", "info", c.file)
		if code != ExitError || !strings.Contains(stderr, c.want) || strings.Contains(stderr, "does not compile") {
			t.Errorf("%s: exit %d, stderr %q; want %d and %q", c.file, code, stderr, ExitError, c.want)
		}
	}
}

// TestShader16BitAndMemoryModel (issue 45, item 1): a float16 shader and a
// memory-model shader run and match NumPy on every device that offers the
// features vkstat now enables (lavapipe offers all), and a device without
// them (SwiftShader has no 16-bit storage) is refused with the feature named.
func TestShader16BitAndMemoryModel(t *testing.T) {
	e := func(f string) string { return filepath.Join(examples, f) }
	cases := []struct {
		file  string
		flags []string
		needs []string // features (engine.DeviceInfo.ShaderFeatures)
	}{
		{"saxpy_f16.comp", []string{"-b", "x=" + e("saxpy_f16_x.npy"), "-b", "y=" + e("saxpy_f16_y.npy"), "--push", "a=2.5", "--push", "n=1000",
			"--global", "1000", "-e", "y=" + e("saxpy_f16_expected.npy"), "--tol", "1e-3"}, []string{"storageBuffer16BitAccess"}},
		{"reduce_memory_model.comp", []string{"-b", "data=" + e("reduce_in.npy"), "-b", "sums=float32:16", "--push", "n=4000", "--push", "chunk=250",
			"--groups", "16", "-e", "sums=" + e("reduce_expected.npy")}, []string{"vulkanMemoryModel"}},
	}
	for _, d := range testdev.Devices(t) {
		if d.Info.Disabled != "" {
			continue // the same device without float64
		}
		for _, c := range cases {
			args := append([]string{"--validate", "--device", strconv.Itoa(d.Info.Index), "shader", "check", e(c.file)}, c.flags...)
			code, stdout, stderr := run(t, args...)
			var lacks []string
			for _, f := range c.needs {
				if !d.Info.HasShaderFeature(f) {
					lacks = append(lacks, f)
				}
			}
			if len(lacks) == 0 {
				if code != 0 || !strings.Contains(stdout, "PASS") {
					t.Errorf("%s on %s: exit %d: %s\n%s", c.file, d.Info.Name, code, stderr, stdout)
				}
				continue
			}
			for _, f := range lacks {
				if code != ExitError || !strings.Contains(stderr, "lacks: ") || !strings.Contains(stderr, "("+f+": the device does not offer it)") {
					t.Errorf("%s on %s, which lacks %s: exit %d: %s", c.file, d.Info.Name, f, code, stderr)
				}
			}
		}
	}
}

// TestShaderCheckWhere (issue 45, item 3): a check failing on 3 elements of
// a 48×40 output says 3 of 1920 are beyond the tolerance, names the worst
// at its index in the output's shape with got and want, and lists the two
// others; --atol/--rtol per binding pass it as np.testing.assert_allclose
// would, and one binding's --atol leaves the other's --tol test alone.
func TestShaderCheckWhere(t *testing.T) {
	needShaderDevice(t)
	ex := shaderExamples()[3] // tile_transpose: dst is 48×40, dst[i, j] = (48·j + i)/7
	want, err := shaderlab.ReadNPY(ex.expected)
	if err != nil {
		t.Fatal(err)
	}
	bump := func(i, j int, by float32) {
		p := want.Data[4*(40*i+j):]
		binary.LittleEndian.PutUint32(p, math.Float32bits(math.Float32frombits(binary.LittleEndian.Uint32(p))+by))
	}
	bump(2, 5, 0.01) // dst[2, 5] = 242/7
	bump(10, 3, 0.5) // the worst: dst[10, 3] = 154/7
	bump(47, 39, -0.02)
	file := filepath.Join(t.TempDir(), "want.npy")
	var b bytes.Buffer
	if err := want.EncodeNPY(&b); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(file, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	args := append([]string{"--validate", "shader", "check", filepath.Join(examples, ex.file)}, ex.flags...)
	args = append(args, "-e", "dst="+file)
	code, stdout, stderr := run(t, args...)
	for _, w := range []string{
		"FAIL dst:", "3 of 1920 elements (0.156%) beyond the tolerance",
		fmt.Sprintf("worst: dst[10, 3] got %.7g, want %.7g", float32(154.0/7), float32(154.0/7)+0.5),
		"others:", fmt.Sprintf("dst[2, 5] got %.7g, want %.7g", float32(242.0/7), float32(242.0/7)+0.01),
		fmt.Sprintf("dst[47, 39] got %.7g, want %.7g", float32(1919.0/7), float32(1919.0/7)-0.02),
	} {
		if !strings.Contains(stdout, w) {
			t.Errorf("the report lacks %q:\n%s", w, stdout)
		}
	}
	if code != ExitError || !strings.Contains(stderr, "1 binding(s) differ beyond the tolerance") {
		t.Errorf("exit %d: %s", code, stderr)
	}
	// |error| ≤ 0.4 + 1e-3·|want| passes dst[2, 5] and dst[47, 39], not
	// dst[10, 3] (0.5 > 0.422).
	code, stdout, _ = run(t, append(args, "--atol", "dst=0.4", "--rtol", "1e-3")...)
	if code != ExitError || !strings.Contains(stdout, "1 of 1920 elements") || !strings.Contains(stdout, "|error| ≤ 0.4 + 0.001·|expected|") {
		t.Errorf("--atol dst=0.4 --rtol 1e-3: exit %d:\n%s", code, stdout)
	}
	code, stdout, stderr = run(t, append(args, "--atol", "dst=0.51")...)
	if code != 0 || !strings.Contains(stdout, "PASS dst") {
		t.Errorf("--atol dst=0.51: exit %d: %s\n%s", code, stderr, stdout)
	}
	for _, bad := range [][]string{{"--atol", "nosuch=1"}, {"--rtol", "-1"}, {"--atol", "dst=x"}} {
		if code, _, stderr := run(t, append(args, bad...)...); code != ExitUsage || !strings.Contains(stderr, bad[0]) {
			t.Errorf("%v: exit %d: %s", bad, code, stderr)
		}
	}
}

// TestShaderUniform (issue 45, item 2): a uniform block is bound from
// NAME=VALUE members (-u, unset members 0) or from an NPY of its bytes,
// and the output matches NumPy on every device; a uniform binding without
// data, and a member it lacks, get messages naming what to give.
func TestShaderUniform(t *testing.T) {
	needShaderDevice(t)
	e := func(f string) string { return filepath.Join(examples, f) }
	base := []string{"--validate", "--device", "all", "shader", "check", e("uniform_params.comp"), "-b", "x=" + e("saxpy_x.npy"),
		"-b", "y=float32:1000", "--global", "1000", "-e", "y=" + e("uniform_expected.npy")}
	code, stdout, stderr := run(t, append(base, "-u", "a=2", "-u", "params.n=999", "-u", "b=0.5")...)
	if code != 0 || !strings.Contains(stdout, "PASS y") || strings.Contains(stdout, "FAIL") {
		t.Errorf("-u members: exit %d: %s\n%s", code, stderr, stdout)
	}
	// The block's 36 bytes as std140 lays them out: a @0, n @4, b @32.
	block := make([]byte, 36)
	binary.LittleEndian.PutUint32(block[0:], math.Float32bits(2))
	binary.LittleEndian.PutUint32(block[4:], 999)
	binary.LittleEndian.PutUint32(block[32:], math.Float32bits(0.5))
	var b bytes.Buffer
	if err := (&shaderlab.Array{Elem: "uint8", Shape: []int{36}, Data: block}).EncodeNPY(&b); err != nil {
		t.Fatal(err)
	}
	npy := writeFile(t, t.TempDir(), "params.npy", b.String())
	code, stdout, stderr = run(t, append(base, "-b", "params="+npy)...)
	if code != 0 || !strings.Contains(stdout, "PASS y") || strings.Contains(stdout, "FAIL") {
		t.Errorf("-b params=NPY: exit %d: %s\n%s", code, stderr, stdout)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{nil, "binding 0 (params) has no data: give its members with --uniform params.a=VALUE ... (unset members are 0), or its 36 bytes with --bind params=FILE.npy"},
		{[]string{"-u", "c=1"}, `--uniform c=1: no uniform member "c"; the shader has params.a, params.n, params.unused, params.b`},
		{[]string{"-u", "x.x=1"}, "--uniform x.x=1: binding 1 (x) is not a uniform block"},
		{[]string{"-u", "unused=1"}, "unused is a float32×4; only scalar members can be set by name"},
		{[]string{"-b", "params=" + npy, "-u", "a=1"}, "has its data from"},
	} {
		code, _, stderr := run(t, append(base, c.args...)...)
		if code != ExitUsage || !strings.Contains(stderr, c.want) {
			t.Errorf("%v: exit %d: %s; want %q", c.args, code, stderr, c.want)
		}
	}
}

// TestShaderSpecAlias (issue 45, item 4): a specialization constant that
// the shader redeclares (const uint strideC = N;) keeps its own name, N,
// and takes the alias too; both set the same constant, and the output is
// y[i] = 256·i + 256 for i < 16.
func TestShaderSpecAlias(t *testing.T) {
	needShaderDevice(t)
	file := "../testdata/shaders/spec_alias.comp"
	code, stdout, stderr := run(t, "shader", "info", file)
	if code != 0 || !strings.Contains(stdout, "1   N (also strideC)  uint32  64") {
		t.Errorf("info: exit %d: %s\n%s", code, stderr, stdout)
	}
	dir := t.TempDir()
	for _, name := range []string{"N", "strideC", "1"} {
		out := filepath.Join(dir, name+".npy")
		code, stdout, stderr := run(t, "--validate", "--device", "all", "shader", "run", file, "-b", "y=uint32:20", "--spec", name+"=256", "--groups", "1", "-o", "y="+out)
		if code != 0 {
			t.Fatalf("--spec %s=256: exit %d: %s\n%s", name, code, stderr, stdout)
		}
		got, err := shaderlab.ReadNPY(out)
		if err != nil {
			t.Fatal(err)
		}
		for i, v := range got.Values() {
			want := 0.0
			if i < 16 {
				want = float64(256*i + 256)
			}
			if v != want {
				t.Errorf("--spec %s=256: y[%d] = %g, want %g", name, i, v, want)
			}
		}
	}
	code, _, stderr = run(t, "shader", "run", file, "-b", "y=uint32:20", "--spec", "K=1", "--groups", "1")
	if code != ExitUsage || !strings.Contains(stderr, "0 (M), 1 (N, strideC)") {
		t.Errorf("--spec K=1: exit %d: %s", code, stderr)
	}
}

// TestShaderBounds (issue 45, item 5): a guard the static check cannot
// read (if (params.size <= id + 1) return;) runs, with a warning that
// --no-bounds-check silences, and computes y[i + 1] = 2·x[i]; a real write
// past the end (y[id + 7]) fails on every device, naming the binding and
// the elements written, though the static check could not tell.
func TestShaderBounds(t *testing.T) {
	needShaderDevice(t)
	x := filepath.Join(examples, "saxpy_x.npy")
	out := filepath.Join(t.TempDir(), "y.npy")
	args := []string{"--validate", "--device", "all", "shader", "run", "../testdata/shaders/guard_size.comp", "-b", "x=" + x, "-b", "y=float32:1000",
		"--push", "size=1000", "--global", "1024", "-o", "y=" + out}
	code, stdout, stderr := run(t, args...)
	if code != 0 || !strings.Contains(stderr, "warning: binding 0 (x): the shader indexes x[] with gl_GlobalInvocationID.x, the dispatch has 1024 invocations along x") ||
		!strings.Contains(stderr, "--no-bounds-check") {
		t.Fatalf("guard: exit %d: %s\n%s", code, stderr, stdout)
	}
	got, err := shaderlab.ReadNPY(out)
	if err != nil {
		t.Fatal(err)
	}
	in, err := shaderlab.ReadNPY(x)
	if err != nil {
		t.Fatal(err)
	}
	g, w := got.Values(), in.Values()
	for i := range g {
		want := 0.0
		if i > 0 {
			want = float64(2 * float32(w[i-1]))
		}
		if g[i] != want {
			t.Fatalf("y[%d] = %g, want %g", i, g[i], want)
		}
	}
	if code, _, stderr := run(t, append(args, "--no-bounds-check")...); code != 0 || strings.Contains(stderr, "warning") {
		t.Errorf("--no-bounds-check: exit %d: %s", code, stderr)
	}
	code, _, stderr = run(t, "--validate", "--device", "all", "shader", "run", "../testdata/shaders/write_past_end.comp", "-b", "x="+x, "-b", "y=float32:1000",
		"--push", "n=1000", "--global", "1000")
	if code != ExitError || !strings.Contains(stderr, "binding 1 (y): the shader wrote outside the binding: bytes 4000 to 4027 from its start, past its 4000 (y[1000] to y[1006])") {
		t.Errorf("write past the end: exit %d: %s", code, stderr)
	}
}

// TestShaderSubgroupNote (issue 45, item 7): a reduction that assumes
// 16-lane subgroups passes where a subgroup holds the 16-wide workgroup
// and fails elsewhere (lavapipe's 8, SwiftShader's 4) with a note giving
// the device's subgroup size against the workgroup; info gives it too.
func TestShaderSubgroupNote(t *testing.T) {
	file := "../testdata/shaders/subgroup_assumes16.comp"
	in, err := shaderlab.ReadNPY(filepath.Join(examples, "reduce_in.npy"))
	if err != nil {
		t.Fatal(err)
	}
	v := in.Values() // 4000 = 250 × 16
	want := &shaderlab.Array{Elem: "float32", Shape: []int{250}, Data: make([]byte, 4*250)}
	for g := range 250 {
		s := 0.0
		for _, x := range v[16*g : 16*g+16] {
			s += x
		}
		binary.LittleEndian.PutUint32(want.Data[4*g:], math.Float32bits(float32(s)))
	}
	var b bytes.Buffer
	if err := want.EncodeNPY(&b); err != nil {
		t.Fatal(err)
	}
	expected := writeFile(t, t.TempDir(), "sums.npy", b.String())
	for _, d := range testdev.Devices(t) {
		if d.Info.Disabled != "" || !slices.Contains(d.Info.SubgroupOps, "arithmetic") {
			continue
		}
		dev := strconv.Itoa(d.Info.Index)
		code, stdout, stderr := run(t, "--device", dev, "shader", "info", file)
		note := fmt.Sprintf("on %s a subgroup is %d invocations, so a workgroup of 16 is %d subgroup", d.Info.Name, d.Info.SubgroupSize, (16+d.Info.SubgroupSize-1)/d.Info.SubgroupSize)
		if code != 0 || !strings.Contains(stdout, note) {
			t.Errorf("info on %s: exit %d: %s\n%s", d.Info.Name, code, stderr, stdout)
		}
		code, stdout, stderr = run(t, "--validate", "--device", dev, "shader", "check", file, "-b", "data="+filepath.Join(examples, "reduce_in.npy"),
			"-b", "sums=float32:250", "--groups", "250", "-e", "sums="+expected, "--tol", "1e-5")
		if d.Info.SubgroupSize >= 16 {
			if code != 0 {
				t.Errorf("on %s (subgroups of %d): exit %d: %s\n%s", d.Info.Name, d.Info.SubgroupSize, code, stderr, stdout)
			}
			continue
		}
		if code != ExitError || !strings.Contains(stdout, "250 of 250 elements") || !strings.Contains(stdout, "note: the shader uses subgroup operations: "+note) {
			t.Errorf("on %s (subgroups of %d): exit %d: %s\n%s", d.Info.Name, d.Info.SubgroupSize, code, stderr, stdout)
		}
	}
}

// TestShaderSweep (issue 45, item 8): one case file swept over 3 shapes
// and 2 types (float32, float16) gives a table with a row per variant and
// device: PASS where the device has what the variant needs, an ERROR row
// naming the feature where not (SwiftShader's float16), exit 1 then. A
// case without a sweep runs under check --case, the command line's flags
// winning.
func TestShaderSweep(t *testing.T) {
	needShaderDevice(t)
	dir := t.TempDir()
	shader, err := filepath.Abs("../examples/shaders/scale.comp")
	if err != nil {
		t.Fatal(err)
	}
	// x[i] = (i mod 37 − 18)/8 and y = 2.5·x are exact in float16.
	write := func(name, elem string, n int, f func(int) float64) {
		a := &shaderlab.Array{Elem: elem, Shape: []int{n}, Data: make([]byte, n*shaderlab.ElemSize(elem))}
		for i := range n {
			if elem == "float16" {
				binary.LittleEndian.PutUint16(a.Data[2*i:], tensor.Float32ToHalf(float32(f(i))))
			} else {
				binary.LittleEndian.PutUint32(a.Data[4*i:], math.Float32bits(float32(f(i))))
			}
		}
		var b bytes.Buffer
		if err := a.EncodeNPY(&b); err != nil {
			t.Fatal(err)
		}
		writeFile(t, dir, name, b.String())
	}
	var variants []string
	for _, ty := range []struct{ elem, glsl string }{{"float32", "float"}, {"float16", "float16_t"}} {
		for _, n := range []int{100, 1000, 4099} {
			x := func(i int) float64 { return float64(i%37-18) / 8 }
			write(fmt.Sprintf("x_%s_%d.npy", ty.elem, n), ty.elem, n, x)
			write(fmt.Sprintf("y_%s_%d.npy", ty.elem, n), ty.elem, n, func(i int) float64 { return 2.5 * x(i) })
			variants = append(variants, fmt.Sprintf(`{"name": "%[1]s n=%[2]d", "define": {"T": "%[3]s"}, "bind": {"x": "x_%[1]s_%[2]d.npy", "y": "%[1]s:%[2]d"},
				"push": {"n": %[2]d}, "global": %[2]d, "expect": {"y": "y_%[1]s_%[2]d.npy"}, "flops": %[2]d}`, ty.elem, n, ty.glsl))
		}
	}
	sweep := writeFile(t, dir, "scale.json", fmt.Sprintf(`{"shader": %q, "push": {"a": 2.5}, "tol": 0, "sweep": [%s]}`, shader, strings.Join(variants, ",\n")))
	// The test's own case, and examples/shaders/scale_sweep.json (the
	// same over make_data.py's data) that docs/shader.md runs.
	for _, d := range testdev.Devices(t) {
		for _, file := range []string{sweep, filepath.Join(examples, "scale_sweep.json")} {
			sweepOn(t, d, file)
		}
	}
	one := writeFile(t, dir, "one.json", fmt.Sprintf(`{"shader": %q, "define": {"T": "float"}, "bind": {"x": "x_float32_1000.npy", "y": "float32:1000"},
		"push": {"a": 2.5, "n": 1000}, "global": 1000, "expect": {"y": "y_float32_1000.npy"}, "tol": 0}`, shader))
	code, stdout, stderr := run(t, "--validate", "shader", "check", "--case", one)
	if code != 0 || !strings.Contains(stdout, "PASS y") {
		t.Errorf("check --case: exit %d: %s\n%s", code, stderr, stdout)
	}
	// The command line's a=3 wins over the case's 2.5: y is 1.2 times the expected.
	code, stdout, _ = run(t, "shader", "check", "--case", one, "--push", "a=3")
	if code != ExitError || !strings.Contains(stdout, "FAIL y") {
		t.Errorf("check --case --push a=3: exit %d:\n%s", code, stdout)
	}
	if code, _, stderr := run(t, "shader", "check", "--case", sweep); code != ExitUsage || !strings.Contains(stderr, "run it with vkstat shader sweep") {
		t.Errorf("check --case SWEEP: exit %d: %s", code, stderr)
	}
	if code, _, stderr := run(t, "shader", "sweep", sweep, "--warmup", "-1"); code != ExitUsage || !strings.Contains(stderr, "--warmup must be from 0 to") {
		t.Errorf("sweep --warmup -1: exit %d: %s", code, stderr)
	}
	// A sweep wrote nothing its --out/--out-dir named; they are refused.
	for _, out := range [][]string{{"--out-dir", filepath.Join(dir, "D")}, {"--out", "y=" + filepath.Join(dir, "y.npy")}, {"-o", "y=" + filepath.Join(dir, "y.npy")}} {
		code, _, stderr := run(t, append([]string{"shader", "sweep", sweep}, out...)...)
		if code != ExitUsage || !strings.Contains(stderr, "unknown flag "+out[0]) || !strings.Contains(stderr, "a sweep writes its table only") {
			t.Errorf("sweep %s: exit %d: %s", out[0], code, stderr)
		}
	}
	// A second case beside the sweep's own was laid over every variant, silently; refused.
	if code, _, stderr := run(t, "shader", "sweep", sweep, "--case", one); code != ExitUsage || !strings.Contains(stderr, "the case file is the argument") {
		t.Errorf("sweep --case: exit %d: %s", code, stderr)
	}
	code, stdout, _ = run(t, "shader", "run", "--case", one, "--repeat", "3", "--warmup", "2")
	if code != 0 || !strings.Contains(stdout, "median of 3 after 2 untimed") && !strings.Contains(stdout, "no timestamps") || !strings.Contains(stdout, "first run ") {
		t.Errorf("run --repeat 3 --warmup 2: exit %d:\n%s", code, stdout)
	}
	bad := writeFile(t, dir, "bad.json", `{"shader": "x.comp", "bindings": {}}`)
	if code, _, stderr := run(t, "shader", "run", "--case", bad); code == 0 || !strings.Contains(stderr, `unknown field "bindings"`) {
		t.Errorf("a case with an unknown key: exit %d: %s", code, stderr)
	}
}

// sweepOn runs the sweep of file on d and checks its table: PASS rows
// where d has float16 storage and arithmetic, ERROR rows naming the
// feature where not.
func sweepOn(t *testing.T, d *engine.Device, file string) {
	t.Helper()
	if d.Info.Disabled != "" {
		return
	}
	code, stdout, stderr := run(t, "--validate", "--device", strconv.Itoa(d.Info.Index), "shader", "sweep", file, "--repeat", "2")
	if !strings.Contains(stdout, "CASE") || !strings.Contains(stdout, "GPU TIME") || !strings.Contains(stdout, "FIRST RUN") {
		t.Fatalf("no table on %s: exit %d: %s\n%s", d.Info.Name, code, stderr, stdout)
	}
	f16 := d.Info.HasShaderFeature("storageBuffer16BitAccess") && d.Info.HasShaderFeature("shaderFloat16")
	for _, ty := range []string{"float32", "float16"} {
		for _, n := range []int{100, 1000, 4099} {
			row := fmt.Sprintf("%s n=%d  %s  PASS  0", ty, n, d.Info.Name)
			if ty == "float16" && !f16 {
				row = fmt.Sprintf("%s n=%d  %s  ERROR  ", ty, n, d.Info.Name)
			}
			if !strings.Contains(regexpSpaces(stdout), row) {
				t.Errorf("on %s, no row %q:\n%s", d.Info.Name, row, stdout)
			}
		}
	}
	if f16 {
		if code != 0 || !strings.Contains(stdout, "shader sweep: 6 rows passed") {
			t.Errorf("on %s: exit %d: %s\n%s", d.Info.Name, code, stderr, stdout)
		}
	} else if code != ExitError || !strings.Contains(stdout, "storageBuffer16BitAccess") || !strings.Contains(stderr, "3 of 6 rows failed") {
		t.Errorf("on %s, without float16: exit %d: %s\n%s", d.Info.Name, code, stderr, stdout)
	}
}

// regexpSpaces collapses runs of spaces to two (a table's columns).
func regexpSpaces(s string) string {
	return regexp.MustCompile(` {2,}`).ReplaceAllString(s, "  ")
}

// TestShaderSequence runs the example sequences on every device: a
// two-pass reduction (reduce_two_pass.json: 16 partial sums, then their
// sum, against NumPy's partial sums and float64 total) and a logistic
// regression, two dispatches repeated 100 times over buffers that stay on
// the device (logreg.json, against NumPy's float64 weights); then what a
// sequence refuses, and a failing check naming its buffer.
func TestShaderSequence(t *testing.T) {
	needShaderDevice(t)
	twoPass, logreg := filepath.Join(examples, "reduce_two_pass.json"), filepath.Join(examples, "logreg.json")
	out := filepath.Join(t.TempDir(), "w.npy")
	for _, d := range testdev.Devices(t) {
		if d.Info.Disabled != "" {
			continue
		}
		dev := strconv.Itoa(d.Info.Index)
		code, stdout, stderr := run(t, "--validate", "--device", dev, "shader", "check", "--case", twoPass, "--repeat", "2")
		if code != 0 || !strings.Contains(stdout, "2 steps, 2 dispatches") || !strings.Contains(stdout, "PASS parts") || !strings.Contains(stdout, "PASS total") {
			t.Errorf("%s: two-pass reduction: exit %d: %s\n%s", d.Info.Name, code, stderr, stdout)
		}
		code, stdout, stderr = run(t, "--validate", "--device", dev, "shader", "check", "--case", logreg, "--out", "w="+out)
		if code != 0 || !strings.Contains(stdout, "2 steps, 200 dispatches") || !strings.Contains(stdout, "PASS w") {
			t.Errorf("%s: logistic regression: exit %d: %s\n%s", d.Info.Name, code, stderr, stdout)
		}
		want, err := shaderlab.ReadNPY(filepath.Join(examples, "logreg_expected_w.npy"))
		if err != nil {
			t.Fatal(err)
		}
		if got, err := shaderlab.ReadNPY(out); err != nil {
			t.Errorf("%s: --out w: %v", d.Info.Name, err)
		} else if diff, err := shaderlab.Compare(got, want); err != nil || diff.MaxRel > 1e-4 {
			t.Errorf("%s: --out w: %v %v", d.Info.Name, diff, err)
		}
	}
	code, stdout, _ := run(t, "shader", "check", "--case", twoPass, "--tol", "0", "--expect", "parts="+filepath.Join(examples, "reduce_expected.npy"))
	if code != ExitError || !strings.Contains(stdout, "FAIL total") || !strings.Contains(stdout, "worst: total[0] got") {
		t.Errorf("--tol 0: exit %d:\n%s", code, stdout)
	}
	dir := t.TempDir()
	abs, err := filepath.Abs(examples)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name, file string
		args       []string
		want       string
	}{
		{"a flag of a step", twoPass, []string{"--push", "n=3"}, "--push: the case " + twoPass + " has steps: set it per step in the case file"},
		{"an unknown output", twoPass, []string{"-o", "tot=x.npy"}, `--out tot=x.npy: no buffer "tot"; the sequence has data, parts, total`},
		{"an unknown buffer", writeFile(t, dir, "unknown.json", fmt.Sprintf(`{"buffers": {"data": %q, "parts": "float32:16"},
			"steps": [{"shader": %q, "bind": {"data": "data", "sums": "part"}, "push": {"n": 4000, "chunk": 250}, "groups": 16}]}`,
			filepath.Join(abs, "reduce_in.npy"), filepath.Join(abs, "reduce_shared.comp"))), nil, `step 1: bind sums=part: no buffer "part" (the case has data, parts) and no file`},
		{"a sweep", filepath.Join(examples, "scale_sweep.json"), nil, ""},
		{"steps in a sweep", twoPass, []string{"sweep"}, "the case has steps: run it with vkstat shader run or check --case"},
	} {
		args := append([]string{"shader", "run", "--case", c.file}, c.args...)
		if len(c.args) > 0 && c.args[0] == "sweep" {
			args = []string{"shader", "sweep", c.file}
		}
		code, _, stderr := run(t, args...)
		if c.want == "" {
			c.want = "the case has a sweep"
		}
		if code == 0 || !strings.Contains(stderr, c.want) {
			t.Errorf("%s: exit %d: %s; want %q", c.name, code, stderr, c.want)
		}
	}
}

// TestShaderReference: a reference written once, in NumPy. The sweep of
// scale_reference_sweep.json draws x at random (seed 45) for 3 shapes and
// 2 types and compares y with scale_ref.py's a·x in float64 on every
// device; a check on random saxpy inputs passes against the expression
// a·x + y and fails, naming the worst element, against 3·x + y; an
// expression naming nothing the shader has, and a Python without NumPy,
// are refused saying so.
func TestShaderReference(t *testing.T) {
	needShaderDevice(t)
	for _, d := range testdev.Devices(t) {
		sweepOn(t, d, filepath.Join(examples, "scale_reference_sweep.json"))
	}
	saxpy := []string{"shader", "check", filepath.Join(examples, "saxpy.comp"), "-b", "x=random:float32:1000", "-b", "y=random:float32:1000",
		"--push", "a=2.5", "--push", "n=1000", "--global", "1000", "--seed", "7"}
	code, stdout, stderr := run(t, append(saxpy, "--reference", "y=a * x.astype(np.float64) + y", "--tol", "1e-6")...)
	if code != 0 || !strings.Contains(stdout, "PASS y") {
		t.Errorf("reference a·x + y: exit %d: %s\n%s", code, stderr, stdout)
	}
	code, stdout, _ = run(t, append(saxpy, "--reference", "y=3 * x + y")...)
	if code != ExitError || !strings.Contains(stdout, "FAIL y") || !strings.Contains(stdout, "worst: y[") {
		t.Errorf("reference 3·x + y: exit %d:\n%s", code, stdout)
	}
	code, _, stderr = run(t, append(saxpy, "--reference", "y=a * z")...)
	if code == 0 || !strings.Contains(stderr, "reference y = a * z: NameError: name 'z' is not defined (it is given np and a, n, x, y)") {
		t.Errorf("reference a·z: exit %d: %s", code, stderr)
	}
	noNumPy := writeFile(t, t.TempDir(), "python", "#!/bin/sh\nexec /usr/bin/python3 -S \"$@\"\n")
	if err := os.Chmod(noNumPy, 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("VKSTAT_PYTHON", noNumPy)
	code, _, stderr = run(t, append(saxpy, "--reference", "y=a * x + y")...)
	if code == 0 || !strings.Contains(stderr, "a reference needs Python with NumPy: "+noNumPy+" has no numpy") {
		t.Errorf("a Python without NumPy: exit %d: %s", code, stderr)
	}
}
