#version 450
// The radial (or one-sided) power sums of m transforms, read in place from
// VkFFT's output (pipelines/spectra, binsVulkan), so that only those come
// back to the host instead of the whole spectrum: per transform, the sum
// of w·P, P = |X/n|², over each bin and, for frames, the totals Σ w·P,
// Σ w·ν·P and Σ_{ν>1/4} w·P (ν in cycles per sample). The sums accumulate
// in ACC and are stored as T.
//
// The host lists the transform's E complex values (half-plane rows of
// cols values) sorted by bin in ord (bin K: no bin, still in the totals),
// each as its index (bits 0–29), weight 2 (bit 30: the value stands for its
// mirror as well) and ν > 1/4 (bit 31), with the host's own bin
// assignment, and its ν in nuv (the host's too: no divisions or square
// roots here); bstart (K + 2 words) is where each bin starts in ord.
//
// Frames (perbin = 0): the list is cut into segments of at most S values,
// and one invocation sums one segment of one transform in order: llvmpipe
// (lavapipe) silently ends an invocation's loops after 65,535 iterations
// in all, and a segment loops over at most S values plus the bins it spans
// (the host keeps that bounded). seg[4g … 4g+3] is segment g's start, end,
// first output slot and first bin; it writes the sum of each bin k < K it
// spans to out[t·slots + slot + k − first], then its three totals.
//
// Series (perbin = 1): no list; one invocation sums bin j of one series
// into out[t·K + j]: value j (weight 2 in the real-to-complex layout
// except j = 0 and f/2) or values j and f − j (complex layout); no totals
// (ν is the bin's: the host forms them).
#extension GL_GOOGLE_include_directive : require
#include "include/common.glsl"

layout(std430, binding = 0) readonly buffer X { T xv[]; };   // m transforms of per values of T
layout(std430, binding = 1) readonly buffer Tab { uint tab[]; }; // ord, then bstart, then seg
layout(std430, binding = 2) writeonly buffer Out { T outv[]; };
layout(std430, binding = 3) readonly buffer Nu { T nuv[]; };   // ν of each value of ord

layout(push_constant) uniform Params {
	uint m;      // transforms
	uint nseg;   // segments per transform (frames)
	uint per;    // values of T per transform
	uint slots;  // outputs per transform
	uint k;      // bins (K)
	uint boff;   // bstart's offset in tab
	uint soff;   // seg's offset in tab
	uint perbin; // 1: an invocation per bin, no totals (series)
	uint f;      // the series' length (perbin)
	T scale;     // 1/n: P = |X·scale|²
} p;

// acc adds v to the sum (s, c) with Kahan's compensation where ACC is float.
void acc(inout ACC s, inout ACC c, ACC v) {
#if ACC_DOUBLE
	s += v;
#else
	precise ACC y = v - c;
	precise ACC t = s + y;
	c = (t - s) - y;
	s = t;
#endif
}

// power is w·P of ord's value e of the transform at base.
ACC power(uint base, uint e) {
	uint idx = e & 0x3fffffffu;
	T re = xv[base + 2u * idx] * p.scale;
	T im = xv[base + 2u * idx + 1u] * p.scale;
	ACC v = ACC(re * re + im * im);
	return (e & 0x40000000u) != 0u ? v * ACC(2) : v;
}

void main() {
	uint q = flat_index();
	if (p.perbin != 0u) {
		if (q >= p.m * p.k) {
			return;
		}
		uint t = q / p.k;
		uint b = q - t * p.k;
		// A series' bin j is value j, weight 2 in the real-to-complex layout
		// (per = 2·(f/2+1)) except j = 0 and f/2; values j and f − j in the
		// complex one (per = 2·f).
		uint f = p.f;
		bool two = b > 0u && 2u * b != f;
		bool real = p.per != 2u * f;
		ACC s = power(t * p.per, b | (two && real ? 0x40000000u : 0u));
		if (two && !real) {
			s += power(t * p.per, f - b);
		}
		outv[q] = T(s);
		return;
	}
	if (q >= p.m * p.nseg) {
		return;
	}
	uint t = q / p.nseg;
	uint g = q - t * p.nseg;
	uint start = tab[p.soff + 4u * g];
	uint end = tab[p.soff + 4u * g + 1u];
	uint slot = t * p.slots + tab[p.soff + 4u * g + 2u];
	uint first = tab[p.soff + 4u * g + 3u];
	uint base = t * p.per;
	ACC tot = ACC(0), totc = ACC(0), nus = ACC(0), nusc = ACC(0), hi = ACC(0), hic = ACC(0);
	uint b = first;
	uint lo = start;
	while (lo < end) {
		uint hiEnd = min(end, tab[p.boff + b + 1u]);
		ACC s = ACC(0), sc = ACC(0);
		for (uint i = lo; i < hiEnd; ++i) {
			uint e = tab[i];
			ACC v = power(base, e);
			acc(s, sc, v);
			acc(tot, totc, v);
			acc(nus, nusc, ACC(nuv[i]) * v);
			if ((e & 0x80000000u) != 0u) {
				acc(hi, hic, v);
			}
		}
		if (b < p.k) {
			outv[slot + b - first] = T(s);
		}
		lo = hiEnd;
		++b;
	}
	uint nb = min(b, p.k) - min(first, p.k);
	outv[slot + nb] = T(tot);
	outv[slot + nb + 1u] = T(nus);
	outv[slot + nb + 2u] = T(hi);
}
