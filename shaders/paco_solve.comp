#version 450
// PACO, step 3: one workgroup per location k. Assembles the sample
// covariance S_k from the lagged products, shrinks it (PACO.md's ρ, or VIP's
// numerator), factors C = L·Lᵀ in shared memory (packed strictly lower
// triangle, the diagonal in registers, in ACC precision) and solves
// u_k = C⁻¹h; α_k = hᵀu_k. A location outside the frame or whose C is not
// positive definite gets α = NaN. The image may be a band of rows of the
// frame (h rows: the host runs the locations in passes over bands); U,
// Alpha and Gram hold the locations from k0 on.
// With SUBPIXEL (sub-pixel PSF placement) the right-hand sides are the NB
// basis vectors of the shifted PSF (binding 2, basis-major; basis NB/2 is h),
// all solved together: U gets C⁻¹·basis_b for every b (NB·P per location,
// basis-major) and Gram the NB×NB matrix basis_bᵀ C⁻¹ basis_b'; α = the
// centre basis vector's entry.
//
// The shrinkage (shrink_rho, shrunk_entry) and the Cholesky factorisation
// and solves (chol_factor_rows, chol_solve_rows: invocation i owns row i,
// so WG_SIZE >= P) are include/linalg.glsl's, shared with cov.comp and
// chol.comp.
#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_control_flow_attributes : require
#include "include/common.glsl"

layout(constant_id = 1) const uint P = 49;

layout(std430, binding = 0) readonly buffer Lags { T g[]; };
layout(std430, binding = 1) readonly buffer Pairs { ivec4 pairs[]; }; // (tri, pixel offset, disp, i==j)
layout(std430, binding = 2) readonly buffer H { ACC hvec[]; };
layout(std430, binding = 3) writeonly buffer U { T u[]; };
layout(std430, binding = 4) writeonly buffer Alpha { ACC alpha[]; };
#ifdef SUBPIXEL
const uint NB = 25u; // basis vectors: shifts −2…2 in each axis
layout(std430, binding = 5) writeonly buffer Gram { ACC gram[]; };
#else
const uint NB = 1u;
#endif

layout(push_constant) uniform Params {
	uint h;
	uint w;
	uint t;
	uint r;      // patch radius
	uint npairs; // P(P+1)/2
	uint vip;    // 1: VIP's ρ numerator
	uint base;   // first location of this dispatch (the host splits the work)
	uint end;    // one past its last location, at most h·w
	uint k0;     // the location U, Alpha and Gram start at (a pass over some rows)
} p;

shared ACC sl[P * (P - 1u) / 2u + 1u]; // strictly lower triangle of C, then of L
shared ACC sdiag[P];                   // S's diagonal
shared ACC z[P * NB]; // z[i·NB + b]: row i of the NB solutions
shared ACC red[3 * WG_SIZE];
shared ACC piv[2u * NB];
shared int sinfo[1];

#define LS(ix) sl[ix]
void sync_l() {
	memoryBarrierShared();
	barrier();
}
#define CHOL_T ACC
#define CHOL_NAN ACC(uintBitsToFloat(0x7fc00000u))
#define CHOL_NRHS NB
#include "include/linalg.glsl"

ACC nan_value() {
	ACC zero = ACC(0);
	return zero / zero;
}

void main() {
	uint k = p.base + flat_group();
	uint lid = gl_LocalInvocationID.x;
	uint n = p.h * p.w;
	if (k >= p.end) {
		return;
	}
	uint ky = k / p.w, kx = k % p.w;
	uint ko = k - p.k0; // its place in U, Alpha and Gram
	if (ky < p.r || kx < p.r || ky + p.r >= p.h || kx + p.r >= p.w) {
		for (uint i = lid; i < P * NB; i += WG_SIZE) {
			u[ko * P * NB + i] = T(0);
		}
		if (lid == 0u) {
			alpha[ko] = nan_value();
		}
		return;
	}

	// Load S (strictly lower triangle and diagonal) and the sums the
	// shrinkage needs.
	ACC tr = ACC(0), diag2 = ACC(0), all2 = ACC(0);
	for (uint e = lid; e < p.npairs; e += WG_SIZE) {
		ivec4 pr = pairs[e];
		ACC v = ACC(g[uint(pr.z) * n + uint(int(k) + pr.y)]);
		uvec2 rc = tri_unpack(uint(pr.x));
		if (pr.w != 0) {
			sdiag[rc.x] = v;
			tr += v;
			diag2 += v * v;
			all2 += v * v;
		} else {
			LS(tri_strict(rc.x, rc.y)) = v;
			all2 += 2.0 * v * v;
		}
	}
	red[lid] = tr;
	red[WG_SIZE + lid] = diag2;
	red[2u * WG_SIZE + lid] = all2;
	barrier();
	for (uint s = WG_SIZE / 2u; s > 0u; s >>= 1u) {
		if (lid < s) {
			red[lid] += red[lid + s];
			red[WG_SIZE + lid] += red[WG_SIZE + lid + s];
			red[2u * WG_SIZE + lid] += red[2u * WG_SIZE + lid + s];
		}
		barrier();
	}
	tr = red[0];
	diag2 = red[WG_SIZE];
	all2 = red[2u * WG_SIZE];
	uint est = p.vip != 0u ? EST_PACO_VIP : EST_PACO;
	ACC rho = shrink_rho(est, P, p.t, tr, all2, diag2, ACC(0));
	for (uint e = lid; e < P * (P - 1u) / 2u; e += WG_SIZE) {
		LS(e) = shrunk_entry(est, LS(e), false, rho, ACC(0));
	}

	// Factor (a NaN ρ makes the first pivot NaN), then solve for every
	// right-hand side at once.
	bool row = lid < P;
	ACC d = row ? shrunk_entry(est, sdiag[lid], true, rho, ACC(0)) : ACC(1);
	ACC ld = ACC(0);
	if (chol_factor_rows(lid, row, true, 0u, d, ld) != 0) {
		for (uint i = lid; i < P * NB; i += WG_SIZE) {
			u[ko * P * NB + i] = T(0);
		}
		if (lid == 0u) {
			alpha[ko] = nan_value();
		}
		return; // uniform: every invocation read the same info
	}
	ACC zr[NB], yy[NB];
	[[unroll]] for (uint b = 0u; b < NB; ++b) {
		zr[b] = row ? hvec[b * P + lid] : ACC(0);
	}
	chol_solve_rows(lid, row, 0u, d, zr, yy);
	if (row) {
		[[unroll]] for (uint b = 0u; b < NB; ++b) {
			z[lid * NB + b] = zr[b];
		}
	}
	barrier();
	for (uint e = lid; e < P * NB; e += WG_SIZE) {
		uint b = e / P, i = e % P;
		u[(ko * NB + b) * P + i] = T(z[i * NB + b]);
	}
#ifdef SUBPIXEL
	for (uint e = lid; e < NB * NB; e += WG_SIZE) {
		uint b = e / NB, b2 = e % NB;
		ACC s = ACC(0);
		for (uint i = 0u; i < P; ++i) {
			s += hvec[b * P + i] * z[i * NB + b2];
		}
		gram[ko * NB * NB + e] = s;
		if (b == NB / 2u && b2 == NB / 2u) {
			alpha[ko] = s;
		}
	}
#else
	if (lid == 0u) {
		ACC a = ACC(0);
		for (uint i = 0u; i < P; ++i) {
			a += hvec[i] * z[i];
		}
		alpha[ko] = a;
	}
#endif
}
