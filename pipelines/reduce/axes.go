package reduce

import (
	"fmt"
	"slices"

	"github.com/vkstat/vkstat/internal/par"
	"github.com/vkstat/vkstat/tensor"
)

// MergeAxes views shape reduced over axes (NumPy numbering, negative from
// the end) as one axis of a view of shape: one axis leaves the shape as it
// is; a run of adjacent axes is merged into one (a C-order array views
// either way without a copy); no axes means every axis, the array
// flattened. Axes that are not adjacent (NumPy's axis=(0, 2)) need a
// copy: perm, non-nil then, orders the kept axes first and the reduced
// ones last (Permuted), and the view is that copy's shape with the
// reduced axes merged. It returns the view's shape and the axis to reduce
// in it; the outputs then have shape's shape without the axes, in order.
func MergeAxes(shape []int, axes []int) (view []int, axis int, perm []int, err error) {
	nd := len(shape)
	if len(axes) == 0 {
		return []int{tensor.NumElements(shape)}, 0, nil, nil
	}
	if nd == 0 {
		return nil, 0, nil, fmt.Errorf("cannot reduce a 0-d array along axis %d", axes[0])
	}
	norm := make([]int, len(axes))
	for i, a := range axes {
		if a < -nd || a >= nd {
			return nil, 0, nil, AxisError{Axis: a, ND: nd}
		}
		if a < 0 {
			a += nd
		}
		norm[i] = a
	}
	slices.Sort(norm)
	adjacent := true
	for i := 1; i < len(norm); i++ {
		if norm[i] == norm[i-1] {
			return nil, 0, nil, fmt.Errorf("axis %d given twice", norm[i])
		}
		adjacent = adjacent && norm[i] == norm[i-1]+1
	}
	if !adjacent {
		for i := range nd {
			if !slices.Contains(norm, i) {
				perm = append(perm, i)
				view = append(view, shape[i])
			}
		}
		perm = append(perm, norm...)
		n := 1
		for _, a := range norm {
			n *= shape[a]
		}
		return append(view, n), len(view), perm, nil
	}
	lo, hi := norm[0], norm[len(norm)-1]
	merged := append(append(append([]int{}, shape[:lo]...), tensor.NumElements(shape[lo:hi+1])), shape[hi+1:]...)
	return merged, lo, nil, nil
}

// AxisError is an axis out of range of an array of ND dimensions (NumPy's
// AxisError).
type AxisError struct{ Axis, ND int }

func (e AxisError) Error() string {
	return fmt.Sprintf("axis %d is out of range for an array of %d dimension(s) (valid: %d..%d)", e.Axis, e.ND, -e.ND, e.ND-1)
}

// Permuted returns x's data transposed by perm (output axis i is input
// axis perm[i]), as a new tensor of x's dtype.
func Permuted(x *tensor.Tensor, perm []int) *tensor.Tensor {
	shape := make([]int, len(perm))
	for i, a := range perm {
		shape[i] = x.Shape[a]
	}
	out := tensor.New(x.DType, shape...)
	switch {
	case x.DType == tensor.F64:
		permute(out.F64, x.F64, x.Shape, perm)
	case x.DType.Is16():
		permute(out.U16, x.U16, x.Shape, perm)
	default:
		permute(out.F32, x.F32, x.Shape, perm)
	}
	return out
}

// permute writes src (of shape shape) transposed by perm into dst: one
// output row (the last output axis) at a time, rows spread over the cores.
func permute[T ~float32 | ~float64 | ~uint16](dst, src []T, shape, perm []int) {
	nd := len(shape)
	if len(dst) == 0 {
		return
	}
	stride := make([]int, nd)
	s := 1
	for i := nd - 1; i >= 0; i-- {
		stride[i] = s
		s *= shape[i]
	}
	oshape := make([]int, nd)
	ostride := make([]int, nd) // input stride of each output axis
	for i, a := range perm {
		oshape[i], ostride[i] = shape[a], stride[a]
	}
	rowLen, step := oshape[nd-1], ostride[nd-1]
	rows := len(dst) / rowLen
	par.Range(rows, max(1, 4096/rowLen), func(lo, hi int) {
		for r := lo; r < hi; r++ {
			off, q := 0, r
			for i := nd - 2; i >= 0; i-- {
				off += (q % oshape[i]) * ostride[i]
				q /= oshape[i]
			}
			row := dst[r*rowLen : (r+1)*rowLen]
			for j := range row {
				row[j] = src[off+j*step]
			}
		}
	})
}
