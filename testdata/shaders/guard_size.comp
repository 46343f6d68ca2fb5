#version 450
// A guard the static bounds check cannot read (ggml's if (p.size <= id + 1)
// return;): the run goes ahead with a warning, and is right. y[i + 1] =
// 2·x[i] for i + 1 < size.
layout(local_size_x = 64) in;
layout(std430, binding = 0) readonly buffer X { float x[]; };
layout(std430, binding = 1) writeonly buffer Y { float y[]; };
layout(push_constant) uniform P { uint size; } params;
void main() {
	uint id = gl_GlobalInvocationID.x;
	if (params.size <= id + 1) return;
	y[id + 1] = 2.0 * x[id];
}
