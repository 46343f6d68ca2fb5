#version 450
// Mean, covariance and shrinkage of SETS sample sets per workgroup, built
// the way GPU GEMMs are (the "tiled" cov kernel; cov.comp is "blocks").
//
// Sample t of variable i of set k is data[b_k + t*tstride + off[i]] (LOAD),
// b_k = base[k] (a gather from a cube) or k*nstride (an (N, T, P) array),
// as in cov.comp. The workgroup has exactly SETS·NB invocations, NB =
// PR(PR+1)/2 the R×R blocks of the lower triangle (PR = ⌈P/R⌉): invocation
// lt owns block lt % NB of set lt / NB, so none is idle while the products
// run. The host sizes SETS so that the workgroup is close to its target.
//
// 1. Means: one invocation per (set, variable), in ACC, shifted by the
//    first sample against cancellation (as cov.comp).
// 2. Products: TT samples of each set at a time, centred and rounded to
//    TILE (float32 for float32 and 16-bit data, double for double), are
//    staged through shared memory by the whole workgroup with consecutive
//    invocations reading consecutive elements (coalesced for arrays); each
//    invocation then accumulates its R×R block from 2R shared loads per
//    sample (register blocking: R² multiply-adds per 2R loads). The
//    products are TILE, their sums ACC. Two barriers per tile.
// 3. The set's moments (tr, ‖S‖²_F, Σ S_ii², and for Ledoit-Wolf Σ_t ‖x_t‖⁴)
//    are summed over its invocations in shared memory, ρ and the shrunk
//    entries are include/linalg.glsl's (shrink_rho, shrunk_entry), and each
//    invocation writes its block to both triangles.
//
// There is no carry over dispatches: llvmpipe (lavapipe) ends an
// invocation's loops after 65,535 iterations in all, so the host offers
// this kernel only for sets short enough to stay within its loop budget
// (kernel.tiledMaxT), and runs cov.comp on longer ones.
#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_control_flow_attributes : require
#include "include/common.glsl"
#include "include/linalg.glsl"

layout(constant_id = 1) const uint P = 1;    // variables
layout(constant_id = 2) const uint R = 4;    // rows and columns of an invocation's block
layout(constant_id = 3) const uint SETS = 1; // sample sets per workgroup
layout(constant_id = 4) const uint TT = 32;  // samples per staged tile

const uint PR = (P + R - 1u) / R;     // block rows
const uint NB = PR * (PR + 1u) / 2u;  // blocks per set

#define IN_BINDING 0
#define IN_NAME Data
#include "include/load.glsl"
layout(std430, binding = 1) readonly buffer Off { uint off[]; };
layout(std430, binding = 2) readonly buffer Base { uint base[]; };
layout(std430, binding = 3) writeonly buffer Mean { T mean[]; };
layout(std430, binding = 4) writeonly buffer Cov { T cov[]; };
layout(std430, binding = 5) writeonly buffer Rho { T rho[]; };

layout(push_constant) uniform Params {
	uint n;       // sample sets in this dispatch
	uint t;       // samples per set
	uint tstride; // elements between consecutive samples
	uint nstride; // elements between consecutive sets (array layout)
	uint gather;  // 1: set k starts at base[k]; 0: at k*nstride
	uint est;     // 0 none, 1 PACO, 2 Ledoit-Wolf, 3 OAS
	uint ddof;    // 0 or 1
} p;

shared TILE tile[SETS * TT * P]; // [set][sample][variable], centred
shared ACC smean[SETS * P];
shared ACC red[3u * SETS * NB];
shared ACC sq4[SETS * TT]; // Ledoit-Wolf: Σ ‖x_t‖⁴ per (set, sample slot)
shared ACC srho[SETS];

uint set_base(uint k) {
	return p.gather != 0u ? base[k] : k * p.nstride;
}

void main() {
	uint lt = gl_LocalInvocationID.x;
	uint k0 = flat_group() * SETS; // the workgroup's first set
	uint s = lt / NB;              // this invocation's set in the workgroup
	uint e = lt % NB;              // and its block
	uint k = k0 + s;
	bool live = s < SETS && k < p.n;
	uvec2 blk = tri_unpack(e);
	uint r0 = blk.x * R, c0 = blk.y * R;
	ACC invT = ACC(1) / ACC(p.t);

	// 1. Means.
	for (uint j = lt; j < SETS * P; j += WG_SIZE) {
		uint ks = k0 + j / P, i = j % P;
		if (ks >= p.n) {
			continue;
		}
		uint o = set_base(ks) + off[i];
		ACC sh = ACC(LOAD(o));
		ACC sum = ACC(0);
		for (uint t = 1u; t < p.t; ++t) {
			sum += ACC(LOAD(o + t * p.tstride)) - sh;
		}
		ACC m = sh + sum * invT;
		smean[j] = m;
		mean[ks * P + i] = T(m);
	}
	sync_shared();

	// 2. Products.
	ACC acc[R * R];
	[[unroll]] for (uint q = 0u; q < R * R; ++q) {
		acc[q] = ACC(0);
	}
	for (uint j = lt; j < SETS * TT; j += WG_SIZE) {
		sq4[j] = ACC(0);
	}
	TILE a[R], b[R];
	for (uint t0 = 0u; t0 < p.t; t0 += TT) {
		uint tc = min(TT, p.t - t0);
		for (uint j = lt; j < SETS * TT * P; j += WG_SIZE) {
			uint ss = j / (TT * P), rem = j % (TT * P);
			uint tt = rem / P, i = rem % P;
			TILE v = TILE(0);
			if (tt < tc && k0 + ss < p.n) {
				v = TILE(ACC(LOAD(set_base(k0 + ss) + off[i] + (t0 + tt) * p.tstride)) - smean[ss * P + i]);
			}
			tile[j] = v;
		}
		sync_shared();
		if (p.est == 2u) { // Ledoit-Wolf: Σ_t ‖x_t‖⁴, slot (set, sample) always the same invocation's
			for (uint j = lt; j < SETS * TT; j += WG_SIZE) {
				if (j % TT < tc) {
					ACC s2 = ACC(0);
					for (uint i = 0u; i < P; ++i) {
						ACC x = ACC(tile[j * P + i]);
						s2 += x * x;
					}
					sq4[j] += s2 * s2;
				}
			}
		}
		if (s < SETS) {
			uint row = s * TT * P;
			for (uint tt = 0u; tt < tc; ++tt, row += P) {
				[[unroll]] for (uint i = 0u; i < R; ++i) {
					a[i] = r0 + i < P ? tile[row + r0 + i] : TILE(0);
					b[i] = c0 + i < P ? tile[row + c0 + i] : TILE(0);
				}
				[[unroll]] for (uint i = 0u; i < R; ++i) {
					[[unroll]] for (uint jj = 0u; jj < R; ++jj) {
						acc[i * R + jj] += ACC(a[i] * b[jj]);
					}
				}
			}
		}
		sync_shared();
	}

	// 3. The set's moments, ρ and the shrunk entries.
	ACC tr = ACC(0), fro = ACC(0), dsq = ACC(0);
	[[unroll]] for (uint i = 0u; i < R; ++i) {
		[[unroll]] for (uint jj = 0u; jj < R; ++jj) {
			uint r = r0 + i, c = c0 + jj;
			ACC sv = acc[i * R + jj] * invT;
			acc[i * R + jj] = sv;
			if (r < P && c <= r) {
				if (r == c) {
					tr += sv;
					dsq += sv * sv;
					fro += sv * sv;
				} else {
					fro += ACC(2) * sv * sv;
				}
			}
		}
	}
	if (s < SETS) {
		red[3u * lt] = tr;
		red[3u * lt + 1u] = fro;
		red[3u * lt + 2u] = dsq;
	}
	sync_shared();
	if (live && e == 0u) {
		ACC st = ACC(0), sf = ACC(0), sd = ACC(0), q4 = ACC(0);
		for (uint j = lt; j < lt + NB; ++j) {
			st += red[3u * j];
			sf += red[3u * j + 1u];
			sd += red[3u * j + 2u];
		}
		if (p.est == 2u) {
			for (uint j = s * TT; j < (s + 1u) * TT; ++j) {
				q4 += sq4[j];
			}
		}
		ACC rh = P == 1u ? ACC(0) : shrink_rho(p.est, P, p.t, st, sf, sd, q4);
		srho[s] = rh;
		red[3u * lt] = st;
		rho[k] = T(rh);
	}
	sync_shared();
	if (!live) {
		return;
	}
	ACC rh = srho[s];
	ACC mu = red[3u * (s * NB)] / ACC(P);
	ACC scale = ACC(p.t) / ACC(p.t - p.ddof);
	uint ck = k * P * P;
	[[unroll]] for (uint i = 0u; i < R; ++i) {
		[[unroll]] for (uint jj = 0u; jj < R; ++jj) {
			uint r = r0 + i, c = c0 + jj;
			if (r < P && c <= r) {
				ACC cv = shrunk_entry(p.est, acc[i * R + jj], r == c, rh, mu) * scale;
				cov[ck + r * P + c] = T(cv);
				cov[ck + c * P + r] = T(cv);
			}
		}
	}
}
