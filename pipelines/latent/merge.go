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
	nan := math.NaN()
	round := func(v float64) float64 {
		if dt == tensor.F32 {
			return float64(float32(v))
		}
		return v
	}
	for q := range size {
		var n, mean, m2, m3, m4 float64
		mn, mx := math.Inf(1), math.Inf(-1)
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
			m2b := p.M.Var.F64[q] * nb
			var m3b, m4b float64
			if p.M.Min.F64[q] != p.M.Max.F64[q] { // else constant: M3 = M4 = 0
				s := m2b / nb
				m3b = p.M.Skew.F64[q] * nb * math.Pow(s, 1.5)
				m4b = (p.M.Kurt.F64[q] + 3) * nb * s * s
			}
			mn, mx = math.Min(mn, p.M.Min.F64[q]), math.Max(mx, p.M.Max.F64[q])
			if n == 0 {
				n, mean, m2, m3, m4 = nb, mb, m2b, m3b, m4b
				continue
			}
			na := n
			nn := na + nb
			d := mb - mean
			dn := d / nn
			m4 = m4 + m4b + d*dn*dn*dn*na*nb*(na*na-na*nb+nb*nb) + 6*dn*dn*(na*na*m2b+nb*nb*m2) + 4*dn*(na*m3b-nb*m3)
			m3 = m3 + m3b + d*dn*dn*na*nb*(na-nb) + 3*dn*(na*m2b-nb*m2)
			m2 = m2 + m2b + d*dn*na*nb
			mean += dn * nb
			n = nn
		}
		if poisoned || n == 0 {
			for _, t := range []*tensor.Tensor{out.Mean, out.Var, out.Std, out.Min, out.Max, out.Skew, out.Kurt} {
				t.F64[q] = nan
			}
			continue
		}
		v := nan
		if dof := n - float64(ddof); dof > 0 {
			v = m2 / dof
		}
		out.Mean.F64[q], out.Var.F64[q], out.Std.F64[q] = round(mean), round(v), round(math.Sqrt(v))
		out.Min.F64[q], out.Max.F64[q] = round(mn), round(mx)
		out.Skew.F64[q], out.Kurt.F64[q] = nan, nan
		if mn != mx {
			out.Skew.F64[q], out.Kurt.F64[q] = shapeOpt{unbiased: unbiased}.skewKurt(m2/n, m3/n, m4/n, int(n))
		}
	}
	return out, nil
}
