package figure

import (
	"bytes"
	"math"
	"testing"
)

// TestSpectra holds spectra.png's panels to a hand-worked power law: P =
// k⁻² at k = 1, 2, 4 (bin 0 and a zero power left out) has its fitted
// line of slope −2 through (1, 1) and (4, 1/16), the true slope −1's
// through the centroid (log 2, −2 log 2): (1, 1/2) and (4, 1/8); both
// panels share one scale, 1/16 and 1 widened by 16^0.05; two panels take
// two columns.
func TestSpectra(t *testing.T) {
	truth := -1.0
	s := Spectrum{Radius: []float64{0, 1, 2, 3, 4}, Power: []float64{5, 1, 0.25, 0, 1.0 / 16}, Slope: -2}
	g := Spectra([]Spectrum{s, {Radius: s.Radius, Power: s.Power, Slope: math.NaN()}}, 7, &truth).(Grid)
	if g.Cols != 2 || len(g.Panels) != 2 {
		t.Fatalf("cols %d, %d panels", g.Cols, len(g.Panels))
	}
	l := g.Panels[0].(Lines)
	if len(l.Series) != 3 || l.Series[0].Label != "mean of 7" || l.Series[1].Label != "fitted slope -2" || l.Series[2].Label != "true slope -1" ||
		l.Title != "channel 0: radial power spectrum" {
		t.Fatalf("panel 0: %q, %+v", l.Title, l.Series)
	}
	near := func(got, want []float64) bool {
		for i := range want {
			if len(got) != len(want) || math.Abs(got[i]-want[i]) > 1e-12 {
				return false
			}
		}
		return true
	}
	if !near(l.Series[0].X, []float64{1, 2, 4}) || !near(l.Series[1].Y, []float64{1, 1.0 / 16}) || !near(l.Series[2].Y, []float64{0.5, 0.125}) ||
		!l.Series[1].Dashed || !l.Series[2].Dotted {
		t.Errorf("series %+v", l.Series)
	}
	f := math.Pow(16, 0.05)
	if r := g.Panels[1].(Lines).YRange; r == nil || math.Abs(r[0]-1/16.0/f) > 1e-15 || math.Abs(r[1]-f) > 1e-15 || len(g.Panels[1].(Lines).Series) != 1 {
		t.Errorf("panel 1 (no slope): range %v, %d series", r, len(g.Panels[1].(Lines).Series))
	}
	var b bytes.Buffer
	if err := Encode(&b, g, PNG); err != nil || b.Len() == 0 {
		t.Errorf("encode: %v", err)
	}
}

// TestExplainedVariance: components numbered from 1 under both curves.
func TestExplainedVariance(t *testing.T) {
	g := ExplainedVariance([]float64{0.75, 0.25}, []float64{0.75, 1}, 3).(Grid)
	top, bottom := g.Panels[0].(Lines), g.Panels[1].(Lines)
	if g.Cols != 1 || top.Title != "PCA explained-variance ratio, mean of 3" || top.Series[0].X[1] != 2 || bottom.Series[0].Y[1] != 1 {
		t.Errorf("%+v", g)
	}
}
