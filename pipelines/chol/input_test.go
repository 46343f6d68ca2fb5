package chol

import (
	"strings"
	"testing"

	"github.com/vkstat/vkstat/tensor"
)

// TestInputChecks: one matrix (P, P) becomes (1, P, P) and its right-hand
// sides (P,) and (P, K) gain the axis, N matrices keep theirs; shapes
// that do not fit are refused with the shape wanted, and Squeeze gives a
// one-matrix result its shapes back; InfoBytes is little-endian int32.
func TestInputChecks(t *testing.T) {
	m, single, err := Matrices(tensor.New(tensor.F64, 3, 3))
	if err != nil || !single || tensor.ShapeString(m.Shape) != "(1, 3, 3)" {
		t.Errorf("Matrices((3, 3)) = %v, %v, %v", m.Shape, single, err)
	}
	for _, c := range []struct {
		shape []int
		want  string
	}{{[]int{4}, "want matrices"}, {[]int{2, 3, 4}, "not square (3×4)"}, {[]int{2, 0, 0}, "empty"}} {
		if _, _, err := Matrices(tensor.New(tensor.F64, c.shape...)); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("Matrices(%v) = %v, want %q", c.shape, err, c.want)
		}
	}
	for _, c := range []struct {
		a, b []int
		want string // the shape returned, or the error
	}{{[]int{3, 3}, []int{3}, "(1, 3)"}, {[]int{3, 3}, []int{3, 2}, "(1, 3, 2)"}, {[]int{2, 3, 3}, []int{2, 3}, "(2, 3)"},
		{[]int{2, 3, 3}, []int{2, 3, 4}, "(2, 3, 4)"}, {[]int{3, 3}, []int{4}, "want (3, K) or (3,)"}, {[]int{2, 3, 3}, []int{3, 3}, "want (2, 3, K) or (2, 3)"}} {
		b, err := RightHandSides(tensor.New(tensor.F64, c.b...), c.a)
		got := ""
		if err != nil {
			got = err.Error()
		} else {
			got = tensor.ShapeString(b.Shape)
		}
		if !strings.Contains(got, c.want) {
			t.Errorf("RightHandSides(%v for %v) = %q, want %q", c.b, c.a, got, c.want)
		}
	}
	r := &Result{L: tensor.New(tensor.F64, 1, 3, 3), LogDet: tensor.New(tensor.F64, 1), X: tensor.New(tensor.F64, 1, 3), Quad: tensor.New(tensor.F64, 1)}
	r.Info = []int32{0, 3, -1}
	if b := r.InfoBytes(); string(b) != "\x00\x00\x00\x00\x03\x00\x00\x00\xff\xff\xff\xff" {
		t.Errorf("InfoBytes = % x", b)
	}
	r.Squeeze([]int{3})
	if tensor.ShapeString(r.L.Shape) != "(3, 3)" || len(r.LogDet.Shape) != 0 || tensor.ShapeString(r.X.Shape) != "(3,)" || len(r.Quad.Shape) != 0 {
		t.Errorf("Squeeze: L %v, logdet %v, X %v, quad %v", r.L.Shape, r.LogDet.Shape, r.X.Shape, r.Quad.Shape)
	}
}
