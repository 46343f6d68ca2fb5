package suite

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/vkstat/vkstat/engine"
	"github.com/vkstat/vkstat/tensor"
)

// cpuRecord is the CPU path as a report records it, on a fixed Go version.
var cpuRecord = DeviceRecord{Label: "cpu", Path: "cpu", Name: "CPU path (native Go)", Driver: "go1.0", Threads: 2}

// The verify table, hand-aligned: each column as wide as its widest cell
// plus two spaces, the detail only where a row did not pass.
func TestVerifyReportText(t *testing.T) {
	rep := &VerifyReport{VkstatVersion: "test", Passed: 1, Failed: 1, Devices: []*VerifyDevice{{Device: cpuRecord, Passed: 1, Failed: 1, Results: []Result{
		{Op: "map", Case: "(1,)", Precision: "float32", Status: Pass, MaxErr: 1e-7, Tol: Tol{MaxErr: 1e-6, NMSE: 1e-12}, Detail: "not shown"},
		{Op: "reduce", Case: "(1,)", Precision: "float64", Status: Fail, MaxErr: 1e-2, NMSE: 1e-4, Tol: Tol{MaxErr: 1e-12, NMSE: 1e-24}, Detail: "too far"},
	}}}}
	var b bytes.Buffer
	rep.WriteText(&b)
	want := "== cpu: CPU path (native Go) (go1.0, 2 threads)\n" +
		"OPERATION  CASE  PRECISION  MAX ERR   NMSE      TOL (MAX/NMSE)  RESULT  DETAIL\n" +
		"map        (1,)  float32    1.00e-07  0         1e-06/1e-12     pass    \n" +
		"reduce     (1,)  float64    1.00e-02  1.00e-04  1e-12/1e-24     FAIL    too far\n" +
		"1 passed, 1 failed, 0 skipped\n\n" +
		"verify: FAILED: 1 passed, 1 failed, 0 skipped on 1 device(s); vkstat test\n"
	if b.String() != want {
		t.Errorf("got\n%s\nwant\n%s", b.String(), want)
	}
}

// Two reports of one device each, one row failing on the second: the row
// that differs is shown, the one that agrees is not (with all it is).
func TestWriteComparison(t *testing.T) {
	row := func(s Status, e float64) Result {
		return Result{Op: "map", Case: "(1,)", Precision: "float32", Status: s, MaxErr: e, NMSE: e * e}
	}
	same := Result{Op: "map", Case: "(2,)", Precision: "float32", Status: Pass}
	a := &VerifyReport{VkstatVersion: "1", Date: "d", Host: Host{OS: "linux", Arch: "amd64", Hostname: "h"}, Devices: []*VerifyDevice{{Device: cpuRecord, Results: []Result{row(Pass, 1e-7), same}}}}
	b := &VerifyReport{VkstatVersion: "1", Date: "d", Host: Host{OS: "linux", Arch: "amd64", Hostname: "h"}, Devices: []*VerifyDevice{{Device: cpuRecord, Results: []Result{row(Fail, 1e-2), same}}}}
	var out bytes.Buffer
	cmp := WriteComparison(&out, []string{"a.json", "b.json"}, []*VerifyReport{a, b}, false)
	want := "A: a.json — vkstat 1, d, linux/amd64, h, validation false\n" +
		"  A1 = cpu: CPU path (native Go) (go1.0, 2 threads)\n" +
		"B: b.json — vkstat 1, d, linux/amd64, h, validation false\n" +
		"  B1 = cpu: CPU path (native Go) (go1.0, 2 threads)\n" +
		"\n" +
		"OPERATION  CASE  PRECISION  A1" + strings.Repeat(" ", 22) + "B1\n" +
		"map        (1,)  float32    pass 1.00e-07/1.00e-14  FAIL 1.00e-02/1.00e-04\n" +
		"1 of 2 rows differ in outcome (pass/FAIL) between the 2 devices; cells are max err/NMSE, - where a device has no such row\n"
	if cmp.Differ != 1 || out.String() != want {
		t.Errorf("differ %d, got\n%s\nwant\n%s", cmp.Differ, out.String(), want)
	}
	out.Reset()
	WriteComparison(&out, []string{"a.json", "b.json"}, []*VerifyReport{a, b}, true)
	if !strings.Contains(out.String(), "\nmap        (2,)  float32    pass 0/0") {
		t.Errorf("with all, the row that agrees is missing:\n%s", out.String())
	}
}

// The bench tables: a device's copy bandwidth, an ok row (the CPU path
// has no upload or download; a case computed in float64) and a failed one.
func TestBenchReportMarkdown(t *testing.T) {
	rep := &BenchReport{VkstatVersion: "test", Date: "d", Host: Host{CPU: "a cpu"}, Size: Small, Repeat: 3, Warmup: WarmupByTime,
		Devices: []*BenchDevice{{Device: cpuRecord, Copy: Bandwidth{GBs: 12.345, Bytes: 256 << 20, Method: "copy()"}, Results: []*BenchResult{
			{Op: "paco", Case: "(64, 64, 64) R=4", Precision: "float32", Status: "ok", UploadMs: 1, KernelMs: 123.4, WallMs: 0.5, GPUTimed: true,
				ComputedAs: "float64", Unit: "GFLOP/s", Throughput: 12.34, ThroughputWall: 1234, CopyFraction: 0.5, WarmupRuns: 1, WarmupMs: 2, WarmedBy: "a second"},
			{Op: "map", Case: "(1,)", Precision: "float64", Status: "error", Detail: "it broke"},
		}}}}
	var b bytes.Buffer
	rep.WriteMarkdown(&b)
	want := "# vkstat bench (small size, median of 3 after warm-up for a time)\n\n" +
		"vkstat test, d, a cpu\n\n" +
		"| device | copy bandwidth | measured with | host→device | device→host |\n" +
		"|---|---:|---|---:|---:|\n" +
		"| cpu: CPU path (native Go) (go1.0, 2 threads) | 12.3 GB/s | copy(), 256 MiB | – | – |\n\n" +
		"| operation | case | precision | device | upload ms | kernel ms | download ms | wall ms | throughput (kernel) | throughput (wall) | % of copy BW | warm-up |\n" +
		"|---|---|---|---|---:|---:|---:|---:|---:|---:|---:|---|\n" +
		"| paco | (64, 64, 64) R=4 | float32 (computed in float64) | cpu | – | 123 | – | 0.5 | 12.3 GFLOP/s | 1234 GFLOP/s | 50% | 1 run, 2 ms (a second) |\n" +
		"| map | (1,) | float64 | cpu | error: it broke | | | | | | | |\n"
	if b.String() != want {
		t.Errorf("got\n%s\nwant\n%s", b.String(), want)
	}
}

// bench --tune's steps: a device's heading, a table and its failure, and
// the winners by name.
func TestTuneStepText(t *testing.T) {
	d := &TuneDevice{Device: "gpu", Key: "k", Tables: map[string][]string{"map": {"row 1", "row 2"}}, Errors: map[string]string{"map": "x"},
		Chosen: map[string]string{"map.wg": "256", "cov.tile": "16"}}
	var b bytes.Buffer
	for _, s := range []TuneStep{{Device: d}, {Device: d, Pipeline: "map"}, {Device: d, Done: true}} {
		s.WriteText(&b)
	}
	d.Cache = "/t/k.json"
	TuneStep{Device: d, Done: true}.WriteText(&b)
	want := "## gpu (tune key k)\n\n" +
		"row 1\nrow 2\n\nmap: every candidate failed; nothing stored\n\n" +
		"chosen (not stored): cov.tile: 16; map.wg: 256\n\n" +
		"stored in /t/k.json: cov.tile: 16; map.wg: 256\n\n"
	if b.String() != want {
		t.Errorf("got\n%s\nwant\n%s", b.String(), want)
	}
}

func TestParsePrecisions(t *testing.T) {
	for in, want := range map[string][]tensor.DType{"": AllPrecisions, "auto": AllPrecisions, "all": AllPrecisions,
		"f32": {tensor.F32}, "float64": {tensor.F64}, "f16": {tensor.F16}, "bfloat16": {tensor.BF16}} {
		if got, err := ParsePrecisions(in); err != nil || !slices.Equal(got, want) {
			t.Errorf("%q: %v, %v; want %v", in, got, err, want)
		}
	}
	if _, err := ParsePrecisions("f8"); err == nil || !strings.Contains(err.Error(), `unknown precision "f8"`) || !strings.Contains(err.Error(), "verify also takes f16 and bf16") {
		t.Errorf("f8: %v", err)
	}
	var cov Op
	for _, op := range Ops() {
		if op.Name == "cov" {
			cov = op
		}
	}
	if err := CheckPrecisions([]Op{cov}, []tensor.DType{tensor.F16}); err == nil || !strings.Contains(err.Error(), "keeps float16 storage") {
		t.Errorf("cov in float16: %v", err)
	}
	if err := CheckPrecisions([]Op{cov}, []tensor.DType{tensor.F16, tensor.F32}); err != nil {
		t.Errorf("cov in float16 and float32: %v", err)
	}
}

// StoreRates on the CPU path without storing reports the measured rates'
// source and leaves the cache alone; no operation measures nothing.
func TestStoreRatesNotStored(t *testing.T) {
	var logged, reported []string
	log := func(s string) { logged = append(logged, s) }
	report := func(s string) { reported = append(reported, s) }
	if err := StoreRates(t.Context(), nil, nil, 1, true, log, report); err != nil || len(reported) > 0 {
		t.Fatalf("no operation: %v, %v", err, reported)
	}
	t.Setenv("VKSTAT_TUNE_DIR", t.TempDir())
	if err := StoreRates(t.Context(), []*engine.Device{nil}, []string{"map"}, 1, false, log, report); err != nil {
		t.Fatal(err)
	}
	if len(reported) != 1 || !strings.HasPrefix(reported[0], "rates (not stored): measured by vkstat bench --tune on the CPU path (") {
		t.Errorf("reported %q (logged %q)", reported, logged)
	}
}

// TestCompareFiles: the reports missing are named together, before any
// is read; two reports written as verify --json writes them compare as
// WriteComparison does.
func TestCompareFiles(t *testing.T) {
	dir := t.TempDir()
	a, b := filepath.Join(dir, "a.json"), filepath.Join(dir, "b.json")
	var out bytes.Buffer
	_, err := CompareFiles(&out, []string{a, filepath.Join(dir, "c.json"), b}, false)
	var me *MissingReportsError
	if !errors.As(err, &me) || err.Error() != "no report "+a+", "+filepath.Join(dir, "c.json")+", "+b || out.Len() != 0 {
		t.Fatalf("missing reports: %v, wrote %q", err, out.String())
	}
	rep := func(s Status) *VerifyReport {
		return &VerifyReport{Kind: VerifyKind, VkstatVersion: "1", Devices: []*VerifyDevice{{Device: cpuRecord, Results: []Result{{Op: "map", Case: "(1,)", Precision: "float32", Status: s}}}}}
	}
	for path, r := range map[string]*VerifyReport{a: rep(Pass), b: rep(Fail)} {
		js, _ := json.Marshal(r)
		if err := os.WriteFile(path, js, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	cmp, err := CompareFiles(&out, []string{a, b}, false)
	if err != nil || cmp.Differ != 1 || !strings.Contains(out.String(), "map        (1,)  float32    pass 0/0  FAIL 0/0") {
		t.Errorf("differ %d, %v:\n%s", cmp.Differ, err, out.String())
	}
}

// TestBenchCommandLine: the command a report records, by hand: every
// device when none is named, --warmup only when given, --validate and
// --precision as global flags (auto is left out).
func TestBenchCommandLine(t *testing.T) {
	o := BenchOptions{Size: Small, Repeat: 5, Warmup: WarmupByTime}
	if got, want := o.CommandLine("all", "", "auto"), "vkstat bench --suite all --device all --size small --repeat 5"; got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
	o = BenchOptions{Size: Paper, Repeat: 3, Warmup: 0, Validation: true}
	if got, want := o.CommandLine("map,reduce", "gpu", "f32"), "vkstat --precision f32 --validate bench --suite map,reduce --device gpu --size paper --repeat 3 --warmup 0"; got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
}
