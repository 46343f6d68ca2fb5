#version 450
// Partial statistics of contiguous runs (a reduction along the last axis,
// inner = 1) for short and medium runs: one SUBGROUP per record, several
// records per workgroup, the lanes striding over the record's `chunk`
// consecutive elements; the lanes combine with subgroupAdd/Min/Max, with
// no shared memory and no barrier. The accumulation is reduce_rows.comp's:
// sums shifted by the run's first non-NaN element (0 when it is infinite),
// compensated in the variants without float64; the record layout is
// reduce_partial.comp's. Nothing assumes a subgroup size: the lanes count
// themselves (subgroupAdd(1)), so a partly filled subgroup is right too.
// Each lane loops at most 2·chunk/lanes times (the shift's scan and the
// sums): the host keeps chunk within lavapipe's 65,535-iteration limit.
#extension GL_GOOGLE_include_directive : require
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_KHR_shader_subgroup_arithmetic : require
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

const uint NONE = 0xffffffffu;

void main() {
	// The same for every lane of a subgroup, so a subgroup returns whole.
	uint g = flat_group() * gl_NumSubgroups + gl_SubgroupID;
	if (g >= p.ocount * p.nchunks) {
		return;
	}
	uint lanes = subgroupAdd(1u);
	uint lane = subgroupExclusiveAdd(1u);
	uint c = g % p.nchunks;
	uint o = g / p.nchunks;
	uint r0 = c * p.chunk;
	uint r1 = min(p.rows, r0 + p.chunk);
	uint base = p.skip + o * p.ostride;

	// The shift: the run's first non-NaN element, found `lanes` at a time.
	uint first = NONE;
	for (uint r = r0; r < r1 && first == NONE; r += lanes) {
		uint i = r + lane;
		bool ok = false;
		if (i < r1) {
			ok = !isnan(LOAD(base + i));
		}
		first = subgroupMin(ok ? i : NONE);
	}
	T v0 = T(0);
	if (first != NONE) {
		v0 = LOAD(base + first);
	}
	ACC shift = isinf(v0) ? ACC(0) : ACC(v0);

	// A lane without values keeps v0 (an element of the run) as its min
	// and max, which then cannot change the subgroup's.
	ACC s1 = ACC(0), s2 = ACC(0), c1 = ACC(0), c2 = ACC(0), mn = ACC(v0), mx = ACC(v0), s0 = ACC(0);
	uint n = 0u, nans = 0u;
	for (uint r = r0 + lane; r < r1; r += lanes) {
		T v = LOAD(base + r);
		if (isnan(v)) {
			nans++;
			continue;
		}
		ACC x = ACC(v);
		n++;
		ACC d = x - shift;
		acc_add(s1, c1, d);
		acc_add(s2, c2, d * d);
		s0 += x * RESCUE;
		mn = min(mn, x);
		mx = max(mx, x);
	}
	uint tn = subgroupAdd(n);
	uint tnans = subgroupAdd(nans);
	ACC ts1 = subgroupAdd(s1);
	ACC ts2 = subgroupAdd(s2);
#ifdef COMPENSATED
	// Kahan's c is what each lane's sum holds too much.
	ts1 -= subgroupAdd(c1);
	ts2 -= subgroupAdd(c2);
#endif
	ACC tmn = subgroupMin(mn);
	ACC tmx = subgroupMax(mx);
	// The plain sum only where the shifted one overflowed (the same
	// answer in every lane).
	ACC ts0 = ACC(0);
	if (tn > 0u && record_rescued(ts1, tn, tmn, tmx)) {
		ts0 = subgroupAdd(s0);
	}
	if (subgroupElect()) {
		Record r;
		if (tn > 0u) {
			r.mn = tmn;
			r.mx = tmx;
			record_stats(r, shift, ts1, ts2, ts0, tn);
		} else {
			r.mean = ACC(0);
			r.mlo = ACC(0);
			r.m2 = ACC(0);
			r.mn = ACC(0);
			r.mx = ACC(0);
		}
		r.n = tn;
		r.nans = tnans;
		rec[o * p.nchunks + c] = r;
	}
}
