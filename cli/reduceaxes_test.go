package cli

import (
	"math"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vkstat/vkstat/formats"
	"github.com/vkstat/vkstat/tensor"
)

// TestReduceAdjacentAxes: --axis takes adjacent axes as NumPy's axis=(1, 2)
// does, and all as axis=None, on every device under test with float64 (a Vulkan device
// streams the NPY file): the means of a (3, 4, 5) ramp over axes 1,2 are
// each frame's mean, computed here by hand; the sum over all is one value;
// axes that are not adjacent (0,2, NumPy's axis=(0, 2)) give the means of
// each row index, summed here by hand.
func TestReduceAdjacentAxes(t *testing.T) {
	dir := t.TempDir()
	const a, b, c = 3, 4, 5
	x := tensor.New(tensor.F64, a, b, c)
	for i := range x.F64 {
		x.F64[i] = float64(i*i%23) - 4
	}
	in := writeNPY(t, dir, "x.npy", x)
	for _, dev := range float64DevicesUnderTest(t) {
		out := filepath.Join(dir, dev)
		if code, _, stderr := run(t, "--device", dev, "reduce", "--in", in, "--axis", "2,-2", "--stat", "mean", "--out-dir", out); code != 0 {
			t.Fatalf("%s: exit %d: %s", dev, code, stderr)
		}
		mean, err := formats.ReadNPY(filepath.Join(out, "mean.npy"))
		if err != nil {
			t.Fatal(err)
		}
		if tensor.ShapeString(mean.Shape) != tensor.ShapeString([]int{a}) {
			t.Fatalf("%s: mean has shape %v, want (%d)", dev, mean.Shape, a)
		}
		for f := range a {
			want := 0.0
			for _, v := range x.F64[f*b*c : (f+1)*b*c] {
				want += v
			}
			want /= b * c
			if math.Abs(mean.F64[f]-want) > 1e-12 {
				t.Errorf("%s: frame %d's mean %g, want %g", dev, f, mean.F64[f], want)
			}
		}
		all := filepath.Join(dir, dev+"-all")
		if code, _, stderr := run(t, "--device", dev, "reduce", "--in", in, "--axis", "all", "--stat", "sum", "--out-dir", all); code != 0 {
			t.Fatalf("%s --axis all: exit %d: %s", dev, code, stderr)
		}
		sum, err := formats.ReadNPY(filepath.Join(all, "sum.npy"))
		want := 0.0
		for _, v := range x.F64 {
			want += v
		}
		if err != nil || len(sum.Shape) != 0 || math.Abs(sum.F64[0]-want) > 1e-12*math.Abs(want) {
			t.Errorf("%s --axis all: %v (shape %v, %v), want the 0-d sum %g", dev, err, sum.Shape, sum.F64, want)
		}
	}
	gap := filepath.Join(dir, "gap")
	if code, _, stderr := run(t, "--device", "cpu", "reduce", "--in", in, "--axis", "0,2", "--out-dir", gap); code != 0 {
		t.Fatalf("--axis 0,2: exit %d: %s", code, stderr)
	}
	mean, err := formats.ReadNPY(filepath.Join(gap, "mean.npy"))
	if err != nil || tensor.ShapeString(mean.Shape) != tensor.ShapeString([]int{b}) {
		t.Fatalf("--axis 0,2: %v, shape %v; want (%d)", err, mean, b)
	}
	for j := range b {
		want := 0.0
		for i := range a {
			for k := range c {
				want += x.F64[(i*b+j)*c+k]
			}
		}
		want /= a * c
		if math.Abs(mean.F64[j]-want) > 1e-12 {
			t.Errorf("--axis 0,2: row %d's mean %g, want %g", j, mean.F64[j], want)
		}
	}
}

// TestReduceEmptyAxis: an axis of length 0 gives NumPy's sum of zeros and
// NaN means with a warning, on every device under test; min is refused
// (NumPy's ValueError: it has no identity).
func TestReduceEmptyAxis(t *testing.T) {
	dir := t.TempDir()
	in := writeNPY(t, dir, "e.npy", tensor.New(tensor.F64, 0, 3))
	for _, dev := range float64DevicesUnderTest(t) {
		out := filepath.Join(dir, dev)
		code, _, stderr := run(t, "--device", dev, "reduce", "--in", in, "--axis", "0", "--stat", "sum,mean", "--out-dir", out)
		if code != 0 || !strings.Contains(stderr, "length 0") {
			t.Fatalf("%s: exit %d: %s; want 0 and a warning", dev, code, stderr)
		}
		sum, err1 := formats.ReadNPY(filepath.Join(out, "sum.npy"))
		mean, err2 := formats.ReadNPY(filepath.Join(out, "mean.npy"))
		if err1 != nil || err2 != nil || len(sum.F64) != 3 || len(mean.F64) != 3 {
			t.Fatalf("%s: %v %v", dev, err1, err2)
		}
		for i := range 3 {
			if sum.F64[i] != 0 || !math.IsNaN(mean.F64[i]) {
				t.Errorf("%s: sum %g mean %g, want 0 and NaN", dev, sum.F64[i], mean.F64[i])
			}
		}
		if code, _, stderr := run(t, "--device", dev, "reduce", "--in", in, "--axis", "0", "--stat", "min", "--out-dir", out+"-min"); code == 0 || !strings.Contains(stderr, "no identity") {
			t.Errorf("%s: min of an empty axis: exit %d, %s; want an error", dev, code, stderr)
		}
	}
}
