package latent

import (
	"fmt"
	"slices"
)

// AxisError is an axis the moments cannot reduce: out of range for an
// array of ND dimensions, or (Twice) given twice. Error says it in the
// library's words; a front end may word its fields in its own.
type AxisError struct {
	Axis, ND int
	Twice    bool
}

func (e *AxisError) Error() string {
	if e.Twice {
		return fmt.Sprintf("latent: axis %d is given twice", e.Axis)
	}
	return fmt.Sprintf("latent: axis %d is out of range for a %d-d tensor (valid: %d..%d)", e.Axis, e.ND, -e.ND, e.ND-1)
}

// NormAxes checks axes against nd dimensions (an *AxisError) and returns
// them sorted and non-negative: the one check of the moments' axes, for
// Run and the front ends that refuse bad axes before they read an array.
func NormAxes(axes []int, nd int) ([]int, error) {
	if len(axes) == 0 {
		return nil, fmt.Errorf("latent: no axes to reduce given")
	}
	var out []int
	for _, a := range axes {
		b := a
		if b < 0 {
			b += nd
		}
		if b < 0 || b >= nd {
			return nil, &AxisError{Axis: a, ND: nd}
		}
		if slices.Contains(out, b) {
			return nil, &AxisError{Axis: a, ND: nd, Twice: true}
		}
		out = append(out, b)
	}
	slices.Sort(out)
	return out, nil
}
