#version 450
// A specialization constant redeclared under another name, as tiled
// matmul shaders do (const uint strideC = N;): glslang names the one
// constant twice. y[i] = strideC·i + N for i < M.
layout(local_size_x = 64) in;
layout(constant_id = 0) const uint M = 16;
layout(constant_id = 1) const uint N = 64;
const uint strideC = N;
layout(std430, binding = 0) writeonly buffer Y { uint y[]; };

void main() {
	uint i = gl_GlobalInvocationID.x;
	if (i < M) {
		y[i] = strideC * i + N;
	}
}
