// Package spectra computes power spectra of batched data: the 2-D power
// spectrum of every (H, W) frame of a (B, H, W) batch, radially averaged,
// and the 1-D power spectrum of every series of a (B, F) batch, with two
// summaries of each (spectral centroid and high-frequency energy fraction).
//
// Conventions (docs/latent.md, "Spectra"):
//
//   - P[b, ky, kx] = |Σ_{y,x} (x[b,y,x] − m_b) e^{−2πi(ky·y/H + kx·x/W)}|² / (H·W)²
//     with m_b the frame's mean, so Σ_k P = the frame's (population) variance.
//   - Frequencies follow NumPy's fftfreq: index ky stands for ky/H cycles per
//     pixel for ky < H/2 … wrapped to negative above. The radius of a bin is
//     r = M·√(fy² + fx²) with M = min(H, W) (integer wavenumbers on a square
//     frame), and radial bin k holds the frequencies with round(r) = k
//     (k − ½ ≤ r < k + ½), k = 0 … M/2; the corners past M/2 + ½ belong to
//     no radial bin. The radial spectrum is the mean of P over a bin's
//     frequencies.
//   - The temporal spectrum of a series of F frames is one-sided:
//     S[f] = c_f·|X_f|²/F², f = 0 … F/2, with c_f = 2 except at f = 0 and,
//     for even F, f = F/2 (c = 1), so Σ_f S = the series' variance
//     (scipy.signal.periodogram with scaling='spectrum', window 'boxcar').
//   - Centroid: Σ ν·P / Σ P in cycles per sample (per pixel: ν = √(fy²+fx²)
//     over every frequency of the 2-D spectrum; per frame: ν = f/F); high-
//     frequency fraction: Σ_{ν > 1/4} P / Σ P, the energy above half the
//     Nyquist frequency (1/2 cycle per sample). Both NaN when Σ P = 0.
//
// The transforms run on the CPU in float64 (fft.go's power-of-two FFT, for
// frames of power-of-two sides and series of a power-of-two length,
// cpupow2.go; gonum's dsp/fourier for other sizes, cpu.go) or on a Vulkan
// device through VkFFT (device/vkfft; float32, or float64 where the
// device has shaderFloat64), where shaders/spectra_bins.comp reduces the
// spectra to the radial bins and sums and shaders/spectra_groups.comp adds
// those over groups of consecutive transforms in the same submission, and
// only the groups' sums are downloaded (vulkan.go, bins.go).
// spatialGroupsOf and temporalGroupsOf (groups.go) take a batch as stored:
// on a device shaders/spectra_pack.comp centres (and, for series,
// transposes) and packs it for VkFFT in that submission too (pack.go);
// the CPU path adds each transform into its group as it goes. The
// per-transform entry points (SpatialSpectra, TemporalSpectra and their
// …Of forms) are groups of one. Reference recomputes
// everything with plain O(n²) DFT loops, sharing no code with any of them.
package spectra

import (
	"context"
	"fmt"
	"math"

	"github.com/vkstat/vkstat/engine"
	"github.com/vkstat/vkstat/tensor"
)

// Result holds what Run computed: Spatial for a batch of frames, Temporal
// for a batch of series, SpatialGroups and TemporalGroups for groups of
// frames, with what the call cost.
type Result struct {
	Spatial        *Spatial
	Temporal       *Temporal
	SpatialGroups  *SpatialGroups
	TemporalGroups *TemporalGroups
	Timing         engine.Timing
}

// Run returns the power spectra and their summaries of x on dev, or on the
// CPU when dev is nil (dev replaces opt.Device), x as stored (float32,
// float64, float16 or bfloat16): the radially averaged spectrum of each
// frame of a (B, H, W) x, or the one-sided spectrum of each series of a
// (B, F) x; a frame or series holding a NaN or ±Inf comes out all NaN.
// For a (G, F, H, W) x (a latent's (N·C, F, H, W)), the sums over each of
// the G groups (spatialGroupsOf, temporalGroupsOf): SpatialGroups of the
// radial spectra of its F frames and, for F ≥ 2, TemporalGroups of the
// spectra of its H·W pixels' series of F frames; frames and series holding
// a NaN or ±Inf are left out of the sums and counted.
func Run(ctx context.Context, dev *engine.Device, x *tensor.Tensor, opt Options) (*Result, error) {
	if x == nil {
		return nil, fmt.Errorf("spectra: nil tensor")
	}
	opt.Device = dev
	m := engine.Begin(dev)
	res := &Result{}
	var err error
	switch s := x.Shape; len(s) {
	case 3:
		var g *SpatialGroups
		if g, res.Timing, err = spatialGroupsOf(ctx, x, s[0], 1, s[1], s[2], opt); err == nil {
			res.Spatial = g.spatial(true)
		}
	case 2:
		var g *TemporalGroups
		if g, res.Timing, err = temporalGroupsOf(ctx, x, s[0], s[1], 1, opt); err == nil {
			res.Temporal = g.temporal(true)
		}
	case 4:
		if res.SpatialGroups, res.Timing, err = spatialGroupsOf(ctx, x, s[0], s[1], s[2], s[3], opt); err == nil && s[1] >= 2 {
			var tm engine.Timing
			res.TemporalGroups, tm, err = temporalGroupsOf(ctx, x, s[0], s[1], s[2]*s[3], opt)
			res.Timing.Add(tm)
		}
	default:
		err = fmt.Errorf("spectra: x has shape %s (want (B, H, W) frames, (B, F) series or (G, F, H, W) groups of frames)", tensor.ShapeString(s))
	}
	if err != nil {
		return nil, err
	}
	m.End(&res.Timing)
	return res, nil
}

// Spatial is the radially averaged 2-D power spectrum of B frames.
type Spatial struct {
	B, H, W, K int
	// Radial is (B, K): the mean of P over the frequencies of each bin.
	Radial []float64
	// Count is (K): how many frequencies each bin holds, and Radius (K)
	// their mean radius M·|f| (the abscissa to fit a power law against:
	// bin 1, say, holds radius 1 and √2).
	Count  []int
	Radius []float64
	// Total, NuSum and HighSum are (B): Σ P, Σ ν·P and Σ_{ν>1/4} P over
	// every frequency of each frame (sums, so frames can be pooled).
	Total, NuSum, HighSum []float64
}

// Temporal is the one-sided power spectrum of B series of F frames.
type Temporal struct {
	B, F, K int // K = F/2 + 1
	// Spectrum is (B, K).
	Spectrum []float64
	// Total, NuSum and HighSum are (B), as for Spatial.
	Total, NuSum, HighSum []float64
}

// Bins is the number of radial bins of an H×W frame: min(H, W)/2 + 1.
func Bins(h, w int) int { return min(h, w)/2 + 1 }

// fftfreq is NumPy's fftfreq(n)[i]: i/n for i < (n+1)/2, (i−n)/n after.
func fftfreq(i, n int) float64 {
	if i < (n+1)/2 {
		return float64(i) / float64(n)
	}
	return float64(i-n) / float64(n)
}

// Centroid returns NuSum/Total per item (NaN where Total is 0).
func Centroid(nuSum, total []float64) []float64 { return ratio(nuSum, total) }

// HighFraction returns HighSum/Total per item (NaN where Total is 0).
func HighFraction(highSum, total []float64) []float64 { return ratio(highSum, total) }

func ratio(a, b []float64) []float64 {
	out := make([]float64, len(a))
	for i := range a {
		if b[i] > 0 {
			out[i] = a[i] / b[i]
		} else {
			out[i] = math.NaN()
		}
	}
	return out
}

// radialTable fills count and radius (K each) for frames of h×w and calls
// each for every frequency j = ky·W + kx of the full spectrum with its
// radial bin (−1 for none) and its frequency ν = √(fy² + fx²): the one
// binning of the host, which the device's tables (spatialTable) and the
// CPU path take.
func radialTable(h, w, k int, count []int, radius []float64, each func(j, r int, nu float64)) {
	m := float64(min(h, w))
	for y := 0; y < h; y++ {
		fy := fftfreq(y, h)
		for x := 0; x < w; x++ {
			fx := fftfreq(x, w)
			v := math.Hypot(fy, fx)
			r := int(math.Floor(m*v + 0.5))
			if r >= k {
				r = -1
			} else {
				count[r]++
				radius[r] += m * v
			}
			each(y*w+x, r, v)
		}
	}
	for r, n := range count {
		if n > 0 {
			radius[r] /= float64(n)
		}
	}
}

// spatial is s as per-frame spectra where each group is one frame (G = B),
// a frame holding a NaN or ±Inf all NaN when nanBad, else zeros.
func (s *SpatialGroups) spatial(nanBad bool) *Spatial {
	out := &Spatial{B: s.G, H: s.H, W: s.W, K: s.K, Radial: s.Radial, Count: s.Count, Radius: s.Radius,
		Total: s.Total, NuSum: s.NuSum, HighSum: s.HighSum}
	if nanBad {
		for i, n := range s.Bad {
			if n > 0 {
				fillNaN(out.Radial[i*s.K:(i+1)*s.K], out.Total[i:i+1], out.NuSum[i:i+1], out.HighSum[i:i+1])
			}
		}
	}
	return out
}

// temporal is t as per-series spectra where each group is one series, as
// for SpatialGroups.spatial.
func (t *TemporalGroups) temporal(nanBad bool) *Temporal {
	out := &Temporal{B: t.G, F: t.F, K: t.K, Spectrum: t.Spectrum, Total: t.Total, NuSum: t.NuSum, HighSum: t.HighSum}
	if nanBad {
		for i, n := range t.Bad {
			if n > 0 {
				fillNaN(out.Spectrum[i*t.K:(i+1)*t.K], out.Total[i:i+1], out.NuSum[i:i+1], out.HighSum[i:i+1])
			}
		}
	}
	return out
}

func fillNaN(vs ...[]float64) {
	for _, v := range vs {
		for i := range v {
			v[i] = math.NaN()
		}
	}
}

// badOf is which groups of one member (frames or series) were left out.
func badOf(bad []int) []bool {
	out := make([]bool, len(bad))
	for i, n := range bad {
		out[i] = n > 0
	}
	return out
}
