package outputs

import (
	"encoding/json"
	"fmt"
	"io"
	"path/filepath"

	"github.com/vkstat/vkstat/formats"
	"github.com/vkstat/vkstat/formats/figure"
	"github.com/vkstat/vkstat/pipelines/latent"
)

// Latent is how latent's results are written: where, the pictures'
// format, the true spatial slope spectra.png draws (synth latent's
// truth.json; nil: none), and what the summary says of the run.
type Latent struct {
	Dir             string
	Plot            figure.Format
	Truth           *float64
	Device, Batches string
	In              latent.Input // the samples' file, shape and work type
}

// Files are the files of res computed with opt: <name>.npy (float64) for
// each result, spectra, corr and pca pictures for those asked for,
// summary.txt (table) and summary.json (summary), res.Report's.
func (o *Latent) Files(opt latent.Options, res *latent.Result) (files []File, table string, summary map[string]any) {
	var paths []string
	add := func(name string, write func(w io.Writer) error) {
		files = append(files, File{Path: filepath.Join(o.Dir, name), Write: write})
		paths = append(paths, filepath.Join(o.Dir, name))
	}
	draw := func(name string, f figure.Figure) {
		add(o.Plot.File(name), func(w io.Writer) error { return figure.Encode(w, f, o.Plot) })
	}
	if res.Spectra != nil {
		draw("spectra", spectraFigure(res.Spectra, o.Truth))
	}
	for _, a := range res.Arrays() {
		t := a.T
		add(a.Name+".npy", func(w io.Writer) error { return formats.EncodeNPY(w, t) })
	}
	if res.Corr != nil {
		title := fmt.Sprintf("correlation between channels, mean of %d latents", res.Corr.Shape[0])
		draw("corr", figure.Map{Data: res.MeanCorr(), Title: title, Colors: figure.Diverging, Range: &[2]float64{-1, 1}, RowsDown: true,
			X: figure.Axis{Label: "channel"}, Y: figure.Axis{Label: "channel"}, BarLabel: "Pearson r"})
	}
	if res.PCA != nil {
		ratio, cum := res.PCA.MeanRatio() // the mean explained-variance ratio by component above its cumulative sum
		draw("pca", figure.ExplainedVariance(ratio, cum, res.PCA.Ratio.Shape[0]))
	}
	paths = append(paths, filepath.Join(o.Dir, "summary.json"), filepath.Join(o.Dir, "summary.txt"))
	table, summary = res.Report(o.In, o.Device, o.Batches, opt, paths)
	add("summary.txt", func(w io.Writer) error { _, err := io.WriteString(w, table); return err })
	add("summary.json", func(w io.Writer) error {
		e := json.NewEncoder(w)
		e.SetIndent("", "  ")
		return e.Encode(summary)
	})
	return files, table, summary
}

// maxSpectraPanels is how many channels spectra.png shows.
const maxSpectraPanels = 16

// spectraFigure is spectra.png: the radial spectrum of each channel (the
// first 16) averaged over samples, with its fitted slope, and the true
// slope when truth is known.
func spectraFigure(s *latent.Spectra, truth *float64) figure.Figure {
	sp := make([]figure.Spectrum, min(s.Spatial.Shape[1], maxSpectraPanels))
	for c := range sp {
		sp[c] = figure.Spectrum{Radius: s.Radius, Power: s.ChannelMean(c), Slope: s.ChannelSlope(c)}
	}
	return figure.Spectra(sp, s.Spatial.Shape[0], truth)
}
