package cli

import (
	"encoding/csv"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/vkstat/vkstat/pipelines/synth"
	"github.com/vkstat/vkstat/survey"
)

// synthSurvey writes n small synthetic targets and their manifests.
func synthSurvey(t *testing.T, n int) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "data")
	code, _, stderr := run(t, "synth", "survey", "--targets", itoa(n), "--size", "48", "--frames", "32", "--out-dir", dir)
	if code != 0 {
		t.Fatalf("synth survey: exit %d: %s", code, stderr)
	}
	return dir
}

func writeText(t *testing.T, path, text string) string {
	t.Helper()
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// readSurveyCSV reads survey.csv as maps by column, in row order.
func readCSVRows(t *testing.T, path string) []map[string]string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	recs, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	var rows []map[string]string
	for _, r := range recs[1:] {
		m := map[string]string{}
		for i, h := range recs[0] {
			m[h] = r[i]
		}
		rows = append(rows, m)
	}
	return rows
}

// TestSurveyFailures: a missing file, angles that do not match the cube,
// a centre outside the frame and a bad value each fail their target with
// a row naming it and the reason; the other targets run; the summary
// lists the failures and the exit status is 3.
func TestSurveyFailures(t *testing.T) {
	data := synthSurvey(t, 2)
	short := writeText(t, filepath.Join(data, "short.txt"), strings.Repeat("1\n", 31))
	manifest := writeText(t, filepath.Join(data, "bad.csv"), "name,cube,angles,psf,center,radius\n"+
		"good1,t01/cube.fits,t01/angles.fits,t01/psf.fits,,\n"+
		"missing,t01/nothere.fits,t01/angles.fits,t01/psf.fits,,\n"+
		"angles,t02/cube.fits,"+short+",t02/psf.fits,,\n"+
		"centre,t02/cube.fits,t02/angles.fits,t02/psf.fits,\"99,99\",\n"+
		"radius,t02/cube.fits,t02/angles.fits,t02/psf.fits,,0\n"+
		"good2,t02/cube.fits,t02/angles.fits,t02/psf.fits,,\n")
	out := filepath.Join(t.TempDir(), "out")
	code, stdout, stderr := run(t, "--device", "cpu", "survey", "run", manifest, "--out-dir", out, "--radius", "3")
	if code != ExitTargetsFailed {
		t.Fatalf("exit %d, want %d: %s\n%s", code, ExitTargetsFailed, stdout, stderr)
	}
	rows := readCSVRows(t, filepath.Join(out, "survey.csv"))
	want := []struct{ name, status, reason string }{
		{"good1", "ok", ""},
		{"missing", "failed", "nothere.fits: no such file"},
		{"angles", "failed", "31 angles for 32 frames"},
		{"centre", "failed", "center (99, 99) is outside the 48×48 frame"},
		{"radius", "failed", "radius must be at least 1, got 0"},
		{"good2", "ok", ""},
	}
	if len(rows) != len(want) {
		t.Fatalf("%d rows, want %d", len(rows), len(want))
	}
	for i, w := range want {
		r := rows[i]
		if r["name"] != w.name || r["index"] != itoa(i+1) || r["status"] != w.status || !strings.Contains(r["reason"], w.reason) {
			t.Errorf("row %d: %v; want %s %s %q", i+1, r, w.name, w.status, w.reason)
		}
		_, err := os.Stat(filepath.Join(out, w.name, "detections.csv"))
		if (err == nil) != (w.status == "ok") {
			t.Errorf("%s: outputs present %v, status %s", w.name, err == nil, w.status)
		}
		if w.status == "ok" && (r["detections"] != "1" || r["best_snr"] == "" || r["center_source"] != "geometric") {
			t.Errorf("%s: %v; want one detection", w.name, r)
		}
		if w.status == "failed" && (r["detections"] != "" || r["best_snr"] != "") {
			t.Errorf("%s: failed row with results: %v", w.name, r)
		}
		if !strings.Contains(stderr, "] "+w.name+" ") {
			t.Errorf("no progress line for %s in stderr:\n%s", w.name, stderr)
		}
	}
	if !strings.Contains(stdout, "6 targets: 2 ok, 4 failed") || !strings.Contains(stdout, "missing (#2): ") || !strings.Contains(stderr, "4 of 6 targets failed") {
		t.Errorf("summary:\n%s\n%s", stdout, stderr)
	}
	b, err := os.ReadFile(filepath.Join(out, "good1", "summary.txt"))
	// The manifest has no truth column: no truth table.
	if err != nil || !strings.Contains(string(b), "detections: 1 above SNR 5") || strings.Contains(string(b), "truth:") {
		t.Errorf("good1/summary.txt: %v %s", err, b)
	}
	var doc survey.TableJSON
	b, _ = os.ReadFile(filepath.Join(out, "survey.json"))
	if err := json.Unmarshal(b, &doc); err != nil || doc.OK != 2 || doc.Failed != 4 || doc.Targets != 6 || doc.Rows[3].Best != nil || doc.Rows[0].Best == nil {
		t.Errorf("survey.json: %v %s", err, b)
	}

	// Usage mistakes stop before anything runs.
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"survey", "run", manifest}, "--out-dir"},
		{[]string{"survey", "run", manifest, "--out-dir", out, "--radius", "x"}, "--radius"},
		{[]string{"survey", "run", manifest, "--out-dir", out, "--radius", "0"}, "--radius must be at least 1, got 0"},
		{[]string{"survey", "run", manifest, "--out-dir", out, "--psf-norm", "peek"}, `--psf-norm: want sum, peak or none, got "peek"`},
		{[]string{"survey", "run", manifest, "--out-dir", out, "--shard", "0/2"}, "numbered from 1"},
		{[]string{"survey", "run", "--out-dir", out}, "want one MANIFEST"},
		{[]string{"--precision", "f32", "--device", "cpu", "survey", "run", manifest, "--out-dir", out}, "float64 only"},
		{[]string{"survey", "run", manifest, "--out-dir", out, "--psf", "p.fits", "--fwhm", "3"}, "give --psf or --fwhm, not both"},
	} {
		if code, _, stderr := run(t, tc.args...); code != ExitUsage || !strings.Contains(stderr, tc.want) {
			t.Errorf("%q: exit %d, %s", tc.args, code, stderr)
		}
	}
}

// TestSurveyMerge: shards (3, which does not divide 5 targets) merged give
// tables byte-identical to the one-process run's; a missing shard, a shard
// of another manifest and a shard given twice are errors naming them.
func TestSurveyMerge(t *testing.T) {
	data := synthSurvey(t, 5)
	tmp := t.TempDir()
	one := filepath.Join(tmp, "one")
	if code, _, stderr := run(t, "--device", "cpu", "survey", "run", filepath.Join(data, "manifest.csv"), "--radius", "3", "--out-dir", one); code != 0 {
		t.Fatalf("one process: exit %d: %s", code, stderr)
	}
	// Shards in two folders, as on machines without a shared file system.
	shards := []string{filepath.Join(tmp, "node1"), filepath.Join(tmp, "node2")}
	for i := 1; i <= 3; i++ {
		code, stdout, stderr := run(t, "--device", "cpu", "survey", "run", filepath.Join(data, "manifest.csv"), "--shard", itoa(i)+"/3",
			"--radius", "3", "--out-dir", shards[i%2])
		if code != 0 || !strings.Contains(stdout, "shard "+itoa(i)+"/3") {
			t.Fatalf("shard %d: exit %d: %s %s", i, code, stdout, stderr)
		}
		if _, err := os.Stat(filepath.Join(shards[i%2], "survey.csv")); err == nil {
			t.Errorf("shard %d wrote survey.csv: only merge should", i)
		}
	}
	merged := filepath.Join(tmp, "merged")
	if code, stdout, stderr := run(t, "survey", "merge", shards[0], shards[1], "--out-dir", merged); code != 0 {
		t.Fatalf("merge: exit %d: %s %s", code, stdout, stderr)
	}
	for _, f := range []string{"survey.csv", "survey.json"} {
		a, _ := os.ReadFile(filepath.Join(one, f))
		b, err := os.ReadFile(filepath.Join(merged, f))
		if err != nil || string(a) != string(b) || len(a) == 0 {
			t.Errorf("%s: the merged table differs from the one-process table (%v):\n%s\n%s", f, err, a, b)
		}
	}
	if rows := readCSVRows(t, filepath.Join(merged, survey.TimingsFile)); len(rows) != 5 || rows[4]["name"] != "t05" {
		t.Errorf("timings: %v", rows)
	}

	// A missing shard: node2 holds shards 1 and 3 (node1 shard 2).
	code, _, stderr := run(t, "survey", "merge", shards[1], "--out-dir", filepath.Join(tmp, "m2"))
	if code != ExitError || !strings.Contains(stderr, "missing shard 2 of 3 (survey-shard-2-of-3.json)") {
		t.Errorf("missing shard: exit %d: %s", code, stderr)
	}
	if _, err := os.Stat(filepath.Join(tmp, "m2", "survey.csv")); err == nil {
		t.Error("a merge with a shard missing wrote a table")
	}
	// A shard of another manifest.
	other := writeText(t, filepath.Join(data, "other.csv"), "name,cube,angles,psf\nt01,t01/cube.fits,t01/angles.fits,t01/psf.fits\n")
	odir := filepath.Join(tmp, "other")
	if code, _, stderr := run(t, "--device", "cpu", "survey", "run", other, "--shard", "1/3", "--radius", "3", "--out-dir", odir); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	code, _, stderr = run(t, "survey", "merge", shards[0], filepath.Join(odir, "survey-shard-1-of-3.json"), filepath.Join(shards[1], "survey-shard-3-of-3.json"))
	if code != ExitError || !strings.Contains(stderr, "different manifests") {
		t.Errorf("mixed manifests: exit %d: %s", code, stderr)
	}
	b, err := os.ReadFile(filepath.Join(shards[1], "survey-shard-1-of-3.json"))
	if err != nil {
		t.Fatal(err)
	}
	dup := writeText(t, filepath.Join(tmp, "copy.json"), string(b))
	code, _, stderr = run(t, "survey", "merge", shards[0], shards[1], dup, "--out-dir", filepath.Join(tmp, "m3"))
	if code != ExitError || !strings.Contains(stderr, "given twice") {
		t.Errorf("shard twice: exit %d: %s", code, stderr)
	}

	// Issue 25, item 5: shard 2 run again with the default radius does not
	// merge with shards 1 and 3 run with --radius 3.
	node3 := filepath.Join(tmp, "node3")
	if code, _, stderr := run(t, "--device", "cpu", "survey", "run", filepath.Join(data, "manifest.csv"), "--shard", "2/3", "--out-dir", node3); code != 0 {
		t.Fatalf("shard 2 again: exit %d: %s", code, stderr)
	}
	code, _, stderr = run(t, "survey", "merge", shards[1], node3, "--out-dir", filepath.Join(tmp, "m4"))
	if code != ExitError || !strings.Contains(stderr, "different settings: --radius 3 in shard 1, 3; the default in shard 2 (of 3)") {
		t.Errorf("mixed settings: exit %d: %s", code, stderr)
	}
	if _, err := os.Stat(filepath.Join(tmp, "m4")); err == nil {
		t.Error("a merge of mixed settings wrote something")
	}
}

// TestSurveyMergeFailedRows: a merged table with failed targets exits 3.
func TestSurveyMergeFailedRows(t *testing.T) {
	data := synthSurvey(t, 1)
	manifest := writeText(t, filepath.Join(data, "m.csv"), "name,cube,angles,fwhm\nx,none.fits,t01/angles.fits,3\ny,none.fits,t01/angles.fits,3\n")
	out := t.TempDir()
	for i := 1; i <= 2; i++ {
		if code, _, stderr := run(t, "--device", "cpu", "survey", "run", manifest, "--shard", itoa(i)+"/2", "--out-dir", out); code != ExitTargetsFailed {
			t.Fatalf("shard %d: exit %d, want %d: %s", i, code, ExitTargetsFailed, stderr)
		}
	}
	code, stdout, _ := run(t, "survey", "merge", out)
	if code != ExitTargetsFailed || !strings.Contains(stdout, "0 ok, 2 failed") {
		t.Errorf("merge: exit %d: %s", code, stdout)
	}
}

// TestSurveyDevices: one device for every target (pipelines built once),
// the validation layer on for Vulkan devices; every companion is found.
func TestSurveyDevices(t *testing.T) {
	data := synthSurvey(t, 3)
	for _, d := range devicesUnderTest(t) {
		out := filepath.Join(t.TempDir(), d)
		code, stdout, stderr := run(t, "--device", d, "--validate="+boolStr(d != "cpu"), "survey", "run", filepath.Join(data, "manifest.json"),
			"--radius", "3", "--out-dir", out)
		if code != 0 {
			t.Fatalf("%s: exit %d: %s %s", d, code, stdout, stderr)
		}
		for i, r := range readCSVRows(t, filepath.Join(out, "survey.csv")) {
			var truth synth.TruthFile
			b, _ := os.ReadFile(filepath.Join(data, r["name"], "truth.json"))
			if err := json.Unmarshal(b, &truth); err != nil {
				t.Fatal(err)
			}
			c := truth.Companions[0]
			if r["status"] != "ok" || r["detections"] != "1" || !near(r["best_y"], c.Y, 1.5) || !near(r["best_x"], c.X, 1.5) {
				t.Errorf("%s: row %d %v; companion at (%.1f, %.1f)", d, i+1, r, c.Y, c.X)
			}
			// The manifest has truth: the summary compares.
			if b, err := os.ReadFile(filepath.Join(out, r["name"], "summary.txt")); err != nil || !strings.Contains(string(b), "truth:") {
				t.Errorf("%s: %s/summary.txt lacks the truth table: %v", d, r["name"], err)
			}
		}
	}
}

func near(s string, v, tol float64) bool {
	var x float64
	if err := json.Unmarshal([]byte(s), &x); err != nil {
		return false
	}
	return x-v <= tol && v-x <= tol
}

// TestSurveyInterrupt: SIGINT stops a survey within two seconds with exit
// 130, writes no table and leaves no temporary file; the targets it
// finished have all their outputs.
func TestSurveyInterrupt(t *testing.T) {
	data := synthSurvey(t, 50) // several seconds on two cores: the signal comes mid-run
	out := filepath.Join(t.TempDir(), "out")
	interrupt(t, os.Interrupt, 800*time.Millisecond, "--device", "cpu", "survey", "run", filepath.Join(data, "manifest.csv"), "--out-dir", out)
	ents, _ := os.ReadDir(out)
	for _, e := range ents {
		switch {
		case strings.HasPrefix(e.Name(), "."):
			t.Errorf("temporary %s left behind", e.Name())
		case strings.HasPrefix(e.Name(), "survey"):
			t.Errorf("%s written by an interrupted survey", e.Name())
		default:
			for _, f := range []string{"snr.fits", "detections.csv", "contrast.json", "snr.png"} {
				if _, err := os.Stat(filepath.Join(out, e.Name(), f)); err != nil {
					t.Errorf("finished target %s: %v", e.Name(), err)
				}
			}
		}
	}
}

// TestSynthSurveyDeterministic: the same flags write the same files.
func TestSynthSurveyDeterministic(t *testing.T) {
	a, b := synthSurvey(t, 3), synthSurvey(t, 3)
	for _, f := range []string{"manifest.csv", "manifest.json", "t01/cube.fits", "t03/cube.fits", "t02/truth.json", "t02/angles.fits"} {
		x, err1 := os.ReadFile(filepath.Join(a, f))
		y, err2 := os.ReadFile(filepath.Join(b, f))
		if err1 != nil || err2 != nil || string(x) != string(y) {
			t.Errorf("%s differs between two runs (%v, %v)", f, err1, err2)
		}
	}
	x, _ := os.ReadFile(filepath.Join(a, "t01/cube.fits"))
	y, _ := os.ReadFile(filepath.Join(a, "t02/cube.fits"))
	if string(x) == string(y) {
		t.Error("targets 1 and 2 have the same cube: the seed does not vary")
	}
}

// TestSurveyDefaultFlags: survey run's flags reach the targets whose cells
// are empty (--unbiased, a boolean, and --threshold), and a cell wins over
// the flag.
func TestSurveyDefaultFlags(t *testing.T) {
	data := synthSurvey(t, 1)
	manifest := writeText(t, filepath.Join(data, "m.csv"), "name,cube,angles,psf,threshold\n"+
		"flags,t01/cube.fits,t01/angles.fits,t01/psf.fits,\n"+
		"cell,t01/cube.fits,t01/angles.fits,t01/psf.fits,7.5\n")
	out := t.TempDir()
	if code, _, stderr := run(t, "--device", "cpu", "survey", "run", manifest, "--unbiased", "--threshold", "6", "--radius", "3", "--out-dir", out); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	rows := readCSVRows(t, filepath.Join(out, "survey.csv"))
	if rows[0]["threshold"] != "6" || rows[1]["threshold"] != "7.5" {
		t.Errorf("thresholds %q, %q; want 6 (the flag) and 7.5 (the cell)", rows[0]["threshold"], rows[1]["threshold"])
	}
	b, err := os.ReadFile(filepath.Join(out, "flags", "detections.csv"))
	if err != nil || !strings.Contains(string(b), "flux_unbiased") {
		t.Errorf("--unbiased did not reach the target: %v %s", err, b)
	}
}
