package latent

import (
	"context"
	"fmt"
	"slices"

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
}

// RunPartial computes the Partial of src, whose first sample is sample
// first of the whole data set, on dev or on the CPU when dev is nil (as
// RunSource does).
func RunPartial(ctx context.Context, dev *engine.Device, src Source, first int, opt Options) (*Partial, error) {
	if first < 0 {
		return nil, fmt.Errorf("latent: a partial from sample %d", first)
	}
	p, err := runSource(ctx, dev, src, opt, true)
	if err != nil {
		return nil, err
	}
	p.First = first
	return p, nil
}

// finish computes, in p.R, what needs all the samples: the moments from
// their sums, the notes on them, the spectra's slopes.
func (p *Partial) finish() error {
	out, opt := p.R, p.Opt
	if p.Sums != nil {
		m, err := MergeMoments([]MomentPart{*p.Sums}, opt.DDof, opt.NaN, p.DType)
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
		r := *p.R
		r.Notes = shiftSampleNotes(r.Notes, p.First-f.First)
		if r.PCA != nil {
			pc := *r.PCA
			pc.Notes = shiftSampleNotes(pc.Notes, p.First-f.First)
			pcas = append(pcas, &pc)
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
		mm, err := MergeMoments(sums, 0, f.Opt.NaN, tensor.F64)
		if err != nil {
			return nil, err
		}
		m.Sums = &MomentPart{M: mm, Count: count}
	}
	return m, nil
}
