#version 450
// Transpose a rows×cols matrix through a TILE×TILE tile of shared memory.
// TILE is a specialization constant that sizes both the workgroup and the
// tile: change it with --spec TILE=8 without recompiling.
//
//   vkstat shader run tile_transpose.comp -b src=tile_in.npy -b dst=float32:48x40 --spec TILE=8 --push rows=40 --push cols=48 --global 48,40 -o dst=t.npy
layout(constant_id = 0) const uint TILE = 16;
layout(local_size_x_id = 0, local_size_y_id = 0) in;

layout(std430, binding = 0) readonly buffer In { float src[]; };
layout(std430, binding = 1) writeonly buffer Out { float dst[]; };

layout(push_constant) uniform Params {
	uint rows;
	uint cols;
} p;

shared float tile[TILE][TILE + 1]; // +1: no bank conflicts on the transposed read

void main() {
	uvec2 l = gl_LocalInvocationID.xy;
	uvec2 base = gl_WorkGroupID.xy * TILE;
	uint c = base.x + l.x, r = base.y + l.y;
	if (r < p.rows && c < p.cols) {
		tile[l.y][l.x] = src[r * p.cols + c];
	}
	barrier();
	// Write the tile transposed: row c of the output holds column c.
	uint oc = base.y + l.x, orow = base.x + l.y;
	if (orow < p.cols && oc < p.rows) {
		dst[orow * p.rows + oc] = tile[l.x][l.y];
	}
}
