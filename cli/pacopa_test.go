package cli

import (
	"encoding/csv"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/vkstat/vkstat/formats"
	"github.com/vkstat/vkstat/pipelines/synth"
)

// TestPacoOrientation: the detections carry their separation in pixels and,
// with --pixel-scale, in arcsec, and the astronomical position angle east of
// north (north up, east left in the derotated frame, plus --north-offset)
// beside the map angle from +x, with the convention written in the JSON, the
// CSV's column names and the summary. synthADI's companion is at θ0 = 30°
// from +x towards +y, sep 12 about (24, 24): dy = +6 (north), dx = +10.4
// (west), so north-west, PA = 30° − 90° = 300°.
func TestPacoOrientation(t *testing.T) {
	data := synthADI(t)
	out := filepath.Join(t.TempDir(), "out")
	code, stdout, stderr := run(t, "--device", "cpu", "paco", "--cube", filepath.Join(data, "cube.npy"),
		"--angles", filepath.Join(data, "angles.npy"), "--psf", filepath.Join(data, "psf.npy"), "--radius", "3",
		"--pixel-scale", "0.0272", "--north-offset", "10", "--out-dir", out)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if !strings.Contains(stdout, "PA: degrees east of north, north up (+y) and east left (−x)") || !strings.Contains(stdout, "north offset 10°") {
		t.Errorf("the summary does not state the PA convention:\n%s", stdout)
	}
	var doc struct {
		Convention string  `json:"pa_convention"`
		Scale      float64 `json:"pixel_scale_arcsec"`
		Offset     float64 `json:"north_offset_deg"`
		Detections []struct {
			Y, X      int
			Sep       float64 `json:"separation_px"`
			SepArcsec float64 `json:"separation_arcsec"`
			PA        float64 `json:"pa_east_of_north_deg"`
			Angle     float64 `json:"angle_ccw_from_x_deg"`
		}
	}
	b, _ := os.ReadFile(filepath.Join(out, "detections.json"))
	if err := json.Unmarshal(b, &doc); err != nil || len(doc.Detections) != 1 {
		t.Fatalf("detections.json: %v %s", err, b)
	}
	if !strings.Contains(doc.Convention, "east of north") || !strings.Contains(doc.Convention, "north up (+y) and east left (-x)") || doc.Scale != 0.0272 || doc.Offset != 10 {
		t.Errorf("detections.json does not state the convention, scale and offset: %s", b)
	}
	d := doc.Detections[0]
	wantAngle := math.Atan2(float64(d.Y-24), float64(d.X-24)) * 180 / math.Pi
	if math.Abs(d.Angle-wantAngle) > 1e-6 || math.Abs(d.Angle-30) > 5 {
		t.Errorf("angle from +x %.3f°, want %.3f° (injected 30°)", d.Angle, wantAngle)
	}
	if math.Abs(d.PA-(wantAngle-90+10+360)) > 1e-6 || math.Abs(d.PA-310) > 5 {
		t.Errorf("PA %.3f° east of north, want %.3f° (injected 300° + north offset 10°)", d.PA, wantAngle-90+10+360)
	}
	if math.Abs(d.Sep-12) > 1 || math.Abs(d.SepArcsec-d.Sep*0.0272) > 1e-12 {
		t.Errorf("separation %.3f px, %.5f arcsec; want about 12 px and sep × 0.0272", d.Sep, d.SepArcsec)
	}
	f, err := os.Open(filepath.Join(out, "detections.csv"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rows, err := csv.NewReader(f).ReadAll()
	if err != nil || len(rows) != 2 {
		t.Fatalf("detections.csv: %v, %d rows", err, len(rows))
	}
	wantHead := "rank,y,x,separation_px,separation_arcsec,pa_east_of_north_deg,angle_ccw_from_x_deg,snr,flux,sigma_flux"
	if got := strings.Join(rows[0], ","); got != wantHead {
		t.Errorf("detections.csv header %q, want %q", got, wantHead)
	}
	if pa, _ := strconv.ParseFloat(rows[1][5], 64); math.Abs(pa-d.PA) > 1e-5 {
		t.Errorf("detections.csv PA %s, JSON %g", rows[1][5], d.PA)
	}

	// Without a pixel scale the arcsec column is empty and the JSON has none.
	out2 := filepath.Join(t.TempDir(), "out")
	if code, _, stderr := run(t, "--device", "cpu", "paco", "--cube", filepath.Join(data, "cube.npy"),
		"--angles", filepath.Join(data, "angles.npy"), "--psf", filepath.Join(data, "psf.npy"), "--radius", "3", "--out-dir", out2); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	b, _ = os.ReadFile(filepath.Join(out2, "detections.csv"))
	if lines := strings.Split(string(b), "\n"); len(lines) < 2 || strings.Split(lines[1], ",")[4] != "" {
		t.Errorf("without --pixel-scale the arcsec column should be empty: %s", b)
	}
	b, _ = os.ReadFile(filepath.Join(out2, "detections.json"))
	if strings.Contains(string(b), "arcsec\"") {
		t.Errorf("without --pixel-scale detections.json should have no arcsec: %s", b)
	}

	for _, bad := range [][]string{{"--pixel-scale", "-1"}, {"--pixel-scale", "0"}, {"--north-offset", "NaN"}} {
		code, _, stderr := run(t, append([]string{"--device", "cpu", "paco", "--cube", filepath.Join(data, "cube.npy"),
			"--angles", filepath.Join(data, "angles.npy"), "--fwhm", "3", "--out-dir", filepath.Join(t.TempDir(), "x")}, bad...)...)
		if code != 2 || !strings.Contains(stderr, bad[0]) {
			t.Errorf("%v: exit %d, stderr %q; want a usage error naming the flag", bad, code, stderr)
		}
	}
}

// TestSynthPAMatchesPaco: one angle convention in and out. A companion
// injected with `synth paco --companion pa=P` is reported by paco at PA P
// east of north, for P in each quadrant; theta=T is the map angle, P + 90°.
func TestSynthPAMatchesPaco(t *testing.T) {
	for _, c := range []struct {
		spec   string
		wantPA float64
	}{{"sep=12,pa=45,flux=300", 45}, {"sep=12,pa=200,flux=300", 200}, {"sep=12,theta=30,flux=300", 300}} {
		dir := filepath.Join(t.TempDir(), "adi")
		if code, _, stderr := run(t, "synth", "paco", "--size", "48", "--frames", "40", "--rotation", "90", "--fwhm", "3",
			"--companion", c.spec, "--seed", "2", "--format", "npy", "--out-dir", dir); code != 0 {
			t.Fatalf("synth paco %s: exit %d: %s", c.spec, code, stderr)
		}
		var truth synth.TruthFile
		b, _ := os.ReadFile(filepath.Join(dir, "truth.json"))
		if err := json.Unmarshal(b, &truth); err != nil || len(truth.Companions) != 1 || truth.Companions[0].PA != c.wantPA {
			t.Fatalf("%s: truth.json %s (%v), want PA %g", c.spec, b, err, c.wantPA)
		}
		out := filepath.Join(t.TempDir(), "out")
		if code, _, stderr := run(t, "--device", "cpu", "paco", "--cube", filepath.Join(dir, "cube.npy"),
			"--angles", filepath.Join(dir, "angles.npy"), "--psf", filepath.Join(dir, "psf.npy"), "--radius", "3", "--out-dir", out); code != 0 {
			t.Fatalf("%s: paco exit %d: %s", c.spec, code, stderr)
		}
		var doc struct {
			Detections []struct {
				PA float64 `json:"pa_east_of_north_deg"`
			}
		}
		b, _ = os.ReadFile(filepath.Join(out, "detections.json"))
		if err := json.Unmarshal(b, &doc); err != nil || len(doc.Detections) == 0 {
			t.Fatalf("%s: detections.json: %v %s", c.spec, err, b)
		}
		// A whole-pixel detection 12 px out: within atan(0.71/12) ≈ 3.4°.
		if d := math.Abs(math.Remainder(doc.Detections[0].PA-c.wantPA, 360)); d > 4 {
			t.Errorf("%s: paco reports PA %.1f°, want %g°", c.spec, doc.Detections[0].PA, c.wantPA)
		}
	}
}

// TestSynthPacoHelpConvention (issue 33, item 1): what `synth paco --help`
// says of pa and theta is what synth does. Each claim of the help is
// checked against the companion's place in frame 0 (parallactic angle 0,
// so the sky frame) and in truth.json: pa=0 lands north (+y), pa=90 east
// (−x), theta=0 on +x.
func TestSynthPacoHelpConvention(t *testing.T) {
	code, help, stderr := run(t, "synth", "paco", "--help")
	if code != 0 {
		t.Fatalf("synth paco --help: exit %d: %s", code, stderr)
	}
	help = strings.Join(strings.Fields(help), " ")
	if strings.Contains(help, "pa is measured from +x") || strings.Contains(help, "pa - angle") {
		t.Errorf("the help still places pa from +x:\n%s", help)
	}
	for _, c := range []struct {
		claim, spec string
		dy, dx      float64 // from the star, pixels
	}{
		{"pa=0 lands north of the star (+y)", "sep=20,pa=0,flux=3000", 20, 0},
		{"pa=90 east (-x)", "sep=20,pa=90,flux=3000", 0, -20},
		{"theta=0 lands on +x", "sep=20,theta=0,flux=3000", 0, 20},
	} {
		if !strings.Contains(help, c.claim) {
			t.Errorf("the help does not say %q", c.claim)
		}
		dir := filepath.Join(t.TempDir(), "adi")
		if code, _, stderr := run(t, "synth", "paco", "--size", "64", "--frames", "3", "--rotation", "20", "--fwhm", "3",
			"--companion", c.spec, "--format", "npy", "--out-dir", dir); code != 0 {
			t.Fatalf("synth paco %s: exit %d: %s", c.spec, code, stderr)
		}
		var truth synth.TruthFile
		b, _ := os.ReadFile(filepath.Join(dir, "truth.json"))
		if err := json.Unmarshal(b, &truth); err != nil || len(truth.Companions) != 1 {
			t.Fatalf("%s: truth.json %s (%v)", c.spec, b, err)
		}
		tc := truth.Companions[0]
		if math.Abs(tc.Y-32-c.dy) > 1e-9 || math.Abs(tc.X-32-c.dx) > 1e-9 {
			t.Errorf("%s: truth.json puts it at (%g, %g), the help at (%g, %g)", c.spec, tc.Y, tc.X, 32+c.dy, 32+c.dx)
		}
		cube, err := formats.ReadNPY(filepath.Join(dir, "cube.npy"))
		if err != nil {
			t.Fatal(err)
		}
		// Frame 0 (angle 0): the companion outshines the other three
		// places 20 px from the star.
		at := func(dy, dx float64) float64 { return float64(cube.F32[int(32+dy)*64+int(32+dx)]) }
		for _, o := range [][2]float64{{20, 0}, {0, -20}, {0, 20}, {-20, 0}} {
			if o != [2]float64{c.dy, c.dx} && !(at(c.dy, c.dx) > at(o[0], o[1])+50) {
				t.Errorf("%s: frame 0 holds %g at (%+g, %+g) from the star, %g at (%+g, %+g)", c.spec, at(c.dy, c.dx), c.dy, c.dx, at(o[0], o[1]), o[0], o[1])
			}
		}
	}
}

// TestPacoTruthColumns (issue 33, item 2): --truth's table puts each
// companion's position angle east of north under "PA(E of N)" and its map
// angle under "θ(+x→+y)" (synthADI's companion: θ 30°, PA 300°).
func TestPacoTruthColumns(t *testing.T) {
	data := synthADI(t)
	code, stdout, stderr := run(t, "--device", "cpu", "paco", "--cube", filepath.Join(data, "cube.npy"), "--angles", filepath.Join(data, "angles.npy"),
		"--psf", filepath.Join(data, "psf.npy"), "--radius", "3", "--truth", filepath.Join(data, "truth.json"), "--out-dir", filepath.Join(t.TempDir(), "out"))
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	_, table, ok := strings.Cut(stdout, "truth:\n")
	lines := strings.Split(table, "\n")
	if !ok || len(lines) < 2 {
		t.Fatalf("no truth table:\n%s", stdout)
	}
	head, row := lines[0], strings.Fields(lines[1])
	pa, theta := strings.Index(head, "PA(E of N)"), strings.Index(head, "θ(+x→+y)")
	if !(strings.Index(head, "sep(px)") < pa && pa < theta) || len(row) < 3 || row[1] != "300.0" || row[2] != "30.0" {
		t.Errorf("want columns sep(px), PA(E of N) 300.0, θ(+x→+y) 30.0:\n%s\n%s", head, lines[1])
	}
}

// TestPacoPixelScaleOutputs (issue 33, item 12): with --pixel-scale the
// contrast curve has separations in arcsec beside pixels and starts at
// the inner working angle, max(FWHM, patch radius), which contrast.json
// and the summary state; snr.fits carries PIXSCALE and a linear WCS of
// offsets from the star whose offsets of the detection, worked out here
// from the cards (world = CDELT·PC·(pixel − CRPIX), FITS 1-based), are
// r·sin PA east and r·cos PA north for detections.json's separation and
// position angle (north offset 10°). Without a scale: neither.
func TestPacoPixelScaleOutputs(t *testing.T) {
	data := synthADI(t)
	args := []string{"--device", "cpu", "paco", "--cube", filepath.Join(data, "cube.npy"), "--angles", filepath.Join(data, "angles.npy"),
		"--psf", filepath.Join(data, "psf.npy"), "--radius", "3"}
	out, plain := filepath.Join(t.TempDir(), "out"), filepath.Join(t.TempDir(), "plain")
	code, stdout, stderr := run(t, append(args, "--pixel-scale", "0.0272", "--north-offset", "10", "--out-dir", out)...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var cj struct {
		IWA, FWHM, Scale float64
		Curve            []map[string]any
	}
	b, _ := os.ReadFile(filepath.Join(out, "contrast.json"))
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(b, &raw); err != nil {
		t.Fatal(err)
	}
	json.Unmarshal(raw["inner_working_angle_px"], &cj.IWA)
	json.Unmarshal(raw["fwhm_px"], &cj.FWHM)
	json.Unmarshal(raw["pixel_scale_arcsec"], &cj.Scale)
	if math.Abs(cj.FWHM-3) > 0.2 || cj.IWA != math.Max(cj.FWHM, 3) || cj.Scale != 0.0272 {
		t.Errorf("contrast.json: inner working angle %g px, FWHM %g, scale %g; want max(FWHM ≈ 3, radius 3), 0.0272", cj.IWA, cj.FWHM, cj.Scale)
	}
	rows := readCSVRows(t, filepath.Join(out, "contrast.csv"))
	for i, r := range rows {
		sep, _ := strconv.ParseFloat(r["separation_px"], 64)
		as, err := strconv.ParseFloat(r["separation_arcsec"], 64)
		if i == 0 && !(sep >= cj.IWA && sep < cj.IWA+1) || err != nil || math.Abs(as-sep*0.0272) > 1e-9 {
			t.Errorf("contrast.csv row %d: %v; want the first at the inner working angle %g, arcsec = px × 0.0272", i, r, cj.IWA)
		}
	}
	if !strings.Contains(stdout, fmt.Sprintf("from the inner working angle, %.3g px (%.3g″)", cj.IWA, cj.IWA*0.0272)) {
		t.Errorf("the summary does not give the inner working angle:\n%s", stdout)
	}

	_, cards, err := formats.ReadFITSHeader(filepath.Join(out, "snr.fits"))
	if err != nil {
		t.Fatal(err)
	}
	card := func(k string) float64 {
		v, ok := formats.CardFloat(cards, k)
		if !ok {
			t.Fatalf("snr.fits has no %s", k)
		}
		return v
	}
	var dets struct {
		Detections []struct {
			Y, X      int
			SepArcsec float64 `json:"separation_arcsec"`
			PA        float64 `json:"pa_east_of_north_deg"`
		}
	}
	b, _ = os.ReadFile(filepath.Join(out, "detections.json"))
	if err := json.Unmarshal(b, &dets); err != nil || len(dets.Detections) != 1 {
		t.Fatalf("detections.json: %v %s", err, b)
	}
	d := dets.Detections[0]
	px, py := float64(d.X+1)-card("CRPIX1"), float64(d.Y+1)-card("CRPIX2")
	east := card("CDELT1") * (card("PC1_1")*px + card("PC1_2")*py)
	north := card("CDELT2") * (card("PC2_1")*px + card("PC2_2")*py)
	pa := d.PA * math.Pi / 180
	if card("PIXSCALE") != 0.0272 || math.Abs(east-d.SepArcsec*math.Sin(pa)) > 1e-9 || math.Abs(north-d.SepArcsec*math.Cos(pa)) > 1e-9 {
		t.Errorf("snr.fits WCS puts the detection at %.5f″ east, %.5f″ north; its separation %.5f″ at PA %.2f° says %.5f, %.5f",
			east, north, d.SepArcsec, d.PA, d.SepArcsec*math.Sin(pa), d.SepArcsec*math.Cos(pa))
	}
	want := map[string]string{"CUNIT1": "arcsec", "CUNIT2": "arcsec", "CTYPE1": "EOFFSET", "CTYPE2": "NOFFSET"}
	for _, c := range cards {
		if w, ok := want[c.Key]; ok && fmt.Sprint(c.Value) == w {
			delete(want, c.Key)
		}
	}
	if len(want) > 0 {
		t.Errorf("snr.fits lacks %v", want)
	}

	if code, _, stderr := run(t, append(args, "--out-dir", plain)...); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if r := readCSVRows(t, filepath.Join(plain, "contrast.csv")); len(r) == 0 || r[0]["separation_arcsec"] != "" {
		t.Errorf("without --pixel-scale contrast.csv's arcsec column should be empty: %v", r)
	}
	if _, cards, _ := formats.ReadFITSHeader(filepath.Join(plain, "snr.fits")); len(cards) == 0 || slices.ContainsFunc(cards, func(c formats.FITSCard) bool { return c.Key == "CTYPE1" || c.Key == "PIXSCALE" }) {
		t.Errorf("without --pixel-scale snr.fits has a WCS")
	}
}
