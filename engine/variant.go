package engine

import (
	"fmt"

	"github.com/vkstat/vkstat/tensor"
)

// Variant is the shader variant a kernel takes for its stored values'
// type on a device. The kernels that sum come as <name>_f32, _f64, _f16
// and _bf16, summing in float64, and, for devices without shaderFloat64,
// <name>_f32acc32, _f16acc32 and _bf16acc32, summing in float
// (compensated); float64 data has the _f64 variant only.
type Variant struct {
	// DType is the stored values' type.
	DType tensor.DType
	// Acc32 makes the kernel sum in float: on a device without
	// shaderFloat64, or when the caller forces it (tests, tuners).
	Acc32 bool
}

// Variant is the variant for values of type dt on d, summing in float64
// where d has shaderFloat64 unless acc32 forces float. Float64 data on a
// device without shaderFloat64 is an error wrapping ErrNoFloat64
// (RequireFloat64's).
func (d *Device) Variant(dt tensor.DType, acc32 bool) (Variant, error) {
	if dt == tensor.F64 {
		return Variant{DType: dt}, d.RequireFloat64()
	}
	return Variant{DType: dt, Acc32: acc32 || !d.Info.Float64}, nil
}

// Suffix ends the name of a kernel that sums: _f32, _f32acc32, _f64,
// _f16, _f16acc32, _bf16 or _bf16acc32.
func (v Variant) Suffix() string {
	if v.Acc32 {
		return v.TypeSuffix() + "acc32"
	}
	return v.TypeSuffix()
}

// TypeSuffix ends the name of a kernel that comes in one variant per type
// only (map, chol, eig): _f32, _f64, _f16 or _bf16.
func (v Variant) TypeSuffix() string {
	switch v.DType {
	case tensor.F32:
		return "_f32"
	case tensor.F64:
		return "_f64"
	case tensor.F16:
		return "_f16"
	case tensor.BF16:
		return "_bf16"
	}
	panic(fmt.Sprintf("engine: no shader variant for %s", v.DType))
}

// Widened is the variant of the values as the kernel computes with them:
// 16-bit values are widened to float32, the others stay as they are.
func (v Variant) Widened() Variant {
	if v.DType.Is16() {
		v.DType = tensor.F32
	}
	return v
}

// ValueSize is the bytes of a value as the kernel computes with it (the
// shaders' T): 8 for float64 data, 4 for the others (16-bit values are
// widened to float). The stored values take DType.Size() bytes.
func (v Variant) ValueSize() int { return v.Widened().DType.Size() }

// AccSize is the bytes of one of the kernel's sums: 4 with Acc32, 8
// otherwise.
func (v Variant) AccSize() int {
	if v.Acc32 {
		return 4
	}
	return 8
}
