#version 450
// Batched Cholesky factorisation A = L·Lᵀ with solves, inverse, log-det
// and the quadratic form bᵀA⁻¹b: one SUBGROUP per matrix, MPW matrices per
// workgroup (WG_SIZE = MPW × the device's subgroup size), the MAGMA /
// potrfBatched layout for small matrices. chol.comp gives each matrix a
// workgroup-wide invocation per row and a workgroup barrier per step; here
// the lanes of one subgroup share the work of each step and meet at
// subgroup barriers only.
//
// The matrix's lower triangle, diagonal included, lives packed (row major,
// tri(i, j) = i(i+1)/2 + j) in the subgroup's slice of workgroup memory,
// followed by P elements of work space for the solves. Only the lower
// triangle of A is read. LEFT (spec constant) picks the order:
//   right-looking (LEFT = 0): at step j the pivot is taken, column j scaled
//     and the trailing triangle updated, lanes striding over its rows;
//   left-looking (LEFT = 1): at step j column j is first brought up to date
//     from the finished columns k < j (a dot product per row, lanes striding
//     over the rows), then the pivot is taken and the column scaled.
// Info is potrf's, as chol.comp's: the 1-based index of the first pivot that
// is not positive (or NaN); a failed matrix gets NaN outputs. The pivots are
// read by every lane from workgroup memory after a barrier, so info and the
// log-det are the same in every lane.
//
// flags: 1 write L, 2 solve with B, 4 inverse, 8 log-det, 16 quadratic
// form. The inverse comes last: it overwrites L with L⁻¹. The solves take columns c0 … c1−1 of B
// (lavapipe's 65,535-iteration loop limit: the host splits them over
// dispatches). Nothing assumes a subgroup size: the lanes stride by
// gl_SubgroupSize, and only subgroup barriers (GL_KHR_shader_subgroup_basic)
// are used, except in the DOT variants (chol_sg_dot_*: left-looking with
// each row's update a dot product split over the lanes and summed with
// subgroupAdd, GL_KHR_shader_subgroup_arithmetic; LEFT is ignored there).
// A subgroup whose matrix is past the batch returns whole.
#extension GL_GOOGLE_include_directive : require
#extension GL_KHR_shader_subgroup_basic : require
#ifndef DOT
#define DOT 0
#endif
#if DOT
#extension GL_KHR_shader_subgroup_arithmetic : require
#endif
#include "include/common.glsl"

layout(constant_id = 1) const uint P = 1;    // matrix order
layout(constant_id = 2) const uint MPW = 1;  // matrices (subgroups) per workgroup
layout(constant_id = 3) const uint LEFT = 0; // 1: left-looking, 0: right-looking

const uint LSZ = P * (P + 1u) / 2u; // the packed lower triangle
const uint MSZ = LSZ + P;           // per matrix: triangle and solve work space

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

shared T sm[MPW * MSZ];

uint base; // this matrix's first element of sm
#define S(i, j) sm[base + (i) * ((i) + 1u) / 2u + (j)]
#define Y(i) sm[base + LSZ + (i)]

#include "include/linalg.glsl"

// Makes the subgroup's workgroup-memory writes visible to its lanes.
void sync_sg() {
	subgroupMemoryBarrierShared();
	subgroupBarrier();
}

// Factors matrix slot sg of the workgroup and writes its outputs; the
// same for every lane of the subgroup.
void one(uint sg) {
	uint mat = flat_group() * MPW + sg;
	if (mat >= p.n) {
		return; // the whole subgroup
	}
	uint lane = gl_SubgroupInvocationID;
	uint lanes = gl_SubgroupSize;
	base = sg * MSZ;
	uint abase = mat * P * P;

	// Load the lower triangle, coalesced.
	for (uint e = lane; e < P * P; e += lanes) {
		uint r = e / P, c = e % P;
		if (c <= r) {
			S(r, c) = a[abase + e];
		}
	}
	sync_sg();

	int code = 0;
	T ld = T(0);
	bool wantLD = (p.flags & 8u) != 0u;
	for (uint j = 0u; j < P; ++j) {
#if DOT
		// Left-looking, a dot product at a time: the lanes split row i's
		// finished entries q < j and meet in subgroupAdd.
		if (j > 0u) {
			for (uint i = j; i < P; ++i) {
				T part = T(0);
				for (uint q = lane; q < j; q += lanes) {
					part += S(i, q) * S(j, q);
				}
				T s = subgroupAdd(part);
				if (lane == (i % lanes)) {
					S(i, j) -= s;
				}
			}
			sync_sg();
		}
#endif
		if (DOT == 0 && LEFT != 0u) {
			// Column j from the finished columns k < j: rows j … P−1.
			if (j > 0u) {
				for (uint i = j + lane; i < P; i += lanes) {
					T s = S(i, j);
					for (uint q = 0u; q < j; ++q) {
						s -= S(i, q) * S(j, q);
					}
					S(i, j) = s;
				}
				sync_sg();
			}
		}
		T ajj = S(j, j);
		bool bad = !(ajj > T(0)) || isnan(ajj);
		if (bad && code == 0) {
			code = int(j + 1u);
		}
		T ljj = bad ? NAN_T : sqrt(ajj);
		if (wantLD) {
			ld += log_t(ljj);
		}
		T rinv = T(1) / ljj;
		sync_sg(); // every lane has read S(j, j)
		if (lane == 0u) {
			S(j, j) = ljj;
		}
		for (uint i = j + 1u + lane; i < P; i += lanes) {
			S(i, j) *= rinv;
		}
		sync_sg();
		if (DOT == 0 && LEFT == 0u) {
			// The trailing triangle: A_ic −= L_ij L_cj, j < c <= i.
			for (uint i = j + 1u + lane; i < P; i += lanes) {
				T lij = S(i, j);
				for (uint c = j + 1u; c <= i; ++c) {
					S(i, c) -= lij * S(c, j);
				}
			}
			sync_sg();
		}
	}
	bool fail = code != 0;

	if ((p.flags & 1u) != 0u) {
		for (uint e = lane; e < P * P; e += lanes) {
			uint r = e / P, c = e % P;
			lout[abase + e] = fail ? NAN_T : (c <= r ? S(r, c) : T(0));
		}
	}

	if ((p.flags & 2u) != 0u) {
		uint bbase = mat * p.bstride;
		uint xbase = mat * P * p.k;
		for (uint c = p.c0; c < p.c1; ++c) {
			for (uint i = lane; i < P; i += lanes) {
				Y(i) = b[bbase + i * p.k + c];
			}
			sync_sg();
			// L y = b, a column at a time; y_j is stored one step late, when
			// no lane reads Y(j) any more.
			T yy = T(0);
			T prev = T(0);
			for (uint j = 0u; j < P; ++j) {
				T yj = Y(j) / S(j, j);
				yy += yj * yj;
				if (lane == 0u && j > 0u) {
					Y(j - 1u) = prev;
				}
				prev = yj;
				for (uint i = j + 1u + lane; i < P; i += lanes) {
					Y(i) -= S(i, j) * yj;
				}
				sync_sg();
			}
			if (lane == 0u) {
				Y(P - 1u) = prev;
			}
			sync_sg();
			// Lᵀ x = y, from the last row up.
			for (uint j = P; j-- > 0u;) {
				T xj = Y(j) / S(j, j);
				if (lane == 0u && j + 1u < P) {
					Y(j + 1u) = prev;
				}
				prev = xj;
				for (uint i = lane; i < j; i += lanes) {
					Y(i) -= S(j, i) * xj;
				}
				sync_sg();
			}
			if (lane == 0u) {
				Y(0u) = prev;
			}
			sync_sg();
			for (uint i = lane; i < P; i += lanes) {
				xout[xbase + i * p.k + c] = fail ? NAN_T : Y(i);
			}
			if (lane == 0u && (p.flags & 16u) != 0u) {
				quad[mat * p.k + c] = fail ? NAN_T : yy;
			}
			sync_sg(); // Y is loaded again for the next column
		}
	}

	if ((p.flags & 4u) != 0u) {
		// X = L⁻¹ in place, a column at a time: column j solves L x = e_j
		// by the substitution above, from row j down, and then overwrites
		// column j of L, which no later column reads.
		for (uint j = 0u; j < P; ++j) {
			for (uint i = j + lane; i < P; i += lanes) {
				Y(i) = i == j ? T(1) : T(0);
			}
			sync_sg();
			T prev = T(0);
			for (uint q = j; q < P; ++q) {
				T yq = Y(q) / S(q, q);
				if (lane == 0u && q > j) {
					Y(q - 1u) = prev;
				}
				prev = yq;
				for (uint i = q + 1u + lane; i < P; i += lanes) {
					Y(i) -= S(i, q) * yq;
				}
				sync_sg();
			}
			if (lane == 0u) {
				Y(P - 1u) = prev;
			}
			sync_sg();
			for (uint i = j + lane; i < P; i += lanes) {
				S(i, j) = Y(i);
			}
			sync_sg();
		}
		// A⁻¹ = XᵀX: (A⁻¹)_ic = Σ_{q >= max(i, c)} X_qi X_qc, both
		// triangles written, coalesced.
		for (uint e = lane; e < P * P; e += lanes) {
			uint i = e / P, c = e % P;
			T s = T(0);
			for (uint q = max(i, c); q < P; ++q) {
				s += S(q, i) * S(q, c);
			}
			inv[abase + e] = fail ? NAN_T : s;
		}
	}

	if (lane == 0u) {
		info[mat] = code;
		if (wantLD) {
			logdet[mat] = fail ? NAN_T : T(2) * ld;
		}
	}
}

void main() {
	// One slot per subgroup when the subgroups are the size the device
	// reports (WG_SIZE = MPW × that); were they larger, fewer subgroups
	// would share the MPW slots between them.
	for (uint sg = gl_SubgroupID; sg < MPW; sg += gl_NumSubgroups) {
		one(sg);
	}
}
