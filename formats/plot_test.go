package formats

import (
	"math"
	"strconv"
	"strings"
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

// TestAxisTicks: log axes are ticked at values a reader can name: whole
// decades over a wide range, 1-2-5 over one or two decades, round values
// within one (the contrast curve's 3.2 to 13 got 12.6, 7.94, 6.31...).
func TestAxisTicks(t *testing.T) {
	for _, c := range []struct {
		lo, hi float64 // values, not logs
		want   string
	}{
		{1, 1e4, "1 10 100 1e+03 1e+04"},
		{0.8, 30, "1 2 5 10 20"},
		{3.16, 13.5, "4 6 8 10 12"},
	} {
		var got []string
		for _, tk := range axisTicks(math.Log10(c.lo), math.Log10(c.hi), 6, true) {
			if math.Abs(math.Pow(10, tk.at)-mustFloat(t, tk.label)) > 1e-9*math.Pow(10, tk.at) {
				t.Errorf("tick at 10^%g labelled %s", tk.at, tk.label)
			}
			got = append(got, tk.label)
		}
		if s := strings.Join(got, " "); s != c.want {
			t.Errorf("log ticks over [%g, %g] = %s, want %s", c.lo, c.hi, s, c.want)
		}
	}
}

func mustFloat(t *testing.T, s string) float64 {
	t.Helper()
	v, err := strconv.ParseFloat(s, 64)
	if err != nil {
		t.Fatal(err)
	}
	return v
}
