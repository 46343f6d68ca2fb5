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
