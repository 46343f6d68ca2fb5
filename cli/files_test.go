package cli

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	ucli "github.com/urfave/cli/v2"

	"github.com/vkstat/vkstat/tensor"
)

// Every string flag of every command has a file role (files.go), so that a
// new output flag cannot miss the one check of outputs against each other
// and against the inputs.
func TestEveryFileFlagHasARole(t *testing.T) {
	var walk func(cmds []*ucli.Command, parent string)
	walk = func(cmds []*ucli.Command, parent string) {
		for _, c := range cmds {
			path := strings.TrimSpace(parent + " " + c.Name)
			for _, f := range c.Flags {
				switch f.(type) {
				case *ucli.StringFlag, *ucli.StringSliceFlag, *ucli.PathFlag:
					if roleOf(path, f.Names()[0]) == 0 {
						t.Errorf("%s --%s has no file role in files.go's flagRoles", path, f.Names()[0])
					}
				}
			}
			walk(c.Subcommands, path)
		}
	}
	app := New(io.Discard, io.Discard)
	walk(app.Commands, "")
	for _, f := range app.Flags {
		if _, ok := f.(*ucli.StringFlag); ok && roleOf("", f.Names()[0]) == 0 {
			t.Errorf("global --%s has no file role", f.Names()[0])
		}
	}
}

// Issue 41, defect 2: --time-json (and every other output) naming one of
// the run's own outputs or inputs is refused, and a --time-json that cannot
// be written fails the command (on 68d6905: replaced, exit 0).
func TestOutputsNeverReplaceEachOtherOrInputs(t *testing.T) {
	dir := t.TempDir()
	x := writeNPY(t, dir, "x.npy", tensor.FromF64(ramp(40), 4, 10))
	xBytes, _ := os.ReadFile(x)
	d := filepath.Join(dir, "D")

	code, _, stderr := run(t, "--device", "cpu", "--time-json", filepath.Join(d, "mean.npy"), "reduce", "--in", x, "--stat", "mean", "--out-dir", d)
	if code == 0 || !strings.Contains(stderr, "the same output file is given twice") || !strings.Contains(stderr, "--out-dir") {
		t.Errorf("--time-json D/mean.npy --out-dir D: exit %d, stderr %q; want an error saying the file is given twice", code, stderr)
	}
	if b, err := os.ReadFile(filepath.Join(d, "mean.npy")); err != nil || !bytes.HasPrefix(b, []byte("\x93NUMPY")) {
		t.Errorf("D/mean.npy is not the mean's NPY any more (%v): %.20q", err, b)
	}

	for _, args := range [][]string{
		{"--time-json", x, "reduce", "--in", x, "--out-dir", d},
		{"reduce", "--in", x, "--out-dir", d, "--time-json", "./" + filepath.Base(x)},
		{"map", "--x", x, "--y", x, "--out", x},
		{"cov", "--in", x, "--out-cov", x},
		{"chol", "--in", x, "--out-l", filepath.Join(dir, "L.npy"), "--out-inverse", filepath.Join(dir, "L.npy")},
		{"--time-json", filepath.Join(dir, "z.npy"), "map", "--x", x, "--y", x, "--out", filepath.Join(dir, "z.npy")},
		{"--time-json", filepath.Join(dir, "x.npy"), "reduce", "--in", filepath.Join(dir, "sub", "..", "x.npy"), "--out-dir", d},
	} {
		wd, _ := os.Getwd()
		os.Chdir(dir)
		code, _, stderr := run(t, append([]string{"--device", "cpu"}, args...)...)
		os.Chdir(wd)
		if code != ExitUsage || !(strings.Contains(stderr, "given twice") || strings.Contains(stderr, "is an input of the command")) {
			t.Errorf("%q: exit %d, stderr %q; want %d and the reason", args, code, stderr, ExitUsage)
		}
		if b, _ := os.ReadFile(x); !bytes.Equal(b, xBytes) {
			t.Fatalf("%q replaced the input", args)
		}
	}

	// A --time-json that cannot be written fails the command.
	for _, p := range []string{filepath.Join(dir, "missing", "t.json"), dir, "/dev/full"} {
		code, _, stderr := run(t, "--device", "cpu", "--time-json", p, "reduce", "--in", x, "--out-dir", d)
		if code == 0 || !strings.Contains(stderr, "time-json") {
			t.Errorf("--time-json %s: exit %d, stderr %q; want a failure naming --time-json", p, code, stderr)
		}
	}
	// One that can, still works, also inside the output folder.
	if code, _, stderr := run(t, "--device", "cpu", "--time-json", filepath.Join(d, "time.json"), "reduce", "--in", x, "--out-dir", d); code != 0 {
		t.Errorf("--time-json D/time.json: exit %d: %s", code, stderr)
	}
	// /dev/null twice harms nothing.
	if code, _, stderr := run(t, "--device", "cpu", "--time-json", "/dev/null", "chol", "--in", writeSPD(t, dir), "--out-l", "/dev/null", "--out-info", "/dev/null"); code != 0 {
		t.Errorf("outputs to /dev/null: exit %d: %s", code, stderr)
	}
}

// writeSPD writes two 3×3 symmetric positive definite matrices.
func writeSPD(t *testing.T, dir string) string {
	a := []float64{4, 1, 0, 1, 3, 1, 0, 1, 2}
	return writeNPY(t, dir, "spd.npy", tensor.FromF64(append(append([]float64{}, a...), a...), 2, 3, 3))
}

// Issue 41, defect 3: paco with an NPY cube and a radius larger than its
// frames is refused at once, on every device (on 68d6905 --radius 10⁹
// never returned: --device auto's sizing ran before the check).
func TestPacoHugeRadiusRefusedFirst(t *testing.T) {
	dir := t.TempDir()
	cube := writeNPY(t, dir, "cube.npy", tensor.FromF64(ramp(8*24*24), 8, 24, 24))
	angles := filepath.Join(dir, "angles.txt")
	os.WriteFile(angles, []byte("0\n5\n10\n15\n20\n25\n30\n35\n"), 0o644)
	for _, r := range []string{"1000000000", "2000"} {
		code, _, stderr := run(t, "--device", "cpu", "paco", "--cube", cube, "--angles", angles, "--fwhm", "3", "--radius", r, "--out-dir", filepath.Join(dir, "o"))
		if code != ExitError || !strings.Contains(stderr, "--radius "+r) || !strings.Contains(stderr, "24×24") {
			t.Errorf("--radius %s: exit %d, stderr %q; want %d naming the radius and the frames", r, code, stderr, ExitError)
		}
	}
}

// Issue 41, unclear items: --axis '1,' and an empty --plot-format are
// refused (on 68d6905 taken as axis 1 and png).
func TestEmptyListItemsAndPlotFormat(t *testing.T) {
	dir := t.TempDir()
	x := writeNPY(t, dir, "x.npy", tensor.FromF64(ramp(40), 4, 10))
	code, _, stderr := run(t, "--device", "cpu", "reduce", "--in", x, "--axis", "1,", "--out-dir", filepath.Join(dir, "r"))
	if code != ExitUsage || !strings.Contains(stderr, `--axis "1,"`) {
		t.Errorf("--axis '1,': exit %d, stderr %q; want %d naming --axis", code, stderr, ExitUsage)
	}
	cube := writeNPY(t, dir, "cube.npy", tensor.FromF64(ramp(8*24*24), 8, 24, 24))
	angles := filepath.Join(dir, "angles.txt")
	os.WriteFile(angles, []byte("0\n5\n10\n15\n20\n25\n30\n35\n"), 0o644)
	code, _, stderr = run(t, "--device", "cpu", "--plot-format", "", "paco", "--cube", cube, "--angles", angles, "--fwhm", "3", "--radius", "2", "--out-dir", filepath.Join(dir, "p"))
	if code != ExitUsage || !strings.Contains(stderr, "--plot-format: empty") {
		t.Errorf("--plot-format '': exit %d, stderr %q; want %d saying it is empty", code, stderr, ExitUsage)
	}
	// a command that draws nothing refuses it too, before any work
	for _, f := range []string{"", "bmp"} {
		code, _, stderr = run(t, "--device", "cpu", "--plot-format", f, "reduce", "--in", x, "--out-dir", filepath.Join(dir, "r"))
		if _, err := os.Stat(filepath.Join(dir, "r")); code != ExitUsage || !strings.Contains(stderr, "--plot-format") || err == nil {
			t.Errorf("reduce with --plot-format %q: exit %d, stderr %q, output folder made: %v; want %d naming --plot-format", f, code, stderr, err == nil, ExitUsage)
		}
	}
}

// Issue 41, unclear items: verify --compare with a report that was never
// written says which and how to write it (on 68d6905: "open gpu.json: no
// such file or directory").
func TestVerifyCompareMissingReport(t *testing.T) {
	dir := t.TempDir()
	a := filepath.Join(dir, "lavapipe.json")
	os.WriteFile(a, []byte("{}"), 0o644)
	code, _, stderr := run(t, "verify", "--compare", a, filepath.Join(dir, "gpu.json"))
	if code != ExitError || !strings.Contains(stderr, "no report "+filepath.Join(dir, "gpu.json")) || !strings.Contains(stderr, "verify --json") {
		t.Errorf("exit %d, stderr %q; want %d naming the missing report and how to write it", code, stderr, ExitError)
	}
}

// Issue 41, unclear items: bench --warmup 1000000000 ran unbounded.
func TestBenchRunsBounded(t *testing.T) {
	for _, f := range []string{"--warmup", "--repeat"} {
		code, _, stderr := run(t, "--device", "cpu", "bench", "--suite", "map", f, "1000000000")
		if code != ExitUsage || !strings.Contains(stderr, f+" must be from") {
			t.Errorf("%s 1000000000: exit %d, stderr %q; want %d and the bounds", f, code, stderr, ExitUsage)
		}
	}
}

// Issue 41, unclear items: survey run --manifest m.csv suggested --quiet;
// it says the manifest is positional.
func TestPositionalGivenAsFlag(t *testing.T) {
	code, _, stderr := run(t, "survey", "run", "--manifest", "m.csv")
	if code != ExitUsage || !strings.Contains(stderr, "the manifest is positional") || strings.Contains(stderr, "--quiet") {
		t.Errorf("exit %d, stderr %q; want %d saying the manifest is positional", code, stderr, ExitUsage)
	}
}
