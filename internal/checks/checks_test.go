package checks

import (
	"math"
	"testing"
)

// recorder counts the failures a check reports.
type recorder struct {
	testing.TB
	errors int
}

func (r *recorder) Errorf(string, ...any) { r.errors++ }
func (r *recorder) Helper()               {}

func TestBlocksFails(t *testing.T) {
	nan := math.NaN()
	cases := []struct {
		name      string
		got, want []float64
		norm      Norm
		fail      bool
	}{
		{"equal", []float64{1, 2, 3, 4}, []float64{1, 2, 3, 4}, Relative, false},
		{"off in block 2", []float64{1, 2, 3, 4.1}, []float64{1, 2, 3, 4}, Relative, true},
		{"NaN in the wrong place", []float64{1, nan, 3, 4}, []float64{1, 2, 3, 4}, Relative, true},
		{"NaN in the right place", []float64{1, nan, 3, 4}, []float64{1, nan, 3, 4}, Relative, false},
		{"small absolute", []float64{1e-3, 0, 0, 0}, []float64{0, 0, 0, 0}, Absolute, true},
		{"floored", []float64{1e-9, 0, 0, 0}, []float64{0, 0, 0, 0}, RelativeFloor, false},
	}
	for _, c := range cases {
		r := &recorder{TB: t}
		Blocks(r, c.name, c.got, c.want, 2, 1e-6, c.norm)
		if (r.errors > 0) != c.fail {
			t.Errorf("%s: %d failures reported, want failure %v", c.name, r.errors, c.fail)
		}
	}
}

func TestCloseFails(t *testing.T) {
	r := &recorder{TB: t}
	nan, inf := math.NaN(), math.Inf(-1)
	for _, c := range []struct {
		why       string
		got, want []float64
		rtol      float64
	}{
		{"a 5e-4 relative error passed a 1e-6 tolerance", []float64{1, 2}, []float64{1, 2.001}, 1e-6},
		{"relative error 5e-10 passed rtol 1e-12", []float64{1, 2, nan}, []float64{1, 2 + 1e-9, nan}, 1e-12},
		{"a value where NaN was wanted passed", []float64{1, 2, 3}, []float64{1, 2, nan}, 1e-12},
		{"a NaN where 2 was wanted passed", []float64{1, nan}, []float64{1, 2}, 1e-6},
		{"a short result passed", []float64{1, 2}, []float64{1, 2, 3}, 1e-6},
	} {
		if Close(r, "x", c.got, c.want, c.rtol, 0) {
			t.Error(c.why)
		}
		if c.rtol == 1e-6 && Close(r, "x", []float32{float32(c.got[0]), float32(c.got[1])}, c.want, c.rtol, 0) {
			t.Error(c.why + " in float32")
		}
	}
	if r.errors != 8 {
		t.Errorf("%d failures reported, want 8", r.errors)
	}
	if !Close(t, "x", []float64{1, inf, nan}, []float64{1, inf, nan}, 0, 0) || !Close(t, "x", []float32{1, float32(nan), float32(inf)}, []float64{1, nan, inf}, 1e-6, 0) {
		t.Error("identical values failed")
	}
}

// TestWithinFails: Within measures the error relative to the largest
// |want| (a 1e-3 error on a value of 1 passes 1e-3 when the largest is
// 10, not when it is 1), and refuses NaN or Inf out of place and a short
// result.
func TestWithinFails(t *testing.T) {
	r := &recorder{TB: t}
	nan, inf := math.NaN(), math.Inf(1)
	for _, c := range []struct {
		why       string
		got, want []float64
	}{
		{"a 1e-3 error relative to the largest value 1 passed 1e-4", []float64{1.001, 0.5}, []float64{1, 0.5}},
		{"a value where NaN was wanted passed", []float64{1, 2}, []float64{1, nan}},
		{"a NaN where 2 was wanted passed", []float64{1, nan}, []float64{1, 2}},
		{"a finite value where Inf was wanted passed", []float64{1, 2}, []float64{1, inf}},
		{"a short result passed", []float64{1}, []float64{1, 2}},
	} {
		if Within(r, "x", c.got, c.want, 1e-4) {
			t.Error(c.why)
		}
	}
	if r.errors != 5 {
		t.Errorf("%d failures reported, want 5", r.errors)
	}
	if !Within(t, "x", []float32{1.001, 10, float32(nan), float32(inf)}, []float64{1, 10, nan, inf}, 1.1e-4) {
		t.Error("a 1e-3 error on 1 beside a 10 failed 1.1e-4")
	}
}

func TestNear(t *testing.T) {
	nan, inf := math.NaN(), math.Inf(1)
	for _, c := range []struct {
		got, want, tol float64
		ok             bool
	}{
		{1, 1.5, 0.5, true}, {1, 1.5, 0.4, false}, {nan, nan, 0, true}, {nan, 1, 1e9, false}, {1, nan, 1e9, false},
		{inf, inf, 0, true}, {-inf, inf, 1e9, false}, {1e300, inf, 1e308, false}, {inf, 1, inf, false},
	} {
		if Near(c.got, c.want, c.tol) != c.ok {
			t.Errorf("Near(%v, %v, %v) = %v", c.got, c.want, c.tol, !c.ok)
		}
	}
}
