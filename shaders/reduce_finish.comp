#version 450
// The statistics of each output from its partial records, when one tile
// covered the whole array: output q's nchunks records are merged with Chan
// et al.'s pairwise update in ACC, as the host merges them, and the
// requested statistics written as T, stat s of output q at out[s·n + q]. A
// NaN makes every statistic NaN unless skipnan; an empty slice gives a sum
// of 0 and NaN otherwise; var and std divide by count − ddof (NaN when that
// is not positive).
#extension GL_GOOGLE_include_directive : require
#include "include/common.glsl"
#include "include/record.glsl"

layout(std430, binding = 0) readonly buffer Rec { Record rec[]; };
layout(std430, binding = 1) writeonly buffer Out { T outv[]; };

layout(push_constant) uniform Params {
	uint n;       // outputs
	uint nchunks; // records per output
	uint ddof;
	uint skipnan;
	uint nstats;  // statistics to write
	uint stats;   // their ids, 4 bits each: 0 sum, 1 mean, 2 var, 3 std, 4 min, 5 max
} p;

void main() {
	uint q = flat_index();
	if (q >= p.n) {
		return;
	}
	// The running mean is the unrounded sum mh + ml (two-float where ACC
	// is float), like the records' means.
	// The count is an integer: in float32 it would stop counting at 2^24.
	uint count = 0u;
	ACC mh = ACC(0), ml = ACC(0), m2 = ACC(0), mn = ACC(0), mx = ACC(0);
	uint nans = 0u;
	for (uint c = 0u; c < p.nchunks; ++c) {
		Record r = rec[q * p.nchunks + c];
		nans += r.nans;
		if (r.n == 0u) {
			continue;
		}
		ACC nb = ACC(r.n);
		if (count == 0u) {
			mn = r.mn;
			mx = r.mx;
		}
		ACC na = ACC(count);
		count += r.n;
		ACC cnt = ACC(count);
		ACC d = (r.mean - mh) + (r.mlo - ml);
		precise ACC inc = d * nb / cnt;
		precise ACC s = mh + inc;
		precise ACC bv = s - mh;
		precise ACC e = (mh - (s - bv)) + (inc - bv); // what s lost (two-sum)
		mh = s;
		ml += e;
		m2 += r.m2 + d * d * na * nb / cnt;
		mn = min(mn, r.mn);
		mx = max(mx, r.mx);
	}
	ACC mean = mh + ml;
	ACC cnt = ACC(count);
	ACC nan = ACC(0) / ACC(0);
	ACC vr = count > p.ddof ? m2 / ACC(count - p.ddof) : nan;
	for (uint i = 0u; i < p.nstats; ++i) {
		uint s = (p.stats >> (4u * i)) & 15u;
		ACC v;
		if (nans > 0u && p.skipnan == 0u) {
			v = nan;
		} else if (s == 0u) {
			v = mean * cnt;
		} else if (count == 0u) {
			v = nan;
		} else if (s == 1u) {
			v = mean;
		} else if (s == 2u) {
			v = vr;
		} else if (s == 3u) {
			v = sqrt(vr);
		} else if (s == 4u) {
			v = mn;
		} else {
			v = mx;
		}
		outv[i * p.n + q] = T(v);
	}
}
