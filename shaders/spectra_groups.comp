#version 450
// The group sums of the device spectra (pipelines/spectra, binsVulkan):
// after spectra_bins has reduced each transform of a chunk to its slots
// (bin sums and totals, per segment of its values), this adds them over
// the members of each group (consecutive transforms), leaving out the
// transforms spectra_pack (or the host) flagged as holding a NaN or ±Inf,
// so that only groups × outputs values come back to the host.
//
// One invocation sums one output o of one unit: a unit is a run of at most
// mseg members of one group (group u / nsegm, its members
// (u % nsegm)·mseg …), clipped to the chunk's transforms lo … lo+m−1; the
// host adds the units of a group (and a group's parts in different chunks)
// in float64. Output o of a transform is the sum of its slots listed in
// tab[tab[o] … tab[o+1]−1] (the segments spanning a bin; one slot per
// output for series). llvmpipe (lavapipe) silently ends an invocation's
// loops after 65,535 iterations in all: the host keeps mseg × (list + 1)
// within 16,384 (pipelines/spectra/vulkan.go, groupLoop).
//
// Accumulation in ACC: double where the device has shaderFloat64, else
// float with Neumaier's compensation (every term is a power, ≥ 0).
#extension GL_GOOGLE_include_directive : require
#include "include/common.glsl"

layout(std430, binding = 0) readonly buffer Sums { T sv[]; };    // m transforms of slots values
layout(std430, binding = 1) readonly buffer Tab { uint tab[]; }; // nout+1 starts, then the slot lists
layout(std430, binding = 2) readonly buffer Bad { uint bad[]; }; // a bit per transform of the chunk
layout(std430, binding = 3) writeonly buffer Out { T outv[]; };   // units × nout

layout(push_constant) uniform Params {
	uint m;       // transforms in the chunk
	uint lo;      // the chunk's first transform
	uint members; // transforms per group
	uint mseg;    // members per unit
	uint nsegm;   // units per group
	uint u0;      // the chunk's first unit
	uint units;   // units in the chunk
	uint nout;    // outputs per unit
	uint slots;   // values per transform in sv
} p;

void main() {
	uint q = flat_index();
	if (q >= p.units * p.nout) {
		return;
	}
	uint u = p.u0 + q / p.nout;
	uint o = q % p.nout;
	uint grp = u / p.nsegm;
	uint start = grp * p.members + (u - grp * p.nsegm) * p.mseg;
	uint end = min(start + p.mseg, (grp + 1u) * p.members);
	start = max(start, p.lo);
	end = min(end, p.lo + p.m);
	uint a = tab[o];
	uint e = tab[o + 1u];
	ACC s = ACC(0);
#if !ACC_DOUBLE
	ACC c = ACC(0);
#endif
	for (uint tt = start; tt < end; ++tt) {
		uint t = tt - p.lo;
		if ((bad[t >> 5u] & (1u << (t & 31u))) != 0u) {
			continue;
		}
		for (uint l = a; l < e; ++l) {
			ACC v = ACC(sv[t * p.slots + tab[l]]);
#if ACC_DOUBLE
			s += v;
#else
			// Neumaier: the rounding error of each add, kept in c.
			precise ACC z = s + v;
			if (abs(s) >= abs(v)) {
				c += (s - z) + v;
			} else {
				c += (v - z) + s;
			}
			s = z;
#endif
		}
	}
#if ACC_DOUBLE
	outv[q] = T(s);
#else
	outv[q] = T(s + c);
#endif
}
