#version 450
// y = a·x + y over n elements: the smallest useful compute shader.
//
//   vkstat shader run saxpy.comp -b x=saxpy_x.npy -b y=saxpy_y.npy --push a=2.5 --push n=1000 --global 1000 -o y=y.npy
layout(local_size_x = 256) in;

layout(std430, binding = 0) readonly buffer X { float x[]; };
layout(std430, binding = 1) buffer Y { float y[]; };

layout(push_constant) uniform Params {
	float a;
	uint n;
} p;

void main() {
	uint i = gl_GlobalInvocationID.x;
	if (i < p.n) {
		y[i] = p.a * x[i] + y[i];
	}
}
