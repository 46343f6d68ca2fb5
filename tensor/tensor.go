// Package tensor holds the n-dimensional float arrays that flow between file
// formats, pipelines and the command line: a row-major (C order) shape and
// either float32 or float64 data.
package tensor

import (
	"fmt"
	"strings"
	"unsafe"
)

// DType is the element type of a Tensor.
type DType int

const (
	// F32 is IEEE-754 binary32.
	F32 DType = iota
	// F64 is IEEE-754 binary64.
	F64
)

// String returns "float32" or "float64".
func (d DType) String() string {
	if d == F64 {
		return "float64"
	}
	return "float32"
}

// Size is the number of bytes per element.
func (d DType) Size() int {
	if d == F64 {
		return 8
	}
	return 4
}

// ParseDType accepts f32, float32, f64 and float64.
func ParseDType(s string) (DType, error) {
	switch strings.ToLower(s) {
	case "f32", "float32", "single":
		return F32, nil
	case "f64", "float64", "double":
		return F64, nil
	}
	return 0, fmt.Errorf("unknown precision %q (want f32 or f64)", s)
}

// Tensor is a dense row-major array. Exactly one of F32 and F64 is set,
// according to DType.
type Tensor struct {
	Shape []int
	DType DType
	F32   []float32
	F64   []float64
}

// New allocates a zeroed tensor.
func New(dt DType, shape ...int) *Tensor {
	t := &Tensor{Shape: append([]int(nil), shape...), DType: dt}
	n := NumElements(shape)
	if dt == F64 {
		t.F64 = make([]float64, n)
	} else {
		t.F32 = make([]float32, n)
	}
	return t
}

// FromF64 wraps data (not copied).
func FromF64(data []float64, shape ...int) *Tensor {
	return &Tensor{Shape: append([]int(nil), shape...), DType: F64, F64: data}
}

// FromF32 wraps data (not copied).
func FromF32(data []float32, shape ...int) *Tensor {
	return &Tensor{Shape: append([]int(nil), shape...), DType: F32, F32: data}
}

// NumElements is the product of shape (1 for a scalar).
func NumElements(shape []int) int {
	n := 1
	for _, s := range shape {
		n *= s
	}
	return n
}

// Len is the number of elements.
func (t *Tensor) Len() int { return NumElements(t.Shape) }

// Bytes is the size of the data in bytes.
func (t *Tensor) Bytes() int { return t.Len() * t.DType.Size() }

// Float64s returns the data as float64, converting (copying) float32 data.
func (t *Tensor) Float64s() []float64 {
	if t.DType == F64 {
		return t.F64
	}
	out := make([]float64, len(t.F32))
	for i, v := range t.F32 {
		out[i] = float64(v)
	}
	return out
}

// As returns t converted to dt; t itself when it already has that type.
func (t *Tensor) As(dt DType) *Tensor {
	if t.DType == dt {
		return t
	}
	out := New(dt, t.Shape...)
	if dt == F64 {
		for i, v := range t.F32 {
			out.F64[i] = float64(v)
		}
	} else {
		for i, v := range t.F64 {
			out.F32[i] = float32(v)
		}
	}
	return out
}

// ShapeString formats a shape as NumPy does: (3, 4).
func ShapeString(shape []int) string {
	parts := make([]string, len(shape))
	for i, s := range shape {
		parts[i] = fmt.Sprint(s)
	}
	if len(shape) == 1 {
		return "(" + parts[0] + ",)"
	}
	return "(" + strings.Join(parts, ", ") + ")"
}

// SameShape reports whether a and b are equal shapes.
func SameShape(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// Raw returns the tensor's data as bytes in native (little-endian on every
// platform vkstat supports) order, sharing memory with the tensor.
func (t *Tensor) Raw() []byte {
	if t.DType == F64 {
		if len(t.F64) == 0 {
			return nil
		}
		return unsafe.Slice((*byte)(unsafe.Pointer(&t.F64[0])), 8*len(t.F64))
	}
	if len(t.F32) == 0 {
		return nil
	}
	return unsafe.Slice((*byte)(unsafe.Pointer(&t.F32[0])), 4*len(t.F32))
}
