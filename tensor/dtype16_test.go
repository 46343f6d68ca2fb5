package tensor

import (
	"math"
	"testing"
)

// TestDType16: the 16-bit storage types' names, sizes and parsing, and
// that F32 and F64 keep theirs.
func TestDType16(t *testing.T) {
	for _, c := range []struct {
		dt   DType
		name string
		size int
		in   []string
	}{
		{F32, "float32", 4, []string{"f32", "float32", "single"}},
		{F64, "float64", 8, []string{"f64", "float64", "double", "F64"}},
		{F16, "float16", 2, []string{"f16", "float16", "half", "F16"}},
		{BF16, "bfloat16", 2, []string{"bf16", "bfloat16", "BF16"}},
	} {
		if c.dt.String() != c.name || c.dt.Size() != c.size || c.dt.Is16() != (c.size == 2) {
			t.Errorf("%d: %s %d", int(c.dt), c.dt, c.dt.Size())
		}
		for _, s := range c.in {
			if d, err := ParseDType(s); err != nil || d != c.dt {
				t.Errorf("ParseDType(%q) = %v, %v", s, d, err)
			}
		}
	}
	if _, err := ParseDType("f8"); err == nil {
		t.Error("f8 parsed")
	}
}

// TestTensor16: a 16-bit tensor holds its bits in U16, 2 bytes each, and
// converts exactly to float32 and float64 and back (float32 rounding to
// nearest even).
func TestTensor16(t *testing.T) {
	for _, dt := range []DType{F16, BF16} {
		x := New(dt, 3)
		if len(x.U16) != 3 || x.Bytes() != 6 || len(x.Raw()) != 6 || !x.HasData() || x.F32 != nil {
			t.Fatalf("%s: %+v", dt, x)
		}
		src := FromF32([]float32{1, -0.5, 3.14159, float32(math.Inf(-1)), float32(math.NaN())}, 5)
		h := src.As(dt)
		round := RoundHalf
		if dt == BF16 {
			round = RoundBFloat16
		}
		w32 := h.As(F32)
		w64 := h.As(F64)
		f := h.Float64s()
		for i, v := range src.F32 {
			want := round(v)
			if math.Float32bits(w32.F32[i]) != math.Float32bits(want) && !(want != want && w32.F32[i] != w32.F32[i]) {
				t.Errorf("%s[%d]: %v, want %v", dt, i, w32.F32[i], want)
			}
			if !(float64(w32.F32[i]) == w64.F64[i] && w64.F64[i] == f[i]) && want == want {
				t.Errorf("%s[%d]: float64 %v, Float64s %v, float32 %v", dt, i, w64.F64[i], f[i], w32.F32[i])
			}
		}
		if back := w32.As(dt); len(back.U16) != 5 || back.U16[2] != h.U16[2] || back.U16[3] != h.U16[3] {
			t.Errorf("%s: round trip %v, want %v", dt, back.U16, h.U16)
		}
		other := map[DType]DType{F16: BF16, BF16: F16}[dt]
		if y := h.As(other); y.DType != other || y.As(F32).F32[0] != 1 {
			t.Errorf("%s → %s: %v", dt, other, y.U16)
		}
	}
}
