package quantile

import (
	"math"
	"sort"
)

// Reference is the quantiles q of x by NumPy's definition, in float64,
// plain and obviously right: the values sorted whole (no selection), then
// (1−g)·x[lo] + g·x[lo+1] at h = (n−1)·q. NaNs are left out when skipNaN;
// otherwise one makes every quantile NaN, as does an empty x.
func Reference(x []float64, q []float64, skipNaN bool) []float64 {
	var v []float64
	nan := false
	for _, xi := range x {
		if math.IsNaN(xi) {
			nan = true
		} else {
			v = append(v, xi)
		}
	}
	sort.Float64s(v)
	out := make([]float64, len(q))
	for k, qk := range q {
		if len(v) == 0 || (nan && !skipNaN) {
			out[k] = math.NaN()
			continue
		}
		h := float64(len(v)-1) * qk
		lo := int(h)
		g := h - float64(lo)
		if g == 0 || lo == len(v)-1 || v[lo] == v[lo+1] {
			out[k] = v[lo]
		} else {
			out[k] = (1-g)*v[lo] + g*v[lo+1]
		}
	}
	return out
}
