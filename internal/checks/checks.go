// Package checks holds the comparison that the pipelines' test suites share:
// elementwise closeness to a float64 reference with exact NaN and ±Inf
// placement.
package checks

import (
	"fmt"
	"math"
	"strings"
	"testing"
)

// Close checks got against want elementwise:
//
//	|got[i] - want[i]| <= rtol*|want[i]| + atol
//
// and NaN exactly where want is NaN (and nowhere else), ±Inf exactly where
// want is ±Inf. It reports the first few failures, their number and the
// largest relative error, and returns whether all passed.
func Close[T float32 | float64](t testing.TB, what string, got []T, want []float64, rtol, atol float64) bool {
	t.Helper()
	if len(got) != len(want) {
		t.Errorf("%s: got %d values, want %d", what, len(got), len(want))
		return false
	}
	var (
		bad    int
		worst  float64
		worstI = -1
		msgs   []string
	)
	for i, g := range got {
		gv, wv := float64(g), want[i]
		ok := true
		switch {
		case math.IsNaN(wv) || math.IsNaN(gv):
			ok = math.IsNaN(wv) && math.IsNaN(gv)
		case math.IsInf(wv, 0) || math.IsInf(gv, 0):
			ok = gv == wv
		default:
			d := math.Abs(gv - wv)
			ok = d <= rtol*math.Abs(wv)+atol
			if r := d / math.Max(math.Abs(wv), math.SmallestNonzeroFloat64); r > worst {
				worst, worstI = r, i
			}
		}
		if !ok {
			bad++
			if len(msgs) < 5 {
				msgs = append(msgs, fmt.Sprintf("[%d] got %.17g want %.17g", i, gv, wv))
			}
		}
	}
	if bad > 0 {
		t.Errorf("%s: %d of %d values outside rtol %g atol %g (largest relative error %.3g at [%d]):\n\t%s",
			what, bad, len(got), rtol, atol, worst, worstI, strings.Join(msgs, "\n\t"))
		return false
	}
	return true
}

// Norm says what Blocks divides each block's error ‖got−want‖ by.
type Norm int

const (
	// Relative divides by ‖want‖ (and compares absolutely when want is 0).
	Relative Norm = iota
	// RelativeFloor divides by max(1, ‖want‖): relative for large blocks,
	// absolute for small ones.
	RelativeFloor
	// Absolute does not divide.
	Absolute
)

// Blocks splits got and want into n equal blocks (matrices, sample sets)
// and checks each: ‖got−want‖ / norm ≤ tol in the Frobenius norm, NaN
// exactly where want is NaN. It reports the first few failing blocks and
// returns the worst error.
func Blocks(t testing.TB, what string, got, want []float64, n int, tol float64, norm Norm) float64 {
	t.Helper()
	if len(got) != len(want) {
		t.Errorf("%s: got %d values, want %d", what, len(got), len(want))
		return math.Inf(1)
	}
	if n == 0 {
		return 0
	}
	bs := len(want) / n
	var msgs []string
	bad := 0
	worst := 0.0
	for k := 0; k < n; k++ {
		g, w := got[k*bs:(k+1)*bs], want[k*bs:(k+1)*bs]
		var d2, w2 float64
		nanBad := -1
		for i := range w {
			if math.IsNaN(w[i]) || math.IsNaN(g[i]) {
				if math.IsNaN(w[i]) != math.IsNaN(g[i]) && nanBad < 0 {
					nanBad = i
				}
				continue
			}
			d2 += (g[i] - w[i]) * (g[i] - w[i])
			w2 += w[i] * w[i]
		}
		e := math.Sqrt(d2)
		switch den := math.Sqrt(w2); norm {
		case Relative:
			if den > 0 {
				e /= den
			}
		case RelativeFloor:
			e /= max(den, 1)
		}
		worst = max(worst, e)
		if nanBad >= 0 || e > tol || math.IsNaN(e) || math.IsInf(e, 0) {
			bad++
			if len(msgs) < 4 {
				if nanBad >= 0 {
					msgs = append(msgs, fmt.Sprintf("block %d [%d]: got %g want %g (NaN mismatch)", k, nanBad, g[nanBad], w[nanBad]))
				} else {
					msgs = append(msgs, fmt.Sprintf("block %d: error %.3g (got[0] %g want[0] %g)", k, e, g[0], w[0]))
				}
			}
		}
	}
	if bad > 0 {
		t.Errorf("%s: %d of %d blocks outside tolerance %g (worst %.3g):\n\t%s", what, bad, n, tol, worst, strings.Join(msgs, "\n\t"))
	}
	return worst
}
