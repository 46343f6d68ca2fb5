package latent

import (
	"math"

	"github.com/vkstat/vkstat/tensor"
)

// Named is one of a result's arrays with its name.
type Named struct {
	Name string
	T    *tensor.Tensor
}

// Arrays lists the result's arrays in a fixed order, under the names
// vkstat latent gives its files: mean, var, std, min, max, skew, kurt;
// corr, corr_frames, frame_corr, lagcorr; pca_values, pca_ratio,
// pca_vectors; spatial_spectrum, spatial_centroid, spatial_highfrac,
// spatial_slope, temporal_spectrum, temporal_centroid, temporal_highfrac
// (those computed).
func (r *Result) Arrays() []Named {
	var out []Named
	add := func(a ...Named) {
		for _, n := range a {
			if n.T != nil {
				out = append(out, n)
			}
		}
	}
	if m := r.Moments; m != nil {
		add(Named{"mean", m.Mean}, Named{"var", m.Var}, Named{"std", m.Std}, Named{"min", m.Min}, Named{"max", m.Max},
			Named{"skew", m.Skew}, Named{"kurt", m.Kurt})
	}
	add(Named{"corr", r.Corr}, Named{"corr_frames", r.CorrFrames}, Named{"frame_corr", r.FrameCorr}, Named{"lagcorr", r.LagCorr})
	if p := r.PCA; p != nil {
		add(Named{"pca_values", p.Values}, Named{"pca_ratio", p.Ratio}, Named{"pca_vectors", p.Vectors})
	}
	if s := r.Spectra; s != nil {
		add(Named{"spatial_spectrum", s.Spatial}, Named{"spatial_centroid", s.SpatialCentroid}, Named{"spatial_highfrac", s.SpatialHighFrac},
			Named{"spatial_slope", s.SpatialSlope}, Named{"temporal_spectrum", s.Temporal}, Named{"temporal_centroid", s.TemporalCentroid},
			Named{"temporal_highfrac", s.TemporalHighFrac})
	}
	return out
}

// MeanCorr is the channel correlation matrix averaged over the samples,
// (C, C), NaNs left out (NaN where every sample's entry is NaN); nil
// without Corr.
func (r *Result) MeanCorr() *tensor.Tensor {
	if r.Corr == nil {
		return nil
	}
	c := r.Corr.Shape[1]
	out := tensor.New(tensor.F64, c, c)
	for i := range out.F64 {
		out.F64[i] = nanMean(r.Corr.F64, i, c*c)
	}
	return out
}

// LagMeans is the lagged correlation at lags 1 … L averaged over the
// samples and channels, NaNs left out (NaN where all are); nil without
// LagCorr.
func (r *Result) LagMeans() []float64 {
	if r.LagCorr == nil {
		return nil
	}
	out := make([]float64, r.LagCorr.Shape[2])
	for l := range out {
		out[l] = nanMean(r.LagCorr.F64, l, len(out))
	}
	return out
}

// nanMean is the mean of v[start], v[start+stride], … that are not NaN
// (NaN where all are).
func nanMean(v []float64, start, stride int) float64 {
	s, k := 0.0, 0
	for i := start; i < len(v); i += stride {
		if !math.IsNaN(v[i]) {
			s += v[i]
			k++
		}
	}
	if k == 0 {
		return math.NaN()
	}
	return s / float64(k)
}

// MeanRatio is the explained-variance ratio of each component and its
// cumulative sum, averaged over the samples that have them (NaN where
// none does).
func (p *PCA) MeanRatio() (ratio, cum []float64) {
	n, c := p.Ratio.Shape[0], p.Ratio.Shape[1]
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
