package shaderlab_test

import (
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/vkstat/vkstat/device/testdev"
	"github.com/vkstat/vkstat/engine"
	"github.com/vkstat/vkstat/shaderlab"
)

// double writes one binding, v, with a local size of 4.
const double = `#version 450
layout(local_size_x = 4) in;
layout(std430, binding = 0) buffer Out { float v[]; };
void main() { v[gl_GlobalInvocationID.x] *= 2.0; }
`

func doublePlan(t *testing.T) *shaderlab.Plan {
	t.Helper()
	p, err := shaderlab.NewPlan(compile(t, "double.comp", double), shaderlab.Options{
		Bind: []shaderlab.Bind{{Name: "v", Data: float32s(0, 0, 0, 0)}}, Groups: [3]uint32{1, 1, 1}, Repeat: 1})
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func TestRateText(t *testing.T) {
	for v, want := range map[float64]string{12.34e6: "12.3 MB/s", 2.5e9: "2.5 GB/s", 999: "999 B/s", 3.2e12: "3.2 TB/s", 4500: "4.5 kB/s"} {
		if got := shaderlab.RateText(v); got != want {
			t.Errorf("RateText(%g) = %q, want %q", v, got, want)
		}
	}
}

// TestWriteTimes: the median of 3, 1 and 2 ms is 2 ms, in which 2 MiB
// move at 2²¹ B / 2 ms = 1.05 GB/s; untimed runs give the wall time.
func TestWriteTimes(t *testing.T) {
	ms := time.Millisecond
	var b bytes.Buffer
	r := &shaderlab.Result{Timed: true, Kernel: []time.Duration{3 * ms, ms, 2 * ms}, First: 5 * ms, Build: 4 * ms}
	r.WriteTimes(&b, 2<<20, 1)
	want := "  GPU time 2.000 ms (timestamps, median of 3 after 1 untimed), 2.0 MiB moved, 1.05 GB/s\n" +
		"  first run 5.000 ms wall, building the pipeline 4.000 ms of it (neither in the GPU time)\n"
	if b.String() != want {
		t.Errorf("timed:\n%s\nwant\n%s", b.String(), want)
	}
	b.Reset()
	r = &shaderlab.Result{Kernel: make([]time.Duration, 2), Wall: 7 * ms, First: 5 * ms, Build: 4 * ms}
	r.WriteTimes(&b, 100, 0)
	want = "  GPU time n/a (no timestamps); wall 7.000 ms for 2 runs, 100 bytes moved per run\n" +
		"  first run 5.000 ms wall, building the pipeline 4.000 ms of it (neither in the GPU time)\n"
	if b.String() != want {
		t.Errorf("untimed:\n%s\nwant\n%s", b.String(), want)
	}
}

// TestWriteCheck: v = 1 2 3 4 against 1 2 5 8 at tolerance 0.1 of
// max |expected| (0.8): errors 0 0 2 4, two beyond, the worst at [3];
// max error 4 is 0.5 of 8, NMSE (2² + 4²)/(1 + 4 + 25 + 64) = 0.213.
func TestWriteCheck(t *testing.T) {
	p := doublePlan(t)
	r := &shaderlab.Result{Outputs: []*shaderlab.Array{float32s(1, 2, 3, 4)}}
	want := map[int]*shaderlab.Array{0: float32s(1, 2, 5, 8)}
	var b bytes.Buffer
	if bad := shaderlab.WriteCheck(&b, p, r, want, shaderlab.Tol(0.1)); bad != 1 {
		t.Errorf("%d bad, want 1", bad)
	}
	text := "  FAIL v: max error 4 (0.5 of max |expected|), NMSE 0.213 (tolerance 0.1)\n" +
		"    2 of 4 elements (50%) beyond the tolerance\n" +
		"    worst: v[3] got 4, want 8\n" +
		"    others:\n" +
		"      v[2] got 3, want 5\n"
	if b.String() != text {
		t.Errorf("got\n%s\nwant\n%s", b.String(), text)
	}
	b.Reset()
	if bad := shaderlab.WriteCheck(&b, p, r, want, shaderlab.Tol(0.5)); bad != 0 || b.String() != "  PASS v: max error 4 (0.5 of max |expected|), NMSE 0.213 (tolerance 0.5)\n" {
		t.Errorf("%d bad:\n%s", bad, b.String())
	}
}

// TestRunsReport: the first run prints its dispatch and times only; the
// second, timed as the first, its trend (2 ms → 1 ms is −50 %) and v's
// change against the run before (|1 2 3 6 − 1 2 3 4| is 2 at most, half
// of max |1 2 3 4|; NMSE 2²/(1 + 4 + 9 + 16) = 0.133).
func TestRunsReport(t *testing.T) {
	p := doublePlan(t)
	var h shaderlab.Runs
	var b bytes.Buffer
	ms := time.Millisecond
	h.Report(&b, p, &shaderlab.Result{Device: "dev", Timed: true, Kernel: []time.Duration{2 * ms}, Outputs: []*shaderlab.Array{float32s(1, 2, 3, 4)}})
	first := "double.comp on dev: 1×1×1 workgroups of 4×1×1\n" +
		"  GPU time 2.000 ms (timestamps, median of 1), 32 bytes moved, 16 kB/s\n" +
		"  first run 0.000 ms wall, building the pipeline 0.000 ms of it (neither in the GPU time)\n"
	if b.String() != first {
		t.Errorf("first run:\n%s\nwant\n%s", b.String(), first)
	}
	b.Reset()
	h.Report(&b, p, &shaderlab.Result{Device: "dev", Timed: true, Kernel: []time.Duration{ms}, Outputs: []*shaderlab.Array{float32s(1, 2, 3, 6)}})
	for _, want := range []string{"  time 1.000 ms (previous 2.000 ms, -50.0%) trend ms: 2.000 → 1.000\n",
		"  change vs previous run, v: max error 2 (0.5 of max |expected|), NMSE 0.133\n"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("second run:\n%s\nwant %q", b.String(), want)
		}
	}
}

// TestWriteOutputs: the files are written and listed, all or none: a file
// in a folder that is not there writes nothing.
func TestWriteOutputs(t *testing.T) {
	p := doublePlan(t)
	r := &shaderlab.Result{Outputs: []*shaderlab.Array{float32s(1, 2, 3, 4)}}
	dir := t.TempDir()
	var b bytes.Buffer
	file := filepath.Join(dir, "v.npy")
	if err := shaderlab.WriteOutputs(context.Background(), &b, p, r, []string{file}, ""); err != nil {
		t.Fatal(err)
	}
	if b.String() != "  v → "+file+"\n" {
		t.Errorf("listed %q", b.String())
	}
	got, err := shaderlab.ReadNPY(file)
	if err != nil || got.String() != "float32(4,)" || !slices.Equal(got.Values(), []float64{1, 2, 3, 4}) {
		t.Errorf("wrote %v, %v", got, err)
	}
	b.Reset()
	if err := shaderlab.WriteOutputs(context.Background(), &b, p, r, []string{filepath.Join(dir, "none", "v.npy")}, ""); err == nil || b.Len() > 0 {
		t.Errorf("a missing folder: %v, listed %q", err, b.String())
	}
	if err := shaderlab.WriteOutputs(context.Background(), &b, p, r, []string{""}, ""); err != nil || b.Len() > 0 {
		t.Errorf("no files: %v, listed %q", err, b.String())
	}
	if _, err := os.Stat(filepath.Join(dir, "none")); err == nil {
		t.Error("a folder was made")
	}
}

// TestWriteInfo: shader info's text of tile: its local size from spec
// constant 0, its two bindings with their members, the push block P and
// TILE's default 16; no device, so the capabilities have no columns.
func TestWriteInfo(t *testing.T) {
	var b bytes.Buffer
	compile(t, "tile.comp", tile).WriteInfo(&b, []engine.DeviceInfo{})
	for _, want := range []string{
		"local size:   16 (spec 0) × 16 (spec 0) × 1\n",
		"\nbindings:\n  SET  BINDING  NAME   KIND     ACCESS      MEMBERS\n",
		"  0    0        v      storage  read-write  Out { float32[] v @0 }\n",
		"  0    1        scale  storage  readonly    Params { uint32[4] scale @0 }\n",
		"\npush constants:\n  block P, 8 bytes\n  OFFSET  NAME  TYPE     SIZE\n  0       rows  uint32   4\n  4       gain  float32  4\n",
		"\nspecialization constants:\n  ID  NAME  TYPE    DEFAULT\n  0   TILE  uint32  16\n",
		"\ncapabilities:\n  CAPABILITY\n  Shader\n",
	} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("info:\n%s\nwant %q", b.String(), want)
		}
	}
}

// TestSweepTable: a passing timed row (2 MiB in 2 ms is 1.05 GB/s, 4e6
// operations in 2 ms 2 GFLOP/s), a row with nothing to check and an
// ERROR row with its reason's first line under the table.
func TestSweepTable(t *testing.T) {
	ms := time.Millisecond
	var st shaderlab.SweepTable
	st.Add("a", &shaderlab.Result{Device: "dev", Timed: true, Kernel: []time.Duration{2 * ms}, First: 5 * ms},
		[]shaderlab.Verdict{{Pass: true, Elements: 4, Diff: shaderlab.Diff{MaxRel: 1e-7, NMSE: 1e-14}}}, 2<<20, 4e6)
	st.Add("b", &shaderlab.Result{Device: "dev", Kernel: []time.Duration{0}, First: 3 * ms}, nil, 100, 0)
	st.Fail("c", "-", errors.New("c.comp:1: error\n\nmore"))
	var b bytes.Buffer
	st.Write(&b)
	want := "CASE DEVICE RESULT BEYOND MAX REL ERR NMSE GPU TIME RATE GFLOP/S FIRST RUN\n" +
		"a dev PASS 0 1e-07 1e-14 2.000 ms 1.05 GB/s 2 5.000 ms\n" +
		"b dev RAN - - - n/a n/a - 3.000 ms\n" +
		"c - ERROR [1] - - - - - -\n" +
		"[1] c on -: c.comp:1: error\n"
	if got := regexp.MustCompile(` {2,}`).ReplaceAllString(b.String(), " "); got != want || st.Failed != 1 || st.Len() != 3 {
		t.Errorf("%d failed of %d:\n%s\nwant\n%s", st.Failed, st.Len(), got, want)
	}
}

// TestSweepTableRun: doubling v = 0 0 0 0 gives 0 0 0 0 on every device:
// a row that passes against zeros, one that fails against ones (|1 - 0|
// is past every tolerance) and one with nothing to check, per device.
func TestSweepTableRun(t *testing.T) {
	p := doublePlan(t)
	devs := testdev.Devices(t)
	var st shaderlab.SweepTable
	tol := shaderlab.Tol(1e-6)
	st.Run(context.Background(), "zeros", p, devs, map[int]*shaderlab.Array{0: float32s(0, 0, 0, 0)}, tol, 0)
	st.Run(context.Background(), "ones", p, devs, map[int]*shaderlab.Array{0: float32s(1, 1, 1, 1)}, tol, 0)
	st.Run(context.Background(), "none", p, devs, nil, nil, 0)
	var b bytes.Buffer
	st.Write(&b)
	for _, row := range []string{"zeros", "ones", "none"} {
		verdict := map[string]string{"zeros": "PASS", "ones": "FAIL", "none": "RAN"}[row]
		if n := len(regexp.MustCompile(`(?m)^`+row+` .* `+verdict+` `).FindAllString(b.String(), -1)); n != len(devs) {
			t.Errorf("%d %s rows of %s, want one per device (%d):\n%s", n, verdict, row, len(devs), b.String())
		}
	}
	if st.Failed != len(devs) || st.Len() != 3*len(devs) {
		t.Errorf("%d of %d rows failed, want %d of %d", st.Failed, st.Len(), len(devs), 3*len(devs))
	}
}

// TestWriteAgreement: a second device's v = 1 2 3 5 against the first's
// 1 2 3 4 differs by 1 at most, a quarter of max |4|.
func TestWriteAgreement(t *testing.T) {
	p := doublePlan(t)
	var b bytes.Buffer
	p.WriteAgreement(&b, []*shaderlab.Result{{Device: "A", Outputs: []*shaderlab.Array{float32s(1, 2, 3, 4)}}, {Device: "B", Outputs: []*shaderlab.Array{float32s(1, 2, 3, 5)}}})
	want := "  B vs A, v: max error 1 (0.25 of max |expected|), NMSE 0.0333\nmax error between B and A: 0.25 of max |output|\n"
	if b.String() != want {
		t.Errorf("got\n%s\nwant\n%s", b.String(), want)
	}
}

// TestWriteError: a shader that does not compile is shown as the watch
// shows it, its diagnostic at file:line; any other error as "error:".
func TestWriteError(t *testing.T) {
	_, err := shaderlab.Compile("bad.comp", []byte("#version 450\nlayout(local_size_x = 1) in;\nvoid main() { x = 1.0; }\n"), shaderlab.CompileOptions{})
	var out bytes.Buffer
	shaderlab.WriteError(&out, err)
	if got := out.String(); !strings.HasPrefix(got, "compile error:\n  bad.comp:3:") || !strings.Contains(got, "undeclared identifier") {
		t.Errorf("compile error written as %q", got)
	}
	out.Reset()
	shaderlab.WriteError(&out, errors.New("binding 0 has no data"))
	if got := out.String(); got != "error: binding 0 has no data\n" {
		t.Errorf("error written as %q", got)
	}
}

// tooManyGroups is the double shader dispatched past every device's
// workgroup count (Vulkan's minimum limit is 65535): a run that fails on
// the device, after the plan is made.
func tooManyGroups(t *testing.T) *shaderlab.Plan {
	t.Helper()
	p, err := shaderlab.NewPlan(compile(t, "double.comp", double), shaderlab.Options{
		Bind: []shaderlab.Bind{{Name: "v", Data: float32s(0, 0, 0, 0)}}, Groups: [3]uint32{1 << 31, 1, 1}, NoBoundsCheck: true})
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// TestRunOn: a plan's runs on every device, then the checks of each
// device's outputs against what is expected (zeros pass, ones fail) and
// against another shader's run; a sequence's check follows each run; a
// failed run names the shader and the device, one of against is an
// *EntryError of against.
func TestRunOn(t *testing.T) {
	ctx := context.Background()
	p, devs := doublePlan(t), testdev.Devices(t)
	tol := shaderlab.Tol(0)
	for _, c := range []struct {
		name string
		want map[int]*shaderlab.Array
		bad  int
	}{{"zeros", map[int]*shaderlab.Array{0: float32s(0, 0, 0, 0)}, 0}, {"ones", map[int]*shaderlab.Array{0: float32s(1, 1, 1, 1)}, len(devs)}} {
		var b bytes.Buffer
		runs, bad, err := shaderlab.RunOn(ctx, &b, p, devs, c.want, tol, p)
		if err != nil || len(runs) != len(devs) || bad != c.bad {
			t.Fatalf("%s: %d runs, %d bad, %v; want %d runs, %d bad", c.name, len(runs), bad, err, len(devs), c.bad)
		}
		out := b.String()
		for _, d := range devs {
			for _, want := range []string{"double.comp on " + d.Info.Name + ": 1×1×1 workgroups of 4×1×1\n", "\n" + d.Info.Name + ":\n  ",
				"\n" + d.Info.Name + " against double.comp:\n  PASS v: max error 0"} {
				if !strings.Contains(out, want) {
					t.Errorf("%s: no %q in\n%s", c.name, want, out)
				}
			}
		}
		if i, j := strings.Index(out, "double.comp on "+devs[len(devs)-1].Info.Name), strings.Index(out, "  PASS v"); i > j {
			t.Errorf("%s: a check before the last device's run:\n%s", c.name, out)
		}
	}
	if _, _, err := shaderlab.RunOn(ctx, io.Discard, tooManyGroups(t), devs, nil, nil, nil); err == nil || !strings.HasPrefix(err.Error(), "double.comp on "+devs[0].Info.Name+": ") {
		t.Errorf("a failed run: %v", err)
	}
	_, _, err := shaderlab.RunOn(ctx, io.Discard, p, devs, nil, nil, tooManyGroups(t))
	var ee *shaderlab.EntryError
	if !errors.As(err, &ee) || ee.Usage || !strings.HasPrefix(err.Error(), "against double.comp on "+devs[0].Info.Name+": ") {
		t.Errorf("a failed run of against: %v", err)
	}
	seq, err := shaderlab.NewSequence([]shaderlab.Buffer{{Name: "v", Data: float32s(1, 2, 3, 4)}},
		[]shaderlab.Step{{Shader: p.Shader, Options: shaderlab.Options{Bind: []shaderlab.Bind{{Name: "v", Buffer: "v"}}, Groups: [3]uint32{1, 1, 1}}}}, shaderlab.Options{})
	if err != nil {
		t.Fatal(err)
	}
	seq.File = "double.json"
	var b bytes.Buffer
	if _, bad, err := shaderlab.RunOn(ctx, &b, seq, devs, map[int]*shaderlab.Array{0: float32s(2, 4, 6, 8)}, tol, nil); err != nil || bad != 0 {
		t.Fatalf("sequence: %d bad, %v", bad, err)
	}
	want := "double.json on " + devs[0].Info.Name + ": 1 steps, 1 dispatches\n"
	if out := b.String(); !strings.HasPrefix(out, want) || strings.Count(out, "  PASS v: max error 0") != len(devs) {
		t.Errorf("sequence: want %q, then a PASS per device:\n%s", want, out)
	}
}

// TestWatchRound: each device's run is reported against its last and
// checked; a run that fails writes its error and the advice for it.
func TestWatchRound(t *testing.T) {
	ctx := context.Background()
	p, devs := doublePlan(t), testdev.Devices(t)
	runs := make([]shaderlab.Runs, len(devs))
	want := map[int]*shaderlab.Array{0: float32s(0, 0, 0, 0)}
	var b bytes.Buffer
	advice := func(error) string { return "try fewer groups" }
	for range 2 {
		b.Reset()
		shaderlab.WatchRound(ctx, &b, p, devs, runs, want, shaderlab.Tol(0), advice)
	}
	for _, want := range []string{" workgroups of 4×1×1\n", "  change vs previous run, v: none\n", "  PASS v: max error 0"} {
		if strings.Count(b.String(), want) != len(devs) {
			t.Errorf("second round: want %q per device in\n%s", want, b.String())
		}
	}
	b.Reset()
	last, times := runs[0].Last, len(runs[0].Times)
	shaderlab.WatchRound(ctx, &b, tooManyGroups(t), devs, runs, nil, nil, advice)
	if out := b.String(); !strings.HasPrefix(out, "error on "+devs[0].Info.Name+": ") || strings.Count(out, "\n  try fewer groups\n") != len(devs) {
		t.Errorf("failed runs written as\n%s", out)
	}
	b.Reset()
	shaderlab.WatchRound(ctx, &b, tooManyGroups(t), devs, runs, nil, nil, nil)
	if out := b.String(); strings.Count(out, "error on ") != len(devs) || strings.Contains(out, "\n  ") {
		t.Errorf("failed runs without advice written as\n%s", out)
	}
	if runs[0].Last != last || len(runs[0].Times) != times {
		t.Errorf("a failed run changed the runs kept: %+v", runs[0])
	}
}
