#version 450
// PACO, step 1: centre the cube per pixel, in place. The cube is
// time-major, (T, N): N pixels per frame (a frame, or a band of its rows);
// afterwards cube[t, p] holds cube[t, p] − mean_t cube[t, p]. The cube may
// come in blocks of frames (one allocation cannot hold it): pass 0 adds
// each block's sums into sums (zeroing it on the first block), pass 1
// centres each block with sums / total. T is the data type, ACC the
// accumulator.
#extension GL_GOOGLE_include_directive : require
#include "include/common.glsl"


layout(std430, binding = 0) buffer Cube { T cube[]; };
layout(std430, binding = 1) buffer Sums { ACC sums[]; };

layout(push_constant) uniform Params {
	uint n;     // pixels
	uint t;     // frames in this block
	uint total; // frames in the cube
	uint pass;  // 0: accumulate sums; 1: centre
	uint first; // pass 0: the first block (sums start at zero)
} p;

void main() {
	uint q = flat_index();
	if (q >= p.n) {
		return;
	}
	if (p.pass == 0u) {
		ACC s = p.first != 0u ? ACC(0) : sums[q];
		for (uint t = 0u; t < p.t; ++t) {
			s += ACC(cube[t * p.n + q]);
		}
		sums[q] = s;
		return;
	}
	ACC m = sums[q] / ACC(p.total);
	for (uint t = 0u; t < p.t; ++t) {
		cube[t * p.n + q] = T(ACC(cube[t * p.n + q]) - m);
	}
}
