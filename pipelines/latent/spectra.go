package latent

import (
	"context"
	"fmt"
	"math"

	"github.com/vkstat/vkstat/engine"
	"github.com/vkstat/vkstat/pipelines/spectra"
	"github.com/vkstat/vkstat/tensor"
)

// Spectra are the power spectra of every sample and channel
// (docs/latent.md, "Spectra"; package spectra's conventions), in float64:
// each frame's radially averaged spatial power spectrum averaged over the
// frames, each pixel's one-sided temporal spectrum averaged over the
// pixels, their centroids and high-frequency fractions, and per channel
// the fitted log-log slope of the spatial spectrum.
//
// A frame (for the spatial spectrum) or a pixel's series (for the
// temporal one) holding a NaN or ±Inf makes its (sample, channel) NaN
// under Propagate, and is left out of the averages under Skip.
type Spectra struct {
	// Spatial (N, C, K): the radial spectrum, K = min(H, W)/2 + 1 bins;
	// Radius (K) is each bin's mean radius in cycles per frame side.
	Spatial *tensor.Tensor
	Radius  []float64
	// SpatialCentroid and SpatialHighFrac (N, C): the centroid in cycles
	// per pixel and the energy fraction above half Nyquist.
	SpatialCentroid, SpatialHighFrac *tensor.Tensor
	// SpatialSlope (N, C): the least-squares slope of log power against
	// log radius of each (sample, channel)'s radial spectrum, over the bins
	// 1 … K−1 with positive power (ChannelSlope: of the spectrum averaged
	// over the samples).
	SpatialSlope *tensor.Tensor
	// Temporal (N, C, F/2+1), TemporalCentroid and TemporalHighFrac
	// (N, C): the same over frames; nil with one frame.
	Temporal, TemporalCentroid, TemporalHighFrac *tensor.Tensor
	// Notes say which (sample, channel) pairs are NaN and why.
	Notes []string
	// Timing adds up the device runs (or the CPU's time).
	Timing engine.Timing
	// Plans count the VkFFT plans the spectra took on a device: built,
	// loaded from disk or reused, and the time making them took (part of
	// the wall time, none of the kernels').
	Plans spectra.PlanStats

	// leftSpatial and leftTemporal count the (sample, channel) pairs left
	// without a finite frame or pixel series (under Skip).
	leftSpatial, leftTemporal int
}

// spectraBatch computes the spectra of x (a batch of samples, or all of
// them) on dev (nil: the CPU path): everything but the per-channel slope
// and the notes, which finish adds once the batches are joined
// (mergeSpectra).
func spectraBatch(ctx context.Context, dev *engine.Device, x *tensor.Tensor, policy NaNPolicy) (*Spectra, error) {
	d, err := DimsOf(x.Shape)
	if err != nil {
		return nil, err
	}
	if d.H < 2 || d.W < 2 {
		return nil, fmt.Errorf("spectra: frames of %d×%d pixels have no spatial spectrum (want H, W ≥ 2)", d.H, d.W)
	}
	out := &Spectra{}
	opt := spectra.Options{Double: x.DType == tensor.F64, Plans: &out.Plans}
	// The spectra take x as stored, seen as (N·C, F, H, W) groups of
	// frames: on a device the frames and each pixel's series are centred
	// and packed there (the series transposed there too), and summed over
	// each (sample, channel)'s frames and pixels there; frames and series
	// holding a NaN or ±Inf are left out of the sums and counted (a NaN
	// spoils its own frame and its own pixel's series only).
	groups := &tensor.Tensor{Shape: []int{d.N * d.C, d.F, d.H, d.W}, DType: x.DType, F32: x.F32, F64: x.F64, U16: x.U16}
	r, err := spectra.Run(ctx, dev, groups, opt)
	if err != nil {
		return nil, err
	}
	out.Timing.Add(r.Timing)
	sp := r.SpatialGroups
	k := sp.K
	out.Radius = sp.Radius
	out.Spatial = tensor.New(tensor.F64, d.N, d.C, k)
	out.SpatialCentroid, out.SpatialHighFrac = tensor.New(tensor.F64, d.N, d.C), tensor.New(tensor.F64, d.N, d.C)
	out.leftSpatial = averageGroups(k, sp.Radial, sp.Total, sp.NuSum, sp.HighSum, sp.Good, sp.Bad, policy == Propagate,
		out.Spatial.F64, out.SpatialCentroid.F64, out.SpatialHighFrac.F64)
	ts := r.TemporalGroups
	if ts == nil { // one frame: no series
		return out, nil
	}
	kt := ts.K
	out.Temporal = tensor.New(tensor.F64, d.N, d.C, kt)
	out.TemporalCentroid, out.TemporalHighFrac = tensor.New(tensor.F64, d.N, d.C), tensor.New(tensor.F64, d.N, d.C)
	out.leftTemporal = averageGroups(kt, ts.Spectrum, ts.Total, ts.NuSum, ts.HighSum, ts.Good, ts.Bad, policy == Propagate,
		out.Temporal.F64, out.TemporalCentroid.F64, out.TemporalHighFrac.F64)
	return out, nil
}

// finish adds each (sample, channel)'s slope of the radial spectrum, and
// the notes.
func (s *Spectra) finish() {
	n, c, k := s.Spatial.Shape[0], s.Spatial.Shape[1], s.Spatial.Shape[2]
	s.SpatialSlope = tensor.New(tensor.F64, n, c)
	for i := range s.SpatialSlope.F64 {
		s.SpatialSlope.F64[i] = radialSlope(s.Radius, s.Spatial.F64[i*k:(i+1)*k])
	}
	if s.leftSpatial > 0 {
		s.Notes = append(s.Notes, fmt.Sprintf("spectra: %d (sample, channel) pairs have no finite frame: NaN spatial spectra", s.leftSpatial))
	}
	if s.Temporal == nil {
		s.Notes = append(s.Notes, "spectra: one frame, so no temporal spectrum")
	} else if s.leftTemporal > 0 {
		s.Notes = append(s.Notes, fmt.Sprintf("spectra: %d (sample, channel) pairs have no finite pixel series: NaN temporal spectra", s.leftTemporal))
	}
}

// mergeSpectra joins batches' spectra (from spectraBatch, in sample order)
// along the sample axis; finish is still to be called.
func mergeSpectra(parts []*Spectra) *Spectra {
	if len(parts) == 1 {
		return parts[0]
	}
	out := &Spectra{Radius: parts[0].Radius}
	for _, p := range parts {
		out.Timing.Add(p.Timing)
		out.Plans.Add(p.Plans)
		out.leftSpatial += p.leftSpatial
		out.leftTemporal += p.leftTemporal
	}
	out.Spatial = catSamples(parts, func(s *Spectra) *tensor.Tensor { return s.Spatial })
	out.SpatialCentroid = catSamples(parts, func(s *Spectra) *tensor.Tensor { return s.SpatialCentroid })
	out.SpatialHighFrac = catSamples(parts, func(s *Spectra) *tensor.Tensor { return s.SpatialHighFrac })
	out.Temporal = catSamples(parts, func(s *Spectra) *tensor.Tensor { return s.Temporal })
	out.TemporalCentroid = catSamples(parts, func(s *Spectra) *tensor.Tensor { return s.TemporalCentroid })
	out.TemporalHighFrac = catSamples(parts, func(s *Spectra) *tensor.Tensor { return s.TemporalHighFrac })
	return out
}

// averageGroups averages each group's summed k-bin spectra (sum, from
// spectra.Run's SpatialGroups or TemporalGroups: sums over its good
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

// ChannelMean is channel c's radial spectrum averaged over the samples
// (NaN samples left out; NaN where all are): K values, at Radius.
func (s *Spectra) ChannelMean(c int) []float64 {
	nc, k := s.Spatial.Shape[1], s.Spatial.Shape[2]
	out := make([]float64, k)
	for r := range out {
		out[r] = nanMean(s.Spatial.F64, c*k+r, nc*k)
	}
	return out
}

// ChannelSlope is channel c's slope of its radial spectrum averaged over
// the samples (ChannelMean), as radialSlope fits it.
func (s *Spectra) ChannelSlope(c int) float64 { return radialSlope(s.Radius, s.ChannelMean(c)) }

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
