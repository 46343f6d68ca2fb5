package suite

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/vkstat/vkstat/engine"
	"github.com/vkstat/vkstat/tensor"
)

func opNames(ops []Op) []string {
	var s []string
	for _, op := range ops {
		s = append(s, op.Name)
	}
	return s
}

// TestSelectOps: operations and suites by name in any case, each once in
// the order named; no name or "all" keeps every one; an unknown name is
// an error that lists what there is.
func TestSelectOps(t *testing.T) {
	all := Ops()
	got, err := SelectOps(all, []string{" Reduce_NaN", "reduce", "map"})
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"reduce_nan", "reduce", "map"}; !slices.Equal(opNames(got), want) {
		t.Errorf("got %v, want %v", opNames(got), want)
	}
	// reduce's suite holds reduce_nan: naming it after adds nothing, and is
	// no error (it was "no operation or suite").
	if got, err := SelectOps(all, []string{"reduce", "reduce_nan"}); err != nil || !slices.Equal(opNames(got), []string{"reduce", "reduce_nan"}) {
		t.Errorf("reduce, reduce_nan: %v, %v", opNames(got), err)
	}
	for _, names := range [][]string{nil, {""}, {" ", ""}, {"map", "all"}} {
		if got, err := SelectOps(all, names); err != nil || len(got) != len(all) {
			t.Errorf("%q: %d of %d ops, %v", names, len(got), len(all), err)
		}
	}
	if _, err := SelectOps(all, []string{"map", "nope"}); err == nil || !strings.Contains(err.Error(), `"nope"`) || !strings.Contains(err.Error(), "reduce_nan") {
		t.Errorf("unknown name: %v", err)
	}
}

// TestVerifyPlanted: Verify counts a planted error on the CPU path as a
// failure of every row of that operation and nothing else, and a plant
// aimed at Vulkan devices leaves the CPU path's rows passing.
func TestVerifyPlanted(t *testing.T) {
	ops, err := SelectOps(Ops(), []string{"map"})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	cpu := []*engine.Device{nil}
	f32 := VerifyOptions{Precisions: []tensor.DType{tensor.F32}}
	rows := len(ops[0].Verify)
	for _, c := range []struct {
		where        string
		pass, failed int
	}{{"cpu", 0, rows}, {"vulkan", rows, 0}, {"", 0, rows}} {
		planted, err := PlantIn(ops, "map", c.where)
		if err != nil {
			t.Fatal(err)
		}
		rep, err := Verify(ctx, cpu, planted, f32)
		if err != nil {
			t.Fatal(err)
		}
		d := rep.Devices[0]
		if rep.Passed != c.pass || rep.Failed != c.failed || d.Passed != c.pass || d.Failed != c.failed || len(d.Results) != rows {
			t.Errorf("plant on %q: %d passed, %d failed (device %d, %d) in %d rows; want %d, %d", c.where, rep.Passed, rep.Failed, d.Passed, d.Failed, len(d.Results), c.pass, c.failed)
		}
		if d.Device.Path != "cpu" || rep.Kind != VerifyKind {
			t.Errorf("report: kind %q, device %+v", rep.Kind, d.Device)
		}
	}
	if _, err := PlantIn(ops, "reduce", "cpu"); err == nil {
		t.Error("planting in an operation not selected: no error")
	}

	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	rep, err := Verify(cancelled, cpu, ops, f32)
	if !errors.Is(err, context.Canceled) || rep == nil || len(rep.Devices[0].Results) != 0 {
		t.Errorf("cancelled: %v, %+v", err, rep)
	}
}

// report is a verify report of one device with rows "op case precision
// status".
func report(rows ...string) *VerifyReport {
	d := &VerifyDevice{Device: DeviceRecord{Label: "dev", Path: "vulkan"}}
	for _, s := range rows {
		f := strings.Fields(s)
		d.Results = append(d.Results, Result{Op: f[0], Case: f[1], Precision: f[2], Status: Status(f[3])})
	}
	return &VerifyReport{Kind: VerifyKind, Devices: []*VerifyDevice{d}}
}

// TestCompareReports: a row differs where one device passes and another
// fails; a skip is no outcome, so not a difference; a row one device lacks
// is missing there; rows keep the order they first appear in.
func TestCompareReports(t *testing.T) {
	a := report("map x float32 pass", "map x float64 pass", "reduce y float32 pass", "chol z float32 fail")
	b := report("map x float32 fail", "map x float64 skip", "chol z float32 fail", "eig w float32 pass")
	cmp := CompareReports(a, b, a)
	if len(cmp.Columns) != 3 || cmp.Columns[1].Report != 1 || cmp.Columns[2].Report != 2 {
		t.Fatalf("columns: %+v", cmp.Columns)
	}
	var keys []string
	for _, r := range cmp.Rows {
		keys = append(keys, r.Op+" "+r.Case+" "+r.Precision)
	}
	if want := []string{"map x float32", "map x float64", "reduce y float32", "chol z float32", "eig w float32"}; !slices.Equal(keys, want) {
		t.Fatalf("rows %v, want %v", keys, want)
	}
	want := []struct{ differs, missing, skipped bool }{{true, false, false}, {false, false, true}, {false, true, false}, {false, false, false}, {false, true, false}}
	for i, r := range cmp.Rows {
		if r.Differs != want[i].differs || r.Missing != want[i].missing || r.Skipped != want[i].skipped {
			t.Errorf("%s: differs %v missing %v skipped %v, want %+v", keys[i], r.Differs, r.Missing, r.Skipped, want[i])
		}
	}
	if r := cmp.Rows[2]; r.Cells[0] == nil || r.Cells[1] != nil || r.Cells[2] == nil {
		t.Errorf("reduce's cells: %v", r.Cells)
	}
	if cmp.Rows[0].Cells[1].Status != Fail {
		t.Errorf("map x float32 on B: %+v", cmp.Rows[0].Cells[1])
	}
	if cmp.Differ != 1 || cmp.Skipped != 1 || cmp.Partial != 2 {
		t.Errorf("differ %d, skipped %d, partial %d; want 1, 1, 2", cmp.Differ, cmp.Skipped, cmp.Partial)
	}
}

func TestParseVerifyReport(t *testing.T) {
	b, err := json.Marshal(report("map x float32 pass"))
	if err != nil {
		t.Fatal(err)
	}
	rep, err := ParseVerifyReport(b)
	if err != nil || rep.Devices[0].Results[0].Status != Pass {
		t.Errorf("round trip: %v, %+v", err, rep)
	}
	for _, s := range []string{`{"kind": "vkstat-bench-report"}`, `[1, 2]`, ``} {
		if _, err := ParseVerifyReport([]byte(s)); err == nil || !strings.Contains(err.Error(), "not a verify report") {
			t.Errorf("%q: %v", s, err)
		}
	}
}

func TestTuneSuites(t *testing.T) {
	got, err := TuneSuites("reduce, MAP,all")
	if want := []string{"reduce", "map", "cov", "chol"}; err != nil || !slices.Equal(got, want) {
		t.Errorf("got %v, %v; want %v", got, err, want)
	}
	if _, err := TuneSuites("map,paco"); err == nil || !strings.Contains(err.Error(), `"paco" has nothing to tune`) {
		t.Errorf("paco: %v", err)
	}
	if _, err := Tune(context.Background(), []*engine.Device{nil}, []string{"map"}, TuneOptions{}); !errors.Is(err, ErrNothingToTune) {
		t.Errorf("tune on the CPU path: %v", err)
	}
}
