package stack

import "testing"

// TestNames: every filter kind parses from its name ("" is none, an
// unknown name an error), Stat returns each statistic by its name, and
// Empty counts the pixels of count 0.
func TestNames(t *testing.T) {
	for _, k := range []FilterKind{NoFilter, Boxcar, Lee, RefinedLee} {
		if got, err := ParseFilter(k.String()); got != k || err != nil {
			t.Errorf("ParseFilter(%q) = %v, %v", k.String(), got, err)
		}
	}
	if k, err := ParseFilter(""); k != NoFilter || err != nil {
		t.Errorf(`ParseFilter("") = %v, %v`, k, err)
	}
	if _, err := ParseFilter("gauss"); err == nil {
		t.Error("ParseFilter(gauss) accepted")
	}
	if n := (&Result{Count: []float32{0, 2, 0, 1}}).Empty(); n != 2 {
		t.Errorf("Empty = %d, want 2", n)
	}
	r := &Result{Mean: []float32{1}, Std: []float32{2}, CV: []float32{3}, Min: []float32{4}, Max: []float32{5}, Count: []float32{6}, Samples: []float32{7}}
	for i, n := range Stats {
		if v := r.Stat(n); len(v) != 1 || v[0] != float32(i+1) {
			t.Errorf("Stat(%q) = %v, want [%d]", n, v, i+1)
		}
	}
}
