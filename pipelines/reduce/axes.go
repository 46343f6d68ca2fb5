package reduce

import (
	"fmt"
	"slices"

	"github.com/vkstat/vkstat/tensor"
)

// MergeAxes views shape reduced over axes (NumPy numbering, negative from
// the end) as one axis of a view of shape: one axis leaves the shape as it
// is; a run of adjacent axes is merged into one (a C-order array views
// either way without a copy); no axes means every axis, the array
// flattened. It returns the view's shape and the axis to reduce in it; the
// outputs then have shape's shape without the axes.
func MergeAxes(shape []int, axes []int) ([]int, int, error) {
	nd := len(shape)
	if len(axes) == 0 {
		return []int{tensor.NumElements(shape)}, 0, nil
	}
	if nd == 0 {
		return nil, 0, fmt.Errorf("cannot reduce a 0-d array along axis %d", axes[0])
	}
	norm := make([]int, len(axes))
	for i, a := range axes {
		if a < -nd || a >= nd {
			return nil, 0, fmt.Errorf("axis %d is out of range for an array of %d dimension(s) (valid: %d..%d)", a, nd, -nd, nd-1)
		}
		if a < 0 {
			a += nd
		}
		norm[i] = a
	}
	slices.Sort(norm)
	for i := 1; i < len(norm); i++ {
		if norm[i] == norm[i-1] {
			return nil, 0, fmt.Errorf("axis %d given twice", norm[i])
		}
		if norm[i] != norm[i-1]+1 {
			return nil, 0, fmt.Errorf("axes %v are not adjacent: one axis or a run of adjacent axes is reduced", norm)
		}
	}
	lo, hi := norm[0], norm[len(norm)-1]
	merged := append(append(append([]int{}, shape[:lo]...), tensor.NumElements(shape[lo:hi+1])), shape[hi+1:]...)
	return merged, lo, nil
}
