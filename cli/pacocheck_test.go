package cli

import (
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/vkstat/vkstat/formats"
	"github.com/vkstat/vkstat/tensor"
)

// TestPacoContrastCheck: --contrast-check injects fakes at the contrast
// curve's limit, runs the maps again on the same device and writes what
// came back: every fake's injected flux is contrast.csv's limit at its
// separation, every one is found again with part of its flux (not none,
// not much more than all), and the summary says so.
func TestPacoContrastCheck(t *testing.T) {
	data := synthADI(t)
	for _, d := range devicesUnderTest(t) {
		out := filepath.Join(t.TempDir(), "out")
		code, stdout, stderr := run(t, "--device", d, "--validate="+boolStr(d != "cpu"), "paco", "--cube", filepath.Join(data, "cube.fits"),
			"--angles", filepath.Join(data, "angles.fits"), "--psf", filepath.Join(data, "psf.fits"), "--radius", "3", "--contrast-check", "--out-dir", out)
		if code != 0 {
			t.Fatalf("%s: exit %d: %s", d, code, stderr)
		}
		if !strings.Contains(stdout, "check: ") || !strings.Contains(stdout, "contrast_check.csv") || !strings.Contains(stderr, "contrast check: run ") {
			t.Errorf("%s: no check in the summary or progress:\n%s\n%s", d, stdout, stderr)
		}
		limit := map[int]float64{}
		for _, r := range readCSVRows(t, filepath.Join(out, "contrast.csv")) {
			sep, _ := strconv.Atoi(r["separation_px"])
			limit[sep], _ = strconv.ParseFloat(r["flux_limit"], 64)
		}
		rows := readCSVRows(t, filepath.Join(out, "contrast_check.csv"))
		if len(rows) < 2 {
			t.Fatalf("%s: %d fakes on a 48×48 frame", d, len(rows))
		}
		for _, r := range rows {
			num := func(k string) float64 {
				v, err := strconv.ParseFloat(r[k], 64)
				if err != nil {
					t.Fatalf("%s: %s = %q", d, k, r[k])
				}
				return v
			}
			sep, inj, tp, snr := num("separation_px"), num("flux_injected"), num("throughput"), num("snr")
			want := limit[int(math.Floor(sep+0.5))]
			if !(math.Abs(inj-want) <= 1e-6*want) {
				t.Errorf("%s: fake at %.2f px injected at %g, contrast.csv's limit there is %g", d, sep, inj, want)
			}
			if !(tp > 0.1 && tp < 1.4) || !(snr > 0.5) {
				t.Errorf("%s: fake at %.2f px came back with throughput %g and SNR %g", d, sep, tp, snr)
			}
			if (r["detected"] == "true") != (snr >= 5) {
				t.Errorf("%s: fake at %.2f px: detected %s at SNR %g (threshold 5)", d, sep, r["detected"], snr)
			}
		}
	}
}

// TestPacoRefusesNegativeThreshold (issue 34, item 10): a threshold below
// 0 would make every local maximum of the background a detection; it is a
// usage error naming the flag, before anything is read or written.
func TestPacoRefusesNegativeThreshold(t *testing.T) {
	data := synthADI(t)
	out := filepath.Join(t.TempDir(), "out")
	code, stdout, stderr := run(t, "--device", "cpu", "paco", "--cube", filepath.Join(data, "cube.npy"), "--angles", filepath.Join(data, "angles.npy"),
		"--fwhm", "3", "--threshold", "-1", "--out-dir", out)
	if code != ExitUsage || !strings.Contains(stderr, "--threshold: want an SNR of 0 or more") || !strings.Contains(stderr, "got -1") || stdout != "" {
		t.Errorf("--threshold -1: exit %d, stderr %q; want %d and the reason", code, stderr, ExitUsage)
	}
	if _, err := os.Stat(out); err == nil {
		t.Errorf("--threshold -1 created %s", out)
	}
	if code, _, stderr := run(t, "--device", "cpu", "paco", "--cube", filepath.Join(data, "cube.npy"), "--angles", filepath.Join(data, "angles.npy"),
		"--fwhm", "3", "--radius", "3", "--threshold", "0", "--out-dir", out); code != 0 {
		t.Errorf("--threshold 0: exit %d, %s", code, stderr)
	}
}

// TestPacoWarnsAngles (issue 33, item 6): angles in radians, a FWHM in
// arcseconds and, with --truth, negated angles each get a warning on
// stderr, and the run goes on.
func TestPacoWarnsAngles(t *testing.T) {
	data := synthADI(t)
	angles, err := formats.ReadVector(filepath.Join(data, "angles.npy"))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	rad, neg := make([]float64, len(angles)), make([]float64, len(angles))
	for i, a := range angles {
		rad[i], neg[i] = a*math.Pi/180, -a
	}
	for _, c := range []struct {
		name  string
		args  []string
		wants []string
	}{
		{"radians", []string{"--angles", writeNPY(t, dir, "rad.npy", tensor.FromF64(rad, len(rad))), "--fwhm", "3"},
			[]string{"vkstat: warning: the field rotates 1.57° in all", "vkstat: warning: the angles look like radians", "the field would rotate 90°: give the parallactic angles in degrees"}},
		{"arcsec", []string{"--angles", filepath.Join(data, "angles.npy"), "--fwhm", "0.108", "--pixel-scale", "0.0272"},
			[]string{"vkstat: warning: the FWHM, 0.108 px, is below a pixel", "at 0.0272″ per pixel it is 3.97 px"}},
		{"negated", []string{"--angles", writeNPY(t, dir, "neg.npy", tensor.FromF64(neg, len(neg))), "--fwhm", "3", "--truth", filepath.Join(data, "truth.json")},
			[]string{"vkstat: warning: the angles are the truth file's negated"}},
	} {
		code, _, stderr := run(t, append([]string{"--device", "cpu", "paco", "--cube", filepath.Join(data, "cube.npy"), "--radius", "3", "--out-dir", filepath.Join(t.TempDir(), "out")}, c.args...)...)
		if code != 0 {
			t.Fatalf("%s: exit %d: %s", c.name, code, stderr)
		}
		for _, w := range c.wants {
			if !strings.Contains(stderr, w) {
				t.Errorf("%s: stderr lacks %q:\n%s", c.name, w, stderr)
			}
		}
	}
}
