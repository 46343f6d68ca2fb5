package suite

import (
	"context"
	"math"
	"strings"
	"testing"

	"github.com/vkstat/vkstat/device/testdev"
	"github.com/vkstat/vkstat/device/tune"
)

// TestTunerHardCases: on a device with float64, cov's built-in parameters
// pass every hard case, and float accumulation is put out by the large
// means (relative error about 1e-3 at 1e6 ± 0.5, against 1e-4), as it
// failed the suites on the H100 when the tuner chose it; without float64
// there are no hard cases (every candidate sums in float).
func TestTunerHardCases(t *testing.T) {
	op := opNamed(t, "cov")
	for _, dev := range testdev.Devices(t) {
		t.Run(dev.Info.Name, func(t *testing.T) {
			tu := Tuner(op, dev)
			if !dev.Info.Float64 {
				if len(tu.Hard) != 0 {
					t.Errorf("hard cases %q on a device without float64, where every candidate sums in float", tu.Hard)
				}
				return
			}
			if len(tu.Hard) != 3 {
				t.Fatalf("hard cases %q, want 3", tu.Hard)
			}
			ctx := context.Background()
			for h, name := range tu.Hard {
				if err := tu.Check(tune.WithOverride(ctx, "cov", tu.Candidates[0]), h); err != nil {
					t.Errorf("built-in %s: %s: %v", tune.Format(tu.Candidates[0]), name, err)
				}
			}
			float := map[string]any{"kernel": "tiled", "accumulate": "float", "tiled_r": 4, "tiled_wg": 128, "tiled_tt": 16}
			failed := ""
			for h, name := range tu.Hard {
				if err := tu.Check(tune.WithOverride(ctx, "cov", float), h); err != nil {
					failed += name + ": " + err.Error() + "; "
				}
			}
			if !strings.Contains(failed, "means 1e6") {
				t.Errorf("float accumulation passed the large means (failed: %q)", failed)
			}
			t.Logf("float accumulation failed: %s", failed)
		})
	}
}

// TestTunerCasesAreTheOperations: every tunable pipeline's tuner times and
// checks cases of its own operation (labels from the operation's cases),
// the candidates start with the built-in choice, and a wrong result puts
// a candidate out (a planted error on the CPU-type devices' first case).
func TestTunerCasesAreTheOperations(t *testing.T) {
	devs := testdev.Devices(t)
	if len(devs) == 0 {
		t.Skip("no Vulkan device")
	}
	dev := devs[0]
	ops := tunable()
	var suites []string
	for _, op := range ops {
		suites = append(suites, op.Suite)
		tu := Tuner(op, dev)
		if len(tu.Candidates) < 2 || len(tu.Cases) != len(op.Tune.CPU) {
			t.Errorf("%s: %d candidates, cases %q", op.Name, len(tu.Candidates), tu.Cases)
		}
		for i, c := range op.Tune.CPU {
			if want := c.Label() + " float32"; tu.Cases[i] != want {
				t.Errorf("%s: case %d is %q, want %q", op.Name, i, tu.Cases[i], want)
			}
		}
	}
	if strings.Join(suites, ",") != "map,reduce,cov,chol" {
		t.Errorf("tunable suites %v", suites)
	}
	// The map's one case, checked: right, then with a planted error.
	op := opNamed(t, "map")
	ctx := tune.WithOverride(context.Background(), "mapx", map[string]any{"workgroup": 64})
	if _, err := Tuner(op, dev).Run(ctx, 0, true); err != nil {
		t.Errorf("map, workgroup 64: %v", err)
	}
	bad := Perturb(op, PlantError, nil)
	if _, err := Tuner(bad, dev).Run(ctx, 0, true); err == nil || !strings.Contains(err.Error(), "a wrong result") {
		t.Errorf("a planted error: got %v, want a wrong result", err)
	}
}

func opNamed(t *testing.T, name string) Op {
	t.Helper()
	for _, op := range Ops() {
		if op.Name == name {
			return op
		}
	}
	t.Fatalf("no operation %q", name)
	return Op{}
}

// TestCholTunerChecksFailures: each of chol's tuning cases ends with a
// matrix whose factorisation fails (a NaN pivot), which the float64
// reference reports (info ≠ 0 there and only there, NaN log-det), and the
// built-in candidate passes the check on every device: a candidate that
// mishandled failures would be put out.
func TestCholTunerChecksFailures(t *testing.T) {
	op := opNamed(t, "chol")
	for _, c := range op.Tune.CPU {
		p := Prepare(op, c.Case, c.DType)
		if p.Err != nil {
			t.Fatal(p.Err)
		}
		info, logdet := p.Ref[0].V, p.Ref[2].V
		n := len(info)
		if p.Ref[0].Name != "info" || p.Ref[2].Name != "logdet" {
			t.Fatalf("%s: outputs %s, %s", c.Label(), p.Ref[0].Name, p.Ref[2].Name)
		}
		for i, v := range info {
			if (v != 0) != (i == n-1) {
				t.Errorf("%s: matrix %d: reference info %g", c.Label(), i, v)
			}
		}
		if !math.IsNaN(logdet[n-1]) || math.IsNaN(logdet[0]) {
			t.Errorf("%s: reference log-dets %g (first), %g (last)", c.Label(), logdet[0], logdet[n-1])
		}
	}
	for _, dev := range testdev.Devices(t) {
		tu := Tuner(op, dev)
		for c, name := range tu.Cases {
			if _, err := tu.Run(tune.WithOverride(context.Background(), "chol", tu.Candidates[0]), c, true); err != nil {
				t.Errorf("%s: built-in %s: %s: %v", dev.Info.Name, tune.Format(tu.Candidates[0]), name, err)
			}
		}
	}
}
