#version 450
// reduce_shared.comp with subgroup operations: subgroupAdd sums within a
// subgroup in registers, shared memory only combines the subgroups. Same
// bindings and push constants, so one can be checked against the other:
//
//   vkstat shader check subgroup_sum.comp -b data=reduce_in.npy -b sums=float32:16 --push n=4000 --push chunk=250 --groups 16 --against reduce_shared.comp
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_KHR_shader_subgroup_arithmetic : require
layout(local_size_x = 256) in;

layout(std430, binding = 0) readonly buffer In { float data[]; };
layout(std430, binding = 1) writeonly buffer Out { float sums[]; };

layout(push_constant) uniform Params {
	uint n;
	uint chunk;
} p;

shared float part[256]; // one per subgroup; subgroups are at least 1 wide

void main() {
	uint lid = gl_LocalInvocationID.x;
	uint begin = gl_WorkGroupID.x * p.chunk;
	uint end = min(begin + p.chunk, p.n);
	float s = 0.0;
	for (uint i = begin + lid; i < end; i += 256u) {
		s += data[i];
	}
	s = subgroupAdd(s);
	if (subgroupElect()) {
		part[gl_SubgroupID] = s;
	}
	barrier();
	if (lid == 0u) {
		float t = 0.0;
		for (uint k = 0u; k < gl_NumSubgroups; k++) {
			t += part[k];
		}
		sums[gl_WorkGroupID.x] = t;
	}
}
