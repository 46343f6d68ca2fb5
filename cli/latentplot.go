package cli

import (
	"fmt"

	"github.com/vkstat/vkstat/formats"
	"github.com/vkstat/vkstat/formats/figure"
	"github.com/vkstat/vkstat/pipelines/latent"
)

// pcaFigure is pca.png: the mean explained-variance ratio by component
// above its cumulative sum.
func pcaFigure(p *latent.PCA) figure.Figure {
	ratio, cum := p.MeanRatio()
	return figure.ExplainedVariance(ratio, cum, p.Ratio.Shape[0])
}

// maxSpectraPanels is how many channels spectra.png shows.
const maxSpectraPanels = 16

// spectraFigure is spectra.png: the radial spectrum of each channel (the
// first 16) averaged over samples, with its fitted slope, and the true
// slope when truth, a synth latent's truth.json spatial_slope, is known.
func spectraFigure(s *latent.Spectra, truth *float64) figure.Figure {
	sp := make([]figure.Spectrum, min(s.Spatial.Shape[1], maxSpectraPanels))
	for c := range sp {
		sp[c] = figure.Spectrum{Radius: s.Radius, Power: s.ChannelMean(c), Slope: s.ChannelSlope(c)}
	}
	return figure.Spectra(sp, s.Spatial.Shape[0], truth)
}

// readTruthSlope reads spatial_slope from synth latent's truth.json.
func readTruthSlope(path string) (*float64, error) {
	raw, err := formats.ReadText(path, 0, "truth file")
	if err != nil {
		return nil, fmt.Errorf("--truth: %w", err)
	}
	slope, err := latent.TruthSlope(raw)
	if err != nil {
		return nil, fmt.Errorf("--truth %s: %w", path, err)
	}
	return slope, nil
}
