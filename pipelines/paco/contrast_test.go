package paco

import (
	"math"
	"strings"
	"testing"

	"github.com/vkstat/vkstat/tensor"
)

// TestContrastCurveHand: a 9×9 σ map centred at (4, 4) with hand-placed
// values: annulus 1 (the 8 pixels at distance 1 and √2) holds 1..8, so its
// median is 4.5; annulus 2 (the 12 pixels at distance 2 and √5) holds 3
// except one NaN and one outlier of 1000, so 11 values with median 3;
// everything else is 7. The expected numbers are worked out by hand (and
// the magnitudes with Python), not with the code under test.
func TestContrastCurveHand(t *testing.T) {
	const H, W, cy, cx = 9, 9, 4, 4
	s := make([]float64, H*W)
	for i := range s {
		s[i] = 7
	}
	set := func(y, x int, v float64) { s[(cy+y)*W+cx+x] = v }
	ann1 := [][2]int{{-1, 0}, {0, -1}, {0, 1}, {1, 0}, {-1, -1}, {-1, 1}, {1, -1}, {1, 1}}
	for i, o := range ann1 {
		set(o[0], o[1], float64(8-i))
	}
	ann2 := [][2]int{{-2, 0}, {2, 0}, {0, -2}, {0, 2},
		{-2, -1}, {-2, 1}, {2, -1}, {2, 1}, {-1, -2}, {1, -2}, {-1, 2}, {1, 2}}
	for _, o := range ann2 {
		set(o[0], o[1], 3)
	}
	set(-2, 1, math.NaN())
	set(1, 2, 1000)
	set(0, 0, 1e6) // the centre itself is in no annulus

	c := ContrastCurve(s, H, W, cy, cx, 5, 1000)
	// The corners are at distance √32 ≈ 5.66: annulus 6 (5.5 ≤ d < 6.5).
	if len(c) != 6 {
		t.Fatalf("%d annuli, want 6 (separations 1 to 6)", len(c))
	}
	want := []struct {
		sep      float64
		n        int
		sigma    float64
		mag      float64
		contrast float64
	}{
		{1, 8, 4.5, 4.119543704721594, 0.0225},
		{2, 11, 3, 4.5597718523607975, 0.015},
	}
	for i, w := range want {
		p := c[i]
		if p.Sep != w.sep || p.Pixels != w.n || p.Sigma != w.sigma || math.Abs(p.Flux-5*w.sigma) > 1e-12 ||
			math.Abs(p.Contrast-w.contrast) > 1e-12 || math.Abs(p.Mag-w.mag) > 1e-9 {
			t.Errorf("annulus %d: got %+v, want sep %g, %d pixels, σ %g, contrast %g, Δmag %g", i+1, p, w.sep, w.n, w.sigma, w.contrast, w.mag)
		}
	}
	for _, p := range c[2:] {
		if p.Sigma != 7 {
			t.Errorf("annulus %g: σ %g, want 7", p.Sep, p.Sigma)
		}
	}
	// 81 pixels: the centre, 8, 12, and the rest in annuli 3 to 6.
	total := 1
	for _, p := range c {
		total += p.Pixels
	}
	if total != H*W-1 { // less the NaN
		t.Errorf("annuli hold %d pixels (+ centre), want %d", total, H*W-1)
	}

	// Without the star's flux: limits, but no contrast.
	for _, p := range ContrastCurve(s, H, W, cy, cx, 5, 0) {
		if !math.IsNaN(p.Contrast) || !math.IsNaN(p.Mag) || math.IsNaN(p.Flux) {
			t.Errorf("no star flux: got %+v, want a flux limit and NaN contrast", p)
		}
	}
	// An annulus without any finite σ is kept, empty and NaN.
	for _, o := range ann1 {
		set(o[0], o[1], math.NaN())
	}
	c = ContrastCurve(s, H, W, cy, cx, 5, 1)
	if c[0].Pixels != 0 || !math.IsNaN(c[0].Sigma) || !math.IsNaN(c[0].Flux) {
		t.Errorf("empty annulus: got %+v", c[0])
	}
}

// TestStarFlux: the star's flux the contrast uses, by hand. A 3×3 stamp
// of total 16 and peak 4: with psf, the stamp's as the flux map counts it
// (16 for a unit-sum normalisation, 4 for peak, 1 for none), times the
// scale; a given flux times the scale; a curve whose limit is brighter
// than the star warns, naming the place and the least Δmag.
func TestStarFlux(t *testing.T) {
	psf := tensor.New(tensor.F64, 3, 3)
	copy(psf.F64, []float64{1, 2, 1, 2, 4, 2, 1, 2, 1})
	for _, c := range []struct {
		o    Options
		want float64
	}{
		{Options{StarFluxPSF: true, PSFNorm: "sum"}, 16},
		{Options{StarFluxPSF: true}, 16},
		{Options{StarFluxPSF: true, PSFNorm: "peak"}, 4},
		{Options{StarFluxPSF: true, PSFNorm: "none"}, 1},
		{Options{StarFluxPSF: true, StarFluxScale: 100}, 1600},
		{Options{StarFlux: 3, StarFluxScale: 2.5}, 7.5},
		{Options{StarFlux: 3}, 3},
		{Options{}, 0},
	} {
		if got := starFlux(c.o, psf); got != c.want {
			t.Errorf("%+v: star flux %g, want %g", c.o, got, c.want)
		}
	}
	for _, c := range []struct {
		in   string
		flux float64
		psf  bool
		bad  bool
	}{{"psf", 0, true, false}, {" PSF ", 0, true, false}, {"4.349", 4.349, false, false}, {"0", 0, false, false},
		{"-1", -1, false, false}, {"nan", 0, false, true}, {"stamp", 0, false, true}} {
		f, p, err := ParseStarFlux(c.in)
		if f != c.flux || p != c.psf || (err != nil) != c.bad {
			t.Errorf("ParseStarFlux(%q) = %g, %v, %v", c.in, f, p, err)
		}
	}
	o := DefaultOptions()
	o.FWHM, o.StarFluxPSF = 3, true
	if err := o.Check(); err == nil || !strings.Contains(err.Error(), "needs a stamp") {
		t.Errorf("star flux psf with a Gaussian of fwhm: %v", err)
	}
	o.PSF, o.StarFlux = psf, 2
	if err := o.Check(); err == nil || !strings.Contains(err.Error(), "not both") {
		t.Errorf("star flux psf and a flux: %v", err)
	}
	// Limits 10 (Δmag −2.5), 1 (0) and 0.1 (2.5) against a star of 1.
	curve := []ContrastPoint{{Sep: 4}, {Sep: 5}, {Sep: 6}}
	for i, f := range []float64{10, 1, 0.1} {
		curve[i].setFlux(f, 1)
	}
	w, ok := brighterThanStar(curve, 1)
	if !ok || w.Code != WarnBrighterStar || w.Data["delta_mag"] != -2.5 || w.Data["from_px"] != 4 || w.Data["to_px"] != 4 {
		t.Errorf("brighter than the star: %v %+v", ok, w)
	}
	if _, ok := brighterThanStar(curve[1:], 1); ok {
		t.Error("a warning where no limit is brighter than the star")
	}
}
