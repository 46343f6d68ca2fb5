package cli

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vkstat/vkstat/formats"
)

// TestPacoStarFlux (issue 40, item 2): the flux map is in the cube's
// counts whatever the stamp's scale (the stamp ×5 leaves every flux as it
// was), so the star's flux is the stamp's total (5 here) with --star-flux
// psf, times --star-flux-scale; --star-flux 1 against limits of tens of
// counts gives Δmag < 0 and a warning saying what the units are.
func TestPacoStarFlux(t *testing.T) {
	data := synthADI(t)
	psf, err := formats.ReadFITS(filepath.Join(data, "psf.fits"))
	if err != nil {
		t.Fatal(err)
	}
	sum := 0.0
	for i := range psf.F64 {
		psf.F64[i] *= 5
		sum += psf.F64[i]
	}
	if math.Abs(sum-5) > 1e-9 {
		t.Fatalf("synth's stamp ×5 sums to %g", sum)
	}
	big := filepath.Join(t.TempDir(), "psf5.fits")
	if err := formats.WriteFITS(big, psf, nil); err != nil {
		t.Fatal(err)
	}
	paco := func(stamp string, extra ...string) (string, string, map[string]any) {
		t.Helper()
		out := filepath.Join(t.TempDir(), "out")
		code, _, stderr := run(t, append([]string{"--device", "cpu", "paco", "--cube", filepath.Join(data, "cube.fits"),
			"--angles", filepath.Join(data, "angles.fits"), "--psf", stamp, "--radius", "3", "--quick-contrast", "--format", "npy", "--out-dir", out}, extra...)...)
		if code != 0 {
			t.Fatalf("%v: exit %d: %s", extra, code, stderr)
		}
		var doc map[string]any
		b, err := os.ReadFile(filepath.Join(out, "contrast.json"))
		if err == nil {
			err = json.Unmarshal(b, &doc)
		}
		if err != nil {
			t.Fatal(err)
		}
		return out, stderr, doc
	}
	unit, _, _ := paco(filepath.Join(data, "psf.fits"))
	five, stderr, doc := paco(big, "--star-flux", "psf", "--star-flux-scale", "1000")
	a, err1 := formats.ReadNPY(filepath.Join(unit, "flux.npy"))
	b, err2 := formats.ReadNPY(filepath.Join(five, "flux.npy"))
	if err1 != nil || err2 != nil {
		t.Fatal(err1, err2)
	}
	top := 0.0
	for _, v := range a.F64 {
		if !math.IsNaN(v) {
			top = max(top, math.Abs(v))
		}
	}
	for i := range a.F64 {
		if d := math.Abs(a.F64[i] - b.F64[i]); !(d <= 1e-9*top) && !(math.IsNaN(a.F64[i]) && math.IsNaN(b.F64[i])) {
			t.Fatalf("flux map pixel %d: %g with the unit stamp, %g with the stamp ×5", i, a.F64[i], b.F64[i])
		}
	}
	if sf, _ := doc["star_flux"].(float64); math.Abs(sf-5000) > 1e-9 || !strings.Contains(doc["star_flux_from"].(string), "PSF stamp's flux") || strings.Contains(stderr, "brighter than the star") {
		t.Errorf("--star-flux psf --star-flux-scale 1000 with a stamp of total 5: star_flux %v (%v), stderr %s", doc["star_flux"], doc["star_flux_from"], stderr)
	}
	for _, r := range doc["curve"].([]any) {
		p := r.(map[string]any)
		if f, ok := p["flux_limit"].(float64); ok && math.Abs(p["contrast"].(float64)-f/5000) > 1e-9*f {
			t.Errorf("contrast %v, want flux_limit %v / 5000", p["contrast"], f)
		}
	}
	_, stderr, doc = paco(filepath.Join(data, "psf.fits"), "--star-flux", "1")
	if doc["star_flux"] != 1.0 || !strings.Contains(stderr, "brighter than the star") || !strings.Contains(stderr, "--star-flux psf") || !strings.Contains(stderr, "--star-flux-scale") {
		t.Errorf("--star-flux 1: star_flux %v, want a warning naming --star-flux psf and --star-flux-scale; stderr:\n%s", doc["star_flux"], stderr)
	}
	for _, bad := range [][]string{{"--star-flux", "stamp"}, {"--star-flux", "-2"}, {"--star-flux", "psf", "--star-flux-scale", "0"}} {
		code, _, stderr := run(t, append([]string{"--device", "cpu", "paco", "--cube", filepath.Join(data, "cube.fits"),
			"--angles", filepath.Join(data, "angles.fits"), "--psf", big, "--out-dir", filepath.Join(t.TempDir(), "x")}, bad...)...)
		if code != ExitUsage || !strings.Contains(stderr, bad[len(bad)-2]) {
			t.Errorf("%v: exit %d, stderr %q; want a usage error naming %s", bad, code, stderr, bad[len(bad)-2])
		}
	}
	code, _, stderr := run(t, "--device", "cpu", "paco", "--cube", filepath.Join(data, "cube.fits"), "--angles", filepath.Join(data, "angles.fits"),
		"--fwhm", "3", "--star-flux", "psf", "--out-dir", filepath.Join(t.TempDir(), "y"))
	if code != ExitUsage || !strings.Contains(stderr, "needs a stamp") {
		t.Errorf("--fwhm with --star-flux psf: exit %d, stderr %q", code, stderr)
	}
}
