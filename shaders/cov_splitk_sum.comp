#version 450
// The second pass of the split-K covariance (cov_splitk.comp wrote the
// partial sums of each split): an invocation per entry (r, c), c ≤ r, of
// each set adds the splits' Σ y_r y_c, Σ y_r and Σ y_c in ACC (y = x − x_0,
// the variable's first sample) and writes
//
//   cov[r, c] = cov[c, r] = (Σ y_r y_c − Σ y_r Σ y_c / t) / (t − ddof),
//   mean[r] = x_0 + Σ y_r / t   (on the diagonal),  rho = 0.
//
// The outputs are cov.comp's (estimator none), in T.
#extension GL_GOOGLE_include_directive : require
#include "include/common.glsl"

layout(constant_id = 1) const uint P = 1; // variables

layout(std430, binding = 0) readonly buffer Part { ACC part[]; };
layout(std430, binding = 1) writeonly buffer Mean { T mean[]; };
layout(std430, binding = 2) writeonly buffer Cov { T cov[]; };
layout(std430, binding = 3) writeonly buffer Rho { T rho[]; };

layout(push_constant) uniform Params {
	uint n;      // sample sets
	uint t;      // samples per set
	uint splits; // splits per set
	uint ddof;   // 0 or 1
} p;

void main() {
	uint e = flat_index();
	if (e >= p.n * P * P) {
		return;
	}
	uint k = e / (P * P), r = e / P % P, c = e % P;
	if (c > r) {
		return;
	}
	const uint per = P * P + P;
	ACC g = ACC(0), sr = ACC(0), sc = ACC(0);
	for (uint s = 0u; s < p.splits; ++s) {
		uint pb = (k * p.splits + s) * per;
		g += part[pb + r * P + c];
		sr += part[pb + P * P + r];
		sc += part[pb + P * P + c];
	}
	ACC nt = ACC(p.t);
	ACC v = (g - sr * (sc / nt)) / ACC(p.t - p.ddof);
	cov[k * P * P + r * P + c] = T(v);
	cov[k * P * P + c * P + r] = T(v);
	if (r == c) {
		mean[k * P + r] = T(part[p.n * p.splits * per + k * P + r] + sr / nt);
		if (r == 0u) {
			rho[k] = T(0);
		}
	}
}
