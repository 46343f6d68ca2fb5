package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vkstat/vkstat/formats"
)

// TestPlotFormat: --plot-format svg|pdf draws every picture a command
// names itself in that format, in the one font, with what the picture is
// for: stack's quicklooks in map coordinates with a scale bar where the
// dates are georeferenced in metres, else in the input's range and
// azimuth; latent's spectra with the fitted and (--truth) true slopes;
// paco's SNR map and contrast curve. An unknown format is a usage error.
func TestPlotFormat(t *testing.T) {
	dir := t.TempDir()
	p := func(s string) string { return filepath.Join(dir, s) }
	read := func(path string) string {
		t.Helper()
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	ok := func(args ...string) {
		t.Helper()
		if code, _, stderr := run(t, append([]string{"--device", "cpu", "-q"}, args...)...); code != 0 {
			t.Fatalf("%v: exit %d: %s", args, code, stderr)
		}
	}
	if formats.HaveGDAL {
		synthStack(t, p("slc"), "--dates", "2", "--shape", "40,32")
		ok("--plot-format", "svg", "stack", "--looks", "2", "--stat", "mean", "--plot", "mean", "--out-dir", p("geo"), "@"+p("slc/dates.txt"))
		svg := read(p("geo/mean.svg"))
		for _, want := range []string{"easting (m)", "northing (m)", " m</text>", "mean of intensity, 2 dates, 2×2 looks"} {
			if !strings.Contains(svg, want) {
				t.Errorf("stack's mean.svg lacks %q", want)
			}
		}
	}
	ok("synth", "random", "--shape", "12,10", "--out", p("a.npy"))
	ok("synth", "random", "--shape", "12,10", "--seed", "2", "--out", p("b.npy"))
	ok("stack", "--plot-format", "svg", "--stat", "mean", "--format", "npy", "--plot", "mean", "--out-dir", p("radar"), p("a.npy"), p("b.npy"))
	if svg := read(p("radar/mean.svg")); !strings.Contains(svg, "range (input column)") || !strings.Contains(svg, "azimuth (input line)") {
		t.Error("stack's mean.svg without georeferencing is not in range and azimuth")
	}

	ok("synth", "latent", "--shape", "2,3,4,16,16", "--out", p("lat.npy"), "--truth", p("truth.json"))
	ok("--plot-format", "svg", "latent", "--in", p("lat.npy"), "--stat", "spectra", "--truth", p("truth.json"), "--out-dir", p("lat"))
	if svg := read(p("lat/spectra.svg")); !strings.Contains(svg, "fitted slope -") || !strings.Contains(svg, "true slope -2<") {
		t.Error("spectra.svg does not draw the fitted and true slopes")
	}
	ok("--plot-format", "pdf", "latent", "--in", p("lat.npy"), "--stat", "corr,pca", "--out-dir", p("latpdf"))
	for _, f := range []string{"corr.pdf", "pca.pdf"} {
		if b := read(p("latpdf/" + f)); !strings.HasPrefix(b, "%PDF-") {
			t.Errorf("%s is not a PDF", f)
		}
	}
	if _, err := os.Stat(p("latpdf/corr.png")); err == nil {
		t.Error("--plot-format pdf wrote corr.png too")
	}

	ok("synth", "paco", "--size", "32", "--frames", "16", "--rotation", "40", "--fwhm", "3", "--companion", "sep=8,pa=30,flux=200", "--out-dir", p("adi"))
	ok("--plot-format", "svg", "paco", "--cube", p("adi/cube.fits"), "--angles", p("adi/angles.fits"), "--fwhm", "3", "--radius", "2", "--out-dir", p("paco"))
	for _, f := range []string{"snr.svg", "contrast.svg"} {
		if b := read(p("paco/" + f)); !strings.Contains(b, "<svg") || strings.Count(b, "font-family:Liberation Sans") == 0 {
			t.Errorf("paco's %s is not an SVG in the one font", f)
		}
	}

	code, _, stderr := run(t, "--plot-format", "jpeg", "latent", "--in", p("lat.npy"), "--out-dir", p("bad"))
	if code != ExitUsage || !strings.Contains(stderr, "--plot-format") {
		t.Errorf("--plot-format jpeg: exit %d, %q", code, stderr)
	}
}
