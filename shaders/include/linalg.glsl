// Helpers for the dense linear-algebra kernels (cov.comp, chol.comp).
//
// T is the element type (float or double); variants with T = double also
// define T_DOUBLE = 1, so that float-only variants carry no Float64
// capability.

#if T_DOUBLE
#define NAN_T packDouble2x32(uvec2(0u, 0x7ff80000u))
#else
#define NAN_T uintBitsToFloat(0x7fc00000u)
#endif

// Index of (i, j), i > j, in a row-major packed strictly lower triangle.
uint tri_strict(uint i, uint j) {
	return i * (i - 1u) / 2u + j;
}

// Row r and column c (c <= r) of entry e of a row-major packed lower
// triangle, diagonal included.
uvec2 tri_unpack(uint e) {
	uint r = uint((sqrt(8.0 * float(e) + 1.0) - 1.0) * 0.5);
	while (r * (r + 1u) / 2u > e) {
		r--;
	}
	while ((r + 1u) * (r + 2u) / 2u <= e) {
		r++;
	}
	return uvec2(r, e - r * (r + 1u) / 2u);
}

// A barrier that also makes workgroup-shared writes visible.
void sync_shared() {
	memoryBarrierShared();
	barrier();
}

// Natural logarithm of type T. GLSL has no double log(): for doubles,
// x = m·2^e with m in [√½, √2), and log m = 2 atanh(z), z = (m−1)/(m+1),
// |z| < 0.172, summed to double precision (z² < 0.03: 12 terms).
#if T_DOUBLE
double log_t(double x) {
	if (isnan(x) || x <= 0.0LF || isinf(x)) {
		return double(log(float(x)));
	}
	int e;
	double m = frexp(x, e); // m in [0.5, 1)
	if (m < 0.70710678118654752LF) {
		m *= 2.0LF;
		e -= 1;
	}
	double z = (m - 1.0LF) / (m + 1.0LF);
	double z2 = z * z;
	double s = 0.0LF;
	for (int q = 23; q >= 1; q -= 2) {
		s = s * z2 + 1.0LF / double(q);
	}
	return 2.0LF * z * s + double(e) * 0.69314718055994530942LF;
}
#else
float log_t(float x) {
	return log(x);
}
#endif
