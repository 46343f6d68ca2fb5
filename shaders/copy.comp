#version 450
// dst = src, 16 bytes an invocation: the device-memory bandwidth reference
// that vkstat bench measures kernels against (a shader's reads and writes,
// as the kernels do them, not the copy engine's).
#extension GL_GOOGLE_include_directive : require
#include "include/common.glsl"

layout(std430, binding = 0) readonly buffer Src { uvec4 src[]; };
layout(std430, binding = 1) writeonly buffer Dst { uvec4 dst[]; };

layout(push_constant) uniform Params {
	uint n; // uvec4 elements
} p;

void main() {
	uint i = flat_index();
	if (i < p.n) {
		dst[i] = src[i];
	}
}
