package reduce

import (
	"fmt"
	"math"

	"github.com/vkstat/vkstat/tensor"
)

// Reference computes every statistic of data (row-major, of the given shape)
// over opt.Axes in float64, plainly: for each output it gathers the slice,
// takes a two-pass mean (compensated sum, then divide) and the compensated
// sum of squared deviations from it. It is the obviously-right value that
// the fast paths are held against, and it follows the same rules as CPU:
// var = M2/(n−DDof), NaN when n−DDof <= 0; without SkipNaN a NaN makes all
// statistics of its slice NaN; with SkipNaN NaNs are dropped, and a slice of
// NaNs only has sum 0 and every other statistic NaN.
func Reference(data []float64, shape []int, opt Options) (map[Stat][]float64, error) {
	g, err := opt.plan(shape)
	if err != nil {
		return nil, fmt.Errorf("reduce: %w", err)
	}
	if n := tensor.NumElements(shape); len(data) != n {
		return nil, fmt.Errorf("reduce: shape %s has %d elements but %d values were given",
			tensor.ShapeString(shape), n, len(data))
	}
	out := make(map[Stat][]float64, numStats)
	for _, s := range AllStats() {
		out[s] = make([]float64, g.Outputs())
	}
	slice := make([]float64, 0, g.N)
	for o := 0; o < g.Outer; o++ {
		for j := 0; j < g.Inner; j++ {
			slice = slice[:0]
			hasNaN := false
			for i := 0; i < g.N; i++ {
				v := data[(o*g.N+i)*g.Inner+j]
				if math.IsNaN(v) {
					hasNaN = true
					if opt.SkipNaN {
						continue
					}
				}
				slice = append(slice, v)
			}
			k := o*g.Inner + j
			sum, mean, variance, mn, mx := referenceStats(slice, float64(opt.DDof))
			if hasNaN && !opt.SkipNaN {
				nan := math.NaN()
				sum, mean, variance, mn, mx = nan, nan, nan, nan, nan
			}
			out[Sum][k] = sum
			out[Mean][k] = mean
			out[Var][k] = variance
			out[Std][k] = math.Sqrt(variance)
			out[Min][k] = mn
			out[Max][k] = mx
		}
	}
	return out, nil
}

// referenceStats returns the statistics of x, which holds no NaN. An empty x
// has sum 0 and NaN for the rest.
func referenceStats(x []float64, ddof float64) (sum, mean, variance, mn, mx float64) {
	n := float64(len(x))
	if len(x) == 0 {
		nan := math.NaN()
		return 0, nan, nan, nan, nan
	}
	sum = compensatedSum(x, func(v float64) float64 { return v })
	mean = sum / n
	m2 := compensatedSum(x, func(v float64) float64 { d := v - mean; return d * d })
	variance = math.NaN()
	if n-ddof > 0 {
		variance = m2 / (n - ddof)
	}
	mn, mx = x[0], x[0]
	for _, v := range x[1:] {
		mn = math.Min(mn, v)
		mx = math.Max(mx, v)
	}
	return sum, mean, variance, mn, mx
}

// compensatedSum is Σ f(x[i]) by Neumaier's compensated summation.
func compensatedSum(x []float64, f func(float64) float64) float64 {
	var s, c float64
	for _, v := range x {
		y := f(v)
		t := s + y
		if math.Abs(s) >= math.Abs(y) {
			c += (s - t) + y
		} else {
			c += (y - t) + s
		}
		s = t
	}
	if math.IsInf(s, 0) || math.IsNaN(s) {
		return s // the plain sum: ±Inf stays ±Inf, Inf−Inf is NaN
	}
	return s + c
}
