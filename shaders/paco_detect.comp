#version 450
// PACO, step 4: the detection map. For every sky pixel φ0, follow its
// trajectory through the frames, k_l = round(position in frame l), and
// accumulate a = Σ α_{k_l} and b = Σ u_{k_l}ᵀ (r_l − m_{k_l}), where
// r_l − m_{k_l} is the centred cube around k_l. With a float64 ACC the
// positions are computed exactly as the CPU path does (no fused
// multiply-add), so both round alike. Without float64 (POS_TABLE) they come
// from a table the host computed in float64: in float32 a position near a
// half pixel rounds to the other pixel (verify's PACO cases lost half their
// SNR on the trajectories this happened to), and no float32 arithmetic
// reproduces float64's rounding there.
// When the cube comes in blocks of frames, or the frames of a block in
// several dispatches, a and b carry over from one to the next in acc (a is
// NaN once the trajectory has left the valid region), and the last writes
// the maps. So do they between passes over bands of location rows (the
// device holds U, α and the centred cube of one band at a time): a pass
// adds the frames whose k_l lies in its rows [klo, khi) (as flat indices),
// the others wait for their own pass; yc holds the band's pixel rows, from
// flat index yoff on, nband pixels per frame. Lavapipe (llvmpipe) ends any invocation's loops after 65,535
// iterations in all, silently: the host gives each dispatch few enough
// frames to stay below that.
// With SUBPIXEL the PSF model of frame l sits at the exact position: δ =
// position − k_l (float64 with a float64 ACC; in float32 from the rounding
// the table decided, which only moves δ by float32's error), Keys weights
// wy, wx (a = −½) for shifts −2…2, and with the at most 16 non-zero
// products c_m, b_l = Σ c_m (C⁻¹basis_m)ᵀ(r_l − m) and a_l = cᵀ·Gram·c,
// U and Gram being paco_solve's (SUBPIXEL) outputs.
#extension GL_GOOGLE_include_directive : require
#include "include/common.glsl"

layout(std430, binding = 0) readonly buffer Centred { T yc[]; };
layout(std430, binding = 1) readonly buffer U { T u[]; };
layout(std430, binding = 2) readonly buffer Alpha { ACC alpha[]; };
layout(std430, binding = 3) readonly buffer Trig { ACC trig[]; }; // cos θ_l, sin θ_l
layout(std430, binding = 4) readonly buffer Offs { int offs[]; };  // patch pixel offsets dy·W + dx
layout(std430, binding = 5) writeonly buffer Maps { T maps[]; };   // snr, flux, sigma: 3 × N
layout(std430, binding = 6) buffer Acc { ACC acc[]; };             // a, b: 2 × N, between blocks
#ifdef SUBPIXEL
const uint NB = 25u;
layout(std430, binding = 7) readonly buffer Gram { ACC gram[]; };  // NB × NB per location
#define POS_BINDING 8
#else
#define POS_BINDING 7
#endif
#ifdef POS_TABLE
layout(std430, binding = POS_BINDING) readonly buffer Pos { int pos[]; }; // k_l or −1 (outside): t × N
#endif

layout(push_constant) uniform Params {
	uint h;
	uint w;
	uint t;   // frames in this block
	uint np;  // pixels in a patch
	int cy;
	int cx;
	uint vip; // 1: truncate positions instead of rounding
	uint base; // first pixel of this dispatch (the host splits the work)
	uint end;  // one past its last pixel, at most h·w
	uint t0;   // the block's first frame
	uint first; // 1: the first (or only) block of frames
	uint last;  // 1: the last (or only) block: write the maps
	uint l0;    // frames l0 … l1−1 of the block in this dispatch (the host
	uint l1;    // splits them so that no invocation loops 65,535 times: llvmpipe stops there)
	uint klo;   // the locations of this pass, klo … khi−1: U, α and Gram
	uint khi;   // hold them from klo on
	uint yoff;  // the flat index of yc's first pixel
	uint nband; // yc's pixels per frame
	uint pt0;   // POS_TABLE: the first frame (of the cube) that pos holds
} p;

#ifndef POS_TABLE
int to_pixel(ACC v) {
	if (p.vip != 0u) {
		return int(v); // truncation, as Python's int()
	}
	ACC r = floor(abs(v) + ACC(0.5)); // half away from zero
	return int(v < ACC(0) ? -r : r);
}
#endif

#ifdef SUBPIXEL
// Keys' cubic-convolution kernel, a = −½: 1 at 0, 0 at the other integers.
ACC keys(ACC x) {
	x = abs(x);
	if (x <= ACC(1)) {
		return (ACC(1.5) * x - ACC(2.5)) * x * x + ACC(1);
	}
	if (x < ACC(2)) {
		return ((ACC(-0.5) * x + ACC(2.5)) * x - ACC(4)) * x + ACC(2);
	}
	return ACC(0);
}
#endif

void main() {
	uint q = p.base + flat_index();
	uint n = p.h * p.w;
	if (q >= p.end) {
		return;
	}
#if !defined(POS_TABLE) || defined(SUBPIXEL)
	ACC dy = ACC(int(q / p.w) - p.cy), dx = ACC(int(q % p.w) - p.cx);
#endif
	ACC a = ACC(0), b = ACC(0);
	if (p.first == 0u) {
		a = acc[q];
		b = acc[n + q];
	}
	bool ok = !isnan(a);
	for (uint l = p.l0; ok && l < p.l1; ++l) {
#ifdef POS_TABLE
		int kt = pos[(p.t0 + l - p.pt0) * n + q];
		if (kt < 0) {
			ok = false;
			break;
		}
		uint k = uint(kt);
#else
		uint lg = p.t0 + l;
		ACC cs = trig[2u * lg], sn = trig[2u * lg + 1u];
		precise ACC py = dy * cs;
		precise ACC px = dx * cs;
		precise ACC qy = dx * sn;
		precise ACC qx = dy * sn;
		precise ACC yl = ACC(p.cy) + (py - qy);
		precise ACC xl = ACC(p.cx) + (px + qx);
		int y = to_pixel(yl), x = to_pixel(xl);
		if (y < 0 || y >= int(p.h) || x < 0 || x >= int(p.w)) {
			ok = false;
			break;
		}
		uint k = uint(y) * p.w + uint(x);
#endif
		if (k < p.klo || k >= p.khi) {
			continue; // another pass's location
		}
		uint ko = k - p.klo;
		ACC al = alpha[ko];
		if (isnan(al)) {
			ok = false;
			break;
		}
		uint base = l * p.nband + k - p.yoff;
#ifdef SUBPIXEL
#ifdef POS_TABLE
		uint lg = p.t0 + l;
		ACC cs = trig[2u * lg], sn = trig[2u * lg + 1u];
		ACC yl = ACC(p.cy) + (dy * cs - dx * sn);
		ACC xl = ACC(p.cx) + (dx * cs + dy * sn);
#endif
		ACC fy = yl - ACC(k / p.w), fx = xl - ACC(k % p.w);
		ACC wy[5], wx[5];
		for (int j = 0; j < 5; ++j) {
			wy[j] = keys(ACC(j - 2) + fy);
			wx[j] = keys(ACC(j - 2) + fx);
		}
		uint idx[16];
		ACC coef[16];
		uint nc = 0u;
		for (uint j = 0u; j < 5u; ++j) {
			for (uint i = 0u; i < 5u; ++i) {
				if (wy[j] != ACC(0) && wx[i] != ACC(0)) {
					idx[nc] = j * 5u + i;
					coef[nc] = wy[j] * wx[i];
					++nc;
				}
			}
		}
		uint gk = ko * NB * NB;
		for (uint m = 0u; m < nc; ++m) {
			uint row = gk + idx[m] * NB;
			ACC s = ACC(0);
			for (uint q2 = 0u; q2 < m; ++q2) {
				s += coef[q2] * gram[row + idx[q2]];
			}
			a += coef[m] * (coef[m] * gram[row + idx[m]] + ACC(2) * s);
			uint ub = (ko * NB + idx[m]) * p.np;
			ACC d = ACC(0);
			for (uint i = 0u; i < p.np; ++i) {
				d += ACC(u[ub + i]) * ACC(yc[uint(int(base) + offs[i])]);
			}
			b += coef[m] * d;
		}
#else
		a += al;
		for (uint i = 0u; i < p.np; ++i) {
			b += ACC(u[ko * p.np + i]) * ACC(yc[uint(int(base) + offs[i])]);
		}
#endif
	}
	ACC nan = ACC(0) / ACC(0);
	if (p.last == 0u) {
		acc[q] = ok ? a : nan;
		acc[n + q] = b;
		return;
	}
	if (!ok || isnan(b) || !(a > ACC(0))) {
		maps[q] = T(nan);
		maps[n + q] = T(nan);
		maps[2u * n + q] = T(nan);
		return;
	}
	ACC sa = sqrt(a);
	maps[q] = T(b / sa);
	maps[n + q] = T(b / a);
	maps[2u * n + q] = T(ACC(1) / sa);
}
