package cli

import (
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
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
