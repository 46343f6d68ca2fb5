package cov

import (
	"testing"

	"github.com/vkstat/vkstat/tensor"
)

// TestSpreadWords holds the summary line to hand-written spreads: ρ's
// range is given for an estimator that shrinks and has a finite ρ, not for
// None nor when every ρ is NaN.
func TestSpreadWords(t *testing.T) {
	for _, c := range []struct {
		s    Spread
		est  Estimator
		want string
	}{
		{Spread{RhoMean: 0.25, RhoMin: 0.125, RhoMax: 0.5, Finite: 3}, PACO,
			"cov: 3 sample set(s) of 10 samples × 4 variables, estimator paco, ρ mean 0.25 (min 0.125, max 0.5); 0 set(s) with NaN"},
		{Spread{NaNSets: 1, RhoMean: 0.25, Finite: 3}, None,
			"cov: 3 sample set(s) of 10 samples × 4 variables, estimator none; 1 set(s) with NaN"},
		{Spread{NaNSets: 3}, OAS,
			"cov: 3 sample set(s) of 10 samples × 4 variables, estimator oas; 3 set(s) with NaN"},
	} {
		if got := c.s.Words(3, 10, 4, c.est); got != c.want {
			t.Errorf("%+v %v: %q, want %q", c.s, c.est, got, c.want)
		}
	}
}

// TestLocationArray: locations (2, 5) and (0, 7) are the rows of a (2, 2)
// float64 array, y first; none is a (0, 2) array.
func TestLocationArray(t *testing.T) {
	a := Gather{Locations: [][2]int{{2, 5}, {0, 7}}}.LocationArray()
	if a.DType != tensor.F64 || !tensor.SameShape(a.Shape, []int{2, 2}) || a.F64[0] != 2 || a.F64[1] != 5 || a.F64[2] != 0 || a.F64[3] != 7 {
		t.Errorf("%s %v %v", a.DType, a.Shape, a.F64)
	}
	if e := (Gather{}).LocationArray(); !tensor.SameShape(e.Shape, []int{0, 2}) {
		t.Errorf("no location: shape %v", e.Shape)
	}
}
