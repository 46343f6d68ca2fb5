#version 450
// saxpy over float16 buffers: y = a·x + y, loaded from and stored to
// 16-bit storage (storageBuffer16BitAccess), the arithmetic in float32
// and the result rounded to float16 once (shaderFloat16 for the
// float16_t values), as ggml's f16 variants keep their data.
//
//   vkstat shader run saxpy_f16.comp -b x=saxpy_f16_x.npy -b y=saxpy_f16_y.npy --push a=2.5 --push n=1000 --global 1000 -o y=y.npy
#extension GL_EXT_shader_16bit_storage : require
#extension GL_EXT_shader_explicit_arithmetic_types_float16 : require
layout(local_size_x = 256) in;

layout(std430, binding = 0) readonly buffer X { float16_t x[]; };
layout(std430, binding = 1) buffer Y { float16_t y[]; };

layout(push_constant) uniform Params {
	float a;
	uint n;
} p;

void main() {
	uint i = gl_GlobalInvocationID.x;
	if (i < p.n) {
		y[i] = float16_t(p.a * float(x[i]) + float(y[i]));
	}
}
