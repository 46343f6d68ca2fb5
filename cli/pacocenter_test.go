package cli

import (
	"encoding/csv"
	"encoding/json"
	"image/png"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/vkstat/vkstat/formats"

	"github.com/vkstat/vkstat/pipelines/paco"
)

// synthOffCentre writes a 48×48 sequence whose star sits at (25.3, 22.6),
// 1.9 px from the geometric centre (24, 24), bright enough (halo 1000
// against speckles of 10) to be centred, with a companion at sep 12, pa 30
// around the star.
func synthOffCentre(t *testing.T) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "adi")
	code, _, stderr := run(t, "synth", "paco", "--size", "48", "--frames", "30", "--rotation", "90", "--fwhm", "3",
		"--star", "25.3,22.6", "--halo", "1000", "--companion", "sep=12,theta=30,flux=300", "--seed", "3",
		"--format", "both", "--out-dir", dir)
	if code != 0 {
		t.Fatalf("synth paco: exit %d: %s", code, stderr)
	}
	return dir
}

type centerJSON struct {
	Center paco.CenterInfo `json:"center"`
	Curve  []struct {
		Sep      float64  `json:"separation_px"`
		Pixels   int      `json:"pixels"`
		Sigma    *float64 `json:"sigma_flux"`
		Flux     *float64 `json:"flux_limit"`
		Contrast *float64 `json:"contrast"`
		Mag      *float64 `json:"delta_mag"`
	} `json:"curve"`
}

func readContrastJSON(t *testing.T, dir string) centerJSON {
	t.Helper()
	var c centerJSON
	b, err := os.ReadFile(filepath.Join(dir, "contrast.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &c); err != nil {
		t.Fatalf("contrast.json: %v", err)
	}
	return c
}

// TestPacoCenterAuto (issue 14, must-show 2): with --center not given the
// star centre is measured within 0.1 px of the truth, the maps use it
// rounded, a warning says it is not (H/2, W/2), and the companion's SNR is
// higher than with the old default; --center y,x is taken as given, with
// no warning. The contrast files appear and parse.
func TestPacoCenterAuto(t *testing.T) {
	data := synthOffCentre(t)
	args := []string{"--device", "cpu", "paco", "--cube", filepath.Join(data, "cube.fits"), "--angles", filepath.Join(data, "angles.fits"),
		"--psf", filepath.Join(data, "psf.fits"), "--radius", "3"}
	auto := filepath.Join(t.TempDir(), "auto")
	code, stdout, stderr := run(t, append(args, "--star-flux", "2", "--out-dir", auto)...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if !strings.Contains(stderr, "from the geometric centre (24, 24)") || !strings.Contains(stderr, "the maps use (25, 23)") {
		t.Errorf("no warning that the centre is not (H/2, W/2); stderr:\n%s", stderr)
	}
	if !strings.Contains(stdout, "centre:     (25, 23), estimated star centre") {
		t.Errorf("summary lacks the estimated centre:\n%s", stdout)
	}
	cj := readContrastJSON(t, auto)
	e := cj.Center.Estimate
	if cj.Center.Source != "estimated" || e == nil || math.Abs(e.Y-25.3) > 0.1 || math.Abs(e.X-22.6) > 0.1 || cj.Center.Used != [2]int{25, 23} {
		t.Errorf("centre %+v (estimate %+v), want (25.3, 22.6) within 0.1 px, used (25, 23)", cj.Center, e)
	} else {
		t.Logf("estimated (%.4f, %.4f) ± %.3f for (25.3, 22.6): error %.4f px", e.Y, e.X, e.Uncertainty, math.Hypot(e.Y-25.3, e.X-22.6))
	}
	var dets struct {
		Center []int `json:"center"`
	}
	b, _ := os.ReadFile(filepath.Join(auto, "detections.json"))
	if err := json.Unmarshal(b, &dets); err != nil || len(dets.Center) != 2 || dets.Center[0] != 25 || dets.Center[1] != 23 {
		t.Errorf("detections.json centre %v (%v), want [25 23]", dets.Center, err)
	}

	geo := filepath.Join(t.TempDir(), "geo")
	code, stdout, stderr = run(t, append(args, "--center", "24,24", "--out-dir", geo)...)
	if code != 0 {
		t.Fatalf("--center 24,24: exit %d: %s", code, stderr)
	}
	if strings.Contains(stderr, "centre") || !strings.Contains(stdout, "centre:     (24, 24), option") {
		t.Errorf("--center 24,24: stderr %q, stdout:\n%s", stderr, stdout)
	}
	// The companion, sep 12 at pa 30 around (25.3, 22.6): (31.3, 33.0).
	snrAt := func(dir string) float64 {
		m, err := formats.ReadFITS(filepath.Join(dir, "snr.fits"))
		if err != nil {
			t.Fatal(err)
		}
		best := math.Inf(-1)
		v := m.Float64s()
		for y := 30; y <= 32; y++ {
			for x := 32; x <= 34; x++ {
				best = max(best, v[y*48+x])
			}
		}
		return best
	}
	sa, sg := snrAt(auto), snrAt(geo)
	t.Logf("companion SNR: %.2f with the measured centre, %.2f with (H/2, W/2)", sa, sg)
	if !(sa > sg) {
		t.Errorf("companion SNR %.2f with the measured centre, not above %.2f with the geometric one", sa, sg)
	}

	// contrast.csv: a header and one row per separation from the inner
	// working angle out (max(FWHM 3, radius 3): from 3 px, or 4 when the
	// stamp's FWHM measures above 3), flux_limit = 5 σ, contrast =
	// flux_limit / 2 (--star-flux 2).
	f, err := os.Open(filepath.Join(auto, "contrast.csv"))
	if err != nil {
		t.Fatal(err)
	}
	rows, err := csv.NewReader(f).ReadAll()
	f.Close()
	if err != nil || len(rows) < 10 || strings.Join(rows[0], ",") != "separation_px,separation_arcsec,pixels,sigma_flux,flux_limit,contrast,delta_mag,flux_limit_uncalibrated,throughput,throughput_err" {
		t.Fatalf("contrast.csv: %v, %d rows, header %v", err, len(rows), rows[0])
	}
	finite := 0
	first, _ := strconv.ParseFloat(rows[1][0], 64)
	if first != 3 && first != 4 {
		t.Errorf("contrast.csv starts at %g px, not at the inner working angle", first)
	}
	for i, r := range rows[1:] {
		sep, _ := strconv.ParseFloat(r[0], 64)
		sig, _ := strconv.ParseFloat(r[3], 64)
		lim, _ := strconv.ParseFloat(r[4], 64)
		con, _ := strconv.ParseFloat(r[5], 64)
		mag, _ := strconv.ParseFloat(r[6], 64)
		quick, _ := strconv.ParseFloat(r[7], 64)
		tp, _ := strconv.ParseFloat(r[8], 64)
		if sep != first+float64(i) {
			t.Errorf("row %d: separation %g", i+1, sep)
		}
		if math.IsNaN(sig) {
			continue
		}
		finite++
		if !(math.Abs(quick-5*sig) <= 1e-6*quick) || !(tp > 0 && tp < 1) || !(math.Abs(lim-quick/tp) <= 1e-6*lim) ||
			!(math.Abs(con-lim/2) <= 1e-6*lim) || !(math.Abs(mag+2.5*math.Log10(con)) <= 1e-6) {
			t.Errorf("row %v: want flux_limit_uncalibrated = 5·σ, flux_limit = it / throughput in (0, 1), contrast = flux_limit/2, Δmag = −2.5 log10 contrast", r)
		}
	}
	// Without --star-flux: limits, no contrast (null in JSON).
	if code, _, stderr := run(t, append(args, "--center", "24,24", "--out-dir", filepath.Join(geo, "nostar"))...); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, p := range readContrastJSON(t, filepath.Join(geo, "nostar")).Curve {
		if p.Contrast != nil || p.Mag != nil {
			t.Errorf("no --star-flux: annulus %g has contrast %v, Δmag %v", p.Sep, p.Contrast, p.Mag)
		}
	}
	if finite < 5 || len(cj.Curve) != len(rows)-1 {
		t.Errorf("%d finite annuli; contrast.json has %d rows, contrast.csv %d", finite, len(cj.Curve), len(rows)-1)
	}
	pf, err := os.Open(filepath.Join(auto, "contrast.png"))
	if err != nil {
		t.Fatal(err)
	}
	defer pf.Close()
	if img, err := png.Decode(pf); err != nil || img.Bounds().Dx() < 100 {
		t.Errorf("contrast.png: %v", err)
	}
}

// TestPacoCenterHeader: a FITS cube's CRPIX1/CRPIX2 (1-based, NAXIS1 = x)
// is the default centre; --center auto ignores it; --center header without
// the cards, and a malformed --center, are usage errors.
func TestPacoCenterHeader(t *testing.T) {
	data := synthOffCentre(t)
	cube, err := formats.ReadNPY(filepath.Join(data, "cube.npy"))
	if err != nil {
		t.Fatal(err)
	}
	hdrCube := filepath.Join(t.TempDir(), "cube.fits")
	// CRPIX (1-based x, y) = (24.6, 26.3): 0-based (y, x) = (25.3, 23.6).
	if err := formats.WriteFITS(hdrCube, cube, []formats.FITSCard{{Key: "CRPIX1", Value: 24.6}, {Key: "CRPIX2", Value: 26.3}}); err != nil {
		t.Fatal(err)
	}
	args := []string{"--device", "cpu", "paco", "--angles", filepath.Join(data, "angles.fits"),
		"--psf", filepath.Join(data, "psf.fits"), "--radius", "3"}
	out := filepath.Join(t.TempDir(), "hdr")
	code, stdout, stderr := run(t, append(args, "--cube", hdrCube, "--out-dir", out)...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if !strings.Contains(stdout, "centre:     (25, 24), header CRPIX (25.300, 23.600)") {
		t.Errorf("header centre not used:\n%s", stdout)
	}
	// The star is measured at x = 22.6, a pixel from the header's 23.6.
	if !strings.Contains(stderr, "from the header's centre") {
		t.Errorf("no warning that the header and the measurement disagree: %q", stderr)
	}
	out = filepath.Join(t.TempDir(), "auto")
	code, stdout, stderr = run(t, append(args, "--cube", hdrCube, "--center", "auto", "--out-dir", out)...)
	if code != 0 || !strings.Contains(stdout, "centre:     (25, 23), estimated") {
		t.Errorf("--center auto: exit %d, stderr %q, stdout:\n%s", code, stderr, stdout)
	}
	for _, bad := range [][]string{
		{"--cube", filepath.Join(data, "cube.npy"), "--center", "header"},
		{"--cube", hdrCube, "--center", "a,b"},
		{"--cube", hdrCube, "--center", "3"},
		{"--cube", hdrCube, "--star-flux", "-1"},
	} {
		out := filepath.Join(t.TempDir(), "bad")
		code, _, stderr := run(t, append(append(args, bad...), "--out-dir", out)...)
		if code != 2 || stderr == "" {
			t.Errorf("%v: exit %d, stderr %q; want a usage error", bad, code, stderr)
		}
		if _, err := os.Stat(out); err == nil {
			t.Errorf("%v: created %s", bad, out)
		}
	}
}
