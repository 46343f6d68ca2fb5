#version 450
// Central sums for skewness and kurtosis (package reduce, Central): the
// second pass of a two-pass computation, along the middle axis of an array
// viewed as (outer, rows, inner) as reduce_partial's. Each record covers
// `chunk` consecutive rows of one output column (o, j) and sums d, d², d³
// and d⁴ of its non-NaN values, d = x − centre, where centre is the
// column's mean from the first pass (binding 1, one T per output of the
// tile, o·jcount + j, from element coff on: the host's upload, or the
// statistics reduce_finish wrote, Mean among them, in the same
// submission). Records of one column add up (same centre); the host turns
// the sums into central moments, correcting for the centre's rounding
// with Σd. With inner = 1 (a reduction along the last axis) a column is a
// contiguous run.
//
// LANES (specialization constant 1) invocations share a record, striding
// over its chunk so that neighbours read neighbouring memory (GPUs, runs
// only: LANES = WG_SIZE, one record per workgroup, a shared-memory tree);
// with LANES = 1 each invocation walks its own record (CPU devices, whose
// barriers are emulated, and inner > 1, where j varies fastest so that
// neighbouring invocations read neighbouring elements). The host keeps
// chunk / LANES under lavapipe's 65,535-iteration loop limit. In the variants without float64 (COMPENSATED) the sums are
// compensated (acc_add). The input is read through LOAD (include/load.glsl).
#extension GL_GOOGLE_include_directive : require
#include "include/common.glsl"

#define IN_BINDING 0
#define IN_NAME In
#include "include/load.glsl"

#include "include/record.glsl"

layout(constant_id = 1) const uint LANES = 1;

struct Central {
	ACC s1;
	ACC s2;
	ACC s3;
	ACC s4;
	uint n;
	uint nans;
};
layout(std430, binding = 1) readonly buffer Centre { T centre[]; };
layout(std430, binding = 2) writeonly buffer Out { Central rec[]; };

layout(push_constant) uniform Params {
	uint skip;    // index in `data` of the tile's first element
	uint ocount;  // outer indices in the tile
	uint jcount;  // inner indices in the tile
	uint rows;    // rows of the tile
	uint chunk;   // rows per record
	uint nchunks; // records per output column
	uint ostride; // elements between consecutive outer indices
	uint inner;   // elements between consecutive rows
	uint coff;    // index in `centre` of the tile's first output's
} p;

shared ACC sh1[WG_SIZE];
shared ACC sh2[WG_SIZE];
shared ACC sh3[WG_SIZE];
shared ACC sh4[WG_SIZE];
shared uint shn[WG_SIZE];
shared uint shnan[WG_SIZE];

void main() {
	uint lid = gl_LocalInvocationID.x;
	uint lane = lid % LANES;
	uint g = flat_group() * (WG_SIZE / LANES) + lid / LANES;
	bool live = g < p.ocount * p.jcount * p.nchunks;
	ACC s1 = ACC(0), s2 = ACC(0), s3 = ACC(0), s4 = ACC(0);
	ACC c1 = ACC(0), c2 = ACC(0), c3 = ACC(0), c4 = ACC(0);
	uint n = 0u, nans = 0u;
	uint at = 0u; // the record's index: (o·jcount + j)·nchunks + c
	if (live) {
		uint j = g % p.jcount;
		uint t = g / p.jcount;
		uint c = t % p.nchunks;
		uint o = t / p.nchunks;
		at = (o * p.jcount + j) * p.nchunks + c;
		uint r1 = min(p.rows, (c + 1u) * p.chunk);
		uint base = p.skip + o * p.ostride + j;
		ACC m = ACC(centre[p.coff + o * p.jcount + j]);
		if (isnan(m) || isinf(m)) {
			m = ACC(0); // a column with no finite mean: its moments are NaN or unused
		}
		for (uint r = c * p.chunk + lane; r < r1; r += LANES) {
			T v = LOAD(base + r * p.inner);
			if (isnan(v)) {
				nans++;
				continue;
			}
			n++;
			ACC d = ACC(v) - m;
			ACC d2 = d * d;
			acc_add(s1, c1, d);
			acc_add(s2, c2, d2);
			acc_add(s3, c3, d2 * d);
			acc_add(s4, c4, d2 * d2);
		}
	}
	if (LANES > 1u) {
		sh1[lid] = s1;
		sh2[lid] = s2;
		sh3[lid] = s3;
		sh4[lid] = s4;
		shn[lid] = n;
		shnan[lid] = nans;
		barrier();
		for (uint s = LANES / 2u; s > 0u; s >>= 1u) {
			if (lane < s) {
				uint k = lid + s;
				sh1[lid] += sh1[k];
				sh2[lid] += sh2[k];
				sh3[lid] += sh3[k];
				sh4[lid] += sh4[k];
				shn[lid] += shn[k];
				shnan[lid] += shnan[k];
			}
			barrier();
		}
		s1 = sh1[lid];
		s2 = sh2[lid];
		s3 = sh3[lid];
		s4 = sh4[lid];
		n = shn[lid];
		nans = shnan[lid];
	}
	if (live && lane == 0u) {
		Central r;
		r.s1 = s1;
		r.s2 = s2;
		r.s3 = s3;
		r.s4 = s4;
		r.n = n;
		r.nans = nans;
		rec[at] = r;
	}
}
