package tensor

import (
	"math"
	"testing"
)

// TestHalfRoundTrip: every binary16 value decodes to a float32 that
// encodes back to it; the midpoint between neighbours rounds to the even
// one, and anything just above it to the upper one.
func TestHalfRoundTrip(t *testing.T) {
	for h := 0; h < 1<<16; h++ {
		f := HalfToFloat32(uint16(h))
		if f != f {
			if g := Float32ToHalf(f); g&0x7c00 != 0x7c00 || g&0x3ff == 0 {
				t.Fatalf("NaN %#04x encodes to %#04x", h, g)
			}
			continue
		}
		if g := Float32ToHalf(f); g != uint16(h) {
			t.Fatalf("%#04x -> %v -> %#04x", h, f, g)
		}
		if h&0x7fff >= 0x7bff { // the largest finite and Inf: no upper neighbour
			continue
		}
		up := HalfToFloat32(uint16(h + 1))
		if math.Signbit(float64(f)) {
			continue // the negative side mirrors the positive
		}
		mid := float32((float64(f) + float64(up)) / 2) // exact in float32
		want := uint16(h)
		if h&1 == 1 {
			want = uint16(h + 1)
		}
		if g := Float32ToHalf(mid); g != want {
			t.Fatalf("midpoint %v of %#04x and %#04x -> %#04x, want %#04x", mid, h, h+1, g, want)
		}
		above := math.Nextafter32(mid, up)
		if g := Float32ToHalf(above); g != uint16(h+1) {
			t.Fatalf("just above the midpoint of %#04x and %#04x -> %#04x", h, h+1, g)
		}
	}
	if Float32ToHalf(65520) != 0x7c00 || Float32ToHalf(65519.99) != 0x7bff || Float32ToHalf(-1e9) != 0xfc00 {
		t.Errorf("overflow: %#04x %#04x %#04x", Float32ToHalf(65520), Float32ToHalf(65519.99), Float32ToHalf(-1e9))
	}
	if Float32ToHalf(0x1p-25) != 0 || Float32ToHalf(math.Nextafter32(0x1p-25, 1)) != 1 || Float32ToHalf(-1e-30) != 0x8000 {
		t.Errorf("underflow")
	}
}

func TestBFloat16(t *testing.T) {
	cases := map[float32]uint16{1: 0x3f80, -2: 0xc000, 1.5: 0x3fc0, 3.140625: 0x4049,
		// 1 + 2^-8 is the midpoint of 1 (even) and 1 + 2^-7: ties to even.
		1 + 0x1p-8: 0x3f80, 1 + 3*0x1p-8: 0x3f82, 1 + 0x1p-8 + 0x1p-20: 0x3f81,
		float32(math.Inf(1)): 0x7f80, math.MaxFloat32: 0x7f80}
	for f, want := range cases {
		if got := Float32ToBFloat16(f); got != want {
			t.Errorf("Float32ToBFloat16(%v) = %#04x, want %#04x", f, got, want)
		}
	}
	if g := Float32ToBFloat16(float32(math.NaN())); g&0x7f80 != 0x7f80 || g&0x7f == 0 {
		t.Errorf("NaN -> %#04x", g)
	}
	for h := 0; h < 1<<16; h++ {
		f := BFloat16ToFloat32(uint16(h))
		if f == f && Float32ToBFloat16(f) != uint16(h) {
			t.Fatalf("%#04x does not round-trip", h)
		}
	}
}

// TestWidenTables: Widen (through Table) gives every 16-bit pattern's value
// as the format defines it, computed here from the fields with math.Ldexp
// (not through HalfToFloat32): (−1)^s · 1.m · 2^(e−bias), subnormals
// 0.m · 2^(1−bias), all-ones exponent ±Inf (m = 0) or NaN. Hand values too.
func TestWidenTables(t *testing.T) {
	formats := []struct {
		dt        DType
		mantBits  int
		bias      int
		handValue map[uint16]float64
	}{
		{F16, 10, 15, map[uint16]float64{0x3c00: 1, 0xc000: -2, 0x7bff: 65504, 0x0001: 0x1p-24, 0x8000: 0}},
		{BF16, 7, 127, map[uint16]float64{0x3f80: 1, 0xc000: -2, 0x4049: 3.140625, 0x0001: 0x1p-133}},
	}
	for _, f := range formats {
		widen, expMax := f.dt.Widen(), 1<<(15-f.mantBits)-1
		for h := range 1 << 16 {
			s, e, m := h>>15, (h>>f.mantBits)&expMax, h&(1<<f.mantBits-1)
			var want float64
			switch {
			case e == expMax && m != 0:
				want = math.NaN()
			case e == expMax:
				want = math.Inf(1)
			case e == 0:
				want = math.Ldexp(float64(m), 1-f.bias-f.mantBits)
			default:
				want = math.Ldexp(float64(m|1<<f.mantBits), e-f.bias-f.mantBits)
			}
			if s == 1 {
				want = -want
			}
			got := float64(widen(uint16(h)))
			if math.IsNaN(want) != math.IsNaN(got) || (!math.IsNaN(want) && (got != want || math.Signbit(got) != math.Signbit(want))) {
				t.Fatalf("%s %#04x: %v, want %v", f.dt, h, got, want)
			}
		}
		for h, want := range f.handValue {
			if got := f.dt.Table()[h]; float64(got) != want {
				t.Errorf("%s %#04x: %v, want %v", f.dt, h, got, want)
			}
		}
	}
	if F32.Table() != nil || F32.Widen() != nil {
		t.Error("float32 has a 16-bit table")
	}
}
