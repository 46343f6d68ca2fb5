// Package checks is the one home of comparing a result with its float64
// reference: Compare measures the normwise max error and the NMSE with
// exact NaN and ±Inf placement (what `vkstat verify`, the tuners and the
// registry's checks report against each operation's tolerance), and
// Within, Close, Near and Blocks hold the pipelines' test suites to it, to
// elementwise and per-block (per matrix, per sample set) bounds.
package checks

import (
	"errors"
	"fmt"
	"math"
	"strings"
	"testing"
)

// Errors measure how far one output is from its reference. Only pairs where
// both values are finite enter MaxErr and NMSE; a NaN or ±Inf anywhere else
// than in the reference counts as a mismatch.
type Errors struct {
	// MaxErr is max|got−want| / max|want| (the absolute error when the
	// reference is all zeros): the normwise relative error in the
	// max-norm, which a single wrong element moves.
	MaxErr float64
	// NMSE is Σ(got−want)² / Σwant² (the plain sum when the reference is
	// all zeros), the normalised mean squared error of ggml's
	// test-backend-ops.
	NMSE float64
	// Worst is the index of the largest |got−want|, or of the first
	// mismatch; -1 when there is none.
	Worst     int
	Got, Want float64 // the values at Worst
	// Mismatches counts elements where one side is NaN or ±Inf and the
	// other is not the same.
	Mismatches int
}

// Compare measures got against want. It returns an error when the lengths
// differ.
func Compare[T float32 | float64](got []T, want []float64) (Errors, error) {
	e := Errors{Worst: -1}
	if len(got) != len(want) {
		return e, fmt.Errorf("output has %d values, the reference %d", len(got), len(want))
	}
	var sumD2, sumW2, maxD, maxW float64
	worst := -1
	for i, gv := range got {
		g, w := float64(gv), want[i]
		gFinite := !math.IsNaN(g) && !math.IsInf(g, 0)
		wFinite := !math.IsNaN(w) && !math.IsInf(w, 0)
		if !gFinite || !wFinite {
			same := math.IsNaN(g) && math.IsNaN(w) || g == w
			if !same {
				if e.Mismatches == 0 {
					e.Worst, e.Got, e.Want = i, g, w
				}
				e.Mismatches++
			}
			continue
		}
		d := math.Abs(g - w)
		sumD2 += d * d
		sumW2 += w * w
		maxW = math.Max(maxW, math.Abs(w))
		if worst < 0 || d > maxD {
			maxD, worst = d, i
		}
	}
	if e.Mismatches == 0 && worst >= 0 {
		e.Worst, e.Got, e.Want = worst, float64(got[worst]), want[worst]
	}
	e.MaxErr, e.NMSE = maxD, sumD2
	if maxW > 0 {
		e.MaxErr = maxD / maxW
	}
	if sumW2 > 0 {
		e.NMSE = sumD2 / sumW2
	}
	return e, nil
}

// ErrNoOutput is Compare's error for an output that is missing.
var ErrNoOutput = errors.New("no output")

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
		if finite(gv) && finite(wv) {
			if r := math.Abs(gv-wv) / math.Max(math.Abs(wv), math.SmallestNonzeroFloat64); r > worst {
				worst, worstI = r, i
			}
		}
		if !Near(gv, wv, rtol*math.Abs(wv)+atol) {
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

// Near says whether got is within tol of want: NaN exactly where want is
// NaN, ±Inf exactly where want is ±Inf, else |got−want| ≤ tol. It is
// Close's test of each element, for suites whose tolerance differs from
// one element to the next.
func Near(got, want, tol float64) bool {
	switch {
	case math.IsNaN(want) || math.IsNaN(got):
		return math.IsNaN(want) && math.IsNaN(got)
	case math.IsInf(want, 0) || math.IsInf(got, 0):
		return got == want
	}
	return math.Abs(got-want) <= tol
}

func finite(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }

// Within checks got against want in the max-norm, as verify does
// (Compare): max|got−want| / max|want| at most tol, NaN and ±Inf exactly
// where want has them. It reports the worst element and returns whether
// got passed.
func Within[T float32 | float64](t testing.TB, what string, got []T, want []float64, tol float64) bool {
	t.Helper()
	e, err := Compare(got, want)
	switch {
	case err != nil:
		t.Errorf("%s: %v", what, err)
		return false
	case e.Mismatches > 0:
		t.Errorf("%s: %d NaN or Inf out of place, the first at [%d]: got %v want %v", what, e.Mismatches, e.Worst, e.Got, e.Want)
		return false
	case !(e.MaxErr <= tol):
		t.Errorf("%s: max error %.3g relative to the largest |want|, more than %g: got %.17g want %.17g at [%d]", what, e.MaxErr, tol, e.Got, e.Want, e.Worst)
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
