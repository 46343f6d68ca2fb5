package chol

import (
	"encoding/binary"
	"fmt"

	"github.com/vkstat/vkstat/tensor"
)

// Input errors read after the input's name: "a has shape (4,); want ...".

// view is t with another shape of the same size.
func view(t *tensor.Tensor, shape ...int) *tensor.Tensor {
	return &tensor.Tensor{Shape: shape, DType: t.DType, F32: t.F32, F64: t.F64}
}

// Matrices checks a as Run's matrices: (N, P, P), or one (P, P), which it
// returns as (1, P, P) with single true (Result.Squeeze undoes it).
func Matrices(a *tensor.Tensor) (m *tensor.Tensor, single bool, err error) {
	shape := tensor.ShapeString(a.Shape)
	switch len(a.Shape) {
	case 2:
		single, a = true, view(a, 1, a.Shape[0], a.Shape[1])
	case 3:
	default:
		return nil, false, fmt.Errorf("shape %s; want matrices (N, P, P) or one (P, P)", shape)
	}
	if a.Shape[1] != a.Shape[2] {
		return nil, false, fmt.Errorf("shape %s: the matrices are not square (%d×%d)", shape, a.Shape[1], a.Shape[2])
	}
	if a.Shape[1] == 0 {
		return nil, false, fmt.Errorf("shape %s: empty matrices", shape)
	}
	return a, single, nil
}

// RightHandSides checks b as the right-hand sides of Request.B for
// matrices given in shape aShape (Matrices' input): (N, P, K) or (N, P),
// or for one matrix (P, K) or (P,), returned as (1, P, K) or (1, P).
func RightHandSides(b *tensor.Tensor, aShape []int) (*tensor.Tensor, error) {
	single := len(aShape) == 2
	n, p := 1, aShape[len(aShape)-1]
	if !single {
		n = aShape[0]
	}
	switch {
	case single && len(b.Shape) == 1 && b.Shape[0] == p:
		return view(b, 1, p), nil
	case single && len(b.Shape) == 2 && b.Shape[0] == p:
		return view(b, 1, p, b.Shape[1]), nil
	case !single && len(b.Shape) >= 2 && len(b.Shape) <= 3 && b.Shape[0] == n && b.Shape[1] == p:
		return b, nil
	}
	want := fmt.Sprintf("(%d, %d, K) or (%d, %d)", n, p, n, p)
	if single {
		want = fmt.Sprintf("(%d, K) or (%d,)", p, p)
	}
	return nil, fmt.Errorf("shape %s, which does not fit the matrices of shape %s: want %s", tensor.ShapeString(b.Shape), tensor.ShapeString(aShape), want)
}

// InfoBytes is Info as little-endian int32 bytes, for writers of raw
// arrays.
func (r *Result) InfoBytes() []byte {
	b := make([]byte, 4*len(r.Info))
	for i, v := range r.Info {
		binary.LittleEndian.PutUint32(b[4*i:], uint32(v))
	}
	return b
}

// Squeeze gives the result of one matrix (Matrices' single) that
// matrix's shapes: L and Inverse (P, P), a scalar LogDet, X of bShape
// (the right-hand sides as given) and Quad without its first axis.
func (r *Result) Squeeze(bShape []int) {
	for _, t := range []*tensor.Tensor{r.L, r.Inverse} {
		if t != nil {
			t.Shape = t.Shape[1:]
		}
	}
	if r.LogDet != nil {
		r.LogDet.Shape = []int{}
	}
	if r.X != nil {
		r.X.Shape = bShape
	}
	if r.Quad != nil {
		r.Quad.Shape = r.Quad.Shape[1:]
	}
}
