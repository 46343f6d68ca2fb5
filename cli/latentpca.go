package cli

import (
	"context"
	"fmt"
	"image"
	"image/draw"
	"io"
	"math"

	"github.com/vkstat/vkstat/engine"
	"github.com/vkstat/vkstat/formats"
	"github.com/vkstat/vkstat/pipelines/latent"
	"github.com/vkstat/vkstat/tensor"
)

// runLatentStats runs latent.Run for what req asks (if anything) and, with
// pca, latent.RunPCA on the same device, merging the PCA's notes and timing
// into the result.
func runLatentStats(ctx context.Context, dev *engine.Device, x *tensor.Tensor, req latent.Request, pca bool) (*latent.Result, *latent.PCA, error) {
	res := &latent.Result{}
	if req.Moments || req.Corr || req.CorrFrames || req.LagCorr {
		var err error
		if res, err = latent.Run(ctx, dev, x, req); err != nil {
			return nil, nil, err
		}
	}
	if !pca {
		return res, nil, nil
	}
	p, err := latent.RunPCA(ctx, dev, x, req.NaN)
	if err != nil {
		return nil, nil, err
	}
	res.NaNs, res.Infs = p.NaNs, p.Infs
	res.Timing.Add(p.Timing)
	for _, n := range p.Notes {
		res.Notes = append(res.Notes, "pca: "+n)
	}
	return res, p, nil
}

// pcaArrays are the PCA's outputs, written as pca_values.npy,
// pca_ratio.npy and pca_vectors.npy.
func pcaArrays(p *latent.PCA) []namedArray {
	if p == nil {
		return nil
	}
	return []namedArray{{"pca_values", p.Values}, {"pca_ratio", p.Ratio}, {"pca_vectors", p.Vectors}}
}

// pcaMeans are the explained-variance ratio of each component and its
// cumulative sum, averaged over the samples that have them.
func pcaMeans(p *latent.PCA, n, c int) (ratio, cum []float64) {
	ratio, cum = make([]float64, c), make([]float64, c)
	k := 0
	for s := range n {
		r := p.Ratio.F64[s*c : (s+1)*c]
		if math.IsNaN(r[0]) {
			continue
		}
		k++
		acc := 0.0
		for i, v := range r {
			acc += v
			ratio[i] += v
			cum[i] += acc
		}
	}
	for i := range c {
		if k == 0 {
			ratio[i], cum[i] = math.NaN(), math.NaN()
		} else {
			ratio[i] /= float64(k)
			cum[i] /= float64(k)
		}
	}
	return ratio, cum
}

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

// pcaSummary is summary.json's "pca": shapes and the mean ratio and
// cumulative ratio by component.
func pcaSummary(p *latent.PCA, n, c int) map[string]any {
	ratio, cum := pcaMeans(p, n, c)
	return map[string]any{"shape": p.Values.Shape, "features": "channels", "observations": "frames × pixels", "ddof": 1,
		"mean_ratio": jsonNums(ratio), "mean_cumulative": jsonNums(cum)}
}

// renderPCA draws pca.png: the mean explained-variance ratio by component
// above its cumulative sum.
func renderPCA(p *latent.PCA, n, c int) (image.Image, error) {
	ratio, cum := pcaMeans(p, n, c)
	x := make([]float64, c)
	for i := range x {
		x[i] = float64(i + 1)
	}
	top, err := formats.RenderLinePlot(formats.LinePlot{X: x, Y: ratio, Title: fmt.Sprintf("PCA explained-variance ratio, mean of %d", n),
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

// addPCAPlot queues pca.png.
func addPCAPlot(add func(string, func(io.Writer) error), p *latent.PCA, n, c int) {
	if p == nil {
		return
	}
	add("pca.png", func(w io.Writer) error {
		img, err := renderPCA(p, n, c)
		if err != nil {
			return err
		}
		return formats.EncodePNG(w, img)
	})
}
