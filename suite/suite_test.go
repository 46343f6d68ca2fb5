package suite

import (
	"context"
	"math"
	"strings"
	"testing"

	"github.com/vkstat/vkstat/device/testdev"
	"github.com/vkstat/vkstat/engine"
	"github.com/vkstat/vkstat/tensor"
)

func TestMain(m *testing.M) { testdev.Main(m) }

func TestRegistry(t *testing.T) {
	ops := Ops()
	if len(ops) == 0 {
		t.Fatal("no operation registered")
	}
	seen := map[string]bool{}
	for _, op := range ops {
		if seen[op.Name] {
			t.Errorf("%s registered twice", op.Name)
		}
		seen[op.Name] = true
		if len(op.Verify) == 0 {
			t.Errorf("%s has no verify case", op.Name)
		}
		for _, c := range op.Verify {
			if c.Seed == 0 {
				t.Errorf("%s %s: no seed", op.Name, c.Label())
			}
		}
		if op.Bench != nil && len(op.Bench[Small]) != len(op.Bench[Paper]) {
			t.Errorf("%s: %d small bench cases but %d paper ones", op.Name, len(op.Bench[Small]), len(op.Bench[Paper]))
		}
	}
	for _, s := range []string{"map", "reduce", "all"} {
		if got, err := Select(ops, s); err != nil || len(got) == 0 {
			t.Errorf("Select(%q) = %d ops, %v", s, len(got), err)
		}
	}
	for _, s := range []string{"nope", "map,nope"} {
		if _, err := Select(ops, s); err == nil || !strings.Contains(err.Error(), "unknown suite") {
			t.Errorf("Select(%q): %v", s, err)
		}
	}
	// A list is the union of its suites, each operation once.
	both, err := Select(ops, "map, reduce")
	if err != nil {
		t.Fatal(err)
	}
	m, _ := Select(ops, "map")
	r, _ := Select(ops, "reduce")
	if len(both) != len(m)+len(r) {
		t.Errorf("Select(map, reduce) = %d ops, want %d + %d", len(both), len(m), len(r))
	}
	for _, op := range both {
		if op.Suite != "map" && op.Suite != "reduce" {
			t.Errorf("Select(map, reduce) has %s of suite %s", op.Name, op.Suite)
		}
	}
}

// TestInputsDeterministic: the same case gives the same inputs, and float32
// inputs are the float64 ones rounded.
func TestInputsDeterministic(t *testing.T) {
	for _, op := range Ops() {
		c := op.Verify[len(op.Verify)-1]
		a, b := op.Build(c, tensor.F64), op.Build(c, tensor.F64)
		s := op.Build(c, tensor.F32)
		for i := range a {
			for k, v := range a[i].F64 {
				same := v == b[i].F64[k] || math.IsNaN(v) && math.IsNaN(b[i].F64[k])
				rounded := float32(v) == s[i].F32[k] || math.IsNaN(v) && math.IsNaN(float64(s[i].F32[k]))
				if !same || !rounded {
					t.Fatalf("%s %s input %d [%d]: %v, again %v, float32 %v", op.Name, c.Label(), i, k, v, b[i].F64[k], s[i].F32[k])
				}
			}
		}
	}
}

func TestCompare(t *testing.T) {
	nan, inf := math.NaN(), math.Inf(1)
	cases := []struct {
		name       string
		got, want  []float64
		maxErr     float64
		nmse       float64
		mismatches int
		worst      int
	}{
		{"equal", []float64{1, 2, nan, inf}, []float64{1, 2, nan, inf}, 0, 0, 0, 0},
		{"one off", []float64{1, 2, 4}, []float64{1, 2, 3}, 1.0 / 3, 1.0 / 14, 0, 2},
		{"zeros", []float64{0, 1e-3}, []float64{0, 0}, 1e-3, 1e-6, 0, 1},
		{"nan where finite", []float64{1, nan, 3}, []float64{1, 2, 3}, 0, 0, 1, 1},
		{"finite where nan", []float64{1, 2, 3}, []float64{nan, 2, 3}, 0, 0, 1, 0},
		{"wrong inf", []float64{-inf}, []float64{inf}, 0, 0, 1, 0},
	}
	for _, c := range cases {
		e, err := Compare(tensor.FromF64(c.got, len(c.got)), c.want)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if math.Abs(e.MaxErr-c.maxErr) > 1e-15 || math.Abs(e.NMSE-c.nmse) > 1e-15 || e.Mismatches != c.mismatches || e.Worst != c.worst {
			t.Errorf("%s: got %+v, want max err %g nmse %g mismatches %d worst %d", c.name, e, c.maxErr, c.nmse, c.mismatches, c.worst)
		}
	}
	if _, err := Compare(tensor.FromF64([]float64{1}, 1), []float64{1, 2}); err == nil {
		t.Error("length mismatch not reported")
	}
}

// devices are the CPU path (nil) and every Vulkan device.
func devices(t *testing.T) []*engine.Device {
	devs := []*engine.Device{nil}
	if testing.Short() {
		return devs
	}
	return append(devs, testdev.Devices(t)...)
}

func devName(d *engine.Device) string {
	if d == nil {
		return "cpu"
	}
	return d.Info.Name
}

// TestVerify: every operation passes on the CPU path and on every Vulkan
// device (with validation on), and the same run with one output perturbed
// fails with a row naming the output and the element.
func TestVerify(t *testing.T) {
	ctx := context.Background()
	devs := devices(t)
	for _, op := range Ops() {
		bad := Perturb(op, PlantError, nil)
		for _, c := range op.Verify {
			for _, dt := range op.Precisions([]tensor.DType{tensor.F32, tensor.F64, tensor.F16, tensor.BF16}) {
				p := Prepare(op, c, dt)
				pb := &Prepared{Op: bad, Case: p.Case, DType: dt, In: p.In, Ref: p.Ref}
				for _, d := range devs {
					r := p.Verify(ctx, d)
					if r.Status == Skip {
						t.Logf("%s: %s %s %s skipped: %s", devName(d), op.Name, c.Label(), dt, r.Detail)
						continue
					}
					if r.Status != Pass {
						t.Errorf("%s: %s %s %s: %s max err %.3g nmse %.3g: %s", devName(d), op.Name, c.Label(), dt, r.Status, r.MaxErr, r.NMSE, r.Detail)
					}
					if c.Label() != op.Verify[0].Label() && !strings.Contains(c.Label(), "(1,)") {
						rb := pb.Verify(ctx, d)
						if rb.Status != Fail || !strings.Contains(rb.Detail, "[") {
							t.Errorf("%s: %s %s %s with a planted error: %s %q", devName(d), op.Name, c.Label(), dt, rb.Status, rb.Detail)
						}
					}
				}
			}
		}
	}
}

func TestMeasureAndCopyBandwidth(t *testing.T) {
	ctx := context.Background()
	op := Ops()[0]
	c := op.Bench[Small][0].Case
	c.Shape = []int{4096}
	in := op.Build(c, tensor.F32)
	for _, d := range devices(t) {
		m, err := Measure(ctx, d, op, c, in, 1, 3)
		if err != nil {
			t.Fatalf("%s: %v", devName(d), err)
		}
		if m.Wall <= 0 || m.Runs != 3 {
			t.Errorf("%s: %+v", devName(d), m)
		}
		bw, err := CopyBandwidth(ctx, d, 1<<20, 2)
		if err != nil {
			t.Fatalf("%s: %v", devName(d), err)
		}
		if bw.GBs <= 0 || bw.Bytes != 1<<20 {
			t.Errorf("%s: copy bandwidth %+v", devName(d), bw)
		}
		t.Logf("%s: copy %.2f GB/s (%s); map 4096 wall %v", devName(d), bw.GBs, bw.Method, m.Wall)
	}
}

func TestCopyErrors(t *testing.T) {
	for _, d := range testdev.Devices(t) {
		a, err := d.NewBuffer(1024)
		if err != nil {
			t.Fatal(err)
		}
		seq, err := d.NewSequence()
		if err != nil {
			t.Fatal(err)
		}
		if err := seq.Copy(a, a, 0, 100, 200); err == nil || !strings.Contains(err.Error(), "overlap") {
			t.Errorf("overlapping copy: %v", err)
		}
		seq.Release()
		seq, _ = d.NewSequence()
		if err := seq.Copy(a, a, 0, 1000, 100); err == nil || !strings.Contains(err.Error(), "overflows") {
			t.Errorf("overflowing copy: %v", err)
		}
		seq.Release()
		a.Release()
	}
}

func TestParseSize(t *testing.T) {
	for in, want := range map[string]Size{"small": Small, "": Small, "paper": Paper, "PAPER": Paper} {
		if got, err := ParseSize(in); err != nil || got != want {
			t.Errorf("ParseSize(%q) = %q, %v", in, got, err)
		}
	}
	if _, err := ParseSize("huge"); err == nil {
		t.Error("ParseSize(huge) succeeded")
	}
}
