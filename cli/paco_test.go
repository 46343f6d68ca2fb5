package cli

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/vkstat/vkstat/formats"

	"github.com/vkstat/vkstat/tensor"
)

// synthADI writes a small ADI data set with one bright companion.
func synthADI(t *testing.T) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "adi")
	code, _, stderr := run(t, "synth", "paco", "--size", "48", "--frames", "40", "--rotation", "90", "--fwhm", "3",
		"--companion", "sep=12,theta=30,flux=300", "--seed", "2", "--format", "both", "--out-dir", dir)
	if code != 0 {
		t.Fatalf("synth paco: exit %d: %s", code, stderr)
	}
	return dir
}

func TestPacoCommand(t *testing.T) {
	data := synthADI(t)
	for _, d := range devicesUnderTest(t) {
		out := filepath.Join(t.TempDir(), "out")
		code, stdout, stderr := run(t, "--device", d, "--validate="+boolStr(d != "cpu"), "--time", "paco",
			"--cube", filepath.Join(data, "cube.fits"), "--angles", filepath.Join(data, "angles.fits"),
			"--psf", filepath.Join(data, "psf.fits"), "--radius", "3", "--truth", filepath.Join(data, "truth.json"),
			"--format", "both", "--out-dir", out)
		if code != 0 {
			t.Fatalf("%s: exit %d: %s", d, code, stderr)
		}
		for _, want := range []string{"detections: 1 above SNR 5", "statistics", "detection map", "#1"} {
			if !strings.Contains(stdout+stderr, want) { // --time's phases on stderr
				t.Errorf("%s: summary lacks %q:\n%s", d, want, stdout)
			}
		}
		for _, f := range []string{"snr.fits", "flux.fits", "sigma.fits", "snr.npy", "flux.npy", "sigma.npy", "detections.csv", "detections.json", "snr.png"} {
			if _, err := os.Stat(filepath.Join(out, f)); err != nil {
				t.Errorf("%s: %v", d, err)
			}
		}
		snr, hdr, err := formats.ReadFITSHeader(filepath.Join(out, "snr.fits"))
		if err != nil {
			t.Fatal(err)
		}
		if !tensor.SameShape(snr.Shape, []int{48, 48}) {
			t.Errorf("snr.fits has shape %v", snr.Shape)
		}
		keys := map[string]any{}
		for _, c := range hdr {
			keys[c.Key] = c.Value
		}
		if keys["PACORAD"] != 3 || keys["NFRAMES"] != 40 {
			t.Errorf("snr.fits header lacks the run's parameters: %v", keys)
		}
		var dets struct {
			Detections []struct{ Y, X int }
		}
		b, _ := os.ReadFile(filepath.Join(out, "detections.json"))
		if err := json.Unmarshal(b, &dets); err != nil || len(dets.Detections) != 1 {
			t.Fatalf("detections.json: %v %s", err, b)
		}
		// sep 12, pa 30 around (24, 24): (30, 34.4).
		if dd := math.Hypot(float64(dets.Detections[0].Y)-30, float64(dets.Detections[0].X)-34.39); dd > 1.5 {
			t.Errorf("%s: detection at %v, %.1f px from the companion", d, dets.Detections[0], dd)
		}
	}
}

// TestPacoBadInput: each mistake is a clear message, a non-zero exit, and
// no output folder content.
func TestPacoBadInput(t *testing.T) {
	data := synthADI(t)
	dir := t.TempDir()
	cube, err := formats.ReadNPY(filepath.Join(data, "cube.npy"))
	if err != nil {
		t.Fatal(err)
	}
	short := filepath.Join(dir, "angles39.txt")
	os.WriteFile(short, []byte(strings.Repeat("1.5\n", 39)), 0o644)
	even := writeNPY(t, dir, "even.npy", tensor.New(tensor.F64, 8, 8))
	flat := writeNPY(t, dir, "flat.npy", tensor.FromF32(cube.F32[:48*48], 48, 48))
	garbage := filepath.Join(dir, "garbage.fits")
	os.WriteFile(garbage, []byte("SIMPLE  = not really a FITS file"), 0o644)
	c, a, p := filepath.Join(data, "cube.npy"), filepath.Join(data, "angles.npy"), filepath.Join(data, "psf.npy")
	out := filepath.Join(dir, "out")
	cases := []struct {
		name string
		args []string
		want string
		code int
	}{
		{"angles count", []string{"--cube", c, "--angles", short, "--psf", p}, "39 angles for 40 frames", 1},
		{"even PSF", []string{"--cube", c, "--angles", a, "--psf", even}, "odd size", 1},
		{"radius too large", []string{"--cube", c, "--angles", a, "--psf", p, "--radius", "30"}, "needs at least 61×61", 1},
		{"cube not 3-D", []string{"--cube", flat, "--angles", a, "--psf", p}, "must be 3-D", 1},
		{"unreadable cube", []string{"--cube", garbage, "--angles", a, "--psf", p}, "garbage.fits", 1},
		{"missing cube", []string{"--cube", filepath.Join(dir, "none.fits"), "--angles", a, "--psf", p}, "no such file", 1},
		{"psf and fwhm", []string{"--cube", c, "--angles", a, "--psf", p, "--fwhm", "3"}, "give --psf or --fwhm, not both", 2},
		{"bad compat", []string{"--cube", c, "--angles", a, "--fwhm", "3", "--compat", "pynpoint"}, "--compat", 2},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			args := append([]string{"--device", "cpu", "paco"}, append(tc.args, "--out-dir", out)...)
			code, _, stderr := run(t, args...)
			if code != tc.code || !strings.Contains(stderr, tc.want) {
				t.Errorf("exit %d (want %d), stderr %q (want %q)", code, tc.code, stderr, tc.want)
			}
			if entries, _ := os.ReadDir(out); len(entries) > 0 {
				t.Errorf("outputs left behind: %v", entries)
			}
		})
	}
}

// TestPacoNaNPixels: NaNs and a dead pixel give NaN map pixels and a count,
// not an error.
func TestPacoNaNPixels(t *testing.T) {
	data := synthADI(t)
	cube, err := formats.ReadNPY(filepath.Join(data, "cube.npy"))
	if err != nil {
		t.Fatal(err)
	}
	T, H, W := 40, 48, 48
	cube.F32[5*H*W+10*W+30] = float32(math.NaN())
	for tt := 0; tt < T; tt++ {
		cube.F32[tt*H*W+35*W+12] = 7 // dead pixel
	}
	bad := writeNPY(t, t.TempDir(), "bad.npy", cube)
	for _, d := range devicesUnderTest(t) {
		out := filepath.Join(t.TempDir(), "out")
		code, stdout, stderr := run(t, "--device", d, "paco", "--cube", bad, "--angles", filepath.Join(data, "angles.npy"),
			"--psf", filepath.Join(data, "psf.npy"), "--radius", "3", "--out-dir", out)
		if code != 0 {
			t.Fatalf("%s: NaN pixels must not be an error: exit %d: %s", d, code, stderr)
		}
		if !strings.Contains(stdout, "1 NaN values in the cube") {
			t.Errorf("%s: summary does not count the NaN: %s", d, stdout)
		}
		snr, err := formats.ReadFITS(filepath.Join(out, "snr.fits"))
		if err != nil {
			t.Fatal(err)
		}
		nan := 0
		for _, v := range snr.Float64s() {
			if math.IsNaN(v) {
				nan++
			}
		}
		if nan == 0 {
			t.Errorf("%s: no NaN map pixels", d)
		}
	}
}

// TestPacoUnbiased: --unbiased adds Algorithm 3's columns beside Algorithm
// 2's in detections.csv, detections.json and the table, and recovers the
// injected flux (300) within 10 % where Algorithm 2's is low.
func TestPacoUnbiased(t *testing.T) {
	data := synthADI(t)
	out := filepath.Join(t.TempDir(), "out")
	code, stdout, stderr := run(t, "--device", "cpu", "paco", "--unbiased",
		"--cube", filepath.Join(data, "cube.fits"), "--angles", filepath.Join(data, "angles.fits"),
		"--psf", filepath.Join(data, "psf.fits"), "--radius", "3", "--out-dir", out)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, want := range []string{"unbiased flux", "flux(unb.)", "y(ref.)", "not a detection significance", "quote the map's SNR"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("summary lacks %q:\n%s", want, stdout)
		}
	}
	csvText, err := os.ReadFile(filepath.Join(out, "detections.csv"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(string(csvText), "rank,y,x,separation_px,separation_arcsec,pa_east_of_north_deg,angle_ccw_from_x_deg,snr,flux,sigma_flux,flux_unbiased,sigma_unbiased,snr_unbiased,y_refined,x_refined,iterations,converged\n") {
		t.Errorf("detections.csv header:\n%s", csvText)
	}
	b, err := os.ReadFile(filepath.Join(out, "detections.json"))
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Detections []map[string]any `json:"detections"`
		Unbiased   string           `json:"unbiased"`
	}
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatal(err)
	}
	if len(doc.Detections) != 1 || doc.Unbiased == "" {
		t.Fatalf("detections.json: %s", b)
	}
	d := doc.Detections[0]
	f2, f3 := d["flux"].(float64), d["flux_unbiased"].(float64)
	t.Logf("flux: Algorithm 2 %.1f, Algorithm 3 %.1f (injected 300); refined (%v, %v), %v iterations", f2, f3, d["y_refined"], d["x_refined"], d["iterations"])
	if math.Abs(f3/300-1) > 0.1 || d["converged"] != true {
		t.Errorf("Algorithm 3 flux %.1f (converged %v), injected 300", f3, d["converged"])
	}
	if !(f2 < f3) {
		t.Errorf("Algorithm 2's flux %.1f is not below Algorithm 3's %.1f", f2, f3)
	}
}

// Issue 25, messages: a budget too small for the work names the sizes in
// units that show them ("allocating 0 MiB ... with 0 MiB of 1 MiB in use").
func TestPacoSmallBudgetMessage(t *testing.T) {
	dev := vulkanUnderTest(t)
	data := synthADI(t)
	// 1 MiB now runs in passes; 64 KiB holds no row of locations.
	code, _, stderr := run(t, "--device", dev, "--device-memory", "64KiB", "paco",
		"--cube", filepath.Join(data, "cube.fits"), "--angles", filepath.Join(data, "angles.fits"),
		"--psf", filepath.Join(data, "psf.fits"), "--radius", "3", "--out-dir", filepath.Join(t.TempDir(), "out"))
	if code != ExitError || !strings.Contains(stderr, "needs at least") || strings.Contains(stderr, " 0 MiB") || !strings.Contains(stderr, "KiB") {
		t.Errorf("exit %d, stderr %q; want %d and sizes in KiB, none of them 0 MiB", code, stderr, ExitError)
	}
}

// TestPacoTimePhases (issues 31, 39): paco's time is one account, the
// command's steps from the inputs' reads to the last output written and
// the summary's printing: --time prints it once (the summary gives only
// the wall), --time-json writes the same phases, which add up with
// other_ms to total_ms and name at least 95 % of it (an unnamed step
// leaves them short on every run, a step named twice makes them exceed
// it); without --time the summary lists them (up to its printing).
func TestPacoTimePhases(t *testing.T) {
	data := synthADI(t)
	args := func(out string) []string {
		return []string{"paco", "--cube", filepath.Join(data, "cube.npy"), "--angles", filepath.Join(data, "angles.npy"),
			"--psf", filepath.Join(data, "psf.npy"), "--radius", "3", "--out-dir", filepath.Join(t.TempDir(), out)}
	}
	js := filepath.Join(t.TempDir(), "time.json")
	for _, d := range devicesUnderTest(t) {
		code, stdout, stderr := run(t, append([]string{"--device", d, "--time", "--time-json", js}, args("out")...)...)
		if code != 0 {
			t.Fatalf("%s: exit %d: %s", d, code, stderr)
		}
		if !regexp.MustCompile(`(?m)^time: +[0-9.]+ ms wall \(--time lists its phases\)$`).MatchString(stdout) {
			t.Errorf("%s: the summary's time is not the wall alone:\n%s", d, stdout)
		}
		if n := strings.Count(stdout+stderr, "phases of the total") + strings.Count(stdout+stderr, "in these phases"); n != 1 {
			t.Errorf("%s: %d accounts of the time printed, want 1:\n%s\n%s", d, n, stdout, stderr)
		}
		var r timeReport
		raw, err := os.ReadFile(js)
		if err == nil {
			err = json.Unmarshal(raw, &r)
		}
		if err != nil {
			t.Fatalf("%s: --time-json: %v", d, err)
		}
		phases := map[string]float64{}
		sum := 0.0
		for _, p := range r.Phases {
			phases[p.Name] += p.Ms
			sum += p.Ms
			// --time lists the same phases, in the same order.
			if !regexp.MustCompile(`(?m)^  ` + regexp.QuoteMeta(p.Name) + ` +[0-9.]+ ms`).MatchString(stderr) {
				t.Errorf("%s: --time does not list the phase %q:\n%s", d, p.Name, stderr)
			}
		}
		if math.Abs(sum+r.OtherMs-r.TotalMs) > 1e-6*r.TotalMs+1e-6 || r.OtherMs < 0 || sum < 0.95*r.TotalMs {
			t.Errorf("%s: phases %.3f ms, other %.3f ms, total %.3f ms: want phases and other adding up to the total, other at most 5 %%: %v", d, sum, r.OtherMs, r.TotalMs, r.Phases)
		}
		for _, want := range []string{"read cube", "read angles", "read PSF", "open device", "scan cube", "star centre", "detections",
			"contrast curve", "close device", "collect garbage", "encode outputs", "write files", "commit outputs", "summary"} {
			if _, ok := phases[want]; !ok {
				t.Errorf("%s: no phase %q in %v", d, want, r.Phases)
			}
		}
		maps := []string{"centre", "lagged products", "statistics", "detection map"}
		if d != "cpu" {
			maps = []string{"tables", "buffers", "pipelines", "device run", "maps readback"}
			// What the device did over the run: the four kernels (and
			// the centring) dispatched, the cube uploaded.
			if r.Counts.Dispatches < 4 || r.Counts.Submits == 0 || r.UpBytes < 40*48*48*4 {
				t.Errorf("%s: counts %+v, %d bytes up: want the run's dispatches, submits and upload", d, r.Counts, r.UpBytes)
			}
		}
		for _, want := range maps {
			if _, ok := phases[want]; !ok {
				t.Errorf("%s: no maps phase %q in %v", d, want, r.Phases)
			}
		}
		// Without --time, the summary lists them, adding up to its wall.
		code, stdout, stderr = run(t, append([]string{"--device", d}, args("out2")...)...)
		if code != 0 {
			t.Fatalf("%s: exit %d: %s", d, code, stderr)
		}
		m := regexp.MustCompile(`in these phases \(([0-9.]+) % of it\):\n((?:  .*\n)+)`).FindStringSubmatch(stdout)
		if m == nil {
			m = []string{"", "", ""}
		}
		if share, _ := strconv.ParseFloat(m[1], 64); share < 99 || share > 100 || !strings.Contains(m[2], "star centre") || !strings.Contains(m[2], "encode outputs") {
			t.Errorf("%s: without --time the summary lists no phases adding up to its wall:\n%s", d, stdout)
		}
	}
}

// TestPacoJSON (issue 33, item 14): paco --json prints one JSON object on
// stdout and nothing else there: the detections as detections.json has
// them, the contrast curve as contrast.csv's rows, the centre, the truth
// match, the warnings with their codes and data, every phase's time and
// the files written.
func TestPacoJSON(t *testing.T) {
	data := synthADI(t)
	angles, err := formats.ReadVector(filepath.Join(data, "angles.npy"))
	if err != nil {
		t.Fatal(err)
	}
	for i := range angles {
		angles[i] *= math.Pi / 180 // radians: a warning with data
	}
	rad := writeNPY(t, t.TempDir(), "rad.npy", tensor.FromF64(angles, len(angles)))
	for _, c := range []struct {
		angles, warning string
	}{{filepath.Join(data, "angles.npy"), ""}, {rad, "angles-radians"}} {
		out := filepath.Join(t.TempDir(), "out")
		code, stdout, stderr := run(t, "--device", "cpu", "--time", "paco", "--json", "--cube", filepath.Join(data, "cube.npy"), "--angles", c.angles,
			"--psf", filepath.Join(data, "psf.npy"), "--radius", "3", "--pixel-scale", "0.0272", "--truth", filepath.Join(data, "truth.json"), "--out-dir", out)
		if code != 0 {
			t.Fatalf("exit %d: %s", code, stderr)
		}
		var doc struct {
			Command    string
			Center     struct{ Used [2]int }
			Detections []struct{ Y, X int }
			Contrast   []map[string]any
			Warnings   []struct {
				Code, Message string
				Data          map[string]float64
			}
			Timing struct {
				WallMs float64 `json:"wall_ms"`
				Phases []struct {
					Name string
					Ms   float64
				}
			}
			Truth struct {
				Companions []struct{ Detection *int }
			}
			Files []struct {
				Path  string
				Shape []int
			}
		}
		if err := json.Unmarshal([]byte(stdout), &doc); err != nil || doc.Command != "paco" {
			t.Fatalf("stdout is not one JSON object: %v\n%s", err, stdout)
		}
		var fileDets struct{ Detections []struct{ Y, X int } }
		b, _ := os.ReadFile(filepath.Join(out, "detections.json"))
		json.Unmarshal(b, &fileDets)
		if c.warning == "" && (len(doc.Detections) != 1 || len(fileDets.Detections) != 1 || doc.Detections[0] != fileDets.Detections[0] ||
			len(doc.Truth.Companions) != 1 || doc.Truth.Companions[0].Detection == nil || *doc.Truth.Companions[0].Detection != 1) {
			t.Errorf("detections %v, detections.json %v, truth %+v", doc.Detections, fileDets.Detections, doc.Truth)
		}
		rows := readCSVRows(t, filepath.Join(out, "contrast.csv"))
		if first, _ := strconv.ParseFloat(rows[0]["separation_px"], 64); len(doc.Contrast) != len(rows) ||
			doc.Contrast[0]["separation_px"] != first || doc.Contrast[0]["separation_arcsec"] == nil {
			t.Errorf("contrast: %d rows in JSON, contrast.csv %d", len(doc.Contrast), len(rows))
		}
		var sum float64
		names := map[string]bool{}
		for _, p := range doc.Timing.Phases {
			sum += p.Ms
			names[p.Name] = true
		}
		if !names["read cube"] || !names["encode outputs"] || !(sum <= doc.Timing.WallMs && sum >= 0.95*doc.Timing.WallMs) {
			t.Errorf("timing: %+v", doc.Timing)
		}
		found := false
		for _, f := range doc.Files {
			found = found || filepath.Base(f.Path) == "snr.fits" && slices.Equal(f.Shape, []int{48, 48})
		}
		if !found || doc.Center.Used != [2]int{24, 24} {
			t.Errorf("files %+v, centre %v", doc.Files, doc.Center.Used)
		}
		got := ""
		for _, w := range doc.Warnings {
			if w.Code == "angles-radians" && math.Abs(w.Data["rotation_if_radians_deg"]-90) < 1e-6 {
				got = w.Code
			}
		}
		if got != c.warning {
			t.Errorf("%s: warnings %+v, want %q", c.angles, doc.Warnings, c.warning)
		}
	}
}
