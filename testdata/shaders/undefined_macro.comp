#version 450
// A_TYPE is a macro the build defines (-D A_TYPE=float), as ggml's
// shaders take theirs: without it glslang says only "syntax error,
// unexpected IDENTIFIER".
layout(local_size_x = 64) in;
layout(std430, binding = 0) buffer Y { A_TYPE y[]; };
void main() {
	uint i = gl_GlobalInvocationID.x;
	y[i] = y[i] * 2;
}
