// The one GLSL implementation of vkstat's statistics chain and the helpers
// of the dense linear-algebra kernels: packed-triangle indexing, the
// covariance shrinkage weights and shrunk entries (cov.comp, paco_solve.comp)
// and the row-owner Cholesky factorisation and solves (chol.comp,
// paco_solve.comp). Its Go twin is internal/linalg: the two compute the same
// expressions, so keep them in step. The float64 references
// (pipelines/*/reference.go) use neither.
//
// T is the element type (float or double); variants with T = double also
// define T_DOUBLE = 1, so that float-only variants carry no Float64
// capability. The shrinkage needs ACC (the accumulator type) defined, the
// Cholesky the storage described above chol_factor_rows: a shader that
// uses them includes this file after defining those.

#if T_DOUBLE
#define NAN_T packDouble2x32(uvec2(0u, 0x7ff80000u))
#else
#define NAN_T uintBitsToFloat(0x7fc00000u)
#endif

// Index of (i, j), i > j, in a row-major packed strictly lower triangle.
uint tri_strict(uint i, uint j) {
	return i * (i - 1u) / 2u + j;
}

// Row r and column c (c <= r) of entry e of a row-major packed lower
// triangle, diagonal included.
uvec2 tri_unpack(uint e) {
	uint r = uint((sqrt(8.0 * float(e) + 1.0) - 1.0) * 0.5);
	while (r * (r + 1u) / 2u > e) {
		r--;
	}
	while ((r + 1u) * (r + 2u) / 2u <= e) {
		r++;
	}
	return uvec2(r, e - r * (r + 1u) / 2u);
}

// A barrier that also makes workgroup-shared writes visible.
void sync_shared() {
	memoryBarrierShared();
	barrier();
}

// Natural logarithm of type T. GLSL has no double log(): for doubles,
// x = m·2^e with m in [√½, √2), and log m = 2 atanh(z), z = (m−1)/(m+1),
// |z| < 0.172, summed to double precision (z² < 0.03: 12 terms).
#if T_DOUBLE
double log_t(double x) {
	if (isnan(x) || x <= 0.0LF || isinf(x)) {
		return double(log(float(x)));
	}
	int e;
	double m = frexp(x, e); // m in [0.5, 1)
	if (m < 0.70710678118654752LF) {
		m *= 2.0LF;
		e -= 1;
	}
	double z = (m - 1.0LF) / (m + 1.0LF);
	double z2 = z * z;
	double s = 0.0LF;
	for (int q = 23; q >= 1; q -= 2) {
		s = s * z2 + 1.0LF / double(q);
	}
	return 2.0LF * z * s + double(e) * 0.69314718055994530942LF;
}
#else
float log_t(float x) {
	return log(x);
}
#endif

#ifdef ACC
// Covariance estimators, as the est codes of cov.comp's push constants
// (package cov's Estimator), plus PACO with VIP's numerator.
const uint EST_NONE = 0u;
const uint EST_PACO = 1u;
const uint EST_LEDOIT_WOLF = 2u;
const uint EST_OAS = 3u;
const uint EST_PACO_VIP = 4u;

// r clipped to [0, 1]; NaN stays NaN.
ACC clip01(ACC r) {
	if (isnan(r)) {
		return r;
	}
	return clamp(r, ACC(0), ACC(1));
}

// The shrinkage weight ρ of estimator est for np variables and nt samples,
// from the moments of the sample covariance S (1/nt normalisation):
// tr = tr(S), fro = Σ_ij S_ij² = tr(S²), dsq = Σ_i S_ii², q4 = Σ_t ‖x_t‖⁴
// over the centred samples (Ledoit-Wolf only; 0 otherwise). NaN moments
// give NaN. internal/linalg's RhoPACO, RhoOAS and RhoLedoitWolf.
ACC shrink_rho(uint est, uint np, uint nt, ACC tr, ACC fro, ACC dsq, ACC q4) {
	if (est == EST_NONE) {
		return ACC(0);
	}
	if (isnan(tr) || isnan(fro) || isnan(dsq) || isnan(q4)) {
		return tr + fro + dsq + q4; // NaN
	}
	ACC fP = ACC(np), fT = ACC(nt);
	ACC r;
	if (est == EST_PACO || est == EST_PACO_VIP) { // PACO.md
		ACC num = est == EST_PACO_VIP ? fro + tr * tr - ACC(2) * fro : fro + tr * tr - ACC(2) * dsq;
		ACC den = (fT + ACC(1)) * (fro - dsq);
		r = den == ACC(0) ? ACC(1) : num / den;
	} else if (est == EST_OAS) {
		ACC alpha = fro / (fP * fP);
		ACC mu = tr / fP;
		ACC num = alpha + mu * mu;
		ACC den = (fT + ACC(1)) * (alpha - mu * mu / fP);
		r = den == ACC(0) ? ACC(1) : num / den;
	} else { // Ledoit-Wolf
		ACC mu = tr / fP;
		ACC delta = (fro - ACC(2) * mu * tr + fP * mu * mu) / fP;
		ACC beta = (q4 / fT - fro) / (fP * fT);
		beta = min(beta, delta);
		r = (beta == ACC(0) || delta <= ACC(0)) ? ACC(0) : beta / delta;
	}
	return clip01(r);
}

// Entry s of S shrunk by weight rho with estimator est: (1−ρ)s off the
// diagonal; on it, s for PACO (target diag(S); NaN when ρ is), (1−ρ)s + ρμ
// for Ledoit-Wolf and OAS (target μI, μ = tr(S)/P), s for none.
// internal/linalg's ShrunkOff, ShrunkDiagPACO and ShrunkDiagMean.
ACC shrunk_entry(uint est, ACC s, bool diag, ACC rho, ACC mu) {
	if (!diag) {
		return (ACC(1) - rho) * s;
	}
	if (est == EST_PACO || est == EST_PACO_VIP) {
		return isnan(rho) ? rho : s;
	}
	if (est == EST_LEDOIT_WOLF || est == EST_OAS) {
		return (ACC(1) - rho) * s + rho * mu;
	}
	return s;
}
#endif

#ifdef LS
// Row-owner Cholesky (chol.comp, paco_solve.comp): the invocations of a
// workgroup that own one matrix are numbered i = 0 … (at least P − 1), and
// invocation i < P owns row i. The includer defines, before including:
//   P          the order (a constant),
//   CHOL_T     the arithmetic type, CHOL_NAN a NaN of it,
//   CHOL_NRHS  right-hand sides solved together (default 1),
//   LS(ix)     the packed strictly lower triangle of the matrix (row major,
//              tri_strict) in workgroup or coherent global memory,
//   sync_l()   a barrier that makes LS and the shared arrays visible,
//   piv[]      shared CHOL_T, 2·CHOL_NRHS slots per matrix of the workgroup,
//   sinfo[]    shared int, one per matrix,
//   CHOL_LOGDET (optional) a condition under which to accumulate the
//              log-determinant,
// and enables GL_EXT_control_flow_attributes.
// ml is the matrix's index within the workgroup.
#ifndef CHOL_NRHS
#define CHOL_NRHS 1u
#endif

// Slot of the double-buffered value b published at step j.
uint chol_slot(uint ml, uint j, uint b) {
	return (2u * ml + (j & 1u)) * CHOL_NRHS + b;
}

// Factors A = L·Lᵀ in place, right-looking: on entry LS holds A's strictly
// lower triangle and d is A_ii (row) or 1; on return LS holds L's and d is
// L_ii. Pivot j is published by invocation j, so each step needs one
// barrier; column j's scaled values are written one step late, when no
// invocation reads column j any more. Returns potrf's info code, the same in
// every invocation of the matrix: the 1-based index of the first pivot that
// is not positive (or NaN), 0 if none; live: the matrix exists (a
// workgroup's last matrices may not). When CHOL_LOGDET holds, ld gets Σ log L_jj.
int chol_factor_rows(uint i, bool row, bool live, uint ml, inout CHOL_T d, inout CHOL_T ld) {
	if (i == 0u) {
		sinfo[ml] = 0;
		bool bad = !(d > CHOL_T(0)) || isnan(d);
		if (bad && live) {
			sinfo[ml] = 1;
		}
		d = bad ? CHOL_NAN : sqrt(d);
		piv[chol_slot(ml, 0u, 0u)] = d;
	}
	sync_l();
	CHOL_T lprev = CHOL_T(0);
	for (uint j = 0u; j < P; ++j) {
		CHOL_T pj = piv[chol_slot(ml, j, 0u)];
#ifdef CHOL_LOGDET
		if (CHOL_LOGDET) {
			ld += log_t(pj);
		}
#endif
		if (row && j > 0u && i >= j) {
			LS(tri_strict(i, j - 1u)) = lprev;
		}
		if (row && i > j) {
			CHOL_T inv_pj = CHOL_T(1) / pj;
			CHOL_T lij = LS(tri_strict(i, j)) * inv_pj;
			CHOL_T f = lij * inv_pj;
			for (uint c = j + 1u; c < i; ++c) {
				LS(tri_strict(i, c)) -= f * LS(tri_strict(c, j));
			}
			d -= lij * lij;
			lprev = lij;
			if (i == j + 1u) {
				bool bad = !(d > CHOL_T(0)) || isnan(d);
				if (bad && sinfo[ml] == 0) {
					sinfo[ml] = int(i + 1u);
				}
				d = bad ? CHOL_NAN : sqrt(d);
				piv[chol_slot(ml, i, 0u)] = d;
			}
		}
		sync_l();
	}
	return sinfo[ml];
}

// Solves L·Lᵀx = b for CHOL_NRHS right-hand sides with chol_factor_rows'
// factor (d = L_ii): invocation i holds b_i of each in z and gets x_i back;
// yy gets ‖L⁻¹b‖² = bᵀA⁻¹b of each, in every invocation. y_j and x_j are
// published by invocation j: one barrier per step.
void chol_solve_rows(uint i, bool row, uint ml, CHOL_T d, inout CHOL_T z[CHOL_NRHS], out CHOL_T yy[CHOL_NRHS]) {
	// L y = b.
	[[unroll]] for (uint b = 0u; b < CHOL_NRHS; ++b) {
		yy[b] = CHOL_T(0);
		if (row && i == 0u) {
			piv[chol_slot(ml, 0u, b)] = z[b] / d;
		}
	}
	sync_l();
	for (uint j = 0u; j < P; ++j) {
		[[unroll]] for (uint b = 0u; b < CHOL_NRHS; ++b) {
			CHOL_T yj = piv[chol_slot(ml, j, b)];
			yy[b] += yj * yj;
			if (row && i > j) {
				z[b] -= LS(tri_strict(i, j)) * yj;
				if (i == j + 1u) {
					piv[chol_slot(ml, i, b)] = z[b] / d;
				}
			}
			if (i == j) {
				z[b] = yj;
			}
		}
		sync_l();
	}
	// Lᵀ x = y, from the last row up.
	[[unroll]] for (uint b = 0u; b < CHOL_NRHS; ++b) {
		if (row && i == P - 1u) {
			piv[chol_slot(ml, i, b)] = z[b] / d;
		}
	}
	sync_l();
	for (uint j = P; j-- > 0u;) {
		[[unroll]] for (uint b = 0u; b < CHOL_NRHS; ++b) {
			CHOL_T xj = piv[chol_slot(ml, j, b)];
			if (row && i < j) {
				z[b] -= LS(tri_strict(j, i)) * xj;
				if (i + 1u == j) {
					piv[chol_slot(ml, i, b)] = z[b] / d;
				}
			}
			if (i == j) {
				z[b] = xj;
			}
		}
		sync_l();
	}
}
#endif
