package vec

import (
	"math"
	"slices"
	"testing"
)

// TestDot: hand values at lengths around the four-way unrolling.
func TestDot(t *testing.T) {
	a := []float64{1, 2, 3, 4, 5, 6, 7}
	b := []float64{7, 6, 5, 4, 3, 2, 1, 100}
	for n, want := range []float64{0, 7, 19, 34, 50, 65, 77, 84} {
		if got := Dot(a[:n], b); got != want {
			t.Errorf("Dot of length %d = %g, want %g", n, got, want)
		}
	}
}

// TestSelectNth: every rank of arrays with ties, runs and reversed order
// against a sort, and the split it leaves (nothing larger before v[k],
// nothing smaller after).
func TestSelectNth(t *testing.T) {
	cases := [][]float64{
		{5}, {2, 1}, {3, 1, 2}, {1, 1, 1, 1}, {4, 3, 2, 1, 0, -1},
		{0.5, -2, 7, 7, 3, -2, 0.5, 9, 1}, {1e300, -1e300, 0, math.Copysign(0, -1), 5e-324, 2},
	}
	for _, c := range cases {
		sorted := slices.Clone(c)
		slices.Sort(sorted)
		for k := range c {
			v := slices.Clone(c)
			if got := SelectNth(v, k); got != sorted[k] {
				t.Errorf("SelectNth(%v, %d) = %g, want %g", c, k, got, sorted[k])
			}
			for i := range v {
				if i < k && v[i] > v[k] || i > k && v[i] < v[k] {
					t.Errorf("SelectNth(%v, %d) left %v", c, k, v)
					break
				}
			}
		}
	}
}
