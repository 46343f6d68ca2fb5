package chol

import (
	"reflect"
	"testing"
)

// TestWords holds the summary line and the --json failures list to
// hand-written info codes: none failed, two failed, and more than five.
func TestWords(t *testing.T) {
	if got, want := (&Result{Info: []int32{0, 0}}).Words(3), "chol: 2 matrices of 3×3, 0 failed (not positive definite)"; got != want {
		t.Errorf("none failed: %q, want %q", got, want)
	}
	r := &Result{Info: []int32{0, 2, 0, 1}}
	if got, want := r.Words(4), "chol: 4 matrices of 4×4, 2 failed (not positive definite): 1 (pivot 2), 3 (pivot 1)"; got != want {
		t.Errorf("two failed: %q, want %q", got, want)
	}
	if got, want := r.Failures(1), []map[string]int{{"matrix": 1, "info": 2}}; !reflect.DeepEqual(got, want) {
		t.Errorf("Failures(1) = %v, want %v", got, want)
	}
	if got := (&Result{Info: []int32{0}}).Failures(5); got != nil {
		t.Errorf("Failures of none = %v, want nil", got)
	}
	many := &Result{Info: []int32{1, 1, 2, 1, 3, 1, 1}}
	if got, want := many.Words(2), "chol: 7 matrices of 2×2, 7 failed (not positive definite): 0 (pivot 1), 1 (pivot 1), 2 (pivot 2), 3 (pivot 1), 4 (pivot 3), ..."; got != want {
		t.Errorf("seven failed: %q, want %q", got, want)
	}
}
