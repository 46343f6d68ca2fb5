#version 450
// The second dispatch of a logistic regression step (see logreg_grad.comp):
// one invocation sums the gradient over the m samples and moves the
// weights: w -= lr · mean(d[i]·(x[i], 1)).
layout(local_size_x = 1) in;

layout(std430, binding = 0) readonly buffer X { vec2 x[]; };
layout(std430, binding = 1) readonly buffer D { float d[]; };
layout(std430, binding = 2) buffer W { float w[3]; };

layout(push_constant) uniform Params { uint m; float lr; } p;

void main() {
	vec3 g = vec3(0.0);
	for (uint i = 0u; i < p.m; i++) {
		g += d[i] * vec3(x[i], 1.0);
	}
	g /= float(p.m);
	w[0] -= p.lr * g.x;
	w[1] -= p.lr * g.y;
	w[2] -= p.lr * g.z;
}
