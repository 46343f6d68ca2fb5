package reduce

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/vkstat/vkstat/tensor"
)

// splitAxis1 cuts x, of shape (outer, n, inner), along axis 1 at cuts
// (increasing, inside 1..n−1) into copies.
func splitAxis1(x []float64, outer, n, inner int, cuts []int) [][]float64 {
	bounds := append(append([]int{0}, cuts...), n)
	var parts [][]float64
	for b := 0; b+1 < len(bounds); b++ {
		i0, i1 := bounds[b], bounds[b+1]
		var p []float64
		for o := 0; o < outer; o++ {
			p = append(p, x[(o*n+i0)*inner:(o*n+i1)*inner]...)
		}
		parts = append(parts, p)
	}
	return parts
}

// randomCuts are k−1 distinct cuts of 0..n into k non-empty parts (k ≤ n).
func randomCuts(rng *rand.Rand, n, k int) []int {
	perm := rng.Perm(n - 1)[:k-1]
	cuts := make([]int, 0, k-1)
	for i := 1; i < n; i++ {
		for _, c := range perm {
			if c+1 == i {
				cuts = append(cuts, i)
			}
		}
	}
	return cuts
}

// closeRel reports whether got and want agree to rel relative (NaNs alike,
// infinities equal).
func closeRel(got, want, rel float64) bool {
	if math.IsNaN(want) || math.IsInf(want, 0) {
		return math.IsNaN(got) == math.IsNaN(want) && (math.IsNaN(got) || got == want)
	}
	return math.Abs(got-want) <= rel*math.Abs(want)
}

// TestPartialMergeEqualsOnePass: the partials of random splits of random
// data, merged in a shuffled order, finish to what CPU gives on the whole
// array and to the float64 Reference, to 1e-12 relative for float64 data;
// float32 data to float32's rounding of the same values.
func TestPartialMergeEqualsOnePass(t *testing.T) {
	rng := rand.New(rand.NewPCG(43, 1))
	for trial := range 200 {
		outer, n, inner := 1+rng.IntN(3), 1+rng.IntN(400), 1+rng.IntN(5)
		if trial%7 == 0 {
			n = 5000 + rng.IntN(5000) // past the CPU path's blocks
		}
		skip := trial%2 == 1
		dt := tensor.F64
		if trial%5 == 4 {
			dt = tensor.F32
		}
		x := make([]float64, outer*n*inner)
		for i := range x {
			x[i] = 3 + rng.NormFloat64()*math.Pow(10, float64(rng.IntN(3)))
			if dt == tensor.F32 {
				x[i] = float64(float32(x[i]))
			}
			if trial%3 == 0 && rng.IntN(20) == 0 {
				x[i] = math.NaN()
			}
		}
		shape := []int{outer, n, inner}
		opt := Options{Axes: Axes{1}, SkipNaN: skip, DDof: rng.IntN(2)}
		k := 1 + rng.IntN(min(n, 6))
		var parts []*Partial
		for _, d := range splitAxis1(x, outer, n, inner, randomCuts(rng, n, k)) {
			p, err := CPUPartial(tensor.FromF64(d, outer, len(d)/(outer*inner), inner).As(dt), opt)
			if err != nil {
				t.Fatal(err)
			}
			parts = append(parts, p)
		}
		rng.Shuffle(len(parts), func(i, j int) { parts[i], parts[j] = parts[j], parts[i] })
		m, err := Merge(parts...)
		if err != nil {
			t.Fatal(err)
		}
		if m.Rows != n {
			t.Fatalf("trial %d: merged %d rows, want %d", trial, m.Rows, n)
		}
		got, err := m.Finish(opt, AllStats())
		if err != nil {
			t.Fatal(err)
		}
		whole, err := CPU(tensor.FromF64(x, shape...).As(dt), opt, AllStats())
		if err != nil {
			t.Fatal(err)
		}
		ref, err := Reference(x, shape, opt)
		if err != nil {
			t.Fatal(err)
		}
		rel := 1e-12
		if dt == tensor.F32 {
			rel = 3e-7 // each side rounds the same float64 value to float32
		}
		for _, s := range AllStats() {
			g, w := got[s].Float64s(), whole[s].Float64s()
			for i := range g {
				if !closeRel(g[i], w[i], rel) || !closeRel(g[i], ref[s][i], rel) {
					t.Fatalf("trial %d (%d parts, shape %v, %s, skipnan %t) %s[%d]: merged %v, one pass %v, reference %v",
						trial, k, shape, dt, skip, s, i, g[i], w[i], ref[s][i])
				}
			}
		}
		if skip {
			for i := range outer * inner {
				var nans float64
				for j := range n {
					if math.IsNaN(x[(i/inner*n+j)*inner+i%inner]) {
						nans++
					}
				}
				if m.NaNs(i) != nans {
					t.Fatalf("trial %d: output %d counts %v NaNs, want %v", trial, i, m.NaNs(i), nans)
				}
			}
		}
	}
}

// TestPartialFinishHandValues: [1, 2] and [3, NaN, 6] along axis 0 merge to
// count 4, sum 12, mean 3, M2 14 (var 14/3 with ddof 1), min 1, max 6, one
// NaN skipped.
func TestPartialFinishHandValues(t *testing.T) {
	opt := Options{SkipNaN: true, DDof: 1}
	a, _ := CPUPartial(tensor.FromF64([]float64{1, 2}, 2), opt)
	b, _ := CPUPartial(tensor.FromF64([]float64{3, math.NaN(), 6}, 3), opt)
	m, err := Merge(b, a)
	if err != nil {
		t.Fatal(err)
	}
	if m.Count[0] != 4 || m.Sum[0] != 12 || m.M2[0] != 14 || m.NaNs(0) != 1 {
		t.Fatalf("merged count %v sum %v M2 %v NaNs %v, want 4 12 14 1", m.Count[0], m.Sum[0], m.M2[0], m.NaNs(0))
	}
	out, err := m.Finish(opt, AllStats())
	if err != nil {
		t.Fatal(err)
	}
	want := map[Stat]float64{Sum: 12, Mean: 3, Var: 14.0 / 3, Std: math.Sqrt(14.0 / 3), Min: 1, Max: 6}
	for s, w := range want {
		if g := out[s].F64[0]; g != w {
			t.Errorf("%s = %v, want %v", s, g, w)
		}
	}
}

// TestMergeRefusesMixedPartials: partials of other settings or shapes do
// not merge.
func TestMergeRefusesMixedPartials(t *testing.T) {
	x := tensor.FromF64([]float64{1, 2, 3, 4}, 2, 2)
	a, _ := CPUPartial(x, Options{Axes: Axes{0}})
	for name, o := range map[string]struct {
		in  *tensor.Tensor
		opt Options
	}{
		"skipnan": {x, Options{Axes: Axes{0}, SkipNaN: true}},
		"shape":   {tensor.FromF64([]float64{1, 2, 3}, 1, 3), Options{Axes: Axes{0}}},
		"dtype":   {x.As(tensor.F32), Options{Axes: Axes{0}}},
	} {
		b, err := CPUPartial(o.in, o.opt)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := Merge(a, b); err == nil {
			t.Errorf("%s: mixed partials merged", name)
		}
	}
}
