// Shared helpers for vkstat's compute shaders.
//
// The workgroup size is specialization constant 0. Use WG_SIZE, never
// gl_WorkGroupSize: glslc -O folds the latter to its default.
//
// Dispatches wider than the device's 65,535-workgroup limit are folded over
// x and y by the host (engine.Device.Groups); flat_group() undoes that.

layout(constant_id = 0) const uint WG_SIZE = 64;
layout(local_size_x_id = 0) in;

uint flat_group() {
	return gl_WorkGroupID.x + gl_WorkGroupID.y * gl_NumWorkGroups.x;
}

uint flat_index() {
	return flat_group() * WG_SIZE + gl_LocalInvocationID.x;
}
