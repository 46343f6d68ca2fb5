package cli

import (
	"context"
	"fmt"
	"image"
	"image/draw"
	"image/png"
	"io"
	"math"
	"slices"

	"github.com/vkstat/vkstat/engine"
	"github.com/vkstat/vkstat/formats"
	"github.com/vkstat/vkstat/pipelines/latent"
	"github.com/vkstat/vkstat/pipelines/spectra"
	"github.com/vkstat/vkstat/tensor"
)

// latentSpectra holds vkstat latent --stat spectra's results
// (docs/latent.md, "Spectra"): per sample and channel, the radially
// averaged spatial power spectrum averaged over frames, the temporal
// spectrum averaged over pixels, their centroids and high-frequency
// fractions, and per channel the fitted spatial slope.
type latentSpectra struct {
	d        latent.Dims
	arrays   []namedArray
	spatial  *tensor.Tensor // (N, C, K)
	radius   []float64      // (K): the bins' mean radius
	slope    *tensor.Tensor // (C)
	notes    []string
	timing   engine.Timing
	temporal bool
	// leftSpatial and leftTemporal count the (sample, channel) pairs left
	// without a finite frame or pixel series (under skip).
	leftSpatial, leftTemporal int
}

// latentSpectraBatch computes the spectra of x (a batch of samples, or all
// of them) on dev (nil: the CPU path): everything but the per-channel
// slope and the notes, which finish adds once the batches are joined
// (mergeSpectra). A frame (for the spatial spectrum) or a pixel's series
// (for the temporal one) holding a NaN or ±Inf makes its (sample, channel)
// NaN under propagate, and is left out of the averages under skip.
func latentSpectraBatch(ctx context.Context, dev *engine.Device, x *tensor.Tensor, policy latent.NaNPolicy) (*latentSpectra, error) {
	d, err := latent.DimsOf(x.Shape)
	if err != nil {
		return nil, err
	}
	if d.H < 2 || d.W < 2 {
		return nil, fmt.Errorf("spectra: frames of %d×%d pixels have no spatial spectrum (want H, W ≥ 2)", d.H, d.W)
	}
	opt := spectra.Options{Device: dev, Double: x.DType == tensor.F64}
	hw, nc := d.H*d.W, d.N*d.C
	// The spectra take x as stored: on a device the frames and each
	// pixel's series are centred and packed there (the series transposed
	// there too), and summed over each (sample, channel)'s frames and
	// pixels there; frames and series holding a NaN or ±Inf are left out
	// of the sums and counted (a NaN spoils its own frame and its own
	// pixel's series only).
	out := &latentSpectra{d: d}
	sp, tm, err := spectra.SpatialGroupsOf(ctx, x, nc, d.F, d.H, d.W, opt)
	if err != nil {
		return nil, err
	}
	out.timing.Add(tm)
	k := sp.K
	out.radius = sp.Radius
	out.spatial = tensor.New(tensor.F64, d.N, d.C, k)
	cen, hi := tensor.New(tensor.F64, d.N, d.C), tensor.New(tensor.F64, d.N, d.C)
	out.leftSpatial = averageGroups(k, sp.Radial, sp.Total, sp.NuSum, sp.HighSum, sp.Good, sp.Bad, policy == latent.Propagate,
		out.spatial.F64, cen.F64, hi.F64)
	out.arrays = append(out.arrays, namedArray{"spatial_spectrum", out.spatial}, namedArray{"spatial_centroid", cen},
		namedArray{"spatial_highfrac", hi})

	if d.F < 2 {
		return out, nil
	}
	out.temporal = true
	ts, tm, err := spectra.TemporalGroupsOf(ctx, x, nc, d.F, hw, opt)
	if err != nil {
		return nil, err
	}
	out.timing.Add(tm)
	kt := ts.K
	tspec := tensor.New(tensor.F64, d.N, d.C, kt)
	tcen, thi := tensor.New(tensor.F64, d.N, d.C), tensor.New(tensor.F64, d.N, d.C)
	out.leftTemporal = averageGroups(kt, ts.Spectrum, ts.Total, ts.NuSum, ts.HighSum, ts.Good, ts.Bad, policy == latent.Propagate,
		tspec.F64, tcen.F64, thi.F64)
	out.arrays = append(out.arrays, namedArray{"temporal_spectrum", tspec}, namedArray{"temporal_centroid", tcen},
		namedArray{"temporal_highfrac", thi})
	return out, nil
}

// finish adds what needs every sample: each channel's slope of the radial
// spectrum averaged over samples (spatial_slope, after spatial_highfrac)
// and the notes.
func (s *latentSpectra) finish() {
	d := s.d
	s.slope = tensor.New(tensor.F64, d.C)
	for c := range d.C {
		s.slope.F64[c] = radialSlope(s.radius, channelMean(s.spatial, d, c))
	}
	s.arrays = slices.Insert(s.arrays, 3, namedArray{"spatial_slope", s.slope})
	if s.leftSpatial > 0 {
		s.notes = append(s.notes, fmt.Sprintf("spectra: %d (sample, channel) pairs have no finite frame: NaN spatial spectra", s.leftSpatial))
	}
	if !s.temporal {
		s.notes = append(s.notes, "spectra: one frame, so no temporal spectrum")
	} else if s.leftTemporal > 0 {
		s.notes = append(s.notes, fmt.Sprintf("spectra: %d (sample, channel) pairs have no finite pixel series: NaN temporal spectra", s.leftTemporal))
	}
}

// mergeSpectra joins batches' spectra (from latentSpectraBatch, in sample
// order) along the sample axis; finish is still to be called.
func mergeSpectra(parts []*latentSpectra) *latentSpectra {
	if len(parts) == 1 {
		return parts[0]
	}
	out := *parts[0]
	out.arrays = nil
	out.timing = engine.Timing{}
	out.leftSpatial, out.leftTemporal = 0, 0
	out.d.N = 0
	for _, p := range parts {
		out.d.N += p.d.N
		out.timing.Add(p.timing)
		out.leftSpatial += p.leftSpatial
		out.leftTemporal += p.leftTemporal
	}
	for i, a := range parts[0].arrays {
		ts := make([]*tensor.Tensor, len(parts))
		for k, p := range parts {
			ts[k] = p.arrays[i].t
		}
		out.arrays = append(out.arrays, namedArray{a.name, concatSamples(ts)})
	}
	out.spatial = out.arrays[0].t
	return &out
}

// averageGroups averages each group's summed k-bin spectra (sum, from
// spectra.SpatialGroupsOf or TemporalGroupsOf: sums over its good
// members) over its good members into avg, and gives each group its
// centroid (Σ nuSum / Σ total) and high-frequency fraction (Σ highSum /
// Σ total). A group with no good member, or with propagate any bad one, is
// NaN; it returns how many groups were left without a good member while
// skipping.
func averageGroups(k int, sum, total, nuSum, highSum []float64, good, bad []int, propagate bool, avg, cen, hi []float64) (left int) {
	for i := range good {
		acc := avg[i*k : (i+1)*k]
		if good[i] == 0 || (bad[i] > 0 && propagate) {
			for r := range acc {
				acc[r] = math.NaN()
			}
			cen[i], hi[i] = math.NaN(), math.NaN()
			if bad[i] > 0 && !propagate {
				left++
			}
			continue
		}
		for r := range acc {
			acc[r] = sum[i*k+r] / float64(good[i])
		}
		cen[i], hi[i] = ratioOrNaN(nuSum[i], total[i]), ratioOrNaN(highSum[i], total[i])
	}
	return left
}

func ratioOrNaN(a, b float64) float64 {
	if b > 0 {
		return a / b
	}
	return math.NaN()
}

// channelMean is channel c's radial spectrum averaged over samples (NaN
// samples left out; NaN where all are).
func channelMean(t *tensor.Tensor, d latent.Dims, c int) []float64 {
	k := t.Shape[2]
	out := make([]float64, k)
	for r := range k {
		s, m := 0.0, 0
		for n := range d.N {
			if v := t.F64[(n*d.C+c)*k+r]; !math.IsNaN(v) {
				s += v
				m++
			}
		}
		out[r] = math.NaN()
		if m > 0 {
			out[r] = s / float64(m)
		}
	}
	return out
}

// radialSlope is the least-squares slope of log P against the log of the
// bins' mean radius over the radial bins k = 1 … K−1 with P > 0 (NaN with
// fewer than two).
func radialSlope(radius, p []float64) float64 {
	var sx, sy, sxx, sxy, m float64
	for k := 1; k < len(p); k++ {
		if !(p[k] > 0) || math.IsInf(p[k], 0) {
			continue
		}
		lx, ly := math.Log(radius[k]), math.Log(p[k])
		sx, sy, sxx, sxy, m = sx+lx, sy+ly, sxx+lx*lx, sxy+lx*ly, m+1
	}
	if m < 2 {
		return math.NaN()
	}
	return (m*sxy - sx*sy) / (m*sxx - sx*sx)
}

// maxSpectraPanels is how many channels spectra.png shows.
const maxSpectraPanels = 16

// writePNG draws spectra.png: one log-log panel per channel (the first 16)
// of the radial spectrum averaged over samples, in a grid.
func (s *latentSpectra) writePNG(w io.Writer) error {
	n := min(s.d.C, maxSpectraPanels)
	cols := int(math.Ceil(math.Sqrt(float64(n))))
	rows := (n + cols - 1) / cols
	var grid *image.RGBA
	for c := range n {
		p := channelMean(s.spatial, s.d, c)
		var xs, ys []float64
		for k := 1; k < len(p); k++ {
			xs, ys = append(xs, s.radius[k]), append(ys, p[k])
		}
		img, err := formats.RenderLinePlot(formats.LinePlot{X: xs, Y: ys, LogX: true, LogY: true,
			Title:  fmt.Sprintf("channel %d: radial power, mean of %d (slope %s)", c, s.d.N, g4(s.slope.F64[c])),
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

// summary is summary.json's "spectra" entry.
func (s *latentSpectra) summary() map[string]any {
	out := map[string]any{
		"conventions": "P = |FFT2(x - mean)|^2/(H*W)^2 per frame; radial bin k = round(min(H,W)*|f|), f in cycles per pixel (numpy fftfreq); " +
			"temporal one-sided, summing to the variance; centroid in cycles per sample; highfrac = energy above 1/4 cycle per sample",
		"spatial_slope_by_channel": jsonNums(s.slope.F64),
		"radial_bins":              s.spatial.Shape[2],
		"radial_bin_mean_radius":   jsonNums(s.radius),
	}
	for _, a := range s.arrays {
		out[a.name] = map[string]any{"shape": a.t.Shape, "spread": jsonSpread(a.t.F64)}
	}
	return out
}
