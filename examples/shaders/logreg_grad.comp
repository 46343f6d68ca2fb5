#version 450
// Logistic regression, Kompute-style, one step in two dispatches: this one
// gives each sample's error d[i] = σ(w·x[i] + b) − y[i]; logreg_update.comp
// then moves the weights against the mean gradient. logreg.json runs the
// pair 100 times over buffers that stay on the device.
layout(local_size_x = 64) in;

layout(std430, binding = 0) readonly buffer X { vec2 x[]; };
layout(std430, binding = 1) readonly buffer Y { float y[]; };
layout(std430, binding = 2) readonly buffer W { float w[3]; }; // w0, w1, b
layout(std430, binding = 3) writeonly buffer D { float d[]; };

layout(push_constant) uniform Params { uint m; } p;

void main() {
	uint i = gl_GlobalInvocationID.x;
	if (i >= p.m) {
		return;
	}
	float z = w[0] * x[i].x + w[1] * x[i].y + w[2];
	d[i] = 1.0 / (1.0 + exp(-z)) - y[i];
}
