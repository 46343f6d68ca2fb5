#version 450
// PACO, step 1: centre the cube per pixel. cube and yc are time-major,
// (T, N) with N = H·W; yc[t, p] = cube[t, p] − mean_t cube[t, p].
// T is the data type, ACC the accumulator.
#extension GL_GOOGLE_include_directive : require
#include "include/common.glsl"

layout(std430, binding = 0) readonly buffer Cube { T cube[]; };
layout(std430, binding = 1) writeonly buffer Centred { T yc[]; };

layout(push_constant) uniform Params {
	uint n; // pixels
	uint t; // frames
} p;

void main() {
	uint q = flat_index();
	if (q >= p.n) {
		return;
	}
	ACC s = ACC(0);
	for (uint t = 0u; t < p.t; ++t) {
		s += ACC(cube[t * p.n + q]);
	}
	ACC m = s / ACC(p.t);
	for (uint t = 0u; t < p.t; ++t) {
		yc[t * p.n + q] = T(ACC(cube[t * p.n + q]) - m);
	}
}
