#version 450
// Quantiles of slices (NumPy's np.quantile, method "linear"), one workgroup
// per slice. Element i of slice s is x[(s / inner)·n·inner + s % inner +
// i·inner]: the slices of a row-major (outer, n, inner) array along its
// middle axis, inner = 1 for rows. The workgroup stages its slice in shared
// memory, the tail up to SORT_SIZE (a power of two at or above n) filled
// with NaN, and sorts it with a bitonic network that orders NaN after
// every number. The values before the first NaN, m of them, are the
// slice's numbers sorted; m < n says the slice held NaNs, which make its
// quantiles NaN unless skip_nan. Quantile q[k] is at h = (m−1)·q[k].
// Output k of slice s is y[k·count + s]. Shared memory holds the slice
// alone: SORT_SIZE values of T.
//
// T is the data type, ACC the interpolation's (double where the device has
// shaderFloat64). The host's interpolation is pipelines/quantile's lerp.
#extension GL_GOOGLE_include_directive : require
#include "include/common.glsl"

layout(constant_id = 1) const uint SORT_SIZE = 64;

layout(std430, binding = 0) readonly buffer X { T x[]; };
layout(std430, binding = 1) readonly buffer Q { ACC q[]; };
layout(std430, binding = 2) writeonly buffer Y { T y[]; };

layout(push_constant) uniform Params {
	uint n;        // values in a slice
	uint inner;    // distance between a slice's values
	uint count;    // slices in the dispatch
	uint nq;       // quantiles
	uint skip_nan; // 1: leave NaNs out; 0: a NaN makes the slice's quantiles NaN
} p;

#if T_DOUBLE
#define T_NAN packDouble2x32(uvec2(0u, 0x7ff80000u))
#else
#define T_NAN uintBitsToFloat(0x7fc00000u)
#endif

shared T s[SORT_SIZE];

// after says whether a sorts after b: NaN after every number.
bool after(T a, T b) {
	return isnan(a) ? !isnan(b) : !isnan(b) && a > b;
}

// lerp_np is NumPy's _lerp (from b for g ≥ 0.5), exact at g = 0 and where
// a = b, and the limit where NumPy gives NaN or overflows (pipelines/
// quantile's lerp).
ACC lerp_np(ACC a, ACC b, ACC g) {
	if (g == ACC(0) || a == b) {
		return a;
	}
	if (isinf(a) || isinf(b)) {
		return a + b;
	}
	ACC d = b - a;
	if (isinf(d)) {
		return (ACC(1) - g) * a + g * b;
	}
	return g < ACC(0.5) ? a + d * g : b - d * (ACC(1) - g);
}

void main() {
	uint slice = flat_group();
	if (slice >= p.count) {
		return; // the whole workgroup: no barrier is left waiting
	}
	uint tid = gl_LocalInvocationID.x;
	uint base = (slice / p.inner) * p.n * p.inner + slice % p.inner;
	for (uint i = tid; i < SORT_SIZE; i += WG_SIZE) {
		s[i] = i < p.n ? x[base + i * p.inner] : T_NAN;
	}
	barrier();
	for (uint k = 2; k <= SORT_SIZE; k <<= 1) {
		for (uint j = k >> 1; j > 0; j >>= 1) {
			for (uint i = tid; i < SORT_SIZE; i += WG_SIZE) {
				uint l = i ^ j;
				if (l > i) {
					T a = s[i];
					T b = s[l];
					if (after(a, b) == ((i & k) == 0)) {
						s[i] = b;
						s[l] = a;
					}
				}
			}
			barrier();
		}
	}
	// m: the first NaN's index.
	uint m = 0;
	for (uint hi = SORT_SIZE; m < hi;) {
		uint mid = (m + hi) / 2;
		if (isnan(s[mid])) {
			hi = mid;
		} else {
			m = mid + 1;
		}
	}
	bool none = m == 0 || (p.skip_nan == 0 && m < p.n);
	for (uint k = tid; k < p.nq; k += WG_SIZE) {
		T r = T_NAN;
		if (!none) {
			ACC h = ACC(m - 1) * q[k];
			uint lo = uint(floor(h));
			if (lo >= m - 1) {
				r = s[m - 1];
			} else {
				r = T(lerp_np(ACC(s[lo]), ACC(s[lo + 1]), h - ACC(lo)));
			}
		}
		y[k * p.count + slice] = r;
	}
}
