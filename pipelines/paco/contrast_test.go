package paco

import (
	"math"
	"testing"
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
