#version 450
// Partial statistics along one axis of an array viewed as (outer, rows, inner).
//
// Each invocation reduces `chunk` consecutive rows of one output column
// (o, j) of a tile and writes one record: shifted sums turned into mean and
// M2 (sum of squared deviations), min, max, the count of values and of NaNs.
// The host merges records across chunks and tiles with Chan's formula in
// float64. T is the data type, ACC the accumulator (double where the device
// has shaderFloat64).
// The input is read through LOAD (include/load.glsl): T itself, or with
// STORE16 float16 or bfloat16 packed two to a uint32, widened exactly.
#extension GL_GOOGLE_include_directive : require
#include "include/common.glsl"


#define IN_BINDING 0
#define IN_NAME In
#include "include/load.glsl"

#include "include/record.glsl"
layout(std430, binding = 1) writeonly buffer Out { Record rec[]; };

layout(push_constant) uniform Params {
	uint skip;    // index in `data` of the tile's first element
	uint ocount;  // outer indices in the tile
	uint jcount;  // inner indices in the tile
	uint rows;    // rows of the tile
	uint chunk;   // rows per record
	uint nchunks; // records per output column
	uint ostride; // elements between consecutive outer indices
	uint inner;   // elements between consecutive rows
} p;

void main() {
	uint g = flat_index();
	if (g >= p.ocount * p.jcount * p.nchunks) {
		return;
	}
	// j varies fastest so that neighbouring invocations read neighbouring
	// elements when inner > 1.
	uint j = g % p.jcount;
	uint t = g / p.jcount;
	uint c = t % p.nchunks;
	uint o = t / p.nchunks;
	uint r0 = c * p.chunk;
	uint r1 = min(p.rows, r0 + p.chunk);
	uint idx = p.skip + o * p.ostride + r0 * p.inner + j;

	ACC shift = ACC(0), s1 = ACC(0), s2 = ACC(0), c1 = ACC(0), c2 = ACC(0), mn = ACC(0), mx = ACC(0), s0 = ACC(0);
	uint n = 0u, nans = 0u;
	for (uint r = r0; r < r1; ++r, idx += p.inner) {
		T v = LOAD(idx);
		if (isnan(v)) {
			nans++;
			continue;
		}
		ACC x = ACC(v);
		if (n == 0u) {
			shift = x;
			mn = x;
			mx = x;
		}
		n++;
		ACC d = x - shift;
		acc_add(s1, c1, d);
		acc_add(s2, c2, d * d);
		s0 += x * RESCUE;
		mn = min(mn, x);
		mx = max(mx, x);
	}
	Record r;
	r.mn = mn;
	r.mx = mx;
	if (n > 0u) {
		record_stats(r, shift, s1, s2, s0, n);
	} else {
		r.mean = ACC(0);
		r.mlo = ACC(0);
		r.m2 = ACC(0);
	}
	r.n = n;
	r.nans = nans;
	rec[(o * p.jcount + j) * p.nchunks + c] = r;
}
