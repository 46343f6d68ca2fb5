#version 450
// z = a·x² + b·y + c elementwise. T is float or double (set by the build).
#extension GL_GOOGLE_include_directive : require
#include "include/common.glsl"


layout(std430, binding = 0) readonly buffer X { T x[]; };
layout(std430, binding = 1) readonly buffer Y { T y[]; };
layout(std430, binding = 2) writeonly buffer Z { T z[]; };

layout(push_constant) uniform Params {
	T a;
	T b;
	T c;
	uint n;
} p;

void main() {
	uint i = flat_index();
	if (i >= p.n) {
		return;
	}
	T xi = x[i];
	z[i] = p.a * xi * xi + p.b * y[i] + p.c;
}
