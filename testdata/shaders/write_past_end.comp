#version 450
// A real out-of-bounds write: y[id + 7] for id < n writes 7 elements past
// a binding of n. The guard bytes after the binding catch it.
layout(local_size_x = 64) in;
layout(std430, binding = 0) readonly buffer X { float x[]; };
layout(std430, binding = 1) writeonly buffer Y { float y[]; };
layout(push_constant) uniform P { uint n; } p;
void main() {
	uint id = gl_GlobalInvocationID.x;
	if (id < p.n) y[id + 7] = x[id];
}
