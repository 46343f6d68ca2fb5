#version 450
// Quantiles of slices (NumPy's np.quantile, method "linear"). Element i of
// slice s is x[(s / inner)·n·inner + s % inner + i·inner]: the slices of a
// row-major (outer, n, inner) array along its middle axis, inner = 1 for
// rows. Quantile q[k] of a slice whose m numbers are sorted is at
// h = (m−1)·q[k]; a slice that held NaNs (m < n) has NaN quantiles unless
// skip_nan. Output k of slice s is y[k·count + s].
//
// PER_THREAD 0: one workgroup per slice. The workgroup stages its slice in
// shared memory, the tail up to SORT_SIZE (a power of two at or above n)
// filled with NaN, and sorts it with a bitonic network that orders NaN
// after every number; the values before the first NaN are the numbers.
// Shared memory holds the slice alone: SORT_SIZE values of T.
//
// PER_THREAD 1: one invocation per slice, for short slices (SORT_SIZE at
// or above n): the invocation insertion-sorts the slice's numbers into
// private memory as it reads them, adjacent invocations reading adjacent
// addresses along a stack's axis 0.
//
// T is the data type, ACC the interpolation's (double where the device has
// shaderFloat64). The host's interpolation is pipelines/quantile's lerp.
#extension GL_GOOGLE_include_directive : require
#include "include/common.glsl"

layout(constant_id = 1) const uint SORT_SIZE = 64;

layout(std430, binding = 0) readonly buffer X { T x[]; };
layout(std430, binding = 1) readonly buffer Q { ACC q[]; }; // three parts a quantile (qParts)
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

#if PER_THREAD
T s[SORT_SIZE];
#else
shared T s[SORT_SIZE];
#endif

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

// picks writes quantiles first, first+step, ... of slice, whose m numbers
// are s[0..m), sorted.
void picks(uint slice, uint m, uint first, uint step) {
	bool none = m == 0 || (p.skip_nan == 0 && m < p.n);
	for (uint k = first; k < p.nq; k += step) {
		T r = T_NAN;
		if (!none) {
			// h = (m−1)·q[k] as lo + g, 0 ≤ g < 1, exactly enough in
			// float too: q[k] comes as three parts (qParts), the first
			// two of 11 significant bits, whose products with m − 1
			// (below 2¹³) are exact; the first's whole part is lo's.
			ACC mm = ACC(m - 1);
			ACC p1 = mm * q[3u * k];
			ACC whole = floor(p1);
			ACC g = (p1 - whole) + mm * q[3u * k + 1u] + mm * q[3u * k + 2u];
			ACC carry = floor(g);
			g -= carry;
			int lo = int(whole) + int(carry);
			if (lo < 0) {
				lo = 0;
				g = ACC(0);
			}
			if (uint(lo) >= m - 1) {
				r = s[m - 1];
			} else {
				r = T(lerp_np(ACC(s[lo]), ACC(s[lo + 1]), g));
			}
		}
		y[k * p.count + slice] = r;
	}
}

#if PER_THREAD
void main() {
	uint slice = flat_index();
	if (slice >= p.count) {
		return;
	}
	uint base = (slice / p.inner) * p.n * p.inner + slice % p.inner;
	uint m = 0;
	for (uint i = 0; i < p.n; i++) {
		T a = x[base + i * p.inner];
		if (isnan(a)) {
			continue;
		}
		uint j = m;
		for (; j > 0 && s[j - 1] > a; j--) {
			s[j] = s[j - 1];
		}
		s[j] = a;
		m++;
	}
	picks(slice, m, 0, 1);
}
#else
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
	picks(slice, m, tid, WG_SIZE);
}
#endif
