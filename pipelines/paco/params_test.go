package paco

import (
	"fmt"
	"strings"
	"testing"

	"github.com/vkstat/vkstat/engine"
)

// TestParamsHelpNamesTheRuns: the help texts, which struct tags hold as
// literals, say how many runs the calibration and the check add.
func TestParamsHelpNamesTheRuns(t *testing.T) {
	ps := Params()
	for name, runs := range map[string]int{"quick_contrast": CalibrationPasses * CalibrationRuns, "contrast_check": ContrastCheckRuns} {
		p := engine.FindParam(ps, name)
		if want := fmt.Sprintf("%d more runs of the maps", runs); p == nil || !strings.Contains(p.Help, want) {
			t.Errorf("%s: help %q does not say %q", name, p.Help, want)
		}
	}
	for _, p := range ps {
		if p.Help == "" {
			t.Errorf("%s: no help", p.Name)
		}
	}
}

// TestParamsSetText: the parameters whose text their type cannot read
// (Options.SetText), and the enumerations, from the text the command line
// and survey manifests give.
func TestParamsSetText(t *testing.T) {
	ps := Params()
	o := DefaultOptions()
	set := func(name, text string) error { return engine.FindParam(ps, name).SetText(&o, text) }
	for _, c := range [][2]string{{"star_flux", "psf"}, {"pixel_scale", "0.0125"}, {"star_flux_scale", "100"}, {"compat", "vip"}, {"placement", "subpixel"}, {"min_sep", "6"}} {
		if err := set(c[0], c[1]); err != nil {
			t.Fatalf("%s %s: %v", c[0], c[1], err)
		}
	}
	if !o.StarFluxPSF || o.PixelScale != 0.0125 || o.StarFluxScale != 100 || o.Compat != CompatVIP || o.Placement != PlacementSubpixel || o.MinSeparation() != 6 {
		t.Errorf("set %+v", o)
	}
	for _, c := range [][3]string{
		{"pixel_scale", "0", "want arcseconds per pixel, a number above 0, got 0"},
		{"star_flux_scale", "0", "want a ratio above 0, got 0"},
		{"star_flux", "x", `want psf (the PSF stamp's flux) or a flux ≥ 0 in the cube's counts, got "x"`},
		{"compat", "foo", `want none or vip, got "foo"`},
		{"placement", "x", `unknown PSF placement "x" (want nearest or subpixel)`},
	} {
		if err := set(c[0], c[1]); err == nil || err.Error() != c[2] {
			t.Errorf("%s %s: %v, want %s", c[0], c[1], err, c[2])
		}
	}
	if d := DefaultOptions(); d.MinSeparation() != 2*DefaultRadius {
		t.Errorf("the default min separation %g, want 2×%d", d.MinSeparation(), DefaultRadius)
	}
}
