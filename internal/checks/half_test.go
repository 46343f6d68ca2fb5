package checks

import (
	"math"
	"testing"
)

// TestHalf16 checks the reference decoder on values known by hand.
func TestHalf16(t *testing.T) {
	for _, c := range []struct {
		bf   bool
		h    uint16
		want float64
	}{
		{false, 0x3c00, 1}, {false, 0xc000, -2}, {false, 0x7bff, 65504}, {false, 0x0001, math.Ldexp(1, -24)},
		{false, 0x03ff, math.Ldexp(1023, -24)}, {false, 0x3555, 0.333251953125}, {false, 0x8000, 0},
		{true, 0x3f80, 1}, {true, 0xc040, -3}, {true, 0x0001, math.Ldexp(1, -133)}, {true, 0x7f7f, math.Ldexp(255, 120)},
		{true, 0x3eab, 0.333984375},
	} {
		if got := Half16(c.bf, c.h); got != c.want {
			t.Errorf("Half16(%v, %#04x) = %g, want %g", c.bf, c.h, got, c.want)
		}
	}
	if !math.IsNaN(Half16(false, 0x7e00)) || !math.IsNaN(Half16(true, 0x7fc0)) || !math.IsInf(Half16(false, 0xfc00), -1) || !math.IsInf(Half16(true, 0x7f80), 1) {
		t.Error("Inf/NaN decoded wrongly")
	}
}
