#version 450
// One step of an iteration, x ← a·x + b over n elements, for a sequence
// that dispatches it many times over a buffer that stays on the device.
layout(local_size_x = 64) in;

layout(std430, binding = 0) buffer X { float x[]; };

layout(push_constant) uniform Params {
	float a;
	float b;
	uint n;
} p;

void main() {
	uint i = gl_GlobalInvocationID.x;
	if (i < p.n) {
		x[i] = p.a * x[i] + p.b;
	}
}
