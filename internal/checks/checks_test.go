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
	if Close(r, "x", []float32{1, 2}, []float64{1, 2.001}, 1e-6, 0) || r.errors == 0 {
		t.Error("a 5e-4 relative error passed a 1e-6 tolerance")
	}
	if !Close(t, "x", []float64{1, math.Inf(-1), math.NaN()}, []float64{1, math.Inf(-1), math.NaN()}, 0, 0) {
		t.Error("identical values failed")
	}
}
