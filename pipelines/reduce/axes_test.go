package reduce

import (
	"fmt"
	"testing"

	"github.com/vkstat/vkstat/tensor"
)

// TestMergeAxes: one axis keeps the shape, adjacent axes (in any order,
// negative or not) merge into one, none flattens; axes with a gap are
// moved last by a permutation and merged; repeats and axes out of range
// are errors. TestPermuted checks the permuted copy element by element.
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
		{[]int{0, 2}, "[3 5 8] 2 [1 3 0 2]"},
		{[]int{-1, 1}, "[2 4 15] 2 [0 2 1 3]"},
		{[]int{0, 3}, "[3 4 10] 2 [1 2 0 3]"},
		{[]int{1, 1}, "error"},
		{[]int{4}, "error"},
		{[]int{-5}, "error"},
	} {
		merged, axis, perm, err := MergeAxes(shape, c.axes)
		got := fmt.Sprint(merged, " ", axis)
		if perm != nil {
			got += fmt.Sprint(" ", perm)
		}
		if err != nil {
			got = "error"
		}
		if got != c.want {
			t.Errorf("MergeAxes(%v, %v) = %s (%v), want %s", shape, c.axes, got, err, c.want)
		}
	}
}

// TestPermuted: each element of a (2, 3, 4) array whose value encodes its
// index lands where the permutation (2, 0, 1) puts it, for every dtype's
// storage.
func TestPermuted(t *testing.T) {
	x := tensor.New(tensor.F64, 2, 3, 4)
	for i := range x.F64 {
		x.F64[i] = float64(i)
	}
	for _, dt := range []tensor.DType{tensor.F64, tensor.F32, tensor.F16} {
		p := Permuted(x.As(dt), []int{2, 0, 1})
		if tensor.ShapeString(p.Shape) != tensor.ShapeString([]int{4, 2, 3}) {
			t.Fatalf("%s: shape %v, want (4, 2, 3)", dt, p.Shape)
		}
		got := p.Float64s()
		for k := range 4 {
			for i := range 2 {
				for j := range 3 {
					if want := float64((i*3+j)*4 + k); got[(k*2+i)*3+j] != want {
						t.Errorf("%s: [%d %d %d] = %g, want %g", dt, k, i, j, got[(k*2+i)*3+j], want)
					}
				}
			}
		}
	}
}
