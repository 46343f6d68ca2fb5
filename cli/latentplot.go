package cli

import (
	"encoding/json"
	"fmt"
	"math"

	"github.com/vkstat/vkstat/formats"
	"github.com/vkstat/vkstat/formats/figure"
	"github.com/vkstat/vkstat/pipelines/latent"
)

// pcaFigure is pca.png: the mean explained-variance ratio by component
// above its cumulative sum.
func pcaFigure(p *latent.PCA) figure.Figure {
	ratio, cum := p.MeanRatio()
	x := make([]float64, len(ratio))
	for i := range x {
		x[i] = float64(i + 1)
	}
	return figure.Grid{Cols: 1, Panels: []figure.Figure{
		figure.Lines{Title: fmt.Sprintf("PCA explained-variance ratio, mean of %d", p.Ratio.Shape[0]), XLabel: "component", YLabel: "ratio",
			Series: []figure.Series{{X: x, Y: ratio}}},
		figure.Lines{Title: "PCA cumulative explained-variance ratio", XLabel: "component", YLabel: "cumulative ratio",
			Series: []figure.Series{{X: x, Y: cum}}},
	}}
}

// maxSpectraPanels is how many channels spectra.png shows.
const maxSpectraPanels = 16

// spectraFigure is spectra.png: one log-log panel per channel (the first
// 16) of the radial spectrum averaged over samples, every panel on one
// power scale, with the fitted slope's line (and the true slope's, when
// truth, a synth latent's truth.json spatial_slope, is known) through the
// points' centroid, where a least-squares line passes.
func spectraFigure(s *latent.Spectra, truth *float64) figure.Figure {
	n := min(s.Spatial.Shape[1], maxSpectraPanels)
	lo, hi := math.Inf(1), math.Inf(-1)
	panels := make([]figure.Figure, n)
	for c := range n {
		p := s.ChannelMean(c)
		var xs, ys []float64
		var mx, my float64
		for k := 1; k < len(p); k++ {
			if p[k] > 0 && !math.IsInf(p[k], 0) {
				xs, ys = append(xs, s.Radius[k]), append(ys, p[k])
				mx, my = mx+math.Log(s.Radius[k]), my+math.Log(p[k])
				lo, hi = min(lo, p[k]), max(hi, p[k])
			}
		}
		slope := s.ChannelSlope(c)
		series := []figure.Series{{Label: fmt.Sprintf("mean of %d", s.Spatial.Shape[0]), X: xs, Y: ys}}
		line := func(label string, b float64, dotted bool) figure.Series {
			m := float64(len(xs))
			f := figure.Series{Label: label, Dashed: !dotted, Dotted: dotted}
			for _, x := range []float64{xs[0], xs[len(xs)-1]} {
				f.X = append(f.X, x)
				f.Y = append(f.Y, math.Exp(my/m+b*(math.Log(x)-mx/m)))
			}
			return f
		}
		if len(xs) >= 2 && !math.IsNaN(slope) {
			series = append(series, line("fitted slope "+latent.G4(slope), slope, false))
			if truth != nil {
				series = append(series, line("true slope "+latent.G4(*truth), *truth, true))
			}
		}
		panels[c] = figure.Lines{Title: fmt.Sprintf("channel %d: radial power spectrum", c), XLabel: "k (cycles per frame side)", YLabel: "power",
			LogX: true, LogY: true, Series: series, Width: 340, Height: 250}
	}
	if lo < hi { // one scale for every panel, with a margin
		f := math.Pow(hi/lo, 0.05)
		for i := range panels {
			l := panels[i].(figure.Lines)
			l.YRange = &[2]float64{lo / f, hi * f}
			panels[i] = l
		}
	}
	return figure.Grid{Panels: panels, Cols: int(math.Ceil(math.Sqrt(float64(n))))}
}

// readTruthSlope reads spatial_slope from synth latent's truth.json.
func readTruthSlope(path string) (*float64, error) {
	raw, err := formats.ReadText(path, 0, "truth file")
	if err != nil {
		return nil, fmt.Errorf("--truth: %w", err)
	}
	var t struct {
		Slope *float64 `json:"spatial_slope"`
	}
	if err := json.Unmarshal(raw, &t); err != nil {
		return nil, fmt.Errorf("--truth %s: %w", path, err)
	}
	if t.Slope == nil {
		return nil, fmt.Errorf("--truth %s: no spatial_slope (a truth.json of vkstat synth latent has one)", path)
	}
	return t.Slope, nil
}
