package cli

import (
	"context"
	"math"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/vkstat/vkstat/formats"

	"github.com/vkstat/vkstat/engine"
	"github.com/vkstat/vkstat/tensor"
)

// Issue 9, item 2: a loader with no working driver must not stop the
// default device; an explicit Vulkan choice fails naming the real cause.
func TestNoDriverFallsBackOnAuto(t *testing.T) {
	requireVulkan(t)
	dir := t.TempDir()
	in := writeNPY(t, dir, "a.npy", tensor.FromF64(ramp(60), 6, 10))
	t.Setenv("VK_DRIVER_FILES", "/nonexistent.json")
	t.Setenv("VKSTAT_VALIDATE", "")
	slowCPURates(t) // the job asks Vulkan (auto_test.go)

	code, _, stderr := run(t, "reduce", "--in", in, "--axis", "0", "--out-dir", filepath.Join(dir, "auto"))
	if code != 0 {
		t.Fatalf("--device auto without a driver: exit %d, want 0 (the CPU path): %s", code, stderr)
	}
	if n := strings.Count(strings.TrimSpace(stderr), "\n"); n != 0 || !strings.Contains(stderr, "CPU path") {
		t.Errorf("--device auto: want a one-line note naming the CPU path on stderr, got %q", stderr)
	}
	if _, err := os.Stat(filepath.Join(dir, "auto", "mean.npy")); err != nil {
		t.Errorf("--device auto wrote no output: %v", err)
	}

	for _, dev := range []string{"gpu", "lavapipe"} {
		code, _, stderr = run(t, "--device", dev, "reduce", "--in", in, "--axis", "0", "--out-dir", filepath.Join(dir, dev))
		if code != ExitError {
			t.Errorf("--device %s without a driver: exit %d, want %d", dev, code, ExitError)
		}
		for _, want := range []string{"no usable Vulkan driver", "VK_DRIVER_FILES=/nonexistent.json points nowhere", "--device cpu"} {
			if !strings.Contains(stderr, want) {
				t.Errorf("--device %s: stderr %q does not say %q", dev, stderr, want)
			}
		}
	}
}

// requireVulkan skips a test that needs a working Vulkan loader and driver.
func requireVulkan(t *testing.T) {
	t.Helper()
	inst, err := engine.NewInstance(engine.Options{})
	if err != nil {
		t.Skipf("no Vulkan loader and driver to start from: %v", err)
	}
	inst.Close()
}

// Issue 9, item 3: an array larger than the memory is refused before it is
// allocated, naming its size, instead of "fatal error: out of memory".
func TestSynthRandomTooLarge(t *testing.T) {
	out := filepath.Join(t.TempDir(), "big.npy")
	code, _, stderr := run(t, "synth", "random", "--shape", "1000000,1000000", "--dtype", "f64", "--out", out)
	if code != ExitError || !strings.Contains(stderr, "7450.6 GiB") || !strings.Contains(stderr, "available") {
		t.Errorf("exit %d, stderr %q; want %d and the size in GiB against the available memory", code, stderr, ExitError)
	}
	old := availableMemory
	availableMemory = func() uint64 { return 0 } // no /proc/meminfo
	defer func() { availableMemory = old }()
	code, _, stderr = run(t, "synth", "random", "--shape", "1000000,1000000", "--dtype", "f64", "--out", out)
	if code != ExitError || !strings.Contains(stderr, "GiB") {
		t.Errorf("without meminfo: exit %d, stderr %q; want %d and the size in GiB", code, stderr, ExitError)
	}
	if _, err := os.Stat(out); err == nil {
		t.Errorf("%s was written", out)
	}
}

// Issue 9, item 4: a stray positional argument used to end flag parsing
// silently (reduce ... stray --stat max wrote mean and std); every command
// without positional arguments refuses it, naming it, before any work:
// synth stack too, whose last word is stack's (issue 42).
func TestStrayArgument(t *testing.T) {
	dir := t.TempDir()
	a := writeNPY(t, dir, "a.npy", tensor.FromF64(ramp(60), 6, 10))
	out := filepath.Join(dir, "o")
	for _, args := range [][]string{
		{"reduce", "--in", a, "--out-dir", out, "stray", "--stat", "max"},
		{"map", "--x", a, "--y", a, "--out", filepath.Join(out, "z.npy"), "stray"},
		{"cov", "--in", a, "--out-cov", filepath.Join(out, "c.npy"), "stray"},
		{"chol", "--in", a, "--out-l", filepath.Join(out, "l.npy"), "stray"},
		{"synth", "random", "--shape", "3", "--out", filepath.Join(out, "r.npy"), "stray"},
		{"synth", "stack", "--out-dir", out, "stray"},
		{"paco", "--cube", a, "--angles", a, "--fwhm", "3", "--out-dir", out, "stray"},
		{"devices", "stray"},
		{"bench", "stray"},
		{"verify", "stray"},
	} {
		code, _, stderr := run(t, args...)
		if code != ExitUsage || !strings.Contains(stderr, `unexpected argument "stray"`) {
			t.Errorf("%v: exit %d, stderr %q; want %d naming \"stray\"", args, code, stderr, ExitUsage)
		}
	}
	if _, err := os.Stat(out); err == nil {
		t.Errorf("%s was created", out)
	}
}

// Issue 9, item 4: global flags work after the command too.
func TestGlobalFlagsAfterCommand(t *testing.T) {
	dir := t.TempDir()
	a := writeNPY(t, dir, "a.npy", tensor.FromF64(ramp(60), 6, 10))
	code, _, stderr := run(t, "reduce", "--device", "cpu", "--time", "--in", a, "--out-dir", filepath.Join(dir, "o"))
	if code != 0 || !strings.Contains(stderr, "CPU path") || !strings.Contains(stderr, "total:") {
		t.Errorf("reduce --device cpu --time: exit %d, stderr %q; want 0 and the timing of the CPU path", code, stderr)
	}
	// Before the command still works, and the environment too.
	code, _, stderr = run(t, "--time", "map", "--device", "cpu", "--x", a, "--y", a, "--out", filepath.Join(dir, "z.npy"))
	if code != 0 || !strings.Contains(stderr, "CPU path") {
		t.Errorf("--time map --device cpu: exit %d, stderr %q", code, stderr)
	}
	t.Setenv("VKSTAT_DEVICE", "cpu")
	code, _, stderr = run(t, "--time", "map", "--x", a, "--y", a, "--out", filepath.Join(dir, "z.npy"))
	if code != 0 || !strings.Contains(stderr, "CPU path") {
		t.Errorf("VKSTAT_DEVICE=cpu: exit %d, stderr %q", code, stderr)
	}
	code, _, stderr = run(t, "map", "--device", "no-such-gpu", "--x", a, "--y", a, "--out", filepath.Join(dir, "z.npy"))
	if code != ExitUsage || !strings.Contains(stderr, "unknown device") {
		t.Errorf("map --device no-such-gpu: exit %d, stderr %q; want %d", code, stderr, ExitUsage)
	}
}

// Issue 9, item 4: an unknown command is a usage error that names it and
// lists the commands.
func TestUnknownCommand(t *testing.T) {
	for _, args := range [][]string{{"frobnicate"}, {"synth", "frobnicate"}} {
		code, _, stderr := run(t, args...)
		if code != ExitUsage || !strings.Contains(stderr, `"frobnicate"`) || !strings.Contains(stderr, "paco") {
			t.Errorf("%v: exit %d, stderr %q; want %d naming it and listing the commands", args, code, stderr, ExitUsage)
		}
	}
	if code, stdout, _ := run(t); code != 0 || !strings.Contains(stdout, "COMMANDS") {
		t.Errorf("no arguments: exit %d; want the help", code)
	}
}

// Issue 9, item 4: output arrays are written in the format their names say.
func TestOutputFormatByExtension(t *testing.T) {
	dir := t.TempDir()
	x := writeNPY(t, dir, "x.npy", tensor.FromF64(ramp(60), 6, 10))
	s := writeNPY(t, dir, "s.npy", tensor.FromF64(ramp(3*20*4), 3, 20, 4))
	for _, c := range []struct{ args []string }{
		{[]string{"--device", "cpu", "map", "--x", x, "--y", x, "--out", filepath.Join(dir, "z.fits")}},
		{[]string{"--device", "cpu", "cov", "--in", s, "--out-cov", filepath.Join(dir, "C.fits"), "--out-mean", filepath.Join(dir, "m.fts")}},
		{[]string{"synth", "random", "--shape", "4,5", "--out", filepath.Join(dir, "r.fit")}},
	} {
		if code, _, stderr := run(t, c.args...); code != 0 {
			t.Fatalf("%v: exit %d: %s", c.args, code, stderr)
		}
	}
	for name, shape := range map[string][]int{"z.fits": {6, 10}, "C.fits": {3, 4, 4}, "m.fts": {3, 4}, "r.fit": {4, 5}} {
		got, err := formats.ReadArray(filepath.Join(dir, name))
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		b, _ := os.ReadFile(filepath.Join(dir, name))
		if !strings.HasPrefix(string(b), "SIMPLE  =") || !tensor.SameShape(got.Shape, shape) {
			t.Errorf("%s: not a FITS file of shape %v (shape %v, starts %q)", name, shape, got.Shape, b[:min(len(b), 9)])
		}
	}
	for _, args := range [][]string{
		{"map", "--x", x, "--y", x, "--out", filepath.Join(dir, "z.txt")},
		{"cov", "--in", s, "--out-cov", filepath.Join(dir, "C.dat")},
		{"synth", "random", "--shape", "3", "--out", filepath.Join(dir, "r")},
	} {
		if code, _, stderr := run(t, args...); code != ExitUsage || !strings.Contains(stderr, ".fits") {
			t.Errorf("%v: exit %d, stderr %q; want %d naming the formats", args, code, stderr, ExitUsage)
		}
	}
}

// Issue 9, item 4: NaN and Inf in numeric flags are refused up front, and
// paco's --precision f32 on the CPU path is refused, not ignored.
func TestNumericFlagsAndPrecision(t *testing.T) {
	data := synthADI(t)
	args := func(extra ...string) []string {
		return append(extra, "--cube", filepath.Join(data, "cube.fits"), "--angles", filepath.Join(data, "angles.fits"),
			"--psf", filepath.Join(data, "psf.fits"), "--radius", "3", "--out-dir", filepath.Join(t.TempDir(), "out"))
	}
	for _, v := range []string{"nan", "inf", "-Inf"} {
		code, stdout, stderr := run(t, append([]string{"--device", "cpu", "paco", "--threshold", v}, args()[0:]...)...)
		if code != ExitUsage || !strings.Contains(stderr, "--threshold") || stdout != "" {
			t.Errorf("--threshold %s: exit %d, stderr %q; want %d before any work", v, code, stderr, ExitUsage)
		}
	}
	dir := t.TempDir()
	x := writeNPY(t, dir, "x.npy", tensor.FromF64(ramp(10), 10))
	if code, _, stderr := run(t, "map", "--x", x, "--y", x, "--a", "NaN", "--out", filepath.Join(dir, "z.npy")); code != ExitUsage || !strings.Contains(stderr, "--a") {
		t.Errorf("map --a NaN: exit %d, stderr %q", code, stderr)
	}
	code, stdout, stderr := run(t, append([]string{"--precision", "f32", "--device", "cpu", "paco"}, args()...)...)
	if code != ExitUsage || !strings.Contains(stderr, "float64") || strings.Contains(stdout, "precision:  f64") {
		t.Errorf("--precision f32 --device cpu paco: exit %d, stdout %q, stderr %q; want a usage error", code, stdout, stderr)
	}
	if code, stdout, stderr := run(t, append([]string{"--precision", "f64", "--device", "cpu", "paco"}, args()...)...); code != 0 || !strings.Contains(stdout, "precision:  f64") {
		t.Errorf("--precision f64 --device cpu paco: exit %d: %s", code, stderr)
	}
}

// Issue 9, item 5: when one output cannot be written (out-dir/snr.png is a
// directory), no output is published; and a missing out-dir is created only
// when the outputs are.
func TestPacoOutputsAllOrNone(t *testing.T) {
	data := synthADI(t)
	out := filepath.Join(t.TempDir(), "out")
	if err := os.MkdirAll(filepath.Join(out, "snr.png"), 0o755); err != nil {
		t.Fatal(err)
	}
	args := []string{"--device", "cpu", "paco", "--cube", filepath.Join(data, "cube.fits"), "--angles", filepath.Join(data, "angles.fits"),
		"--psf", filepath.Join(data, "psf.fits"), "--radius", "3", "--format", "both"}
	code, _, stderr := run(t, append(args, "--out-dir", out)...)
	if code == 0 || !strings.Contains(stderr, "snr.png") {
		t.Errorf("snr.png a directory: exit %d, stderr %q; want an error naming it", code, stderr)
	}
	assertDir(t, out, []string{"snr.png"})

	// A failed run creates no out-dir; a good one creates it with everything.
	fresh := filepath.Join(t.TempDir(), "a", "b")
	if code, _, _ := run(t, append(args, "--threshold", "5", "--psf-norm", "bogus", "--out-dir", fresh)...); code == 0 {
		t.Fatal("--psf-norm bogus: exit 0")
	}
	if _, err := os.Stat(filepath.Dir(fresh)); err == nil {
		t.Errorf("a failed run created %s", filepath.Dir(fresh))
	}
	if code, _, stderr := run(t, append(args, "--out-dir", fresh)...); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	assertDir(t, fresh, []string{"snr.fits", "flux.fits", "sigma.fits", "snr.npy", "flux.npy", "sigma.npy", "detections.csv", "detections.json", "snr.png", "contrast.csv", "contrast.json", "contrast.png", formats.OutputsList})
	assertDir(t, filepath.Dir(filepath.Dir(fresh)), []string{"a"})
}

// Issue 9, item 5: output paths are checked before the run, not after it.
func TestOutputPathsCheckedFirst(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "file")
	os.WriteFile(file, []byte("x"), 0o644)
	a := writeNPY(t, dir, "a.npy", tensor.FromF64(ramp(60), 6, 10))
	for _, args := range [][]string{
		{"verify", "--device", "cpu", "--op", "map", "--json", filepath.Join(dir, "nodir", "r.json")},
		{"bench", "--device", "cpu", "--suite", "map", "--png", filepath.Join(file, "x.png")},
		{"bench", "--device", "cpu", "--suite", "map", "--json", dir},
		{"map", "--x", a, "--y", a, "--out", filepath.Join(dir, "nodir", "z.npy")},
		{"reduce", "--in", a, "--out-dir", filepath.Join(file, "o")},
		{"cov", "--in", a, "--out-cov", filepath.Join(dir, "nodir", "c.npy")},
	} {
		start := time.Now()
		code, stdout, stderr := run(t, args...)
		if code == 0 || stdout != "" || time.Since(start) > 2*time.Second {
			t.Errorf("%v: exit %d after %v, stdout %q, stderr %q; want an error before any work", args, code, time.Since(start), stdout, stderr)
		}
	}
}

// Issue 9, "also": degenerate inputs warn on stderr instead of silently
// giving NaN or meaningless results.
func TestDegenerateInputWarnings(t *testing.T) {
	dir := t.TempDir()
	a := writeNPY(t, dir, "a.npy", tensor.FromF64(ramp(6), 2, 3))
	code, _, stderr := run(t, "--device", "cpu", "reduce", "--in", a, "--axis", "0", "--stat", "var", "--ddof", "2", "--out-dir", filepath.Join(dir, "o"))
	if want := "vkstat: warning: --ddof 2 with 2 value(s) along --axis 0: var and std are NaN (they divide by n − ddof)\n"; code != 0 || !strings.Contains(stderr, want) {
		t.Errorf("--ddof 2 over 2 values: exit %d, stderr %q; want %q (reduce.Options.Warnings in flags)", code, stderr, want)
	}

	data := synthADI(t)
	cube, err := formats.ReadArray(filepath.Join(data, "cube.fits"))
	if err != nil {
		t.Fatal(err)
	}
	T := cube.Shape[0]
	constant := tensor.New(tensor.F64, cube.Shape...)
	for i := range constant.F64 {
		constant.F64[i] = 3
	}
	nan := tensor.New(tensor.F64, cube.Shape...)
	for i := range nan.F64 {
		nan.F64[i] = math.NaN()
	}
	still := tensor.New(tensor.F64, T)
	for i := range still.F64 {
		still.F64[i] = 12
	}
	for _, c := range []struct{ cube, angles, want string }{
		{writeNPY(t, dir, "const.npy", constant), filepath.Join(data, "angles.fits"), "constant"},
		{writeNPY(t, dir, "nan.npy", nan), filepath.Join(data, "angles.fits"), "all NaN"},
		{filepath.Join(data, "cube.fits"), writeNPY(t, dir, "still.npy", still), "does not rotate"},
	} {
		_, _, stderr := run(t, "--device", "cpu", "paco", "--cube", c.cube, "--angles", c.angles, "--psf", filepath.Join(data, "psf.fits"),
			"--radius", "3", "--out-dir", filepath.Join(t.TempDir(), "o"))
		if !strings.Contains(stderr, "warning") || !strings.Contains(stderr, c.want) {
			t.Errorf("%s: stderr %q; want a warning saying %q", c.want, stderr, c.want)
		}
	}
}

// Issue 25, item 6: impossible values are usage errors naming the flag,
// before any work, not silently replaced or run with.
func TestImpossibleValues(t *testing.T) {
	dir := t.TempDir()
	a := writeNPY(t, dir, "a.npy", tensor.FromF64(ramp(60), 6, 10))
	cube := writeNPY(t, dir, "cube.npy", tensor.FromF64(ramp(6*9*9), 6, 9, 9))
	angles := writeNPY(t, dir, "angles.npy", tensor.FromF64([]float64{0, 1, 2, 3, 4, 5}, 6))
	out := filepath.Join(dir, "out")
	dates := []string{a, a, a} // refused before they are read
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"synth", "random", "--shape", "3", "--dist", "normal", "--scale", "-1", "--out", filepath.Join(dir, "r.npy")}, "--scale"},
		{[]string{"synth", "random", "--shape", "3", "--scale", "-0.5", "--out", filepath.Join(dir, "r.npy")}, "--scale"},
		{[]string{"paco", "--cube", cube, "--angles", angles, "--fwhm", "3", "--min-sep", "-3", "--out-dir", out}, "--min-sep"},
		{[]string{"paco", "--cube", cube, "--angles", angles, "--fwhm", "3", "--psf-norm", "max", "--out-dir", out}, "--psf-norm"},
		{[]string{"paco", "--cube", cube, "--angles", angles, "--fwhm", "3", "--format", "fits,png", "--out-dir", out}, "--format"},
		{[]string{"cov", "--in", a, "--radius", "-1", "--out-cov", filepath.Join(dir, "c.npy")}, "--radius"},
		{[]string{"cov", "--cube", cube, "--radius", "-1", "--out-cov", filepath.Join(dir, "c.npy")}, "--radius"},
		{append([]string{"stack", "--filter", "boxcar", "--filter-size", "-5", "--out-dir", out}, dates...), "--filter-size"},
		{append([]string{"stack", "--filter", "lee", "--filter-size", "4", "--out-dir", out}, dates...), "--filter-size"},
		{append([]string{"stack", "--filter-size", "7", "--out-dir", out}, dates...), "--filter-size"},
		{append([]string{"stack", "--filter", "lee", "--enl", "-2", "--out-dir", out}, dates...), "--enl"},
		{append([]string{"stack", "--band", "0", "--out-dir", out}, dates...), "--band"},
		{[]string{"shader", "check", filepath.Join(examples, "saxpy.comp"), "-b", "x=" + filepath.Join(examples, "saxpy_x.npy"), "-b", "y=" + filepath.Join(examples, "saxpy_y.npy"),
			"--global", "1000", "-e", "y=" + filepath.Join(examples, "saxpy_expected.npy"), "--tol", "-1"}, "--tol"},
	} {
		code, _, stderr := run(t, append([]string{"--device", "cpu"}, c.args...)...)
		if code != ExitUsage || !strings.Contains(stderr, c.want) {
			t.Errorf("%v: exit %d, stderr %q; want %d naming %s", c.args, code, stderr, ExitUsage, c.want)
		}
	}
	if _, err := os.Stat(out); err == nil {
		t.Errorf("%s was written", out)
	}

	// A --ddof that leaves no degrees of freedom is run (NaN, as NumPy
	// gives), with a warning, as reduce does.
	lat := writeNPY(t, dir, "lat.npy", tensor.FromF64(ramp(2*3*4*4), 1, 2, 3, 4, 4))
	code, _, stderr := run(t, "--device", "cpu", "latent", "--in", lat, "--stat", "moments", "--ddof", "16", "--out-dir", filepath.Join(dir, "lat"))
	if code != 0 || !strings.Contains(stderr, "--ddof 16 with 16 value(s)") || !strings.Contains(stderr, "NaN") {
		t.Errorf("latent --ddof 16 over 4×4: exit %d, stderr %q; want 0 and a warning", code, stderr)
	}
}

// Issue 25, messages: a malformed driver manifest makes the loader fail
// vkCreateInstance with VK_ERROR_OUT_OF_HOST_MEMORY; that is no usable
// driver too: --device auto runs on the CPU path, an explicit device names
// the likely cause.
func TestMalformedICDFallsBackOnAuto(t *testing.T) {
	requireVulkan(t)
	dir := t.TempDir()
	icd := filepath.Join(dir, "bad_icd.json")
	if err := os.WriteFile(icd, []byte(`{"file_format_version": "1.0.0", "ICD": {`), 0o644); err != nil {
		t.Fatal(err)
	}
	in := writeNPY(t, dir, "a.npy", tensor.FromF64(ramp(60), 6, 10))
	t.Setenv("VK_DRIVER_FILES", icd)
	t.Setenv("VKSTAT_VALIDATE", "")
	slowCPURates(t) // the job asks Vulkan (auto_test.go)
	code, _, stderr := run(t, "reduce", "--in", in, "--axis", "0", "--out-dir", filepath.Join(dir, "auto"))
	if code != 0 || !strings.Contains(stderr, "CPU path") {
		t.Errorf("--device auto with a malformed ICD: exit %d, stderr %q; want 0 and the CPU path", code, stderr)
	}
	code, _, stderr = run(t, "--device", "gpu", "reduce", "--in", in, "--axis", "0", "--out-dir", filepath.Join(dir, "gpu"))
	if code != ExitError || !strings.Contains(stderr, "no usable Vulkan driver") || !strings.Contains(stderr, icd) {
		t.Errorf("--device gpu with a malformed ICD: exit %d, stderr %q; want %d naming the driver files", code, stderr, ExitError)
	}
}

// Issue 34: a centre far outside the frames, given or from the header, is
// refused in its own numbers (it printed as −9223372036854775808).
func TestCentreOutsideFrame(t *testing.T) {
	w := t.TempDir()
	if code, _, stderr := run(t, "synth", "paco", "--size", "24", "--frames", "8", "--out-dir", w); code != 0 {
		t.Fatalf("synth paco: exit %d: %s", code, stderr)
	}
	cube, err := formats.ReadFITS(filepath.Join(w, "cube.fits"))
	if err != nil {
		t.Fatal(err)
	}
	far := filepath.Join(w, "far.fits")
	if err := formats.WriteFITS(far, cube, []formats.FITSCard{{Key: "CRPIX1", Value: 5.0}, {Key: "CRPIX2", Value: 1e30}}); err != nil {
		t.Fatal(err)
	}
	args := func(cube string, more ...string) []string {
		return append([]string{"--device", "cpu", "paco", "--cube", cube, "--angles", filepath.Join(w, "angles.fits"),
			"--psf", filepath.Join(w, "psf.fits"), "--radius", "2", "--format", "npy", "--out-dir", filepath.Join(w, "out")}, more...)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{args(filepath.Join(w, "cube.fits"), "--center", "1e30,5"), "--center (1e+30, 5) is outside the 24×24 frame (given)"},
		{args(far), "--center (1e+30, 4) is outside the 24×24 frame (the header's CRPIX2−1, CRPIX1−1)"},
	} {
		code, _, stderr := run(t, c.args...)
		if code != ExitError || !strings.Contains(stderr, c.want) || strings.Contains(stderr, "9223372036854775808") {
			t.Errorf("%v: exit %d, %q; want %d and %q", c.args[4:], code, stderr, ExitError, c.want)
		}
	}
}

// Issue 34: an empty --out-dir is refused; it wrote into the current directory.
func TestOutDirEmpty(t *testing.T) {
	a := writeNPY(t, t.TempDir(), "a.npy", tensor.FromF64(ramp(12), 3, 4))
	for _, args := range [][]string{
		{"--device", "cpu", "reduce", "--in", a, "--out-dir", ""},
		{"--device", "cpu", "latent", "--in", a, "--out-dir", ""},
		{"synth", "paco", "--size", "16", "--frames", "4", "--out-dir", ""},
	} {
		code, _, stderr := run(t, args...)
		if code != ExitUsage || !strings.Contains(stderr, "--out-dir: empty; give a folder (. for the current one)") {
			t.Errorf("%v: exit %d, %q", args, code, stderr)
		}
	}
}

// Issue 34, defect 5: an output that is a device or a FIFO is written
// into, never replaced by a regular file: verify --json through a link to
// /dev/null (as root, --json /dev/null replaced the system's), map --out a
// FIFO whose reader gets the NPY file.
func TestOutputsIntoDevices(t *testing.T) {
	dir := t.TempDir()
	null := filepath.Join(dir, "null")
	if err := os.Symlink("/dev/null", null); err != nil {
		t.Fatal(err)
	}
	if code, _, stderr := run(t, "verify", "--device", "cpu", "--op", "map", "--json", null); code != 0 {
		t.Fatalf("verify --json %s: exit %d: %s", null, code, stderr)
	}
	if st, err := os.Stat(null); err != nil || st.Mode()&os.ModeCharDevice == 0 {
		t.Errorf("%s is no longer /dev/null: %v %v", null, st.Mode(), err)
	}
	x := writeNPY(t, dir, "x.npy", tensor.FromF64([]float64{1, 2, 3}, 3))
	fifo := filepath.Join(dir, "z.npy")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skip(err)
	}
	got := make(chan *tensor.Tensor, 1)
	go func() {
		z, _ := formats.ReadNPY(fifo)
		got <- z
	}()
	if code, _, stderr := run(t, "--device", "cpu", "map", "--x", x, "--y", x, "--a", "1", "--b", "0", "--c", "0", "--out", fifo); code != 0 {
		t.Fatalf("map --out FIFO: exit %d: %s", code, stderr)
	}
	select {
	case z := <-got:
		if z == nil || len(z.F64) != 3 || z.F64[2] != 9 {
			t.Errorf("the FIFO's reader got %v, want [1 4 9]", z)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the FIFO's reader got nothing in 10 s")
	}
	if st, err := os.Lstat(fifo); err != nil || st.Mode()&os.ModeNamedPipe == 0 {
		t.Errorf("%s is no longer a FIFO: %v %v", fifo, st.Mode(), err)
	}
}

// Issue 41, unclear items: map --out naming a FIFO nobody reads waited
// with no word. It still waits (as a FIFO input waits for its writer, and
// Ctrl-C stops either), but says so; a reader that comes then gets the
// array.
func TestOutputFIFOWithoutReaderSaysSo(t *testing.T) {
	dir := t.TempDir()
	x := writeNPY(t, dir, "x.npy", tensor.FromF64([]float64{1, 2, 3}, 3))
	fifo := filepath.Join(dir, "z.npy")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skip(err)
	}
	var stdout, stderr syncBuffer
	done := make(chan int, 1)
	go func() {
		done <- Main(context.Background(), []string{"vkstat", "--device", "cpu", "map", "--x", x, "--y", x, "--a", "1", "--b", "0", "--c", "0", "--out", fifo}, &stdout, &stderr)
	}()
	want := "vkstat: " + fifo + " is a FIFO: waiting for a reader to open it"
	for deadline := time.Now().Add(30 * time.Second); !strings.Contains(stderr.String(), want); time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("no word after 30 s; stderr %q, want %q", stderr.String(), want)
		}
	}
	z, err := formats.ReadNPY(fifo)
	if code := <-done; code != 0 || err != nil || len(z.F64) != 3 || z.F64[2] != 9 {
		t.Errorf("exit %d, read %v, %v; want 0 and [1 4 9]", code, z, err)
	}
}
