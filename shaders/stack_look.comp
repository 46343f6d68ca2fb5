#version 450
// One strip of one SAR date: |S|² (CPLX=1: interleaved re, im) or the real
// input as intensity (CPLX=0), averaged over an a×r multilook box (samples
// that are NaN or nodata are left out; a box with none gives NaN), as
// amplitude (its square root) when asked. ACCUM=1 adds the result to the
// temporal statistics (include/stack_acc.glsl); ACCUM=0 writes it to an
// image for a speckle filter to read.
#extension GL_GOOGLE_include_directive : require
#include "include/common.glsl"

layout(std430, binding = 0) readonly buffer In { float src[]; };

#if ACCUM
#define ACC_BASE 1
#include "include/stack_acc.glsl"
#else
layout(std430, binding = 1) writeonly buffer Img { float img[]; };
#endif

layout(push_constant) uniform Params {
	uint in_w;      // input samples per row of the strip (out_w · r)
	uint out_w;     // output pixels per row
	uint rows;      // output rows in this strip
	uint row0;      // first output row of the strip in the image
	uint la;        // looks in azimuth (rows)
	uint lr;        // looks in range (columns)
	uint has_nodata;
	float nodata;
	uint amplitude; // 1: write sqrt of the multilooked intensity
} p;

void main() {
	uint i = flat_index();
	if (i >= p.rows * p.out_w) {
		return;
	}
	uint oy = i / p.out_w;
	uint ox = i - oy * p.out_w;
	float sum = 0.0;
	uint n = 0u;
	for (uint dy = 0u; dy < p.la; dy++) {
		uint base = (oy * p.la + dy) * p.in_w + ox * p.lr;
		for (uint dx = 0u; dx < p.lr; dx++) {
			uint k = base + dx;
#if CPLX
			float re = src[2u * k];
			float im = src[2u * k + 1u];
			bool bad = isnan(re) || isnan(im) || (p.has_nodata != 0u && re == p.nodata && im == p.nodata);
			float v = re * re + im * im;
#else
			float v = src[k];
			bool bad = isnan(v) || (p.has_nodata != 0u && v == p.nodata);
#endif
			if (!bad) {
				sum += v;
				n++;
			}
		}
	}
	float x = n > 0u ? sum / float(n) : uintBitsToFloat(0x7fc00000u);
	if (p.amplitude != 0u) {
		x = sqrt(x);
	}
	uint g = (p.row0 + oy) * p.out_w + ox;
#if ACCUM
	accumulate(g, x);
#else
	img[g] = x;
#endif
}
