#version 450
// The statistics of each output from its partial records, when one tile
// covered the whole array: output q's nchunks records are merged with Chan
// et al.'s pairwise update in ACC, as the host merges them, and the
// requested statistics written as T, stat s of output q at out[s·n + q]. A
// NaN makes every statistic NaN unless skipnan; an empty slice gives a sum
// of 0 and NaN otherwise; var and std divide by count − ddof (NaN when that
// is not positive). ±Inf among the values make sum and mean ±Inf (NaN
// with both signs) and var and std NaN; finite values whose sum or squared
// deviations overflow give ±Inf, as NumPy's sum, mean and var do.
// llvmpipe (lavapipe) silently ends an invocation's loops after 65,535
// iterations in all, and a whole-array reduction has up to 65,536 records
// per output: the host gives each dispatch records c0 … c1−1 (at most
// finishChunkBudget), and the running merge carries over from one dispatch
// to the next in carry, in the same order as in one loop.
#extension GL_GOOGLE_include_directive : require
#include "include/common.glsl"
#include "include/record.glsl"

layout(std430, binding = 0) readonly buffer Rec { Record rec[]; };
layout(std430, binding = 1) writeonly buffer Out { T outv[]; };
layout(std430, binding = 2) buffer Carry { Record carry[]; }; // the merge so far, per output

layout(push_constant) uniform Params {
	uint n;       // outputs
	uint nchunks; // records per output
	uint ddof;
	uint skipnan;
	uint nstats;  // statistics to write
	uint stats;   // their ids, 4 bits each: 0 sum, 1 mean, 2 var, 3 std, 4 min, 5 max
	uint c0;      // records c0 … c1−1 of each output in this dispatch
	uint c1;
	uint first;   // 1: start the merge (else resume it from carry)
	uint last;    // 1: write the statistics (else save the merge to carry)
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
	if (p.first == 0u) {
		Record k = carry[q];
		count = k.n;
		nans = k.nans;
		mh = k.mean;
		ml = k.mlo;
		m2 = k.m2;
		mn = k.mn;
		mx = k.mx;
	}
	for (uint c = p.c0; c < p.c1; ++c) {
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
		if (isinf(d) || isnan(d)) {
			// A mean that overflowed (a shifted sum of finite values
			// past ACC's range: ±Inf, a sum that overflows) or two far
			// apart: the weighted mean without d, and M2 overflows. (A
			// record with ±Inf values may hold NaN here: unused.)
			mh = mh * (na / cnt) + (r.mean + r.mlo) * (nb / cnt);
			ml = ACC(0);
			m2 = ACC_INF;
		} else {
			precise ACC inc = d * (nb / cnt); // d·nb would overflow first
			precise ACC s = mh + inc;
			precise ACC bv = s - mh;
			precise ACC e = (mh - (s - bv)) + (inc - bv); // what s lost (two-sum)
			mh = s;
			ml += e;
			m2 += r.m2 + d * d * na * nb / cnt;
		}
		mn = min(mn, r.mn);
		mx = max(mx, r.mx);
	}
	if (p.last == 0u) {
		Record k;
		k.n = count;
		k.nans = nans;
		k.mean = mh;
		k.mlo = ml;
		k.m2 = m2;
		k.mn = mn;
		k.mx = mx;
		carry[q] = k;
		return;
	}
	ACC mean = mh + ml;
	ACC cnt = ACC(count);
	ACC nan = ACC(0) / ACC(0);
	// ±Inf among the values (min −Inf or max +Inf): sum and mean are that
	// infinity, NaN when both signs occur; var and std NaN (Inf − Inf, as
	// NumPy). mean and m2 are then unused: the records' sums are not.
	bool pinf = isinf(mx) && mx > ACC(0);
	bool minf = isinf(mn) && mn < ACC(0);
	ACC inf = pinf ? (minf ? nan : ACC_INF) : -ACC_INF;
	ACC sum = mean * cnt;
#ifndef ACC32
	// Finite values whose sum overflows: NumPy's mean (the sum over n) is
	// the sum's infinity. (Without float64 the data are float32, whose
	// sums cannot overflow a float64, the CPU path's accumulator.)
	if (isinf(sum)) {
		mean = sum;
	}
#endif
	// A NaN M2 from finite values is an overflow too (Inf − Inf).
	if (isnan(m2)) {
		m2 = ACC_INF;
	}
	ACC vr = count > p.ddof ? m2 / ACC(count - p.ddof) : nan;
	for (uint i = 0u; i < p.nstats; ++i) {
		uint s = (p.stats >> (4u * i)) & 15u;
		ACC v;
		if (nans > 0u && p.skipnan == 0u) {
			v = nan;
		} else if (s == 0u && count == 0u) {
			v = ACC(0);
		} else if (count == 0u) {
			v = nan;
		} else if (s == 4u) {
			v = mn;
		} else if (s == 5u) {
			v = mx;
		} else if (pinf || minf) {
			v = s <= 1u ? inf : nan;
		} else if (s == 0u) {
			v = sum;
		} else if (s == 1u) {
			v = mean;
		} else if (s == 2u) {
			v = vr;
		} else {
			v = sqrt(vr);
		}
		outv[i * p.n + q] = T(v);
	}
}
