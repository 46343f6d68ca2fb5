package latent

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/vkstat/vkstat/engine"
	"github.com/vkstat/vkstat/tensor"
)

// Partial is latent's state over a run of consecutive samples (a shard of
// a data set), which merges with the states of the other runs (Merge)
// into the state of all the samples, from which Finish gives what Run
// gives on all of them. The per-sample statistics (correlations, PCA,
// spectra, moments over axes without axis 0) are final and join along
// the samples; the moments over axes with axis 0 are kept as their
// float64 count, mean and central sums (Sums, merged with the pairwise
// updates of MergeMoments), and the spectra's per-channel slopes, which
// average over every sample, are computed by Finish only.
type Partial struct {
	// First is the index of the first sample in the whole data set.
	First int
	// Shape is the shape of the samples the partial holds; DType the type
	// the work was done in.
	Shape []int
	DType tensor.DType
	// Opt are the options it was computed with (defaults filled in).
	Opt Options
	// R holds the per-sample results: its Moments are nil where Sums hold
	// them; its Spectra are not finished.
	R    *Result
	Sums *MomentPart
	// Timing is what computing it cost (RunPartial).
	Timing engine.Timing
}

// RunPartial computes the Partial of src, whose first sample is sample
// src.First of the whole data set, on dev or on the CPU when dev is nil
// (as RunSource does).
func RunPartial(ctx context.Context, dev *engine.Device, src Source, opt Options) (*Partial, error) {
	if src.First < 0 {
		return nil, fmt.Errorf("latent: a partial from sample %d", src.First)
	}
	p, err := runSource(ctx, dev, src, opt, true)
	if err != nil {
		return nil, err
	}
	p.First, p.Timing = src.First, p.R.Timing
	return p, nil
}

// finish computes, in p.R, what needs all the samples: the moments from
// their sums, the notes on them, the spectra's slopes.
func (p *Partial) finish() error {
	out, opt := p.R, p.Opt
	if p.Sums != nil {
		m, err := MergeMoments([]MomentPart{*p.Sums}, opt.DDof, opt.NaN, p.DType, opt.Unbiased)
		if err != nil {
			return err
		}
		out.Moments = m
	}
	if opt.Moments {
		out.Notes = append(out.Notes, momentNotes(out.Moments, opt, MomentCount(p.Shape, opt.Axes))...)
	}
	if opt.Spectra {
		out.Spectra.finish()
		out.Timing.Add(out.Spectra.Timing)
		out.Notes = append(out.Notes, out.Spectra.Notes...)
	}
	return nil
}

// Finish returns the results of p's samples as RunSource gives them. It
// completes p.R in place: call it once, on a merged partial.
func (p *Partial) Finish() (*Result, error) {
	if err := p.finish(); err != nil {
		return nil, err
	}
	return p.R, nil
}

// sameRun reports why q was computed otherwise than p, or "".
func (p *Partial) sameRun(q *Partial) string {
	a, b := p.Opt, q.Opt
	switch {
	case p.DType != q.DType:
		return fmt.Sprintf("the work type (%s, %s)", p.DType, q.DType)
	case len(p.Shape) != len(q.Shape) || !slices.Equal(p.Shape[1:], q.Shape[1:]):
		return fmt.Sprintf("the sample shape (%s, %s)", tensor.ShapeString(p.Shape), tensor.ShapeString(q.Shape))
	case !slices.Equal(a.Stats(), b.Stats()):
		return fmt.Sprintf("the statistics (%v, %v)", a.Stats(), b.Stats())
	case a.Moments && !slices.Equal(a.Axes, b.Axes):
		return fmt.Sprintf("the moments' axes (%v, %v)", a.Axes, b.Axes)
	case a.DDof != b.DDof:
		return fmt.Sprintf("ddof (%d, %d)", a.DDof, b.DDof)
	case a.LagCorr && a.Lags != b.Lags:
		return fmt.Sprintf("lags (%d, %d)", a.Lags, b.Lags)
	case a.NaN != b.NaN:
		return fmt.Sprintf("the NaN policy (%s, %s)", a.NaN, b.NaN)
	case (p.Sums == nil) != (q.Sums == nil):
		return "whether the moments are kept as sums"
	}
	return ""
}

// Merge combines partials of consecutive runs of samples, given in any
// order, into the partial of them all. They must have been computed alike
// (statistics, axes, ddof, lags, NaN policy, work type and sample shape)
// and cover the samples from the first one's on without a gap or overlap.
func Merge(parts ...*Partial) (*Partial, error) {
	if len(parts) == 0 {
		return nil, fmt.Errorf("latent: no partial to merge")
	}
	ps := slices.Clone(parts)
	slices.SortStableFunc(ps, func(a, b *Partial) int { return a.First - b.First })
	f := ps[0]
	next := f.First
	var rs []*Result
	var pcas []*PCA
	var specs []*Spectra
	var sums []MomentPart
	var count []float64
	for _, p := range ps {
		if why := f.sameRun(p); why != "" {
			return nil, fmt.Errorf("latent: partials of samples from %d and from %d differ in %s", f.First, p.First, why)
		}
		if p.First != next {
			return nil, fmt.Errorf("latent: partials cover samples up to %d, then from %d: each sample must be in exactly one", next, p.First)
		}
		next += p.Shape[0]
		r := *p.R // its notes number the samples of the whole data set
		if r.PCA != nil {
			pcas = append(pcas, r.PCA)
		}
		rs = append(rs, &r)
		if r.Spectra != nil {
			specs = append(specs, r.Spectra)
		}
		if p.Sums != nil {
			sums = append(sums, *p.Sums)
			if count == nil {
				count = make([]float64, len(p.Sums.Count))
			}
			for i, c := range p.Sums.Count {
				count[i] += c
			}
		}
	}
	out := joinResults(rs)
	out.PCA = joinPCA(pcas)
	if specs != nil {
		out.Spectra = mergeSpectra(specs)
	}
	m := &Partial{First: f.First, Shape: append([]int{next - f.First}, f.Shape[1:]...), DType: f.DType, Opt: f.Opt, R: out}
	if sums != nil {
		mm, err := MergeMoments(sums, 0, f.Opt.NaN, tensor.F64, false)
		if err != nil {
			return nil, err
		}
		m.Sums = &MomentPart{M: mm, Count: count}
	}
	return m, nil
}

// PartialFacts are what a Partial holds besides its arrays (Store), for a
// file: with the arrays, RestorePartial makes the Partial again.
type PartialFacts struct {
	First int   `json:"first"`
	Shape []int `json:"shape"`
	// DType is the type the work was done in.
	DType   string         `json:"dtype"`
	Options PartialOptions `json:"options"`
	NaNs    int            `json:"nans"`
	Infs    int            `json:"infs"`
	Notes   []string       `json:"notes"`
	// PCANotes and SpectraNotes are the PCA's and the spectra's own.
	PCANotes     []string `json:"pca_notes,omitempty"`
	SpectraNotes []string `json:"spectra_notes,omitempty"`
	// Radius and the counts of (sample, channel) pairs left without a
	// spectrum are the spectra's.
	Radius       []float64 `json:"radius,omitempty"`
	LeftSpatial  int       `json:"left_spatial,omitempty"`
	LeftTemporal int       `json:"left_temporal,omitempty"`
	// MomentAxes are the moments' reduced axes.
	MomentAxes []int `json:"moment_axes,omitempty"`
}

// PartialOptions are the Options a Partial was computed with, as a file
// keeps them.
type PartialOptions struct {
	Moments    bool   `json:"moments"`
	Axes       []int  `json:"axes"`
	DDof       int    `json:"ddof"`
	Corr       bool   `json:"corr"`
	CorrFrames bool   `json:"corr_frames"`
	LagCorr    bool   `json:"lag_corr"`
	Lags       int    `json:"lags"`
	PCA        bool   `json:"pca"`
	Spectra    bool   `json:"spectra"`
	NaN        string `json:"nan"`
}

// facts are o as a file keeps them.
func (o Options) facts() PartialOptions {
	return PartialOptions{Moments: o.Moments, Axes: o.Axes, DDof: o.DDof, Corr: o.Corr, CorrFrames: o.CorrFrames,
		LagCorr: o.LagCorr, Lags: o.Lags, PCA: o.PCA, Spectra: o.Spectra, NaN: o.NaN.String()}
}

// sumsPrefix names the arrays of the moment sums.
const sumsPrefix = "sums."

// Store is p as facts and arrays by name: the results' (Result.Arrays'
// names) and the moment sums' ("sums." and the moment, "sums.count").
func (p *Partial) Store() (PartialFacts, map[string]*tensor.Tensor) {
	o := p.Opt
	f := PartialFacts{First: p.First, Shape: p.Shape, DType: p.DType.String(), NaNs: p.R.NaNs, Infs: p.R.Infs, Notes: p.R.Notes,
		Options: o.facts()}
	arrays := map[string]*tensor.Tensor{}
	for _, a := range p.R.Arrays() {
		arrays[a.Name] = a.T
	}
	if m := p.R.Moments; m != nil {
		f.MomentAxes = m.Axes
	}
	if pc := p.R.PCA; pc != nil {
		f.PCANotes = pc.Notes
	}
	if s := p.R.Spectra; s != nil {
		f.Radius, f.LeftSpatial, f.LeftTemporal, f.SpectraNotes = s.Radius, s.leftSpatial, s.leftTemporal, s.Notes
	}
	if p.Sums != nil {
		m := p.Sums.M
		f.MomentAxes = m.Axes
		for _, a := range momentArrays(m) {
			arrays[sumsPrefix+a.Name] = a.T
		}
		arrays[sumsPrefix+"count"] = tensor.FromF64(p.Sums.Count, m.Shape...)
	}
	return f, arrays
}

// momentArrays names m's arrays as Result.Arrays does.
func momentArrays(m *Moments) []Named {
	return []Named{{"mean", m.Mean}, {"var", m.Var}, {"std", m.Std}, {"min", m.Min}, {"max", m.Max}, {"skew", m.Skew}, {"kurt", m.Kurt}}
}

// RestorePartial makes the Partial that Store gave f and arrays for.
func RestorePartial(f PartialFacts, arrays map[string]*tensor.Tensor) (*Partial, error) {
	dt, err := tensor.ParseDType(f.DType)
	if err != nil {
		return nil, fmt.Errorf("latent: partial: %w", err)
	}
	policy, err := ParseNaNPolicy(f.Options.NaN)
	if err != nil {
		return nil, fmt.Errorf("latent: partial: %w", err)
	}
	o := f.Options
	opt := Options{Moments: o.Moments, Axes: o.Axes, DDof: o.DDof, Corr: o.Corr, CorrFrames: o.CorrFrames, LagCorr: o.LagCorr,
		Lags: o.Lags, PCA: o.PCA, Spectra: o.Spectra, NaN: policy}
	if len(f.Shape) == 0 || f.First < 0 {
		return nil, fmt.Errorf("latent: partial of shape %v from sample %d", f.Shape, f.First)
	}
	used := map[string]bool{}
	get := func(name string) *tensor.Tensor {
		t := arrays[name]
		if t != nil {
			used[name] = true
		}
		return t
	}
	moments := func(prefix string) (*Moments, error) {
		m := &Moments{Axes: f.MomentAxes}
		for _, a := range []struct {
			name string
			to   **tensor.Tensor
		}{{"mean", &m.Mean}, {"var", &m.Var}, {"std", &m.Std}, {"min", &m.Min}, {"max", &m.Max}, {"skew", &m.Skew}, {"kurt", &m.Kurt}} {
			if *a.to = get(prefix + a.name); *a.to == nil {
				return nil, fmt.Errorf("latent: partial without its %s%s", prefix, a.name)
			}
			if !tensor.SameShape((*a.to).Shape, m.Mean.Shape) {
				return nil, fmt.Errorf("latent: partial: %s%s has shape %s, %smean %s", prefix, a.name,
					tensor.ShapeString((*a.to).Shape), prefix, tensor.ShapeString(m.Mean.Shape))
			}
		}
		m.Shape = m.Mean.Shape
		return m, nil
	}
	r := &Result{NaNs: f.NaNs, Infs: f.Infs, Notes: f.Notes,
		Corr: get("corr"), CorrFrames: get("corr_frames"), FrameCorr: get("frame_corr"), LagCorr: get("lagcorr")}
	p := &Partial{First: f.First, Shape: f.Shape, DType: dt, Opt: opt, R: r}
	if arrays[sumsPrefix+"mean"] != nil {
		m, err := moments(sumsPrefix)
		if err != nil {
			return nil, err
		}
		c := get(sumsPrefix + "count")
		if c == nil || len(c.F64) != m.Mean.Len() {
			return nil, fmt.Errorf("latent: partial without the counts of its moment sums")
		}
		p.Sums = &MomentPart{M: m, Count: c.F64}
	} else if opt.Moments {
		if r.Moments, err = moments(""); err != nil {
			return nil, err
		}
	}
	if opt.PCA {
		r.PCA = &PCA{Values: get("pca_values"), Ratio: get("pca_ratio"), Vectors: get("pca_vectors"), Notes: f.PCANotes}
	}
	if opt.Spectra {
		r.Spectra = &Spectra{Spatial: get("spatial_spectrum"), SpatialCentroid: get("spatial_centroid"), SpatialHighFrac: get("spatial_highfrac"),
			Temporal: get("temporal_spectrum"), TemporalCentroid: get("temporal_centroid"), TemporalHighFrac: get("temporal_highfrac"),
			Radius: f.Radius, Notes: f.SpectraNotes, leftSpatial: f.LeftSpatial, leftTemporal: f.LeftTemporal}
	}
	n := f.Shape[0]
	for name, t := range arrays {
		if !used[name] {
			return nil, fmt.Errorf("latent: partial: array %s is not one of its statistics", name)
		}
		// Every array but the sums is per sample (moments over axes
		// without axis 0 too): its first axis is the samples.
		if !strings.HasPrefix(name, sumsPrefix) && (len(t.Shape) == 0 || t.Shape[0] != n) {
			return nil, fmt.Errorf("latent: partial of %d samples: %s has shape %s", n, name, tensor.ShapeString(t.Shape))
		}
	}
	for _, need := range [][2]any{{opt.Corr, r.Corr}, {opt.CorrFrames, r.CorrFrames}, {opt.LagCorr, r.FrameCorr}, {opt.LagCorr, r.LagCorr}} {
		if need[0].(bool) && need[1].(*tensor.Tensor) == nil {
			return nil, fmt.Errorf("latent: partial without a statistic its options ask for")
		}
	}
	if opt.PCA && (r.PCA.Values == nil || r.PCA.Ratio == nil || r.PCA.Vectors == nil) || opt.Spectra && (r.Spectra.Spatial == nil || r.Spectra.SpatialCentroid == nil || r.Spectra.SpatialHighFrac == nil) {
		return nil, fmt.Errorf("latent: partial without a statistic its options ask for")
	}
	return p, nil
}
