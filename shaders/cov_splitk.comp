#version 450
// The first pass of the split-K covariance of long sample sets: a set's
// P×P Gram matrix over T samples is a (P×T)·(T×P) product, here with the
// T samples split over workgroups (cov_splitk_sum.comp adds the splits).
//
// Sample t of variable i of set k is data[b_k + t*tstride + off[i]] (LOAD),
// b_k = base[k] (gather) or k*nstride, as in cov.comp. Workgroup g takes
// set k, split s (samples s*span … min((s+1)*span, t) − 1) and tile (I, J),
// I ≥ J, of the lower triangle of TP×TP tiles: the variables I*TP … and
// J*TP … (one staged run of them on the diagonal, I = J). Its WG_SIZE
// invocations are LANES lanes of the tile's (TP/R)² R×R register blocks:
// lane l takes the staged samples l, l + LANES, …, so that a small P (16
// channels: one 16×16 tile, 16 blocks) still keeps 256 invocations busy.
//
// Each value is shifted by its variable's first sample (against
// cancellation, as cov.comp and cov_tiled.comp shift by it or the mean):
// y = x − x_0, staged in TILE (float for float32 and 16-bit data, double
// for double); the products y_i·y_j are TILE, their sums ACC (double where
// the device has shaderFloat64). The diagonal blocks of diagonal tiles also
// sum y_i. At the end the lanes' sums are added (in shared memory, one
// component at a time) and lane 0 writes the split's partial sums:
//
//   part[(k*splits + s)*(P*P + P) + r*P + c]  Σ y_r y_c   (c ≤ r)
//   part[(k*splits + s)*(P*P + P) + P*P + r]  Σ y_r
//   part[n*splits*(P*P + P) + k*P + r]        x_0 of variable r (split 0)
//
// Loops per invocation (lavapipe ends an invocation's loops after 65,535
// iterations): about span/TT × (staging + TT/LANES); the host bounds span.
#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_control_flow_attributes : require
#include "include/common.glsl"
#include "include/linalg.glsl"

layout(constant_id = 1) const uint P = 1;   // variables
layout(constant_id = 2) const uint TP = 4;  // variables per tile side (a multiple of R)
layout(constant_id = 3) const uint R = 4;   // rows and columns of an invocation's block
layout(constant_id = 4) const uint TT = 64; // samples per staged tile

const uint TB = TP / R;             // blocks per tile side
const uint NBK = TB * TB;           // blocks per tile
const uint LANES = WG_SIZE / NBK;   // the host makes WG_SIZE = LANES·NBK
const uint PT = (P + TP - 1u) / TP; // tiles per side
const uint NT = PT * (PT + 1u) / 2u;
const uint NC = R * R + R;          // per invocation: the block, the row sums

#define IN_BINDING 0
#define IN_NAME Data
#include "include/load.glsl"
layout(std430, binding = 1) readonly buffer Off { uint off[]; };
layout(std430, binding = 2) readonly buffer Base { uint base[]; };
layout(std430, binding = 3) buffer Part { ACC part[]; };

layout(push_constant) uniform Params {
	uint n;       // sample sets in this dispatch
	uint t;       // samples per set
	uint tstride; // elements between consecutive samples
	uint nstride; // elements between consecutive sets (array layout)
	uint gather;  // 1: set k starts at base[k]; 0: at k*nstride
	uint splits;  // splits per set
	uint span;    // samples per split (a multiple of TT)
} p;

shared TILE tile[TT * 2u * TP]; // [sample][row variables, then column variables]
shared TILE shift[2u * TP];
shared ACC red[WG_SIZE];

void main() {
	uint g = flat_group();
	uint tl = g % NT;
	uint ks = g / NT;
	uint s = ks % p.splits;
	uint k = ks / p.splits;
	if (k >= p.n) {
		return; // uniform across the workgroup
	}
	uint lt = gl_LocalInvocationID.x;
	uvec2 ij = tri_unpack(tl);
	bool diag = ij.x == ij.y;
	uint r0 = ij.x * TP, c0 = ij.y * TP;
	uint nv = diag ? TP : 2u * TP; // staged variables
	uint coff = diag ? 0u : TP;    // where the column variables are staged
	uint b0 = p.gather != 0u ? base[k] : k * p.nstride;
	uint t0 = s * p.span, t1 = min(t0 + p.span, p.t);

	for (uint i = lt; i < nv; i += WG_SIZE) {
		uint v = i < TP ? r0 + i : c0 + i - TP;
		shift[i] = v < P ? TILE(LOAD(b0 + off[v])) : TILE(0);
	}

	uint lane = lt / NBK, blk = lt % NBK;
	uint bi = blk / TB, bj = blk % TB;
	bool sums = diag && bi == bj;
	ACC acc[R * R];
	ACC rs[R];
	[[unroll]] for (uint q = 0u; q < R * R; ++q) {
		acc[q] = ACC(0);
	}
	[[unroll]] for (uint q = 0u; q < R; ++q) {
		rs[q] = ACC(0);
	}
	TILE a[R], b[R];
	for (uint tb = t0; tb < t1; tb += TT) {
		uint tc = min(TT, t1 - tb);
		sync_shared(); // the shifts, or the previous tile's reads, are done
		// Stage: along the samples of a variable when they are contiguous
		// (consecutive invocations read consecutive elements), else along
		// the variables.
		for (uint j = lt; j < nv * TT; j += WG_SIZE) {
			uint i, tt;
			if (p.tstride == 1u) {
				i = j / TT;
				tt = j % TT;
			} else {
				i = j % nv;
				tt = j / nv;
			}
			uint v = i < TP ? r0 + i : c0 + i - TP;
			TILE y = TILE(0);
			if (tt < tc && v < P) {
				y = TILE(LOAD(b0 + off[v] + (tb + tt) * p.tstride)) - shift[i];
			}
			tile[tt * 2u * TP + i] = y;
		}
		sync_shared();
		if (lane < LANES) {
			for (uint tt = lane; tt < tc; tt += LANES) {
				uint row = tt * 2u * TP;
				[[unroll]] for (uint q = 0u; q < R; ++q) {
					a[q] = tile[row + bi * R + q];
					b[q] = tile[row + coff + bj * R + q];
				}
				[[unroll]] for (uint q = 0u; q < R; ++q) {
					[[unroll]] for (uint w = 0u; w < R; ++w) {
						acc[q * R + w] += ACC(a[q] * b[w]);
					}
				}
				if (sums) {
					[[unroll]] for (uint q = 0u; q < R; ++q) {
						rs[q] += ACC(a[q]);
					}
				}
			}
		}
	}

	// Add the lanes' sums, one component at a time, into lane 0.
	if (LANES > 1u) {
		[[dont_unroll]] for (uint q = 0u; q < NC; ++q) {
			ACC v = ACC(0);
			[[unroll]] for (uint w = 0u; w < R * R; ++w) {
				v = w == q ? acc[w] : v;
			}
			[[unroll]] for (uint w = 0u; w < R; ++w) {
				v = R * R + w == q ? rs[w] : v;
			}
			sync_shared();
			red[lt] = v;
			sync_shared();
			if (lane == 0u) {
				for (uint l = 1u; l < LANES; ++l) {
					v += red[l * NBK + blk];
				}
				[[unroll]] for (uint w = 0u; w < R * R; ++w) {
					acc[w] = w == q ? v : acc[w];
				}
				[[unroll]] for (uint w = 0u; w < R; ++w) {
					rs[w] = R * R + w == q ? v : rs[w];
				}
			}
		}
	}
	if (lane != 0u) {
		return;
	}
	uint pb = (k * p.splits + s) * (P * P + P);
	[[unroll]] for (uint q = 0u; q < R; ++q) {
		uint r = r0 + bi * R + q;
		[[unroll]] for (uint w = 0u; w < R; ++w) {
			uint c = c0 + bj * R + w;
			if (r < P && c <= r) {
				part[pb + r * P + c] = acc[q * R + w];
			}
		}
		if (sums && r < P) {
			part[pb + P * P + r] = rs[q];
			if (s == 0u) {
				part[p.n * p.splits * (P * P + P) + k * P + r] = ACC(shift[bi * R + q]);
			}
		}
	}
}
