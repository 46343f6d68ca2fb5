#version 450
// y = a·x + b over n elements, the parameters in a uniform buffer (std140,
// so b sits at byte 32, after a 16-byte vec4), as most sample code passes
// them:
//
//   vkstat shader check uniform_params.comp -b x=saxpy_x.npy -b y=float32:1000 -u a=2 -u n=999 -u b=0.5 --global 1000 -e y=uniform_expected.npy
layout(local_size_x = 64) in;

layout(std140, binding = 0) uniform Params {
	float a;
	uint n;
	vec4 unused;
	float b;
} params;
layout(std430, binding = 1) readonly buffer X { float x[]; };
layout(std430, binding = 2) writeonly buffer Y { float y[]; };

void main() {
	uint i = gl_GlobalInvocationID.x;
	if (i < params.n) {
		y[i] = params.a * x[i] + params.b;
	}
}
