#version 450
// Mean, covariance and shrinkage of one sample set per workgroup.
//
// Sample t of variable i of set k is data[b_k + t*tstride + off[i]] (LOAD), with
// b_k = base[k] (gathered from a cube: base is the location, off the patch
// offsets) or k*nstride (an (N, T, P) array: off[i] = i). The mean is taken
// first; then the centred samples are staged through shared memory, TC at a
// time, and each invocation accumulates MAXB 4×4 blocks of the lower
// triangle of S in registers (outer products of 4-vectors: 16 multiply-adds
// per 8 shared loads). When the blocks need more than one pass of
// WG_SIZE*MAXB, S is written after each pass and read back at the end. ρ
// and the shrunk entries are include/linalg.glsl's (shrink_rho,
// shrunk_entry; internal/linalg in Go); the output is
// C = scale·((1−ρ)S + ρ·target), both triangles.
//
// T is the data type, ACC the accumulator (double where the device has
// shaderFloat64).
//
// llvmpipe (lavapipe) silently ends an invocation's loops after 65,535
// iterations in all, and the loops here run about (2 + MAXB)·passes times a
// sample: past about 30,000 samples a set the host splits the samples over
// dispatches (samples t0 … t1−1 in each; see mode). The means' sums, the
// accumulator blocks and the Ledoit-Wolf sums carry over from one dispatch
// to the next in carry, in ACC and in the same order as in one dispatch,
// so the results do not change.
// The input is read through LOAD (include/load.glsl): T itself, or with
// STORE16 float16 or bfloat16 packed two to a uint32, widened exactly.
#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_control_flow_attributes : require
#include "include/common.glsl"
#include "include/linalg.glsl"

layout(constant_id = 1) const uint P = 1;    // variables
layout(constant_id = 2) const uint TC = 1;   // samples per staged tile
layout(constant_id = 3) const uint MAXB = 1; // 4×4 blocks per invocation per pass

#if ACC_DOUBLE
#define ACC4 dvec4
#define ACCM dmat4
#else
#define ACC4 vec4
#define ACCM mat4
#endif

const uint PB = (P + 3u) / 4u; // 4-wide column blocks; the tile is zero-padded

#define IN_BINDING 0
#define IN_NAME Data
#include "include/load.glsl"
layout(std430, binding = 1) readonly buffer Off { uint off[]; };
layout(std430, binding = 2) readonly buffer Base { uint base[]; };
layout(std430, binding = 3) writeonly buffer Mean { T mean[]; };
layout(std430, binding = 4) buffer Cov { T cov[]; };
layout(std430, binding = 5) writeonly buffer Rho { T rho[]; };
// Per set: P means' sums, 16 per accumulator block, WG_SIZE q4 sums.
layout(std430, binding = 6) buffer Carry { ACC carry[]; };

layout(push_constant) uniform Params {
	uint n;       // sample sets in this dispatch
	uint t;       // samples per set
	uint tstride; // elements between consecutive samples
	uint nstride; // elements between consecutive sets (array layout)
	uint gather;  // 1: set k starts at base[k]; 0: at k*nstride
	uint est;     // 0 none, 1 PACO, 2 Ledoit-Wolf, 3 OAS
	uint ddof;    // 0 or 1
	uint passes;  // ceil(PB(PB+1)/2 / (WG_SIZE*MAXB))
	uint t0;      // samples t0 … t1−1 in this dispatch (0 and t unless split)
	uint t1;
	uint mode;    // 0: all in one dispatch; else MEAN_ONLY, MEAN_CARRIED, RESUME, SAVE
} p;

const uint MEAN_ONLY = 1u;    // add samples t0 … t1−1 to the means' sums in carry, nothing else
const uint MEAN_CARRIED = 2u; // the means' sums are complete in carry
const uint RESUME = 4u;       // the blocks and q4 start from carry
const uint SAVE = 8u;         // the blocks and q4 go back to carry: no output

shared ACC4 tile[TC * PB];
shared ACC smean[P];
shared ACC4 red[WG_SIZE];
shared ACC srho;

ACC4 wg_sum(ACC4 v) {
	uint lt = gl_LocalInvocationID.x;
	red[lt] = v;
	sync_shared();
	for (uint s = WG_SIZE / 2u; s > 0u; s >>= 1u) {
		if (lt < s) {
			red[lt] += red[lt + s];
		}
		sync_shared();
	}
	ACC4 r = red[0];
	sync_shared();
	return r;
}

// The shrinkage weight: include/linalg.glsl's shrink_rho (the one GLSL
// implementation; internal/linalg is its Go twin). ρ = 0 for P = 1.
ACC shrinkage(ACC tr, ACC fro, ACC dsq, ACC q4) {
	return P == 1u ? ACC(0) : shrink_rho(p.est, P, p.t, tr, fro, dsq, q4);
}

void main() {
	uint k = flat_group();
	if (k >= p.n) {
		return; // uniform across the workgroup
	}
	uint lt = gl_LocalInvocationID.x;
	uint b0 = p.gather != 0u ? base[k] : k * p.nstride;
	ACC invT = ACC(1) / ACC(p.t);
	const uint nblk = PB * (PB + 1u) / 2u;
	uint cb = k * (P + 16u * nblk + WG_SIZE); // this set's carry
	uint cq = cb + P + 16u * nblk;            // its q4 sums

	// Means, with a shift (the first sample) against cancellation.
	for (uint i = lt; i < P; i += WG_SIZE) {
		uint o = b0 + off[i];
		ACC sh = ACC(LOAD(o));
		ACC s = ACC(0);
		if ((p.mode & MEAN_CARRIED) != 0u) {
			s = carry[cb + i];
		} else {
			if ((p.mode & MEAN_ONLY) != 0u && p.t0 > 0u) {
				s = carry[cb + i];
			}
			for (uint t = max(p.t0, 1u); t < p.t1; ++t) {
				s += ACC(LOAD(o + t * p.tstride)) - sh;
			}
			if ((p.mode & MEAN_ONLY) != 0u) {
				carry[cb + i] = s;
				continue;
			}
		}
		ACC m = sh + s * invT;
		smean[i] = m;
		mean[k * P + i] = T(m);
	}
	if ((p.mode & MEAN_ONLY) != 0u) {
		return; // uniform across the workgroup
	}
	sync_shared();

	ACC tr = ACC(0), fro = ACC(0), dsq = ACC(0), q4 = ACC(0);
	if ((p.mode & RESUME) != 0u) {
		q4 = carry[cq + lt];
	}
	ACCM acc[MAXB];
	uvec2 blk[MAXB];
	for (uint pass = 0u; pass < p.passes; ++pass) {
		uint e0 = pass * WG_SIZE * MAXB;
		for (uint q = 0u; q < MAXB; ++q) {
			uint e = e0 + q * WG_SIZE + lt;
			blk[q] = e < nblk ? tri_unpack(e) : uvec2(0u);
			acc[q] = ACCM(ACC(0));
			if ((p.mode & RESUME) != 0u && e < nblk) {
				[[dont_unroll]] for (uint j = 0u; j < 4u; ++j) {
					acc[q][j] = ACC4(carry[cb + P + 16u * e + 4u * j], carry[cb + P + 16u * e + 4u * j + 1u],
						carry[cb + P + 16u * e + 4u * j + 2u], carry[cb + P + 16u * e + 4u * j + 3u]);
				}
			}
		}
		for (uint t0 = p.t0; t0 < p.t1; t0 += TC) {
			uint tc = min(TC, p.t1 - t0);
			for (uint e = lt; e < tc * PB * 4u; e += WG_SIZE) {
				uint tt = e / (PB * 4u), i = e % (PB * 4u);
				ACC v = ACC(0);
				if (i < P) {
					v = ACC(LOAD(b0 + off[i] + (t0 + tt) * p.tstride)) - smean[i];
				}
				tile[tt * PB + i / 4u][i % 4u] = v;
			}
			sync_shared();
			if (pass == 0u && p.est == 2u) {
				for (uint tt = lt; tt < tc; tt += WG_SIZE) {
					ACC s2 = ACC(0);
					for (uint b = 0u; b < PB; ++b) {
						ACC4 x = tile[tt * PB + b];
						s2 += dot(x, x);
					}
					q4 += s2 * s2;
				}
			}
			for (uint tt = 0u; tt < tc; ++tt) {
				uint row = tt * PB;
				for (uint q = 0u; q < MAXB; ++q) {
					acc[q] += outerProduct(tile[row + blk[q].x], tile[row + blk[q].y]);
				}
			}
			sync_shared();
		}
		if ((p.mode & SAVE) != 0u) {
			for (uint q = 0u; q < MAXB; ++q) {
				uint e = e0 + q * WG_SIZE + lt;
				if (e < nblk) {
					[[dont_unroll]] for (uint j = 0u; j < 4u; ++j) {
						for (uint i = 0u; i < 4u; ++i) {
							carry[cb + P + 16u * e + 4u * j + i] = acc[q][j][i];
						}
					}
				}
			}
			continue;
		}
		// acc[q][j][i] is Σ x_r x_c for r = 4·blk.x + i, c = 4·blk.y + j.
		for (uint q = 0u; q < MAXB; ++q) {
			if (e0 + q * WG_SIZE + lt >= nblk) {
				continue;
			}
			ACCM m = acc[q];
			// Rolled loops: unrolling these (and the output loops) 16 times
			// per block made lavapipe's compile take seconds.
			[[dont_unroll]] for (uint j = 0u; j < 4u; ++j) {
				[[dont_unroll]] for (uint i = 0u; i < 4u; ++i) {
					uint r = 4u * blk[q].x + i, c = 4u * blk[q].y + j;
					if (r >= P || c > r) {
						continue;
					}
					ACC s = m[j][i] * invT;
					m[j][i] = s;
					if (r == c) {
						tr += s;
						dsq += s * s;
						fro += s * s;
					} else {
						fro += ACC(2) * s * s;
					}
					if (p.passes > 1u) {
						cov[k * P * P + r * P + c] = T(s);
					}
				}
			}
			acc[q] = m;
		}
	}

	if ((p.mode & SAVE) != 0u) {
		carry[cq + lt] = q4;
		return; // uniform across the workgroup
	}
	ACC4 sums = wg_sum(ACC4(tr, fro, dsq, q4));
	tr = sums.x;
	fro = sums.y;
	dsq = sums.z;
	q4 = sums.w;
	if (lt == 0u) {
		ACC r = shrinkage(tr, fro, dsq, q4);
		srho = r;
		rho[k] = T(r);
	}
	sync_shared();
	ACC rh = srho;
	ACC mu = tr / ACC(P);
	ACC scale = ACC(p.t) / ACC(p.t - p.ddof);
	for (uint pass = 0u; pass < p.passes; ++pass) {
		uint e0 = pass * WG_SIZE * MAXB;
		for (uint q = 0u; q < MAXB; ++q) {
			uint e = e0 + q * WG_SIZE + lt;
			if (e >= nblk) {
				continue;
			}
			uvec2 bq = tri_unpack(e);
			ACCM m = acc[q];
			[[dont_unroll]] for (uint j = 0u; j < 4u; ++j) {
				[[dont_unroll]] for (uint i = 0u; i < 4u; ++i) {
					uint r = 4u * bq.x + i, c = 4u * bq.y + j;
					if (r >= P || c > r) {
						continue;
					}
					uint ix = k * P * P + r * P + c;
					ACC s = pass + 1u == p.passes ? m[j][i] : ACC(cov[ix]);
					ACC cv = shrunk_entry(p.est, s, r == c, rh, mu) * scale;
					cov[ix] = T(cv);
					cov[k * P * P + c * P + r] = T(cv);
				}
			}
		}
	}
}
