package reduce

import (
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/vkstat/vkstat/engine"

	"github.com/vkstat/vkstat/internal/par"
	"github.com/vkstat/vkstat/tensor"
)

// Axes are the axes a reduction reduces, NumPy's axis: one or more axes
// (NumPy numbering: negative counts from the end, -1 the last), in any
// order; or none, nil: every axis, the array flattened (NumPy's
// axis=None). Adjacent axes are reduced as one without a copy; axes that
// are not adjacent (0,2) are reduced by Run from a transposed copy
// (MergeAxes). The front ends write them as their users do: the command
// line "0", "1,2" or "all" (Text, UnmarshalText), the C ABI an integer, a
// list of them or null (SetValue), Python an int, a tuple or None.
type Axes []int

// String writes the axes as UnmarshalText reads them: "0", "1,2", or
// "all" for none.
func (a Axes) String() string {
	if a == nil {
		return "all"
	}
	s := make([]string, len(a))
	for i, n := range a {
		s[i] = strconv.Itoa(n)
	}
	return strings.Join(s, ",")
}

// UnmarshalText reads axes as String writes them: integers
// comma-separated, or "all" (nil). Anything else is refused (axisError).
func (a *Axes) UnmarshalText(b []byte) error {
	text := string(b)
	if strings.TrimSpace(text) == "all" {
		*a = nil
		return nil
	}
	var axes Axes
	for _, f := range strings.Split(text, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil {
			return axisError(strconv.Quote(text))
		}
		axes = append(axes, n)
	}
	*a = axes
	return nil
}

// SetValue reads axes decoded from JSON (the C ABI's, numbers as
// json.Number; engine.ValueSetter): an integer, a non-empty list of them,
// or null (nil: every axis), as NumPy's axis is an int, a tuple of them or
// None. Anything else is refused (axisError), a string too: NumPy refuses
// axis="0".
func (a *Axes) SetValue(v any) error {
	one := func(v any) (int, bool) {
		switch x := v.(type) {
		case json.Number:
			n, err := strconv.Atoi(string(x))
			return n, err == nil
		case int:
			return x, true
		}
		return 0, false
	}
	switch x := v.(type) {
	case nil:
		*a = nil
		return nil
	case []any:
		axes := make(Axes, len(x))
		for i, e := range x {
			var ok bool
			if axes[i], ok = one(e); !ok {
				return axisError(jsonText(v))
			}
		}
		if len(axes) == 0 {
			return axisError(jsonText(v))
		}
		*a = axes
		return nil
	}
	n, ok := one(v)
	if !ok {
		return axisError(jsonText(v))
	}
	*a = Axes{n}
	return nil
}

// axisError is the refusal of axes that are none of Axes' forms, one
// wording for every front end, the value as its user wrote it: an
// *engine.FieldError naming axis.
func axisError(value string) error {
	return engine.Fieldf("axis", " %s: want an axis (0, -1), axes (1,2 or 0,2) or all", value)
}

// jsonText is v, decoded from JSON, as JSON writes it.
func jsonText(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(b)
}

// NumPy is the axes as NumPy's axis argument: nil for every axis, an int
// for one, a list for several.
func (a Axes) NumPy() any {
	switch len(a) {
	case 0:
		if a == nil {
			return nil
		}
	case 1:
		return a[0]
	}
	return []int(a)
}

// Geometry is the reduction of an array of shape over o.Axes viewed as
// one axis (MergeAxes): N values to each output, OutShape the shape
// without the axes, Perm the transposition of the copy Run reduces for
// axes that are not adjacent. An axis of length 0 returns the geometry
// with ErrEmptyAxis.
func (o Options) Geometry(shape []int) (Geometry, error) {
	view, axis, perm, err := MergeAxes(shape, o.Axes)
	if err != nil {
		return Geometry{}, err
	}
	g, err := Plan(view, axis)
	g.Perm = perm
	return g, err
}

// plan is the geometry of the one-axis paths (CPU, Vulkan, CPUPartial,
// NewCPUPlan, Reference), which read shape as its merged view: one axis,
// adjacent axes or every axis; axes that are not adjacent need Run's
// transposed copy.
func (o Options) plan(shape []int) (Geometry, error) {
	g, err := o.Geometry(shape)
	if err == nil && g.Perm != nil {
		return g, fmt.Errorf("axes %s are not adjacent: Run reduces them, from a transposed copy", o.Axes)
	}
	return g, err
}

// transposed is in and o made ready for the one-axis paths: for axes that
// are not adjacent, in's copy with the axes moved last (Permuted) and
// viewed with them merged, reduced along that one axis; otherwise in and o
// as they are.
func (o Options) transposed(in *tensor.Tensor) (*tensor.Tensor, Options, error) {
	if in == nil {
		return in, o, nil
	}
	view, axis, perm, err := MergeAxes(in.Shape, o.Axes)
	if err != nil || perm == nil {
		return in, o, err
	}
	in = Permuted(in, perm)
	in.Shape = view
	o.Axes = Axes{axis}
	return in, o, nil
}

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
