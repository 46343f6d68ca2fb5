package latent

import (
	"fmt"
	"math"

	"github.com/vkstat/vkstat/tensor"
)

// Batches over the samples (axis 0): per-sample statistics concatenate,
// while moments over axes that include axis 0 reduce across batches and
// are merged here.

// ReducesSamples reports whether moments over axes (NumPy numbering) of an
// nd-dimensional tensor reduce the sample axis, axis 0.
func ReducesSamples(axes []int, nd int) bool {
	for _, a := range axes {
		if a == 0 || a == -nd {
			return true
		}
	}
	return false
}

// MomentPart is one batch's moments for MergeMoments: Run's Moments of the
// batch computed with DDof 0 (so that var·n is the batch's M2), and the
// number of values behind each output (MomentCounts).
type MomentPart struct {
	M     *Moments
	Count []float64
}

// MomentCounts is, for each output of moments over axes of x, the number
// of values they reduce: every value under Propagate (a NaN makes the
// outputs NaN whatever the count), the finite ones under Skip (±Inf is
// treated as NaN).
func MomentCounts(x *tensor.Tensor, axes []int, policy NaNPolicy) ([]float64, error) {
	ax, err := NormAxes(axes, len(x.Shape))
	if err != nil {
		return nil, err
	}
	nd := len(x.Shape)
	ostride := make([]int, nd) // output stride of each input axis; 0 if reduced
	outLen, inner := 1, 1
	for i := nd - 1; i >= 0; i-- {
		if contains(ax, i) {
			inner *= x.Shape[i]
			continue
		}
		ostride[i] = outLen
		outLen *= x.Shape[i]
	}
	count := make([]float64, outLen)
	if policy == Propagate {
		for i := range count {
			count[i] = float64(inner)
		}
		return count, nil
	}
	ok := func(e int) bool { return finite(x.F32[e]) }
	switch {
	case x.DType == tensor.F64:
		ok = func(e int) bool { return finite(x.F64[e]) }
	case x.DType.Is16():
		fin, _ := bits16(x.DType)
		ok = func(e int) bool { return fin(x.U16[e]) }
	}
	idx := make([]int, nd)
	o := 0
	n := x.Len()
	for e := range n {
		if ok(e) {
			count[o]++
		}
		for i := nd - 1; i >= 0; i-- { // odometer
			idx[i]++
			o += ostride[i]
			if idx[i] < x.Shape[i] {
				break
			}
			o -= ostride[i] * idx[i]
			idx[i] = 0
		}
	}
	return count, nil
}

// MergeMoments merges the moments of batches of samples over axes that
// include the sample axis, exactly (Chan, Golub and LeVeque's pairwise
// update of the count, mean and central sums M2, M3, M4, and min and max),
// into what Run gives for the whole tensor: var M2/(n−ddof) (NaN when
// n−ddof <= 0), skew and excess kurtosis NaN for a constant slice, every
// output NaN under Propagate where a batch's is. A part's M3 and M4 are
// recovered from its skew and kurt: M3 = skew·n·(M2/n)^1.5, M4 =
// (kurt+3)·n·(M2/n)². With dt float32 the mean, var, std, min and max are
// rounded to float32, as Run returns them for float32 input. unbiased
// corrects the merged skew and kurt as Options.Unbiased does (the parts'
// must be uncorrected).
func MergeMoments(parts []MomentPart, ddof int, policy NaNPolicy, dt tensor.DType, unbiased bool) (*Moments, error) {
	if len(parts) == 0 {
		return nil, fmt.Errorf("latent: no moments to merge")
	}
	first := parts[0].M
	size := tensor.NumElements(first.Shape)
	for _, p := range parts {
		if !tensor.SameShape(p.M.Shape, first.Shape) || len(p.Count) != size {
			return nil, fmt.Errorf("latent: merging moments of shape %s and %s", tensor.ShapeString(first.Shape), tensor.ShapeString(p.M.Shape))
		}
	}
	nt := func() *tensor.Tensor { return tensor.New(tensor.F64, first.Shape...) }
	out := &Moments{Axes: append([]int{}, first.Axes...), Shape: append([]int{}, first.Shape...),
		Mean: nt(), Var: nt(), Std: nt(), Min: nt(), Max: nt(), Skew: nt(), Kurt: nt()}
	round := func(v float64) float64 {
		if dt == tensor.F32 {
			return float64(float32(v))
		}
		return v
	}
	for q := range size {
		var acc mom
		poisoned := false
		for _, p := range parts {
			nb := p.Count[q]
			mb := p.M.Mean.F64[q]
			if policy == Propagate && math.IsNaN(mb) && nb > 0 {
				poisoned = true
				break
			}
			if nb == 0 {
				continue
			}
			b := mom{n: nb, mean: mb, m2: p.M.Var.F64[q] * nb, min: p.M.Min.F64[q], max: p.M.Max.F64[q]}
			if b.min != b.max { // else constant: M3 = M4 = 0
				s := b.m2 / nb
				b.m3 = p.M.Skew.F64[q] * nb * math.Pow(s, 1.5)
				b.m4 = (p.M.Kurt.F64[q] + 3) * nb * s * s
			}
			acc = acc.add(b)
		}
		acc.bad = poisoned
		acc.put(out, q, ddof, unbiased, round)
	}
	return out, nil
}

// mom is the count, mean, central sums M2, M3, M4, least and greatest
// value of a set of values, or (bad) that one of them is NaN or ±Inf under
// Propagate.
type mom struct {
	n, mean, m2, m3, m4, min, max float64
	bad                           bool
}

// add is the mom of a's and b's values together: Chan, Golub and
// LeVeque's pairwise update of the mean and M2, Pébay's (2008) of M3 and
// M4.
func (a mom) add(b mom) mom {
	bad := a.bad || b.bad
	switch {
	case b.n == 0:
		a.bad = bad
		return a
	case a.n == 0:
		b.bad = bad
		return b
	}
	na, nb := a.n, b.n
	nn := na + nb
	d := b.mean - a.mean
	dn := d / nn
	return mom{n: nn, mean: a.mean + dn*nb, bad: bad,
		m2:  a.m2 + b.m2 + d*dn*na*nb,
		m3:  a.m3 + b.m3 + d*dn*dn*na*nb*(na-nb) + 3*dn*(na*b.m2-nb*a.m2),
		m4:  a.m4 + b.m4 + d*dn*dn*dn*na*nb*(na*na-na*nb+nb*nb) + 6*dn*dn*(na*na*b.m2+nb*nb*a.m2) + 4*dn*(na*b.m3-nb*a.m3),
		min: math.Min(a.min, b.min), max: math.Max(a.max, b.max)}
}

// put writes a's moments at q of out: var M2/(n−ddof) (NaN when n−ddof <=
// 0), skew and excess kurtosis NaN for a constant set (corrected with
// unbiased), all NaN for a bad or empty set; mean, var, std, min and max
// through round.
func (a mom) put(out *Moments, q, ddof int, unbiased bool, round func(float64) float64) {
	if a.bad || a.n == 0 {
		for _, t := range []*tensor.Tensor{out.Mean, out.Var, out.Std, out.Min, out.Max, out.Skew, out.Kurt} {
			t.F64[q] = math.NaN()
		}
		return
	}
	v := math.NaN()
	if dof := a.n - float64(ddof); dof > 0 {
		v = a.m2 / dof
	}
	out.Mean.F64[q], out.Var.F64[q], out.Std.F64[q] = round(a.mean), round(v), round(math.Sqrt(v))
	out.Min.F64[q], out.Max.F64[q] = round(a.min), round(a.max)
	out.Skew.F64[q], out.Kurt.F64[q] = math.NaN(), math.NaN()
	if a.min != a.max {
		out.Skew.F64[q], out.Kurt.F64[q] = shapeOpt{unbiased: unbiased}.skewKurt(a.m2/a.n, a.m3/a.n, a.m4/a.n, int(a.n))
	}
}
