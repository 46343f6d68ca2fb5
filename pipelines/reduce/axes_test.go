package reduce

import (
	"fmt"
	"testing"
)

// TestMergeAxes: one axis keeps the shape, adjacent axes (in any order,
// negative or not) merge into one, none flattens; gaps, repeats and axes
// out of range are errors.
func TestMergeAxes(t *testing.T) {
	shape := []int{2, 3, 4, 5}
	for _, c := range []struct {
		axes []int
		want string
	}{
		{[]int{0}, "[2 3 4 5] 0"},
		{[]int{-1}, "[2 3 4 5] 3"},
		{[]int{0, 1}, "[6 4 5] 0"},
		{[]int{-1, 2}, "[2 3 20] 2"},
		{[]int{2, 1, 3}, "[2 60] 1"},
		{nil, "[120] 0"},
		{[]int{0, 2}, "error"},
		{[]int{1, 1}, "error"},
		{[]int{4}, "error"},
		{[]int{-5}, "error"},
	} {
		merged, axis, err := MergeAxes(shape, c.axes)
		got := fmt.Sprint(merged, " ", axis)
		if err != nil {
			got = "error"
		}
		if got != c.want {
			t.Errorf("MergeAxes(%v, %v) = %s (%v), want %s", shape, c.axes, got, err, c.want)
		}
	}
}
