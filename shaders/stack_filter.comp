#version 450
// A speckle filter over one multilooked intensity image, its result added to
// the temporal statistics. FILTER=1: boxcar, the mean of the k×k window;
// FILTER=2: Lee (1980), m + w·(x − m) with w = (1 − Cu²/Ci²)/(1 + Cu²)
// clamped to [0, 1], Ci² = v/m² the window's (population) variance over its
// squared mean, Cu² = 1/ENL. Windows are clipped at the image's edges and
// NaN samples left out; a NaN centre stays NaN.
#extension GL_GOOGLE_include_directive : require
#include "include/common.glsl"

layout(std430, binding = 0) readonly buffer Img { float img[]; };
#define ACC_BASE 1
#include "include/stack_acc.glsl"

layout(push_constant) uniform Params {
	uint w;
	uint h;
	uint half_k;    // window half-size: k = 2·half_k + 1
	float cu2;      // Lee: 1/ENL
	uint amplitude; // 1: the square root of the filtered intensity
} p;

void main() {
	uint i = flat_index();
	if (i >= p.w * p.h) {
		return;
	}
	int y = int(i / p.w);
	int x = int(i - uint(y) * p.w);
	float c = img[i];
	float r = c;
	if (!isnan(c)) {
		int y0 = max(y - int(p.half_k), 0), y1 = min(y + int(p.half_k), int(p.h) - 1);
		int x0 = max(x - int(p.half_k), 0), x1 = min(x + int(p.half_k), int(p.w) - 1);
		float sum = 0.0;
		float n = 0.0;
		for (int yy = y0; yy <= y1; yy++) {
			for (int xx = x0; xx <= x1; xx++) {
				float v = img[yy * int(p.w) + xx];
				if (!isnan(v)) {
					sum += v;
					n += 1.0;
				}
			}
		}
		float m = sum / n;
#if FILTER == 1
		r = m;
#else
		float ss = 0.0;
		for (int yy = y0; yy <= y1; yy++) {
			for (int xx = x0; xx <= x1; xx++) {
				float v = img[yy * int(p.w) + xx];
				if (!isnan(v)) {
					ss += (v - m) * (v - m);
				}
			}
		}
		float var = ss / n;
		float wgt = 0.0;
		if (m > 0.0 && var > 0.0) {
			float ci2 = var / (m * m);
			wgt = clamp((1.0 - p.cu2 / ci2) / (1.0 + p.cu2), 0.0, 1.0);
		}
		r = m + wgt * (c - m);
#endif
	}
	if (p.amplitude != 0u) {
		r = sqrt(r);
	}
	accumulate(i, r);
}
