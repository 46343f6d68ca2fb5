// Package tensor holds the n-dimensional float arrays that flow between file
// formats, pipelines and the command line: a row-major (C order) shape and
// float32 or float64 data, or float16 or bfloat16 data kept as their raw
// 16-bit patterns (storage only: pipelines that take them widen each value
// exactly to float32 as they read it).
package tensor

import (
	"fmt"
	"strconv"
	"strings"
	"sync"
	"unsafe"
)

// DType is the element type of a Tensor.
type DType int

const (
	// F32 is IEEE-754 binary32.
	F32 DType = iota
	// F64 is IEEE-754 binary64.
	F64
	// F16 is IEEE-754 binary16 (NumPy's float16), stored as its bits in U16.
	F16
	// BF16 is bfloat16 (the top half of a binary32), stored as its bits in
	// U16.
	BF16
)

// String returns "float32", "float64", "float16" or "bfloat16".
func (d DType) String() string {
	switch d {
	case F64:
		return "float64"
	case F16:
		return "float16"
	case BF16:
		return "bfloat16"
	}
	return "float32"
}

// Size is the number of bytes per element.
func (d DType) Size() int {
	switch d {
	case F64:
		return 8
	case F16, BF16:
		return 2
	}
	return 4
}

// Is16 reports whether d is one of the 16-bit storage types, F16 or BF16.
func (d DType) Is16() bool { return d == F16 || d == BF16 }

// Widen returns the exact conversion of d's 16-bit patterns to float32
// (HalfToFloat32 or BFloat16ToFloat32, looked up in Table); nil for the
// other types.
func (d DType) Widen() func(uint16) float32 {
	t := d.Table()
	if t == nil {
		return nil
	}
	return func(h uint16) float32 { return t[h] }
}

// Table returns the float32 value of every 16-bit pattern of d (F16 or
// BF16; nil for the other types), built on first use: 256 KiB, which stays
// in a core's L2 cache, where a lookup is cheaper than HalfToFloat32's
// branches. Hot loops index it directly (a uint16 index needs no bounds
// check).
func (d DType) Table() *[1 << 16]float32 {
	switch d {
	case F16:
		return halfTable()
	case BF16:
		return bfloat16Table()
	}
	return nil
}

var (
	halfTable     = sync.OnceValue(func() *[1 << 16]float32 { return widenTable(HalfToFloat32) })
	bfloat16Table = sync.OnceValue(func() *[1 << 16]float32 { return widenTable(BFloat16ToFloat32) })
)

func widenTable(f func(uint16) float32) *[1 << 16]float32 {
	t := new([1 << 16]float32)
	for h := range t {
		t[h] = f(uint16(h))
	}
	return t
}

// ParseDType accepts f32, float32, f64 and float64, and the 16-bit storage
// types f16, float16, half, bf16 and bfloat16.
func ParseDType(s string) (DType, error) {
	switch strings.ToLower(s) {
	case "f32", "float32", "single":
		return F32, nil
	case "f64", "float64", "double":
		return F64, nil
	case "f16", "float16", "half":
		return F16, nil
	case "bf16", "bfloat16":
		return BF16, nil
	}
	return 0, fmt.Errorf("unknown precision %q (want f32, f64, f16 or bf16)", s)
}

// Tensor is a dense row-major array. Exactly one of F32, F64 and U16 is
// set, according to DType (U16 for F16 and BF16).
type Tensor struct {
	Shape []int
	DType DType
	F32   []float32
	F64   []float64
	U16   []uint16
}

// New allocates a zeroed tensor (large ones on huge pages: Make).
func New(dt DType, shape ...int) *Tensor {
	t := &Tensor{Shape: append([]int(nil), shape...), DType: dt}
	n := NumElements(shape)
	switch {
	case dt == F64:
		t.F64 = Make[float64](n)
	case dt.Is16():
		t.U16 = Make[uint16](n)
	default:
		t.F32 = Make[float32](n)
	}
	return t
}

// FromU16 wraps 16-bit patterns of dt, F16 or BF16 (not copied).
func FromU16(dt DType, data []uint16, shape ...int) *Tensor {
	return &Tensor{Shape: append([]int(nil), shape...), DType: dt, U16: data}
}

// HasData reports whether the slice that DType selects holds Len() values.
func (t *Tensor) HasData() bool {
	n := t.Len()
	switch {
	case t.DType == F64:
		return len(t.F64) == n
	case t.DType.Is16():
		return len(t.U16) == n
	}
	return len(t.F32) == n
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

// Float64s returns the data as float64, converting (copying) float32 and
// 16-bit data.
func (t *Tensor) Float64s() []float64 {
	if t.DType == F64 {
		return t.F64
	}
	if w := t.DType.Widen(); w != nil {
		out := make([]float64, len(t.U16))
		for i, v := range t.U16 {
			out[i] = float64(w(v))
		}
		return out
	}
	out := make([]float64, len(t.F32))
	for i, v := range t.F32 {
		out[i] = float64(v)
	}
	return out
}

// As returns t converted to dt; t itself when it already has that type.
// 16-bit values widen exactly; float32 rounds to float16 or bfloat16 to
// nearest, ties to even (float64 goes through float32).
func (t *Tensor) As(dt DType) *Tensor {
	if t.DType == dt {
		return t
	}
	out := New(dt, t.Shape...)
	if w := t.DType.Widen(); w != nil { // exact
		if dt.Is16() { // float16 ↔ bfloat16: through float32
			return t.As(F32).As(dt)
		}
		for i, v := range t.U16 {
			if dt == F64 {
				out.F64[i] = float64(w(v))
			} else {
				out.F32[i] = w(v)
			}
		}
		return out
	}
	if dt.Is16() { // rounded to nearest, ties to even
		round := Float32ToHalf
		if dt == BF16 {
			round = Float32ToBFloat16
		}
		for i, v := range t.F32 {
			out.U16[i] = round(v)
		}
		for i, v := range t.F64 {
			out.U16[i] = round(float32(v))
		}
		return out
	}
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

// ParseShape reads a shape as the command line takes it: positive
// integers, comma-separated ("64,512,512"; spaces around each allowed),
// of at most 2^40 elements in all.
func ParseShape(s string) ([]int, error) {
	var shape []int
	total := 1
	for _, f := range strings.Split(s, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || n <= 0 {
			return nil, fmt.Errorf("%q is not a list of positive integers", s)
		}
		if total > (1<<40)/n {
			return nil, fmt.Errorf("%s is too large", s)
		}
		total *= n
		shape = append(shape, n)
	}
	return shape, nil
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
	if t.DType.Is16() {
		if len(t.U16) == 0 {
			return nil
		}
		return unsafe.Slice((*byte)(unsafe.Pointer(&t.U16[0])), 2*len(t.U16))
	}
	if len(t.F32) == 0 {
		return nil
	}
	return unsafe.Slice((*byte)(unsafe.Pointer(&t.F32[0])), 4*len(t.F32))
}
