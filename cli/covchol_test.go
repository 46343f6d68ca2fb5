package cli

import (
	"encoding/binary"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vkstat/vkstat/formats"
	"github.com/vkstat/vkstat/internal/checks"
	"github.com/vkstat/vkstat/internal/inputs"
	"github.com/vkstat/vkstat/pipelines/chol"
	"github.com/vkstat/vkstat/pipelines/cov"
	"github.com/vkstat/vkstat/tensor"
)

func covSamples(n, t, p int, seed uint64) *tensor.Tensor {
	rng := rand.New(rand.NewPCG(seed, 1))
	x := tensor.New(tensor.F64, n, t, p)
	for i := range x.F64 {
		x.F64[i] = 10 + rng.NormFloat64()
	}
	return x
}

func TestCovCommand(t *testing.T) {
	dir := t.TempDir()
	x := covSamples(7, 30, 5, 1)
	x.F64[3*30*5+17] = math.NaN() // set 3 has a NaN
	in := writeNPY(t, dir, "x.npy", x)
	want, err := cov.Reference(x, cov.Options{Estimator: cov.PACO})
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range float64DevicesUnderTest(t) {
		outC, outM, outR := filepath.Join(dir, d+"C.npy"), filepath.Join(dir, d+"m.npy"), filepath.Join(dir, d+"rho.npy")
		code, stdout, stderr := run(t, "--device", d, "--validate="+boolStr(d != "cpu"), "cov", "--in", in, "--estimator", "paco",
			"--out-cov", outC, "--out-mean", outM, "--out-rho", outR)
		if code != 0 {
			t.Fatalf("%s: exit %d: %s", d, code, stderr)
		}
		if !strings.Contains(stdout, "7 sample set(s) of 30 samples × 5 variables, estimator paco") || !strings.Contains(stdout, "1 set(s) with NaN") {
			t.Errorf("%s: summary %q", d, stdout)
		}
		for _, c := range []struct {
			path  string
			want  *tensor.Tensor
			shape []int
		}{{outC, want.Cov, []int{7, 5, 5}}, {outM, want.Mean, []int{7, 5}}, {outR, want.Rho, []int{7}}} {
			got, err := formats.ReadNPY(c.path)
			if err != nil {
				t.Fatal(err)
			}
			if !tensor.SameShape(got.Shape, c.shape) {
				t.Fatalf("%s: %s has shape %v, want %v", d, c.path, got.Shape, c.shape)
			}
			checks.Close(t, d+": "+c.path, got.F64, c.want.F64, 1e-10, 1e-10)
		}
	}
}

// TestCovCommandSingleAndCube covers a single (T, P) set and the gather
// from a cube with --radius.
func TestCovCommandSingleAndCube(t *testing.T) {
	dir := t.TempDir()
	one := covSamples(1, 20, 4, 2)
	in := writeNPY(t, dir, "one.npy", &tensor.Tensor{Shape: []int{20, 4}, DType: one.DType, F32: one.F32, F64: one.F64})
	out := filepath.Join(dir, "c1.npy")
	rho := filepath.Join(dir, "r1.npy")
	if code, _, stderr := run(t, "--device", "cpu", "cov", "--in", in, "--estimator", "ledoit-wolf", "--out-cov", out, "--out-rho", rho); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	want, _ := cov.Reference(one, cov.Options{Estimator: cov.LedoitWolf})
	got, err := formats.ReadNPY(out)
	if err != nil {
		t.Fatal(err)
	}
	if !tensor.SameShape(got.Shape, []int{4, 4}) {
		t.Errorf("single set: shape %v", got.Shape)
	}
	checks.Close(t, "single set's cov", got.F64, want.Cov.F64, 1e-12, 1e-12)
	if r, _ := formats.ReadNPY(rho); len(r.Shape) != 0 || math.Abs(r.F64[0]-want.Rho.F64[0]) > 1e-12 {
		t.Errorf("single set: ρ %v shape %v, want %v", r.F64, r.Shape, want.Rho.F64)
	}

	cube := covSamples(1, 25*9, 11, 3)
	cube.Shape = []int{25, 9, 11}
	cpath := writeNPY(t, dir, "cube.npy", cube)
	for _, d := range devicesUnderTest(t) {
		outC, outL := filepath.Join(dir, d+"cc.npy"), filepath.Join(dir, d+"yx.npy")
		code, _, stderr := run(t, "--device", d, "--validate="+boolStr(d != "cpu"), "--precision", "f32", "cov", "--cube", cpath, "--radius", "2",
			"--estimator", "oas", "--out-cov", outC, "--out-locations", outL)
		if code != 0 {
			t.Fatalf("%s: exit %d: %s", d, code, stderr)
		}
		offs := cov.PatchOffsets(2)
		locs := cov.ValidLocations(9, 11, offs)
		want, _ := cov.ReferenceGather(cube, cov.Gather{Locations: locs, Offsets: offs}, cov.Options{Estimator: cov.OAS})
		got, err := formats.ReadNPY(outC)
		if err != nil {
			t.Fatal(err)
		}
		if got.DType != tensor.F32 || !tensor.SameShape(got.Shape, []int{len(locs), 13, 13}) {
			t.Fatalf("%s: cube: %s %v", d, got.DType, got.Shape)
		}
		checks.Close(t, d+": cube cov", got.Float64s(), want.Cov.F64, 1e-5, 1e-5)
		yx, _ := formats.ReadNPY(outL)
		if !tensor.SameShape(yx.Shape, []int{len(locs), 2}) || yx.F64[0] != float64(locs[0][0]) || yx.F64[1] != float64(locs[0][1]) {
			t.Errorf("%s: locations %v %v", d, yx.Shape, yx.F64[:2])
		}
	}
}

// spdBatch returns n SPD p×p matrices (inputs.WithEigen, condition
// number 10) with matrix bad made negative definite.
func spdBatch(n, p, bad int) *tensor.Tensor {
	a := tensor.New(tensor.F64, n, p, p)
	r := rand.New(rand.NewPCG(uint64(n*p), 4))
	for k := 0; k < n; k++ {
		inputs.WithEigen(a.F64[k*p*p:(k+1)*p*p], inputs.LogSpaced(p, 10, 2), 3, r)
	}
	for i := 0; i < p*p; i++ {
		a.F64[bad*p*p+i] *= -1
	}
	return a
}

func readInt32NPY(t *testing.T, path string) ([]int32, string) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	hlen := int(binary.LittleEndian.Uint16(b[8:10]))
	header := string(b[10 : 10+hlen])
	data := b[10+hlen:]
	if (10+hlen)%64 != 0 {
		t.Errorf("%s: data starts at %d, not a multiple of 64", path, 10+hlen)
	}
	v := make([]int32, len(data)/4)
	for i := range v {
		v[i] = int32(binary.LittleEndian.Uint32(data[4*i:]))
	}
	return v, header
}

func TestCholCommand(t *testing.T) {
	dir := t.TempDir()
	a := spdBatch(6, 5, 2)
	b := covSamples(6, 5, 3, 5)
	b.Shape = []int{6, 5, 3}
	ain, bin := writeNPY(t, dir, "A.npy", a), writeNPY(t, dir, "B.npy", b)
	want, err := chol.Reference(chol.Request{Input: chol.Input{A: a, B: b}, Options: chol.Options{L: true, Inverse: true, LogDet: true, Quad: true}})
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range float64DevicesUnderTest(t) {
		p := func(s string) string { return filepath.Join(dir, d+s) }
		code, stdout, stderr := run(t, "--device", d, "--validate="+boolStr(d != "cpu"), "chol", "--in", ain,
			"--out-l", p("L.npy"), "--out-inverse", p("inv.npy"), "--out-logdet", p("ld.npy"),
			"--solve", bin, "--out-x", p("X.npy"), "--out-quad", p("q.npy"), "--out-info", p("info.npy"))
		if code != 0 {
			t.Fatalf("%s: exit %d: %s", d, code, stderr)
		}
		if !strings.Contains(stdout, "6 matrices of 5×5, 1 failed") || !strings.Contains(stdout, "2 (pivot 1)") {
			t.Errorf("%s: summary %q", d, stdout)
		}
		for _, c := range []struct {
			path string
			want *tensor.Tensor
		}{{p("L.npy"), want.L}, {p("inv.npy"), want.Inverse}, {p("ld.npy"), want.LogDet}, {p("X.npy"), want.X}, {p("q.npy"), want.Quad}} {
			got, err := formats.ReadNPY(c.path)
			if err != nil {
				t.Fatal(err)
			}
			if !tensor.SameShape(got.Shape, c.want.Shape) {
				t.Fatalf("%s: %s has shape %v, want %v", d, c.path, got.Shape, c.want.Shape)
			}
			checks.Close(t, d+": "+c.path, got.F64, c.want.F64, 1e-10, 1e-10)
		}
		info, header := readInt32NPY(t, p("info.npy"))
		if !strings.Contains(header, "'<i4'") || !strings.Contains(header, "(6,)") || len(info) != 6 || info[2] != 1 || info[0] != 0 {
			t.Errorf("%s: info %v, header %q", d, info, header)
		}
	}
	// One matrix, one right-hand side vector.
	one := tensor.FromF64(a.F64[:25], 5, 5)
	vec := tensor.FromF64(b.F64[:5], 5)
	o, v := writeNPY(t, dir, "one.npy", one), writeNPY(t, dir, "vec.npy", vec)
	out := filepath.Join(dir, "x1.npy")
	if code, stdout, stderr := run(t, "--device", "cpu", "chol", "--in", o, "--solve", v, "--out-x", out); code != 0 || !strings.Contains(stdout, "0 failed") {
		t.Fatalf("one matrix: exit %d: %s %s", code, stdout, stderr)
	}
	x, _ := formats.ReadNPY(out)
	if !tensor.SameShape(x.Shape, []int{5}) {
		t.Errorf("one matrix: X has shape %v, want (5,)", x.Shape)
	}
}

// TestCovCholBadInput checks exit codes and messages for bad command lines
// and bad files.
func TestCovCholBadInput(t *testing.T) {
	dir := t.TempDir()
	good := writeNPY(t, dir, "x.npy", covSamples(2, 6, 3, 1))
	rect := writeNPY(t, dir, "rect.npy", tensor.New(tensor.F64, 2, 3, 4))
	flat := writeNPY(t, dir, "flat.npy", tensor.New(tensor.F64, 12))
	spd := writeNPY(t, dir, "A.npy", spdBatch(2, 3, 0))
	badB := writeNPY(t, dir, "badB.npy", tensor.New(tensor.F64, 2, 4, 1))
	notNPY := filepath.Join(dir, "junk.npy")
	os.WriteFile(notNPY, []byte("not an array"), 0o644)
	missing := filepath.Join(dir, "missing.npy")
	out := filepath.Join(dir, "out.npy")
	cases := []struct {
		name string
		args []string
		code int
		msg  string
	}{
		{"cov no input", []string{"cov", "--out-cov", out}, ExitUsage, "exactly one of --in and --cube"},
		{"cov two inputs", []string{"cov", "--in", good, "--cube", good, "--out-cov", out}, ExitUsage, "exactly one"},
		{"cov no output", []string{"cov", "--in", good}, ExitUsage, "nothing to write"},
		{"cov estimator", []string{"cov", "--in", good, "--estimator", "shrink", "--out-cov", out}, ExitUsage, "unknown estimator"},
		{"cov ddof", []string{"cov", "--in", good, "--ddof", "2", "--out-cov", out}, ExitUsage, "--ddof"},
		{"cov missing file", []string{"cov", "--in", missing, "--out-cov", out}, ExitError, "missing.npy"},
		{"cov not npy", []string{"cov", "--in", notNPY, "--out-cov", out}, ExitError, "junk.npy"},
		{"cov rank", []string{"cov", "--in", flat, "--out-cov", out}, ExitError, "want sample sets (N, T, P)"},
		{"cov cube rank", []string{"cov", "--cube", flat, "--out-cov", out}, ExitError, "(T, H, W)"},
		{"cov cube too small", []string{"cov", "--cube", rect, "--radius", "3", "--out-cov", out}, ExitError, "rect.npy has 3×4 frames: patch radius 3 needs at least 7×7 pixels (the largest radius that fits is 1)"},
		{"cov locations without cube", []string{"cov", "--in", good, "--out-cov", out, "--out-locations", filepath.Join(dir, "locations.npy")}, ExitUsage, "--cube"},
		{"chol no input", []string{"chol", "--out-l", out}, ExitUsage, "--in"},
		{"chol missing file", []string{"chol", "--in", missing}, ExitError, "missing.npy"},
		{"chol non-square", []string{"chol", "--in", rect, "--out-l", out}, ExitError, "not square"},
		{"chol rank", []string{"chol", "--in", flat}, ExitError, "want matrices (N, P, P)"},
		{"chol solve without out", []string{"chol", "--in", spd, "--solve", badB}, ExitUsage, "--solve and --out-x"},
		{"chol out without solve", []string{"chol", "--in", spd, "--out-x", out}, ExitUsage, "--solve and --out-x"},
		{"chol quad without solve", []string{"chol", "--in", spd, "--out-quad", out}, ExitUsage, "--out-quad needs --solve"},
		{"chol B shape", []string{"chol", "--in", spd, "--solve", badB, "--out-x", out}, ExitError, "does not fit"},
		{"chol missing B", []string{"chol", "--in", spd, "--solve", missing, "--out", out}, ExitError, "missing.npy"},
		{"chol output dir", []string{"chol", "--in", spd, "--out-l", filepath.Join(dir, "no", "such", "L.npy")}, ExitError, "does not exist"},
	}
	for _, c := range cases {
		code, _, stderr := run(t, append([]string{"--device", "cpu"}, c.args...)...)
		if code != c.code || !strings.Contains(stderr, c.msg) {
			t.Errorf("%s: exit %d, stderr %q; want exit %d and %q", c.name, code, stderr, c.code, c.msg)
		}
	}
	if _, err := os.Stat(out); err == nil {
		t.Errorf("a failed command left %s behind", out)
	}
}

// TestCholFactored: chol --factored solves from the factor --out-l wrote,
// without factoring again: A = [[4, 2], [2, 3]], b = (1, 2) give
// x = A⁻¹b = (−1/8, 6/8) by hand (det 8), on every device under test;
// the factor's upper triangle, filled with junk, is not read.
func TestCholFactored(t *testing.T) {
	dir := t.TempDir()
	ain := writeNPY(t, dir, "A.npy", tensor.FromF64([]float64{4, 2, 2, 3}, 2, 2))
	bin := writeNPY(t, dir, "b.npy", tensor.FromF64([]float64{1, 2}, 2))
	for _, d := range float64DevicesUnderTest(t) {
		l := filepath.Join(dir, d+"L.npy")
		if code, _, stderr := run(t, "--device", d, "chol", "--in", ain, "--out-l", l); code != 0 {
			t.Fatalf("%s: exit %d: %s", d, code, stderr)
		}
		lt, err := formats.ReadNPY(l)
		if err != nil {
			t.Fatal(err)
		}
		lt.F64[1] = 1e300 // above the diagonal
		lj := writeNPY(t, dir, d+"Ljunk.npy", lt)
		x := filepath.Join(dir, d+"x.npy")
		if code, _, stderr := run(t, "--device", d, "chol", "--in", lj, "--factored", "--solve", bin, "--out-x", x); code != 0 {
			t.Fatalf("%s --factored: exit %d: %s", d, code, stderr)
		}
		got, err := formats.ReadNPY(x)
		if err != nil || len(got.F64) != 2 || math.Abs(got.F64[0]+0.125) > 1e-15 || math.Abs(got.F64[1]-0.75) > 1e-15 {
			t.Errorf("%s --factored: x = %v (%v), want (-0.125, 0.75)", d, got, err)
		}
	}
}

// TestCovShrunkCentered: --estimator shrunk --shrinkage 0.25
// --assume-centered (scikit-learn's ShrunkCovariance(shrinkage=0.25,
// assume_centered=True)) on r1 = (2, 2), r2 = (0, 2): S = ½(r1r1ᵀ + r2r2ᵀ)
// = [[2, 2], [2, 4]], μ = tr S / 2 = 3, so C = 0.75·S + 0.75·I =
// [[2.25, 1.5], [1.5, 3.75]] and the means are 0, by hand; a shrinkage
// with an estimator that estimates its own is refused.
func TestCovShrunkCentered(t *testing.T) {
	dir := t.TempDir()
	in := writeNPY(t, dir, "x.npy", tensor.FromF64([]float64{2, 2, 0, 2}, 2, 2))
	for _, d := range float64DevicesUnderTest(t) {
		c, m := filepath.Join(dir, d+"c.npy"), filepath.Join(dir, d+"m.npy")
		if code, _, stderr := run(t, "--device", d, "cov", "--in", in, "--estimator", "shrunk", "--shrinkage", "0.25", "--assume-centered", "--out-cov", c, "--out-mean", m); code != 0 {
			t.Fatalf("%s: exit %d: %s", d, code, stderr)
		}
		got, err1 := formats.ReadNPY(c)
		mean, err2 := formats.ReadNPY(m)
		if err1 != nil || err2 != nil {
			t.Fatal(err1, err2)
		}
		for i, want := range []float64{2.25, 1.5, 1.5, 3.75} {
			if math.Abs(got.F64[i]-want) > 1e-14 {
				t.Errorf("%s: cov %v, want [2.25 1.5 1.5 3.75]", d, got.F64)
				break
			}
		}
		if mean.F64[0] != 0 || mean.F64[1] != 0 {
			t.Errorf("%s: means %v, want 0 (assumed centred)", d, mean.F64)
		}
	}
	if code, _, stderr := run(t, "--device", "cpu", "cov", "--in", in, "--estimator", "oas", "--shrinkage", "0.2", "--out-cov", filepath.Join(dir, "o.npy")); code != ExitUsage || !strings.Contains(stderr, "--shrinkage") {
		t.Errorf("oas with --shrinkage: exit %d, %s; want a usage error naming --shrinkage", code, stderr)
	}
}
