#version 450
// y = a·x over n elements of type T (-D T=float or -D T=float16_t), the
// arithmetic in float32: one shader swept over shapes and types, as
// ggml's test-backend-ops sweeps its ops.
#extension GL_EXT_shader_16bit_storage : enable
#extension GL_EXT_shader_explicit_arithmetic_types_float16 : enable
layout(local_size_x = 64) in;

layout(std430, binding = 0) readonly buffer X { T x[]; };
layout(std430, binding = 1) writeonly buffer Y { T y[]; };

layout(push_constant) uniform Params {
	float a;
	uint n;
} p;

void main() {
	uint i = gl_GlobalInvocationID.x;
	if (i < p.n) {
		y[i] = T(p.a * float(x[i]));
	}
}
