package latent

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/vkstat/vkstat/internal/vec"
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
		s := SpreadOf(c.v)
		if s.Min != c.min || s.Median != c.med || s.Max != c.max || s.NaN != c.nans || s.N != len(c.v) {
			t.Errorf("SpreadOf(%v) = %+v, want min %v median %v max %v, %d NaN", c.v, s, c.min, c.med, c.max, c.nans)
		}
	}
	if s := SpreadOf([]float64{nan, nan}); !math.IsNaN(s.Min) || !math.IsNaN(s.Median) || !math.IsNaN(s.Max) || s.NaN != 2 {
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
			if s := SpreadOf(v); s.Median != want || s.Min != sorted[0] || s.Max != sorted[n-1] {
				t.Errorf("n %d ties %v: %+v, want median %v", n, ties, s, want)
			}
			if n > 64 {
				continue
			}
			for k := range n {
				w := slices.Clone(v)
				if got := vec.SelectNth(w, k); got != sorted[k] {
					t.Fatalf("n %d ties %v: SelectNth(%d) = %v, want %v", n, ties, k, got, sorted[k])
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

// TestSelectAndMomentCount holds the statistics' names to the Options
// fields they set, and the moments' value count to hand-worked shapes.
func TestSelectAndMomentCount(t *testing.T) {
	var o Options
	if err := o.Select([]string{"all"}); err != nil || !(o.Moments && o.Corr && o.CorrFrames && o.LagCorr && o.PCA && o.Spectra) {
		t.Errorf("Select(all) = %+v, %v: want every statistic", o, err)
	}
	if err := o.Select([]string{"corr-frames", "pca"}); err != nil || o.Moments || o.Corr || !o.CorrFrames || o.LagCorr || !o.PCA || o.Spectra {
		t.Errorf("Select(corr-frames, pca) = %+v, %v", o, err)
	}
	if err := o.Select([]string{"mom"}); err == nil {
		t.Error(`Select("mom") accepted an unknown statistic`)
	}
	for _, c := range []struct {
		shape, axes []int
		want        int
	}{{[]int{2, 3, 4, 5, 6}, []int{-2, -1}, 30}, {[]int{2, 3, 4, 5, 6}, []int{0, 2}, 8}, {[]int{2, 3}, []int{7}, 1}} {
		if got := MomentCount(c.shape, c.axes); got != c.want {
			t.Errorf("MomentCount(%v, %v) = %d, want %d", c.shape, c.axes, got, c.want)
		}
	}
}
