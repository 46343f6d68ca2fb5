package checks

import "math"

// Half16 decodes 16-bit float patterns to float64 for references, by the
// definitions of the formats (math.Ldexp on the fields) rather than the
// bit tricks of package tensor or the shaders' unpackHalf2x16, so that a
// test's reference shares no code with the conversions it checks. bf
// selects bfloat16 (1 sign, 8 exponent, 7 mantissa bits, bias 127);
// otherwise IEEE binary16 (1, 5, 10, bias 15).
func Half16(bf bool, h uint16) float64 {
	ebits, mbits, bias := 5, 10, 15
	if bf {
		ebits, mbits, bias = 8, 7, 127
	}
	sign := 1.0
	if h>>15 != 0 {
		sign = -1
	}
	e := int(h>>mbits) & (1<<ebits - 1)
	m := float64(int(h) & (1<<mbits - 1))
	switch {
	case e == 1<<ebits-1 && m != 0:
		return math.NaN()
	case e == 1<<ebits-1:
		return math.Inf(int(sign))
	case e == 0: // zero or subnormal
		return sign * math.Ldexp(m, 1-bias-mbits)
	}
	return sign * math.Ldexp(1+m/float64(int(1)<<mbits), e-bias)
}

// Halves decodes a slice with Half16.
func Halves(bf bool, h []uint16) []float64 {
	out := make([]float64, len(h))
	for i, v := range h {
		out[i] = Half16(bf, v)
	}
	return out
}
