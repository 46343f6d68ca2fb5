#version 450
// reduce_shared.comp under the Vulkan memory model (vulkanMemoryModel):
// its barriers name their scope and what they make visible. One sum per
// workgroup: workgroup g adds in[g·chunk, min((g+1)·chunk, n))
// through a tree in shared memory.
//
//   vkstat shader run reduce_memory_model.comp -b data=reduce_in.npy -b sums=float32:16 --push n=4000 --push chunk=250 --groups 16 -o sums=sums.npy
#pragma use_vulkan_memory_model
#extension GL_KHR_memory_scope_semantics : require
layout(local_size_x = 256) in;

layout(std430, binding = 0) readonly buffer In { float data[]; };
layout(std430, binding = 1) writeonly buffer Out { float sums[]; };

layout(push_constant) uniform Params {
	uint n;
	uint chunk;
} p;

shared float part[256];

void main() {
	uint lid = gl_LocalInvocationID.x;
	uint begin = gl_WorkGroupID.x * p.chunk;
	uint end = min(begin + p.chunk, p.n);
	float s = 0.0;
	for (uint i = begin + lid; i < end; i += 256u) {
		s += data[i];
	}
	part[lid] = s;
	controlBarrier(gl_ScopeWorkgroup, gl_ScopeWorkgroup, gl_StorageSemanticsShared, gl_SemanticsAcquireRelease);
	for (uint stride = 128u; stride > 0u; stride >>= 1) {
		if (lid < stride) {
			part[lid] += part[lid + stride];
		}
		controlBarrier(gl_ScopeWorkgroup, gl_ScopeWorkgroup, gl_StorageSemanticsShared, gl_SemanticsAcquireRelease);
	}
	if (lid == 0u) {
		sums[gl_WorkGroupID.x] = part[0];
	}
}
