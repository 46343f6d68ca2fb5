#version 450
// Partial statistics of contiguous runs (a reduction along the last axis,
// inner = 1): one workgroup per record, its invocations striding over the
// record's `chunk` consecutive elements so that neighbours read neighbouring
// memory. Every invocation accumulates sums shifted by the same value (the
// run's first non-NaN element when it is finite), so the workgroup combines them by
// plain addition. The record layout is reduce_partial.comp's.
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
	uint ocount;  // runs (outer indices) in the tile
	uint rows;    // elements per run in the tile
	uint chunk;   // elements per record
	uint nchunks; // records per run
	uint ostride; // elements between consecutive runs
} p;

shared ACC s1s[WG_SIZE];
shared ACC s2s[WG_SIZE];
shared ACC mns[WG_SIZE];
shared ACC mxs[WG_SIZE];
shared uint ns[WG_SIZE];
shared uint nanss[WG_SIZE];

void main() {
	uint g = flat_group();
	uint lid = gl_LocalInvocationID.x;
	if (g >= p.ocount * p.nchunks) {
		return;
	}
	uint c = g % p.nchunks;
	uint o = g / p.nchunks;
	uint r0 = c * p.chunk;
	uint r1 = min(p.rows, r0 + p.chunk);
	uint base = p.skip + o * p.ostride;

	// The shift: the run's first non-NaN element (every invocation finds
	// the same one; the scan is short unless the run starts with NaNs).
	ACC shift = ACC(0);
	for (uint r = r0; r < r1; ++r) {
		T v = LOAD(base + r);
		if (!isnan(v)) {
			shift = isinf(v) ? ACC(0) : ACC(v);
			break;
		}
	}
	ACC s1 = ACC(0), s2 = ACC(0), c1 = ACC(0), c2 = ACC(0), mn = ACC(0), mx = ACC(0), s0 = ACC(0);
	uint n = 0u, nans = 0u;
	for (uint r = r0 + lid; r < r1; r += WG_SIZE) {
		T v = LOAD(base + r);
		if (isnan(v)) {
			nans++;
			continue;
		}
		ACC x = ACC(v);
		if (n == 0u) {
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
	s1s[lid] = s1;
	s2s[lid] = s2;
	mns[lid] = mn;
	mxs[lid] = mx;
	ns[lid] = n;
	nanss[lid] = nans;
	barrier();
	for (uint s = WG_SIZE / 2u; s > 0u; s >>= 1u) {
		if (lid < s) {
			uint k = lid + s;
			if (ns[k] > 0u) {
				if (ns[lid] == 0u) {
					mns[lid] = mns[k];
					mxs[lid] = mxs[k];
				} else {
					mns[lid] = min(mns[lid], mns[k]);
					mxs[lid] = max(mxs[lid], mxs[k]);
				}
			}
			s1s[lid] += s1s[k];
			s2s[lid] += s2s[k];
			ns[lid] += ns[k];
			nanss[lid] += nanss[k];
		}
		barrier();
	}
	// The plain sum only where the shifted one overflowed (the same answer
	// in every invocation, so the barriers below are met by all): summed
	// in s1s, whose total is then unused.
	uint tn = ns[0];
	ACC ts1 = s1s[0], ts2 = s2s[0];
	if (tn > 0u && record_rescued(ts1, tn, mns[0], mxs[0])) {
		barrier();
		s1s[lid] = s0;
		barrier();
		for (uint s = WG_SIZE / 2u; s > 0u; s >>= 1u) {
			if (lid < s) {
				s1s[lid] += s1s[lid + s];
			}
			barrier();
		}
	}
	if (lid == 0u) {
		Record r;
		r.mn = mns[0];
		r.mx = mxs[0];
		if (tn > 0u) {
			record_stats(r, shift, ts1, ts2, s1s[0], tn);
		} else {
			r.mean = ACC(0);
			r.mlo = ACC(0);
			r.m2 = ACC(0);
		}
		r.n = tn;
		r.nans = nanss[0];
		rec[o * p.nchunks + c] = r;
	}
}
