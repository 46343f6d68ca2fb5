package stack

import (
	"context"
	"fmt"
	"math"

	"github.com/vkstat/vkstat/engine"
)

// Partial is the per-pixel state of the statistics over some of a stack's
// dates, which merges exactly with the states of the other dates (Merge)
// into the state of them all, from which Finish gives what Run gives on
// all the dates. Per output pixel (H×W, row-major): Count valid samples,
// their Mean and M2 (the sum of squared deviations from it, Chan, Golub
// and LeVeque 1979), Min and Max (meaningless where Count is 0). A device
// keeps Mean and M2 in float32, the CPU path in float64. Samples counts
// the valid input samples of each pixel's look box over the dates (Result.Samples).
type Partial struct {
	H, W, Dates                        int
	Count, Mean, M2, Min, Max, Samples []float64
	// Timing is what computing it cost (RunPartial).
	Timing engine.Timing
}

// partial is w's state as a Partial.
func (w *welford) partial(p *Plan, dates int) *Partial {
	N := len(w.n)
	pt := &Partial{H: p.H, W: p.W, Dates: dates, Count: make([]float64, N), Mean: w.mean, M2: w.m2,
		Min: make([]float64, N), Max: make([]float64, N)}
	for i, c := range w.n {
		pt.Count[i], pt.Min[i], pt.Max[i] = float64(c), float64(w.mn[i]), float64(w.mx[i])
	}
	return pt
}

// samplesOf is the reader's per-pixel sample counts as a Partial's.
func samplesOf(s []uint32) []float64 {
	out := make([]float64, len(s))
	for i, v := range s {
		out[i] = float64(v)
	}
	return out
}

// RunPartial is Run's state before the statistics: the Partial of the
// dates, on dev or on the CPU when dev is nil.
func RunPartial(ctx context.Context, dev *engine.Device, dates []Date, opt Options) (*Partial, error) {
	r, err := runKeep(ctx, dev, dates, opt, true)
	if err != nil {
		return nil, err
	}
	r.state.Timing = r.Timing
	return r.state, nil
}

// Merge combines the partials of disjoint dates of one stack (the same
// plan), in any order, into the partial of them all: counts add, means and
// M2 follow Chan et al.'s pairwise update, extremes are the extremes.
func Merge(parts ...*Partial) (*Partial, error) {
	if len(parts) == 0 {
		return nil, fmt.Errorf("stack: no partial to merge")
	}
	f := parts[0]
	N := f.H * f.W
	cp := func(v []float64) []float64 { return append([]float64(nil), v...) }
	out := &Partial{H: f.H, W: f.W, Dates: f.Dates, Count: cp(f.Count), Mean: cp(f.Mean), M2: cp(f.M2), Min: cp(f.Min), Max: cp(f.Max),
		Samples: cp(f.Samples)}
	for k, b := range parts {
		if b.H != f.H || b.W != f.W {
			return nil, fmt.Errorf("stack: partial %d is of %d×%d pixels, partial 0 of %d×%d", k, b.H, b.W, f.H, f.W)
		}
		for _, v := range [][]float64{b.Count, b.Mean, b.M2, b.Min, b.Max, b.Samples} {
			if len(v) != N {
				return nil, fmt.Errorf("stack: partial %d holds %d values per statistic, not %d×%d", k, len(v), b.H, b.W)
			}
		}
		if k == 0 {
			continue
		}
		out.Dates += b.Dates
		for i := range N {
			out.Samples[i] += b.Samples[i]
			nb := b.Count[i]
			if nb == 0 {
				continue
			}
			na := out.Count[i]
			if na == 0 {
				out.Count[i], out.Mean[i], out.M2[i], out.Min[i], out.Max[i] = nb, b.Mean[i], b.M2[i], b.Min[i], b.Max[i]
				continue
			}
			n := na + nb
			d := b.Mean[i] - out.Mean[i]
			out.Mean[i] += d * (nb / n)
			out.M2[i] += b.M2[i] + d*d*(na*nb/n)
			out.Count[i] = n
			out.Min[i], out.Max[i] = math.Min(out.Min[i], b.Min[i]), math.Max(out.Max[i], b.Max[i])
		}
	}
	return out, nil
}

// Finish computes the statistics from p as Run computes them from its
// state, with delta degrees of freedom ddof.
func (p *Partial) Finish(ddof int) *Result {
	samples := make([]uint32, len(p.Samples))
	for i, v := range p.Samples {
		samples[i] = uint32(v)
	}
	return finish(&Plan{Config: Config{Ddof: ddof}, H: p.H, W: p.W}, p.Count, p.Mean, p.M2, p.Min, p.Max, p.Dates, samples)
}
