#version 450
// Batched Cholesky factorisation A = L·Lᵀ, with solves, inverse, log-det
// and the quadratic form bᵀA⁻¹b, MPW matrices per workgroup and TPM >= P
// invocations per matrix: invocation i owns row i.
//
// The strictly lower triangle of L lives in workgroup memory (packed, row
// major), or, in the GLOBAL variant, in a per-matrix slice of a scratch
// buffer; the diagonal stays in a register of the row's invocation, which is
// what lets P = 128 fit 32 KiB in float32. Only the lower triangle of A is
// read. Pivot j is published by invocation j through a double-buffered
// slot, so each step of the factorisation and of the solves needs one
// barrier. Info is potrf's: the 1-based index of the first pivot that is not
// positive (or NaN). A failed matrix gets NaN outputs.
//
// flags: 1 write L, 2 solve with B, 4 inverse, 8 log-det, 16 quadratic form.
// The solves take columns c0 … c1−1 of B: llvmpipe (lavapipe) silently ends
// an invocation's loops after 65,535 iterations in all, and each column
// costs about 2P of them, so the host spreads many right-hand sides over
// several dispatches (each factors again).
//
// The factorisation and the solves are include/linalg.glsl's row-owner
// Cholesky (chol_factor_rows, chol_solve_rows), shared with paco_solve.comp.
#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_control_flow_attributes : require
#include "include/common.glsl"

layout(constant_id = 1) const uint P = 1;   // matrix order
layout(constant_id = 2) const uint TPM = 1; // invocations per matrix, >= P
layout(constant_id = 3) const uint MPW = 1; // matrices per workgroup; WG_SIZE = TPM*MPW
layout(constant_id = 4) const uint LSZ = 1; // max(P(P−1)/2, 1)

layout(std430, binding = 0) readonly buffer A_ { T a[]; };
layout(std430, binding = 1) writeonly buffer L_ { T lout[]; };
layout(std430, binding = 2) readonly buffer B_ { T b[]; };
layout(std430, binding = 3) writeonly buffer X_ { T xout[]; };
layout(std430, binding = 4) writeonly buffer Inv_ { T inv[]; };
layout(std430, binding = 5) writeonly buffer LogDet_ { T logdet[]; };
layout(std430, binding = 6) writeonly buffer Quad_ { T quad[]; };
layout(std430, binding = 7) writeonly buffer Info_ { int info[]; };

layout(push_constant) uniform Params {
	uint n;       // matrices in this dispatch
	uint k;       // right-hand sides per matrix
	uint bstride; // elements between consecutive matrices' B (0: one B for all)
	uint flags;
	uint c0;      // the columns of B solved in this dispatch: c0 … c1−1
	uint c1;
} p;

uint lbase; // this matrix's first element of LS (set in main)

#if GLOBAL
layout(std430, binding = 8) coherent buffer Work_ { T work[]; };
#define LS(ix) work[lbase + (ix)]
void sync_l() {
	memoryBarrierBuffer();
	memoryBarrierShared();
	barrier();
}
#else
shared T sl[MPW * LSZ];
#define LS(ix) sl[lbase + (ix)]
void sync_l() {
	memoryBarrierShared();
	barrier();
}
#endif

shared T piv[2u * MPW];
shared int sinfo[MPW];

#define CHOL_T T
#define CHOL_NAN NAN_T
#define CHOL_LOGDET ((p.flags & 8u) != 0u)
#include "include/linalg.glsl"

void main() {
	uint lt = gl_LocalInvocationID.x;
	uint ml = lt / TPM;
	uint i = lt % TPM;
	uint mat = flat_group() * MPW + ml;
	bool live = mat < p.n;
	bool row = live && i < P;
	lbase = ml * LSZ;
#if GLOBAL
	lbase = mat * LSZ;
#endif
	uint abase = mat * P * P;
	uint pv = 2u * ml;

	// Load the strictly lower triangle, coalesced; the diagonal into d.
	if (live) {
		for (uint e = i; e < P * P; e += TPM) {
			uint r = e / P, c = e % P;
			if (c < r) {
				LS(tri_strict(r, c)) = a[abase + e];
			}
		}
	}
	T d = row ? a[abase + i * P + i] : T(1);
	T ld = T(0);
	bool fail = chol_factor_rows(i, row, live, ml, d, ld) != 0;

	if (live && (p.flags & 1u) != 0u) {
		for (uint e = i; e < P * P; e += TPM) {
			uint r = e / P, c = e % P;
			if (c != r) {
				lout[abase + e] = fail ? NAN_T : (c < r ? LS(tri_strict(r, c)) : T(0));
			}
		}
		if (row) {
			lout[abase + i * P + i] = fail ? NAN_T : d;
		}
	}

	if ((p.flags & 2u) != 0u) {
		uint bbase = mat * p.bstride;
		uint xbase = mat * P * p.k;
		for (uint c = p.c0; c < p.c1; ++c) {
			T z[1], yy[1];
			z[0] = row ? b[bbase + i * p.k + c] : T(0);
			chol_solve_rows(i, row, ml, d, z, yy);
			T bi = z[0];
			if (row) {
				xout[xbase + i * p.k + c] = fail ? NAN_T : bi;
			}
			if (live && i == 0u && (p.flags & 16u) != 0u) {
				quad[mat * p.k + c] = fail ? NAN_T : yy[0];
			}
		}
	}

	if (live && i == 0u) {
		info[mat] = sinfo[ml];
		if ((p.flags & 8u) != 0u) {
			logdet[mat] = fail ? NAN_T : T(2) * ld;
		}
	}

	if ((p.flags & 4u) != 0u) {
		// X = L⁻¹ in place, row by row: invocation i owns column i of X and
		// keeps X_ii = 1/L_ii in a register. Row r of X needs row r of L and
		// the rows of X above it; it is written one step late, when only
		// the column owners, who wrote it, read it: one barrier per row.
		T xd = T(1) / d;
		T pend = T(0);
		if (row && i == 1u) {
			piv[pv + 1u] = xd;
		}
		sync_l();
		for (uint r = 1u; r < P; ++r) {
			T inv_rr = piv[pv + (r & 1u)];
			if (row && i < r) {
				if (i + 1u < r) {
					LS(tri_strict(r - 1u, i)) = pend;
				}
				T s = LS(tri_strict(r, i)) * xd;
				for (uint q = i + 1u; q < r; ++q) {
					s += LS(tri_strict(r, q)) * LS(tri_strict(q, i));
				}
				pend = -s * inv_rr;
			}
			if (row && i == r + 1u) {
				piv[pv + (i & 1u)] = xd;
			}
			sync_l();
		}
		if (row && i + 1u < P) {
			LS(tri_strict(P - 1u, i)) = pend;
		}
		sync_l();
		// A⁻¹ = XᵀX: invocation i forms row i, (A⁻¹)_ic = Σ_{q>=i} X_qi X_qc.
		if (row) {
			uint ibase = mat * P * P;
			for (uint c = 0u; c <= i; ++c) {
				T s = xd * (c == i ? xd : LS(tri_strict(i, c)));
				for (uint q = i + 1u; q < P; ++q) {
					s += LS(tri_strict(q, i)) * LS(tri_strict(q, c));
				}
				s = fail ? NAN_T : s;
				inv[ibase + i * P + c] = s;
				inv[ibase + c * P + i] = s;
			}
		}
	}
}
