#version 450
// A reduction that assumes 16-lane subgroups, as some samples do: each
// 16-wide workgroup sums its 16 elements with one subgroupAdd. Right
// where a subgroup holds the whole workgroup (16 lanes or more); where
// it holds 8 (lavapipe) or 4 (SwiftShader), sums[g] adds only the first
// subgroup's elements.
#extension GL_KHR_shader_subgroup_arithmetic : require
layout(local_size_x = 16) in;

layout(std430, binding = 0) readonly buffer In { float data[]; };
layout(std430, binding = 1) writeonly buffer Out { float sums[]; };

void main() {
	float s = subgroupAdd(data[gl_GlobalInvocationID.x]);
	if (gl_LocalInvocationIndex == 0u) {
		sums[gl_WorkGroupID.x] = s;
	}
}
