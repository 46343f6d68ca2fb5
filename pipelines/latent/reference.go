package latent

import (
	"fmt"
	"math"

	"github.com/vkstat/vkstat/tensor"
)

// Reference computes the moments and correlations req asks for (the PCA
// has PCAReference, the spectra spectra.Reference) for x in float64 with
// plain loops over x's own layout: no permutation, no package reduce or
// cov, nothing shared with Run beyond checking the request. It follows the same rules (NaN policy,
// constant variables, lag means over defined pairs) and is the value the
// tests hold Run to. It is slow: O(N·C²·F·H·W) for the correlations.
func Reference(x *tensor.Tensor, req Options) (*Result, error) {
	d, axes, err := req.check(x)
	if err != nil {
		return nil, err
	}
	data := x.Float64s()
	res := &Result{}
	for _, v := range data {
		if math.IsNaN(v) {
			res.NaNs++
		} else if math.IsInf(v, 0) {
			res.Infs++
		}
	}
	if req.Moments {
		res.Moments = refMoments(data, x.Shape, axes, req)
	}
	at := func(n, c, f, y, xx int) float64 {
		return data[(((n*d.C+c)*d.F+f)*d.H+y)*d.W+xx]
	}
	if req.Corr {
		res.Corr = tensor.New(tensor.F64, d.N, d.C, d.C)
		for n := 0; n < d.N; n++ {
			m, _ := refCorr(d.F*d.H*d.W, d.C, req.NaN, func(s, c int) float64 {
				return at(n, c, s/(d.H*d.W), s/d.W%d.H, s%d.W)
			})
			copy(res.Corr.F64[n*d.C*d.C:], m)
		}
	}
	if req.CorrFrames {
		res.CorrFrames = tensor.New(tensor.F64, d.N, d.F, d.C, d.C)
		for n := 0; n < d.N; n++ {
			for f := 0; f < d.F; f++ {
				m, _ := refCorr(d.H*d.W, d.C, req.NaN, func(s, c int) float64 { return at(n, c, f, s/d.W, s%d.W) })
				copy(res.CorrFrames.F64[(n*d.F+f)*d.C*d.C:], m)
			}
		}
	}
	if req.LagCorr {
		res.FrameCorr = tensor.New(tensor.F64, d.N, d.C, d.F, d.F)
		res.LagCorr = tensor.New(tensor.F64, d.N, d.C, req.Lags)
		for n := 0; n < d.N; n++ {
			for c := 0; c < d.C; c++ {
				m, nonFinite := refCorr(d.H*d.W, d.F, req.NaN, func(s, f int) float64 { return at(n, c, f, s/d.W, s%d.W) })
				copy(res.FrameCorr.F64[(n*d.C+c)*d.F*d.F:], m)
				for l := 1; l <= req.Lags; l++ {
					var vals []float64
					poisoned := false
					for f := 0; f+l < d.F; f++ {
						poisoned = poisoned || nonFinite[f] || nonFinite[f+l]
						if v := m[f*d.F+f+l]; !math.IsNaN(v) {
							vals = append(vals, v)
						}
					}
					mean := math.NaN()
					if len(vals) > 0 && !poisoned {
						sum := 0.0
						for _, v := range vals {
							sum += v
						}
						mean = sum / float64(len(vals))
					}
					res.LagCorr.F64[(n*d.C+c)*req.Lags+l-1] = mean
				}
			}
		}
	}
	return res, nil
}

// refMoments gathers every output's values by walking x's elements and
// dropping the reduced axes from each one's index, then computes the
// moments of each list.
func refMoments(data []float64, shape, axes []int, req Options) *Moments {
	nd := len(shape)
	reduced := make([]bool, nd)
	for _, a := range axes {
		reduced[a] = true
	}
	var keep []int
	for i, s := range shape {
		if !reduced[i] {
			keep = append(keep, s)
		}
	}
	nout := tensor.NumElements(keep)
	lists := make([][]float64, nout)
	idx := make([]int, nd)
	for e, v := range data {
		q := e
		for i := nd - 1; i >= 0; i-- {
			idx[i] = q % shape[i]
			q /= shape[i]
		}
		o := 0
		for i := 0; i < nd; i++ {
			if !reduced[i] {
				o = o*shape[i] + idx[i]
			}
		}
		lists[o] = append(lists[o], v)
	}
	m := &Moments{Axes: axes, Shape: keep}
	mk := func() *tensor.Tensor { return tensor.New(tensor.F64, keep...) }
	m.Mean, m.Var, m.Std, m.Min, m.Max, m.Skew, m.Kurt = mk(), mk(), mk(), mk(), mk(), mk(), mk()
	for o, list := range lists {
		var vals []float64
		hasNaN := false
		for _, v := range list {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				if req.NaN == Skip {
					continue
				}
				hasNaN = true
			}
			vals = append(vals, v)
		}
		nan := math.NaN()
		mean, variance, mn, mx, skew, kurt := nan, nan, nan, nan, nan, nan
		if len(vals) > 0 && !hasNaN {
			n := float64(len(vals))
			sum := 0.0
			mn, mx = vals[0], vals[0]
			for _, v := range vals {
				sum += v
				mn, mx = math.Min(mn, v), math.Max(mx, v)
			}
			mean = sum / n
			var m2, m3, m4 float64
			for _, v := range vals {
				dv := v - mean
				m2 += dv * dv
				m3 += dv * dv * dv
				m4 += dv * dv * dv * dv
			}
			if n-float64(req.DDof) > 0 {
				variance = m2 / (n - float64(req.DDof))
			}
			if mn != mx {
				skew = (m3 / n) / math.Pow(m2/n, 1.5)
				kurt = (m4/n)/((m2/n)*(m2/n)) - 3
			}
		}
		m.Mean.F64[o], m.Var.F64[o], m.Std.F64[o] = mean, variance, math.Sqrt(variance)
		m.Min.F64[o], m.Max.F64[o], m.Skew.F64[o], m.Kurt.F64[o] = mn, mx, skew, kurt
	}
	return m
}

// refCorr is the p×p correlation matrix of p variables over ns samples,
// at(s, i) being sample s of variable i: with Skip over the samples at
// which every variable is finite; with Propagate over all, a variable with
// a non-finite sample getting a NaN row and column. Constant variables
// (all used samples equal) get NaN rows and columns; fewer than 2 used
// samples make it all NaN. Off-diagonal values are clamped to [−1, 1].
// It also says which variables hold a non-finite value under Propagate.
func refCorr(ns, p int, policy NaNPolicy, at func(s, i int) float64) ([]float64, []bool) {
	out := make([]float64, p*p)
	for i := range out {
		out[i] = math.NaN()
	}
	fin := func(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }
	var used []int
	for s := 0; s < ns; s++ {
		ok := true
		for i := 0; i < p; i++ {
			if !fin(at(s, i)) {
				ok = false
			}
		}
		if ok || policy == Propagate {
			used = append(used, s)
		}
	}
	nonFinite := make([]bool, p)
	if policy == Propagate {
		for i := 0; i < p; i++ {
			for s := 0; s < ns; s++ {
				if !fin(at(s, i)) {
					nonFinite[i] = true
				}
			}
		}
	}
	if len(used) < 2 {
		return out, nonFinite
	}
	valid := make([]bool, p)
	mean := make([]float64, p)
	for i := 0; i < p; i++ {
		valid[i] = true
		first := at(used[0], i)
		constant := true
		sum := 0.0
		for _, s := range used {
			v := at(s, i)
			if !fin(v) {
				valid[i] = false
			}
			if v != first {
				constant = false
			}
			sum += v
		}
		if constant {
			valid[i] = false
		}
		mean[i] = sum / float64(len(used))
	}
	for i := 0; i < p; i++ {
		for j := 0; j < p; j++ {
			if !valid[i] || !valid[j] {
				continue
			}
			if i == j {
				out[i*p+j] = 1
				continue
			}
			if j < i { // symmetric to the last bit
				out[i*p+j] = out[j*p+i]
				continue
			}
			var sij, sii, sjj float64
			for _, s := range used {
				a, b := at(s, i)-mean[i], at(s, j)-mean[j]
				sij += a * b
				sii += a * a
				sjj += b * b
			}
			out[i*p+j] = math.Max(-1, math.Min(1, sij/math.Sqrt(sii)/math.Sqrt(sjj)))
		}
	}
	return out, nonFinite
}

// String describes a result's shapes, for tests and logs.
func (r *Result) String() string {
	s := fmt.Sprintf("latent.Result{NaNs: %d", r.NaNs)
	if r.Moments != nil {
		s += fmt.Sprintf(", moments over %v: %s", r.Moments.Axes, tensor.ShapeString(r.Moments.Shape))
	}
	for _, t := range []struct {
		n string
		t *tensor.Tensor
	}{{"corr", r.Corr}, {"corr_frames", r.CorrFrames}, {"frame_corr", r.FrameCorr}, {"lagcorr", r.LagCorr}} {
		if t.t != nil {
			s += fmt.Sprintf(", %s %s", t.n, tensor.ShapeString(t.t.Shape))
		}
	}
	return s + "}"
}
