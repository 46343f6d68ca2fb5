package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/vkstat/vkstat/formats"
	"github.com/vkstat/vkstat/internal/checks"
	"github.com/vkstat/vkstat/tensor"
)

// quantileFixture reads testdata/quantile's NumPy-written file name
// (make_quantile.py).
func quantileFixture(t *testing.T, name string) *tensor.Tensor {
	t.Helper()
	x, err := formats.ReadNPY(filepath.Join("..", "testdata", "quantile", name))
	if err != nil {
		t.Fatal(err)
	}
	return x
}

// TestQuantileMatchesNumPy: vkstat quantile of NumPy's x (float64, NaNs
// planted, an all-NaN slice along axes 0 and 2) writes DIR/q.npy equal to
// np.quantile(x, q, axis) and, with --skip-nan, np.nanquantile, on every
// device under test with float64; the same array as float32 FITS gives
// them within float32 rounding on every device.
func TestQuantileMatchesNumPy(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join("..", "testdata", "quantile", "x.npy")
	var qs []string
	for _, v := range quantileFixture(t, "q.npy").F64 {
		qs = append(qs, strconv.FormatFloat(v, 'g', -1, 64))
	}
	q := strings.Join(qs, ",")
	for _, dev := range float64DevicesUnderTest(t) {
		for _, c := range []struct {
			axis, file string
			skip       bool
		}{
			{"0", "quantile_axis0.npy", false}, {"1", "quantile_axis1.npy", false}, {"-1", "quantile_axis2.npy", false},
			{"0", "nanquantile_axis0.npy", true}, {"1", "nanquantile_axis1.npy", true}, {"2", "nanquantile_axis2.npy", true},
		} {
			out := filepath.Join(dir, dev+c.file)
			args := []string{"--device", dev, "quantile", "--in", in, "--axis", c.axis, "--q", q, "--out-dir", out}
			if c.skip {
				args = append(args, "--skip-nan")
			}
			if code, _, stderr := run(t, args...); code != 0 {
				t.Fatalf("%s: exit %d: %s", strings.Join(args, " "), code, stderr)
			}
			got, err := formats.ReadNPY(filepath.Join(out, "q.npy"))
			if err != nil {
				t.Fatal(err)
			}
			want := quantileFixture(t, c.file)
			if !tensor.SameShape(got.Shape, want.Shape) || got.DType != tensor.F64 {
				t.Fatalf("%s: q.npy is %s %s, NumPy's %s", dev+" "+c.file, got.DType, tensor.ShapeString(got.Shape), tensor.ShapeString(want.Shape))
			}
			checks.Close(t, dev+" "+c.file, got.F64, want.F64, 1e-12, 1e-12)
		}
	}

	x32 := filepath.Join(dir, "x32.fits")
	if err := formats.WriteFITS(x32, quantileFixture(t, "x.npy").As(tensor.F32), nil); err != nil {
		t.Fatal(err)
	}
	for _, dev := range devicesUnderTest(t) {
		out := filepath.Join(dir, dev+"fits")
		code, stdout, stderr := run(t, "--device", dev, "quantile", "--json", "--in", x32, "--axis", "0", "--q", q, "--out-dir", out)
		if code != 0 {
			t.Fatalf("%s: quantile of a FITS file: exit %d: %s", dev, code, stderr)
		}
		var sum struct {
			Files []struct {
				Path, DType string
				Shape       []int
			}
		}
		if err := json.Unmarshal([]byte(stdout), &sum); err != nil || len(sum.Files) != 1 || sum.Files[0].DType != "float32" ||
			!tensor.SameShape(sum.Files[0].Shape, []int{8, 4, 6}) {
			t.Errorf("%s: --json summary %s (%v): want one float32 file of shape (8, 4, 6)", dev, stdout, err)
		}
		got, err := formats.ReadNPY(filepath.Join(out, "q.npy"))
		if err != nil {
			t.Fatal(err)
		}
		checks.Close(t, dev+" float32 FITS, axis 0", got.F32, quantileFixture(t, "quantile_axis0.npy").F64, 1e-6, 1e-6)
	}
}

// TestQuantileRefusesBadInput: a q outside [0, 1] or NaN, no --in, an
// axis out of range, -q or a truncated file exit non-zero with a message
// naming the flag or the file, and write nothing.
func TestQuantileRefusesBadInput(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join("..", "testdata", "quantile", "x.npy")
	b, err := os.ReadFile(in)
	if err != nil {
		t.Fatal(err)
	}
	short := filepath.Join(dir, "short.npy")
	if err := os.WriteFile(short, b[:len(b)-100], 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "out")
	for _, c := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"--in", in, "--quantiles", "0.5,1.5"}, ExitUsage, "--quantiles must be in [0, 1], got 1.5 (quantile 2 of 2)"},
		{[]string{"--in", in, "--q", "nan"}, ExitUsage, "--quantiles must be in [0, 1], got NaN"},
		// -q is the global --quiet's short name, which Go's flag parser
		// would give quantile's --q.
		{[]string{"--in", in, "-q", "0.5"}, ExitUsage, "quantile: -q is ambiguous here: give --quantiles (or --q), or --quiet"},
		{[]string{"--in", in, "-q=0.5"}, ExitUsage, "-q is ambiguous"},
		{[]string{"--q", "0.5"}, ExitUsage, "missing required flag --in"},
		{[]string{"--in", in, "--axis", "3"}, ExitUsage, "--axis must be in -3..2 for an array of shape (9, 4, 6), got 3"},
		{[]string{"--in", short}, ExitError, "short.npy: truncated data"},
	} {
		args := append([]string{"--device", "cpu", "quantile", "--out-dir", out}, c.args...)
		code, _, stderr := run(t, args...)
		if code != c.code || !strings.Contains(stderr, c.want) {
			t.Errorf("%s: exit %d, stderr %q; want exit %d and %q", strings.Join(c.args, " "), code, stderr, c.code, c.want)
		}
		if _, err := os.Stat(filepath.Join(out, "q.npy")); err == nil {
			t.Fatalf("%s: q.npy written", strings.Join(c.args, " "))
		}
	}
}
