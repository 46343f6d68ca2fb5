package reduce

import (
	"fmt"

	"github.com/vkstat/vkstat/tensor"
)

// Partial is the state of a reduction over part of the axis, which merges
// exactly with the states of the other parts (Merge) into the state of
// the whole, from which Finish gives the statistics that Run gives on the
// whole array. Every field is float64 and has the outputs' shape, OutShape:
// Count is the number of values reduced (the non-NaN ones under SkipNaN),
// Sum their sum, M2 the sum of their squared deviations from their mean
// (Chan, Golub and LeVeque 1979), Min and Max their extremes (+Inf and −Inf
// where Count is 0; NaN where a NaN was seen without SkipNaN).
type Partial struct {
	// DType is the input's: Finish gives outputs of the type Run gives it.
	DType    tensor.DType
	OutShape []int
	SkipNaN  bool
	// Rows is the length of the axis reduced so far (NaNs included).
	Rows                     int
	Count, Sum, M2, Min, Max []float64
}

// NaNs is the number of NaNs skipped at output k (0 without SkipNaN, where
// a NaN shows as NaN sum, M2, min and max instead).
func (p *Partial) NaNs(k int) float64 {
	if !p.SkipNaN {
		return 0
	}
	return float64(p.Rows) - p.Count[k]
}

// acc views p's fields as the CPU path's accumulators.
func (p *Partial) acc() *acc {
	return &acc{cnt: p.Count, s: p.Sum, m2: p.M2, mn: p.Min, mx: p.Max}
}

// CPUPartial is the Partial of in over opt.Axes (those not adjacent from
// a transposed copy, as Run; opt.SkipNaN as in Run;
// opt.Stats and opt.DDof play no part, Finish takes them), computed on the
// CPU path in float64 as CPU computes the whole.
func CPUPartial(in *tensor.Tensor, opt Options) (*Partial, error) {
	in, opt, err := opt.transposed(in)
	if err != nil {
		return nil, fmt.Errorf("reduce: %w", err)
	}
	g, err := checkInput(in, opt)
	if err != nil {
		return nil, err
	}
	p := &Partial{DType: in.DType, OutShape: g.OutShape, SkipNaN: opt.SkipNaN, Rows: g.N}
	nd := needs{m2: true, minmax: true}
	a := newAcc(g.Outputs(), nd).reset(g.Outputs())
	p.Count, p.Sum, p.M2, p.Min, p.Max = a.cnt, a.s, a.m2, a.mn, a.mx
	if g.Outputs() == 0 {
		return p, nil
	}
	if in.DType.Is16() {
		in = in.As(tensor.F32) // exact
	}
	if in.DType == tensor.F64 {
		r := newReducer(in.F64, g, opt, nd, [numStats][]float64{}, nil)
		r.keep = &a
		r.run()
	} else {
		r := newReducer(in.F32, g, opt, nd, [numStats][]float32{}, nil)
		r.keep = &a
		r.run()
	}
	return p, nil
}

// Merge combines the partials of parts of one axis, in any order, into the
// partial of their union: counts and sums add, M2 follows Chan et al.'s
// pairwise update, extremes are the extremes (a NaN wins). The parts must
// agree on input type, output shape and SkipNaN.
func Merge(parts ...*Partial) (*Partial, error) {
	if len(parts) == 0 {
		return nil, fmt.Errorf("reduce: no partial to merge")
	}
	f := parts[0]
	out := &Partial{DType: f.DType, OutShape: f.OutShape, SkipNaN: f.SkipNaN, Rows: f.Rows}
	out.Count = append([]float64(nil), f.Count...)
	out.Sum = append([]float64(nil), f.Sum...)
	out.M2 = append([]float64(nil), f.M2...)
	out.Min = append([]float64(nil), f.Min...)
	out.Max = append([]float64(nil), f.Max...)
	a := out.acc()
	for i, p := range parts[1:] {
		switch {
		case p.DType != f.DType:
			return nil, fmt.Errorf("reduce: partial %d is of %s data, partial 0 of %s", i+1, p.DType, f.DType)
		case !tensor.SameShape(p.OutShape, f.OutShape):
			return nil, fmt.Errorf("reduce: partial %d has outputs of shape %s, partial 0 %s",
				i+1, tensor.ShapeString(p.OutShape), tensor.ShapeString(f.OutShape))
		case p.SkipNaN != f.SkipNaN:
			return nil, fmt.Errorf("reduce: partial %d has skipnan %t, partial 0 %t", i+1, p.SkipNaN, f.SkipNaN)
		case len(p.Count) != len(f.Count):
			return nil, fmt.Errorf("reduce: partial %d holds %d outputs, partial 0 %d", i+1, len(p.Count), len(f.Count))
		}
		a.merge(p.acc())
		out.Rows += p.Rows
	}
	return out, nil
}

// Finish computes stats (with opt.DDof, into opt.Out) from p, as Run
// computes them on the whole array: outputs of p.OutShape in the type Run
// gives p.DType.
func (p *Partial) Finish(opt Options, stats []Stat) (map[Stat]*tensor.Tensor, error) {
	if err := opt.Check(); err != nil {
		return nil, err
	}
	if _, err := statNeeds(stats); err != nil {
		return nil, err
	}
	out := make(map[Stat]*tensor.Tensor, len(stats))
	for _, s := range stats {
		out[s] = opt.Out.New(s.String(), outType(p.DType), p.OutShape...)
	}
	a := p.acc()
	if outType(p.DType) == tensor.F64 {
		var outs [numStats][]float64
		for s, t := range out {
			outs[s] = t.F64
		}
		(&reducer[float64]{ddof: float64(opt.DDof), outs: outs}).finish(a, 0)
	} else {
		var outs [numStats][]float32
		for s, t := range out {
			outs[s] = t.F32
		}
		(&reducer[float32]{ddof: float64(opt.DDof), outs: outs}).finish(a, 0)
	}
	return out, nil
}
