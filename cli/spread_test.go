package cli

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// TestSpreadOf holds the summary table's minimum, median and maximum to
// hand-worked cases and, on random arrays with and without ties, to a
// sort; and selectNth to a sort at every position of small arrays.
func TestSpreadOf(t *testing.T) {
	nan := math.NaN()
	for _, c := range []struct {
		v             []float64
		min, med, max float64
		nans          int
	}{
		{[]float64{3}, 3, 3, 3, 0},
		{[]float64{4, 1}, 1, 2.5, 4, 0},
		{[]float64{5, nan, 1, 3}, 1, 3, 5, 1},
		{[]float64{2, 2, 2, 9, 2, 2}, 2, 2, 9, 0},
		{[]float64{-1, 7, 0, 0.5, nan, nan}, -1, 0.25, 7, 2},
		{[]float64{math.Inf(-1), 1, math.Inf(1)}, math.Inf(-1), 1, math.Inf(1), 0},
	} {
		s := spreadOf(c.v)
		if s.Min != c.min || s.Median != c.med || s.Max != c.max || s.NaN != c.nans || s.N != len(c.v) {
			t.Errorf("spreadOf(%v) = %+v, want min %v median %v max %v, %d NaN", c.v, s, c.min, c.med, c.max, c.nans)
		}
	}
	if s := spreadOf([]float64{nan, nan}); !math.IsNaN(s.Min) || !math.IsNaN(s.Median) || !math.IsNaN(s.Max) || s.NaN != 2 {
		t.Errorf("all NaN: %+v", s)
	}
	rng := rand.New(rand.NewPCG(3, 9))
	for _, n := range []int{1, 2, 3, 7, 8, 64, 1001, 4096} {
		for _, ties := range []bool{false, true} {
			v := make([]float64, n)
			for i := range v {
				v[i] = rng.NormFloat64()
				if ties {
					v[i] = float64(rng.IntN(5))
				}
			}
			sorted := slices.Sorted(slices.Values(v))
			want := sorted[n/2]
			if n%2 == 0 {
				want = (sorted[n/2-1] + sorted[n/2]) / 2
			}
			if s := spreadOf(v); s.Median != want || s.Min != sorted[0] || s.Max != sorted[n-1] {
				t.Errorf("n %d ties %v: %+v, want median %v", n, ties, s, want)
			}
			if n > 64 {
				continue
			}
			for k := range n {
				w := slices.Clone(v)
				if got := selectNth(w, k); got != sorted[k] {
					t.Fatalf("n %d ties %v: selectNth(%d) = %v, want %v", n, ties, k, got, sorted[k])
				}
				for i := range w {
					if i < k && w[i] > sorted[k] || i > k && w[i] < sorted[k] {
						t.Fatalf("n %d ties %v k %d: %v at %d on the wrong side", n, ties, k, w[i], i)
					}
				}
			}
		}
	}
}
