package paco

import (
	"math"
	"testing"
)

// Hand-derived values for the pieces every path builds on: the shrinkage ρ,
// the rounding of trajectory positions and the trajectory itself. Each is
// asserted on the fast paths' function (paco.go) and on the reference's own
// (reference.go), which share no code, so that a change to either shows.

// TestRhoByHand: PACO.md's ρ for S = [[2, 1], [1, 3]]:
//
//	tr(S)  = 2 + 3 = 5,  tr(S)² = 25
//	tr(S²) = Σ_ij S_ij² = 4 + 1 + 1 + 9 = 15
//	Σ_i S_ii² = 4 + 9 = 13,  Σ_ij S_ij² = 15
//	numerator   = tr(S²) + tr(S)² − 2 Σ_i S_ii² = 15 + 25 − 26 = 14
//	denominator = (T+1)(tr(S²) − Σ_i S_ii²) = (T+1)·2
//
// T = 9: ρ = 14/20 = 0.7 and C = [[2, 0.3], [0.3, 3]] (off-diagonal × 0.3).
// T = 4: 14/10 = 1.4, clipped to 1: C = diag(2, 3).
// VIP's numerator tr(S²) + tr(S)² − 2 Σ_ij S_ij² = 15 + 25 − 30 = 10:
// T = 9 gives ρ = 10/20 = 0.5 and C = [[2, 0.5], [0.5, 3]].
// A diagonal S (denominator 0) keeps C = S.
func TestRhoByHand(t *testing.T) {
	cases := []struct {
		name   string
		s      []float64
		T      int
		compat Compat
		rho    float64
		c      []float64
	}{
		{"T=9", []float64{2, 1, 1, 3}, 9, CompatNone, 0.7, []float64{2, 0.3, 0.3, 3}},
		{"T=4 clipped", []float64{2, 1, 1, 3}, 4, CompatNone, 1, []float64{2, 0, 0, 3}},
		{"T=9 vip", []float64{2, 1, 1, 3}, 9, CompatVIP, 0.5, []float64{2, 0.5, 0.5, 3}},
		{"diagonal", []float64{2, 0, 0, 3}, 9, CompatNone, 1, []float64{2, 0, 0, 3}},
	}
	near := func(a, b float64) bool { return math.Abs(a-b) <= 1e-12 }
	for _, c := range cases {
		s := append([]float64(nil), c.s...)
		if rho := Shrink(s, 2, c.T, c.compat); !near(rho, c.rho) {
			t.Errorf("%s: Shrink ρ = %.15g, by hand %g", c.name, rho, c.rho)
		}
		for i := range s {
			if !near(s[i], c.c[i]) {
				t.Errorf("%s: Shrink C = %v, by hand %v", c.name, s, c.c)
				break
			}
		}
		if rho := refRho(c.s, 2, c.T, c.compat == CompatVIP); !near(rho, c.rho) {
			t.Errorf("%s: reference ρ = %.15g, by hand %g", c.name, rho, c.rho)
		}
		rc := refShrunk(c.s, c.T, c.compat == CompatVIP)
		for i := range rc {
			if !near(rc[i], c.c[i]) {
				t.Errorf("%s: reference C = %v, by hand %v", c.name, rc, c.c)
				break
			}
		}
	}
}

// TestRoundingTies: positions round to the nearest pixel with halves away
// from zero (PACO.md), and --compat vip truncates towards zero as Python's
// int() does.
func TestRoundingTies(t *testing.T) {
	cases := []struct {
		v         float64
		want, vip int
	}{
		{2.5, 3, 2}, {-2.5, -3, -2}, {0.5, 1, 0}, {-0.5, -1, 0}, {3.5, 4, 3},
		{2.4999999999999996, 2, 2}, {2.7, 3, 2}, {-2.7, -3, -2}, {-2.2, -2, -2},
		{0.49999999999999994, 0, 0}, {7, 7, 7}, {0, 0, 0},
	}
	fast := &Prepared{Input: Input{Compat: CompatNone}}
	fastVIP := &Prepared{Input: Input{Compat: CompatVIP}}
	for _, c := range cases {
		if got := fast.round(c.v); got != c.want {
			t.Errorf("round(%v) = %d, want %d", c.v, got, c.want)
		}
		if got := fastVIP.round(c.v); got != c.vip {
			t.Errorf("vip round(%v) = %d, want %d (truncation)", c.v, got, c.vip)
		}
		if got := refRound(c.v, false); got != c.want {
			t.Errorf("reference round(%v) = %d, want %d", c.v, got, c.want)
		}
		if got := refRound(c.v, true); got != c.vip {
			t.Errorf("reference vip round(%v) = %d, want %d (truncation)", c.v, got, c.vip)
		}
	}
}

// TestPositionByHand: PACO.md places sky pixel φ0 (radius r, angle θ0 =
// atan2(dy, dx) about the star) in frame l at y_l = c_y + r sin(θ0 − θ_l),
// x_l = c_x + r cos(θ0 − θ_l): the source turns clockwise (from +y towards
// +x) by θ_l. With the star at (20, 20):
//   - (20, 25): r = 5, θ0 = 0. θ_l = 90°: y = 20 + 5 sin(−90°) = 15,
//     x = 20 + 5 cos(−90°) = 20, so (cy+0, cx+5) moves to (cy−5, cx);
//     θ_l = −90°: (25, 20); θ_l = 180°: (20, 15); θ_l = 0: unchanged.
//   - (23, 24): r = 5, θ0 = atan2(3, 4), sin θ0 = 3/5, cos θ0 = 4/5.
//     θ_l = 90°: y = 20 + 5 sin(θ0 − 90°) = 20 − 5 cos θ0 = 16,
//     x = 20 + 5 cos(θ0 − 90°) = 20 + 5 sin θ0 = 23: (16, 23).
//   - (20, 21), r = 1, θ_l = 60°: y = 20 − sin 60° = 19.134 → 19,
//     x = 20 + cos 60° = 20.5 → 21 (half away from zero; VIP truncates to 20,
//     and 19.134 to 19).
func TestPositionByHand(t *testing.T) {
	cases := []struct {
		y0, x0  int
		angle   float64
		y, x    int
		vy, vx  int // with CompatVIP
		literal string
	}{
		{20, 25, 90, 15, 20, 15, 20, "(cy, cx+5) at 90° → (cy−5, cx)"},
		{20, 25, -90, 25, 20, 25, 20, "(cy, cx+5) at −90° → (cy+5, cx)"},
		{20, 25, 180, 20, 15, 20, 15, "(cy, cx+5) at 180° → (cy, cx−5)"},
		{20, 25, 0, 20, 25, 20, 25, "(cy, cx+5) at 0° → unchanged"},
		{23, 24, 90, 16, 23, 16, 23, "(cy+3, cx+4) at 90° → (cy−4, cx+3)"},
		{20, 21, 60, 19, 21, 19, 20, "(cy, cx+1) at 60° → (19.13, 20.5)"},
	}
	for _, vip := range []bool{false, true} {
		compat := CompatNone
		if vip {
			compat = CompatVIP
		}
		for _, c := range cases {
			p := &Prepared{CY: 20, CX: 20, H: 41, W: 41, Input: Input{Compat: compat},
				Cos: []float64{math.Cos(c.angle * math.Pi / 180)}, Sin: []float64{math.Sin(c.angle * math.Pi / 180)}}
			wy, wx := c.y, c.x
			if vip {
				wy, wx = c.vy, c.vx
			}
			if y, x := p.Position(c.y0, c.x0, 0); y != wy || x != wx {
				t.Errorf("vip=%v: %s: Position = (%d, %d), want (%d, %d)", vip, c.literal, y, x, wy, wx)
			}
			yf, xf := refPosition(20, 20, c.y0, c.x0, c.angle)
			if y, x := refRound(yf, vip), refRound(xf, vip); y != wy || x != wx {
				t.Errorf("vip=%v: %s: reference position (%.15g, %.15g) → (%d, %d), want (%d, %d)", vip, c.literal, yf, xf, y, x, wy, wx)
			}
		}
	}
}

// TestPositionAngleByHand: with north up (+y) and east left (−x), PA is
// measured from north through east: N 0°, E 90°, S 180°, W 270°; a north
// offset is added.
func TestPositionAngleByHand(t *testing.T) {
	cases := []struct {
		name           string
		dy, dx         float64
		offset         float64
		pa, angleFromX float64
	}{
		{"north", 10, 0, 0, 0, 90},
		{"east", 0, -10, 0, 90, 180},
		{"south", -10, 0, 0, 180, 270},
		{"west", 0, 10, 0, 270, 0},
		{"north-east", 5, -5, 0, 45, 135},
		{"south-east", -5, -5, 0, 135, 225},
		{"south-west", -5, 5, 0, 225, 315},
		{"north-west", 5, 5, 0, 315, 45},
		{"north, offset +10", 10, 0, 10, 10, 90},
		{"north, offset −10", 10, 0, -10, 350, 90},
		{"west, offset +100", 0, 10, 100, 10, 0},
	}
	for _, c := range cases {
		if got := PositionAngle(c.dy, c.dx, c.offset); math.Abs(got-c.pa) > 1e-9 {
			t.Errorf("%s: PA = %.10g, want %g", c.name, got, c.pa)
		}
		if got := AngleCCWFromX(c.dy, c.dx); math.Abs(got-c.angleFromX) > 1e-9 {
			t.Errorf("%s: angle from +x = %.10g, want %g", c.name, got, c.angleFromX)
		}
	}
}
