#version 450
// A speckle filter over one multilooked intensity image, its result added to
// the temporal statistics. FILTER=1: boxcar, the mean of the k×k window;
// FILTER=2: Lee (1980), m + w·(x − m) with w = (1 − Cu²/Ci²)/(1 + Cu²)
// clamped to [0, 1], Ci² = v/m² the window's (population) variance over its
// squared mean, Cu² = 1/ENL. FILTER=3: refined Lee (Lee 1981): the same
// weight, with m and v taken over the half of the window on the centre's
// side of the strongest edge (edge_half below). Windows are
// clipped at the image's edges and NaN samples left out; a NaN centre stays
// NaN.
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

// in_half: whether offset (di, dj) from the centre lies in the half window
// (dir: 0 vertical edge, 1 horizontal, 2 and 3 the diagonals; side 0 the
// negative side, 1 the positive; both include the dividing line); dir < 0:
// the whole window.
bool in_half(int di, int dj, int dir, int side) {
	if (dir < 0) {
		return true;
	}
	int s = dir == 0 ? dj : dir == 1 ? di : dir == 2 ? di + dj : dj - di;
	return side == 0 ? s <= 0 : s >= 0;
}

#if FILTER == 3
float sub_sum(int cy, int cx) {
	float s = 0.0;
	for (int a = -1; a <= 1; a++) {
		for (int b = -1; b <= 1; b++) {
			s += img[(cy + a) * int(p.w) + cx + b];
		}
	}
	return s;
}

// edge_half picks the half window of refined Lee: the sums M of nine 3×3
// sub-windows (centres d = k/2 − 1 apart), the strongest of four gradients
// across them, and the side whose sub-window is closer to the centre's.
// Sums, not means, so that integer intensities (CInt16 without multilook)
// decide exactly, as on the CPU. Windows
// that are clipped or hold a NaN keep dir = −1 (plain Lee).
void edge_half(int y, int x, float n, out int dir, out int side) {
	int k = int(p.half_k);
	dir = -1;
	side = 0;
	if (y - k < 0 || y + k >= int(p.h) || x - k < 0 || x + k >= int(p.w) || n != float((2 * k + 1) * (2 * k + 1))) {
		return;
	}
	int d = k - 1;
	float M[3][3];
	for (int a = 0; a < 3; a++) {
		for (int b = 0; b < 3; b++) {
			M[a][b] = sub_sum(y + (a - 1) * d, x + (b - 1) * d);
		}
	}
	float g[4];
	g[0] = abs((M[0][2] + M[1][2] + M[2][2]) - (M[0][0] + M[1][0] + M[2][0]));
	g[1] = abs((M[2][0] + M[2][1] + M[2][2]) - (M[0][0] + M[0][1] + M[0][2]));
	g[2] = abs((M[1][2] + M[2][1] + M[2][2]) - (M[0][1] + M[1][0] + M[0][0]));
	g[3] = abs((M[0][1] + M[0][2] + M[1][2]) - (M[1][0] + M[2][0] + M[2][1]));
	dir = 0;
	for (int i = 1; i < 4; i++) {
		if (g[i] > g[dir]) {
			dir = i;
		}
	}
	float neg = dir == 0 ? M[1][0] : dir == 1 ? M[0][1] : dir == 2 ? M[0][0] : M[2][0];
	float pos = dir == 0 ? M[1][2] : dir == 1 ? M[2][1] : dir == 2 ? M[2][2] : M[0][2];
	float c = M[1][1];
	side = abs(neg - c) < abs(pos - c) ? 0 : 1;
}
#endif

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
		int dir = -1, side = 0;
#if FILTER == 3
		edge_half(y, x, n, dir, side);
		if (dir >= 0) {
			sum = 0.0;
			n = 0.0;
			for (int yy = y0; yy <= y1; yy++) {
				for (int xx = x0; xx <= x1; xx++) {
					if (in_half(yy - y, xx - x, dir, side)) {
						sum += img[yy * int(p.w) + xx];
						n += 1.0;
					}
				}
			}
			m = sum / n;
		}
#endif
		float ss = 0.0;
		for (int yy = y0; yy <= y1; yy++) {
			for (int xx = x0; xx <= x1; xx++) {
				float v = img[yy * int(p.w) + xx];
				if (!isnan(v) && in_half(yy - y, xx - x, dir, side)) {
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
