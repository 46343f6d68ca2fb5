package formats

import (
	"math"
	"testing"
)

// TestRenderLinePlot: the curve is drawn (pixels of its colour inside the
// axes), NaN points are skipped, and mismatched lengths are an error.
func TestRenderLinePlot(t *testing.T) {
	img, err := RenderLinePlot(LinePlot{X: []float64{1, 2, 3, 4}, Y: []float64{1e-3, math.NaN(), 1e-4, 3e-5}, LogY: true, Title: "t", XLabel: "x", YLabel: "y"})
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	b := img.Bounds()
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			if img.RGBAAt(x, y) == pngCurve {
				n++
			}
		}
	}
	if n < 100 {
		t.Errorf("%d curve pixels, want a visible line", n)
	}
	if _, err := RenderLinePlot(LinePlot{X: []float64{1}, Y: nil}); err == nil {
		t.Error("mismatched lengths: no error")
	}
}
