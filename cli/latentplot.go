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
