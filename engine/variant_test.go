package engine

import (
	"errors"
	"testing"

	"github.com/vkstat/vkstat/tensor"
)

// TestVariant: the kernel-name endings and sizes, written out by hand, for
// every type on a device with shaderFloat64, one without, and with float
// sums forced.
func TestVariant(t *testing.T) {
	with := &Device{Info: DeviceInfo{Name: "with", Float64: true}}
	without := &Device{Info: DeviceInfo{Name: "without"}}
	for _, c := range []struct {
		dev          *Device
		dt           tensor.DType
		acc32        bool
		suffix, typ  string
		widened      string
		value, accSz int
	}{
		{with, tensor.F32, false, "_f32", "_f32", "_f32", 4, 8},
		{with, tensor.F64, false, "_f64", "_f64", "_f64", 8, 8},
		{with, tensor.F16, false, "_f16", "_f16", "_f32", 4, 8},
		{with, tensor.BF16, false, "_bf16", "_bf16", "_f32", 4, 8},
		{with, tensor.F32, true, "_f32acc32", "_f32", "_f32acc32", 4, 4},
		{with, tensor.F64, true, "_f64", "_f64", "_f64", 8, 8}, // no float-sum variant of float64
		{with, tensor.F16, true, "_f16acc32", "_f16", "_f32acc32", 4, 4},
		{with, tensor.BF16, true, "_bf16acc32", "_bf16", "_f32acc32", 4, 4},
		{without, tensor.F32, false, "_f32acc32", "_f32", "_f32acc32", 4, 4},
		{without, tensor.F16, false, "_f16acc32", "_f16", "_f32acc32", 4, 4},
		{without, tensor.BF16, false, "_bf16acc32", "_bf16", "_f32acc32", 4, 4},
		{without, tensor.F32, true, "_f32acc32", "_f32", "_f32acc32", 4, 4},
	} {
		v, err := c.dev.Variant(c.dt, c.acc32)
		if err != nil {
			t.Errorf("%s %s acc32=%v: %v", c.dev.Info.Name, c.dt, c.acc32, err)
			continue
		}
		got := []any{v.Suffix(), v.TypeSuffix(), v.Widened().Suffix(), v.ValueSize(), v.AccSize(), v.DType}
		want := []any{c.suffix, c.typ, c.widened, c.value, c.accSz, c.dt}
		for i := range got {
			if got[i] != want[i] {
				t.Errorf("%s %s acc32=%v: got (suffix, type suffix, widened, value size, sum size, type) %v, want %v",
					c.dev.Info.Name, c.dt, c.acc32, got, want)
				break
			}
		}
	}
	for _, acc32 := range []bool{false, true} {
		if _, err := without.Variant(tensor.F64, acc32); !errors.Is(err, ErrNoFloat64) {
			t.Errorf("float64 data on a device without shaderFloat64 (acc32=%v): got %v, want ErrNoFloat64", acc32, err)
		}
	}
}
