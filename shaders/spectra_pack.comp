#version 450
// Centring and packing for the device spectra (pipelines/spectra,
// runVulkan with a raw input): reads m transforms from the batch as it is
// stored (LOAD, include/load.glsl: float32, float64, float16 or bfloat16)
// and writes VkFFT's transform buffer, so the host neither widens nor
// transposes nor packs. LANES (specialization constant 1) invocations
// share a transform: the transform's mean (accumulated in ACC, compensated
// (Kahan) where ACC is float), reduced in shared memory when LANES > 1,
// then the centred values stored as T in the real-to-complex
// layout (rows of n0 values padded to 2·(n0/2+1), padding zero) or, where
// VkFFT has no real-to-complex plan, the complex one ((re, 0) per value).
// A transform holding a NaN or ±Inf comes out all zeros and sets bit t%32
// of bad[t/32] (the host's NaN policy needs to know which; a bit rather
// than a word per transform: 0.5 MiB instead of 16 MiB to download for the
// 4 M series of 64 latents of 16×16×64×64, where scanning the raw batch
// on the host would read all of it again).
//
// Addressing: transform t of the chunk is tt = t0 + t of groups of g
// transforms; value i of it is element
//   lead + (tt/g)·ostride + tt%g − t0 + i·istride
// of the uploaded span. Frames: g = 1, ostride = n, istride = 1 (transform
// t = frame t, contiguous). Series of a (G, F, H·W) batch: g = H·W,
// ostride = F·H·W, istride = H·W (the transpose happens here). lead (0 or
// 1) is where the chunk's first value sits in the span (16-bit data are
// uploaded from an even element).
//
// GPUs: LANES = WG_SIZE, a workgroup per transform; CPU devices (whose
// barriers are emulated, and cost more than the work of a small
// transform): LANES = 1, an invocation per transform, neighbours on
// neighbouring transforms. llvmpipe (lavapipe) silently ends an
// invocation's loops after 65,535 iterations in all: each invocation loops
// over at most about 2·n/LANES values plus log2(LANES) reduction steps,
// and the host keeps that under 16,400 (pipelines/spectra/pack.go; larger
// transforms are packed on the host).
#extension GL_GOOGLE_include_directive : require
#include "include/common.glsl"

#define IN_BINDING 0
#define IN_NAME In
#include "include/load.glsl"

layout(std430, binding = 1) writeonly buffer Out { T outv[]; };
layout(std430, binding = 2) buffer Bad { uint bad[]; }; // a bit per transform, zeroed by the host

layout(push_constant) uniform Params {
	uint m;       // transforms in the chunk
	uint n0;      // values per row
	uint n1;      // rows
	uint per;     // values of T per transform in outv
	uint real;    // 1: real-to-complex rows; 0: complex layout
	uint g;       // transforms per group
	uint t0;      // the chunk's first transform's place in its group
	uint ostride; // elements between groups
	uint istride; // elements between a transform's values
	uint lead;    // the span's element of the chunk's first value
} p;

layout(constant_id = 1) const uint LANES = 1;

shared ACC shs[WG_SIZE];
shared ACC shc[WG_SIZE];
shared uint shb[WG_SIZE];

#if ACC_DOUBLE
#define ADD(s, c, x) { s += (x); }
#else
#define ADD(s, c, x) { precise ACC y_ = (x) - c; precise ACC t_ = s + y_; c = (t_ - s) - y_; s = t_; }
#endif

void main() {
	uint lid = gl_LocalInvocationID.x;
	uint lane = lid % LANES;
	uint t = flat_group() * (WG_SIZE / LANES) + lid / LANES;
	bool live = t < p.m;
	uint tt = p.t0 + t;
	uint at = p.lead + ((tt / p.g) * p.ostride + tt % p.g - p.t0);
	uint n = p.n0 * p.n1;
	ACC s = ACC(0), c = ACC(0);
	uint b = 0u;
	if (live) {
		for (uint i = lane; i < n; i += LANES) {
			T v = T(LOAD(at + i * p.istride));
			if (isnan(v) || isinf(v)) {
				b = 1u;
			} else {
				ADD(s, c, ACC(v));
			}
		}
	}
	if (LANES > 1u) {
		shs[lid] = s;
		shc[lid] = c;
		shb[lid] = b;
		barrier();
		for (uint k = LANES / 2u; k > 0u; k >>= 1u) {
			if (lane < k) {
				ACC s1 = shs[lid], c1 = shc[lid];
				// (s1 − c1) + (s2 − c2), compensated: add s2, then −c2.
				ADD(s1, c1, shs[lid + k]);
				ADD(s1, c1, -shc[lid + k]);
				shs[lid] = s1;
				shc[lid] = c1;
				shb[lid] |= shb[lid + k];
			}
			barrier();
		}
		uint root = lid - lane;
		s = shs[root];
		c = shc[root];
		b = shb[root];
	}
	if (!live) {
		return;
	}
	bool isBad = b != 0u;
	ACC mu = (s - c) / ACC(n);
	uint base = t * p.per;
	if (lane == 0u && isBad) {
		atomicOr(bad[t >> 5u], 1u << (t & 31u));
	}
	if (p.real != 0u) {
		uint cols = p.n0 / 2u + 1u; // pairs per row
		for (uint j = lane; j < p.n1 * cols; j += LANES) {
			uint y = j / cols;
			uint x = 2u * (j - y * cols);
			T a = T(0), e = T(0);
			if (!isBad) {
				if (x < p.n0) {
					a = T(ACC(LOAD(at + (y * p.n0 + x) * p.istride)) - mu);
				}
				if (x + 1u < p.n0) {
					e = T(ACC(LOAD(at + (y * p.n0 + x + 1u) * p.istride)) - mu);
				}
			}
			outv[base + 2u * j] = a;
			outv[base + 2u * j + 1u] = e;
		}
	} else {
		for (uint i = lane; i < n; i += LANES) {
			outv[base + 2u * i] = isBad ? T(0) : T(ACC(LOAD(at + i * p.istride)) - mu);
			outv[base + 2u * i + 1u] = T(0);
		}
	}
}
