#version 450
// PACO, step 2: lagged products of the centred cube,
// g[d, p] = (1/div) · Σ_t yc[t, p] · yc[t, p + disp_d], for every pixel p and
// canonical displacement d whose partner pixel is inside the frame. When the
// cube comes in blocks of frames, each block's products are added to g
// (first: the first block, which starts from zero).
#extension GL_GOOGLE_include_directive : require
#include "include/common.glsl"

layout(std430, binding = 0) readonly buffer Centred { T yc[]; };
layout(std430, binding = 1) readonly buffer Disp { ivec2 disp[]; }; // (dy, dx)
layout(std430, binding = 2) buffer Lags { T g[]; };

layout(push_constant) uniform Params {
	uint h;
	uint w;
	uint t;     // frames in this block
	uint nd;
	uint div; // T, or 2T for --compat vip
	uint base; // first index of this dispatch (the host splits the work)
	uint end;  // one past its last index, at most h·w·nd
	uint first; // 1: the first (or only) block of frames
} p;

void main() {
	uint gid = p.base + flat_index();
	uint n = p.h * p.w;
	if (gid >= p.end) {
		return;
	}
	uint d = gid / n;
	uint q = gid % n;
	int y = int(q / p.w), x = int(q % p.w);
	ivec2 dd = disp[d];
	int y2 = y + dd.x, x2 = x + dd.y;
	if (y2 < 0 || y2 >= int(p.h) || x2 < 0 || x2 >= int(p.w)) {
		g[gid] = T(0);
		return;
	}
	ACC prev = p.first != 0u ? ACC(0) : ACC(g[gid]);
	uint q2 = uint(y2) * p.w + uint(x2);
	ACC s = ACC(0);
	for (uint t = 0u; t < p.t; ++t) {
		s += ACC(yc[t * n + q]) * ACC(yc[t * n + q2]);
	}
	g[gid] = p.first != 0u ? T(s / ACC(p.div)) : T(prev + s / ACC(p.div));
}
