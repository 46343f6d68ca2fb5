package cli

import (
	"fmt"
	"image"
	"image/draw"
	"image/png"
	"io"
	"math"

	"github.com/vkstat/vkstat/formats"
	"github.com/vkstat/vkstat/pipelines/latent"
)

// pcaRows adds to the summary table, for the first few components (all
// when C <= 8, else 1..4 and C), the spread over samples of the ratio and
// of the cumulative ratio.
func pcaRows(row func(string, []int, []float64), p *latent.PCA, n, c int) {
	shown := []int{}
	if c < 2 {
		shown = append(shown, 1) // no cumulative rows
	}
	for k := 1; k <= c; k++ {
		if c <= 8 || k <= 4 || k == c {
			shown = append(shown, k)
		}
	}
	row("pca λ1", []int{n}, column(p.Values.F64, c, 0))
	for _, k := range shown {
		row(fmt.Sprintf("pca ratio PC%d", k), []int{n}, column(p.Ratio.F64, c, k-1))
	}
	for _, k := range shown[1:] {
		cum := make([]float64, n)
		for s := range n {
			for i := range k {
				cum[s] += p.Ratio.F64[s*c+i]
			}
		}
		row(fmt.Sprintf("pca cumulative PC1..%d", k), []int{n}, cum)
	}
}

func column(v []float64, c, k int) []float64 {
	out := make([]float64, 0, len(v)/c)
	for i := k; i < len(v); i += c {
		out = append(out, v[i])
	}
	return out
}

// renderPCA draws pca.png: the mean explained-variance ratio by component
// above its cumulative sum.
func renderPCA(p *latent.PCA) (image.Image, error) {
	ratio, cum := p.MeanRatio()
	x := make([]float64, len(ratio))
	for i := range x {
		x[i] = float64(i + 1)
	}
	top, err := formats.RenderLinePlot(formats.LinePlot{X: x, Y: ratio, Title: fmt.Sprintf("PCA explained-variance ratio, mean of %d", p.Ratio.Shape[0]),
		XLabel: "component", YLabel: "ratio"})
	if err != nil {
		return nil, err
	}
	bottom, err := formats.RenderLinePlot(formats.LinePlot{X: x, Y: cum, Title: "PCA cumulative explained-variance ratio", XLabel: "component", YLabel: "cumulative ratio"})
	if err != nil {
		return nil, err
	}
	tb, bb := top.Bounds(), bottom.Bounds()
	img := image.NewRGBA(image.Rect(0, 0, max(tb.Dx(), bb.Dx()), tb.Dy()+bb.Dy()))
	draw.Draw(img, tb.Sub(tb.Min), top, tb.Min, draw.Src)
	draw.Draw(img, bb.Sub(bb.Min).Add(image.Pt(0, tb.Dy())), bottom, bb.Min, draw.Src)
	return img, nil
}

// maxSpectraPanels is how many channels spectra.png shows.
const maxSpectraPanels = 16

// writeSpectraPNG draws spectra.png: one log-log panel per channel (the
// first 16) of the radial spectrum averaged over samples, in a grid.
func writeSpectraPNG(w io.Writer, s *latent.Spectra) error {
	n := min(s.Spatial.Shape[1], maxSpectraPanels)
	cols := int(math.Ceil(math.Sqrt(float64(n))))
	rows := (n + cols - 1) / cols
	var grid *image.RGBA
	for c := range n {
		p := s.ChannelMean(c)
		var xs, ys []float64
		for k := 1; k < len(p); k++ {
			xs, ys = append(xs, s.Radius[k]), append(ys, p[k])
		}
		img, err := formats.RenderLinePlot(formats.LinePlot{X: xs, Y: ys, LogX: true, LogY: true,
			Title:  fmt.Sprintf("channel %d: radial power, mean of %d (slope %s)", c, s.Spatial.Shape[0], g4(s.SpatialSlope.F64[c])),
			XLabel: "k (cycles per frame side)", YLabel: "power"})
		if err != nil {
			return err
		}
		b := img.Bounds()
		if grid == nil {
			grid = image.NewRGBA(image.Rect(0, 0, cols*b.Dx(), rows*b.Dy()))
		}
		at := image.Pt((c%cols)*b.Dx(), (c/cols)*b.Dy())
		draw.Draw(grid, b.Add(at), img, b.Min, draw.Src)
	}
	// Default rather than formats.EncodePNG's best compression: on a grid
	// of 16 panels (4.3 megapixels) best takes about a second, default a
	// fraction of that for a file a little larger.
	return (&png.Encoder{CompressionLevel: png.DefaultCompression}).Encode(w, grid)
}
