package figure

import (
	"fmt"
	"math"
	"strconv"
)

// Spectrum is one channel's radial power spectrum: Power at each Radius
// (bin 0, the mean, is left out, and so are powers not positive or
// infinite), and the slope fitted to log power against log radius (NaN:
// none).
type Spectrum struct {
	Radius, Power []float64
	Slope         float64
}

// Spectra is a grid of log-log panels, one per spectrum (the ith titled
// as channel i's), each the mean of n, every panel on one power scale,
// with the fitted slope's line (and the true slope's, when truth is known)
// through the points' centroid, where a least-squares line passes.
func Spectra(spectra []Spectrum, n int, truth *float64) Figure {
	lo, hi := math.Inf(1), math.Inf(-1)
	panels := make([]Figure, len(spectra))
	for c, s := range spectra {
		p := s.Power
		var xs, ys []float64
		var mx, my float64
		for k := 1; k < len(p); k++ {
			if p[k] > 0 && !math.IsInf(p[k], 0) {
				xs, ys = append(xs, s.Radius[k]), append(ys, p[k])
				mx, my = mx+math.Log(s.Radius[k]), my+math.Log(p[k])
				lo, hi = min(lo, p[k]), max(hi, p[k])
			}
		}
		series := []Series{{Label: fmt.Sprintf("mean of %d", n), X: xs, Y: ys}}
		line := func(label string, b float64, dotted bool) Series {
			m := float64(len(xs))
			f := Series{Label: label + strconv.FormatFloat(b, 'g', 4, 64), Dashed: !dotted, Dotted: dotted}
			for _, x := range []float64{xs[0], xs[len(xs)-1]} {
				f.X = append(f.X, x)
				f.Y = append(f.Y, math.Exp(my/m+b*(math.Log(x)-mx/m)))
			}
			return f
		}
		if len(xs) >= 2 && !math.IsNaN(s.Slope) {
			series = append(series, line("fitted slope ", s.Slope, false))
			if truth != nil {
				series = append(series, line("true slope ", *truth, true))
			}
		}
		panels[c] = Lines{Title: fmt.Sprintf("channel %d: radial power spectrum", c), XLabel: "k (cycles per frame side)", YLabel: "power",
			LogX: true, LogY: true, Series: series, Width: 340, Height: 250}
	}
	if lo < hi { // one scale for every panel, with a margin
		f := math.Pow(hi/lo, 0.05)
		for i := range panels {
			l := panels[i].(Lines)
			l.YRange = &[2]float64{lo / f, hi * f}
			panels[i] = l
		}
	}
	return Grid{Panels: panels, Cols: int(math.Ceil(math.Sqrt(float64(len(spectra)))))}
}

// ExplainedVariance is a PCA's explained-variance ratio by component (the
// mean of n) above its cumulative sum.
func ExplainedVariance(ratio, cum []float64, n int) Figure {
	x := make([]float64, len(ratio))
	for i := range x {
		x[i] = float64(i + 1)
	}
	return Grid{Cols: 1, Panels: []Figure{
		Lines{Title: fmt.Sprintf("PCA explained-variance ratio, mean of %d", n), XLabel: "component", YLabel: "ratio",
			Series: []Series{{X: x, Y: ratio}}},
		Lines{Title: "PCA cumulative explained-variance ratio", XLabel: "component", YLabel: "cumulative ratio",
			Series: []Series{{X: x, Y: cum}}},
	}}
}
