// The input of a kernel that reads one array of values, in one place, so
// that a shader has one source for every storage type:
//
//   #define IN_BINDING 0   the binding of the input
//   #define IN_NAME In      its block's name
//   #include "include/load.glsl"
//
// declares the readonly buffer `data`, and LOAD(i) is element i of it, as
// a T (float or double).
//
// STORE16 selects the storage: undefined or 0, T itself (float or double);
// 1, float16 and 2, bfloat16, packed two to a uint32 word, element i in the
// low half of word i/2 when i is even and the high half when odd (NumPy's
// little-endian layout seen as uint32s). Both widen exactly to float32 and
// need no 16-bit device feature. unpackHalf2x16 is exact for finite values
// (subnormals included: they are normal float32s); ±Inf and NaN, whose
// conversion the GLSL specification leaves open, are rebuilt from the bits.
#ifndef STORE16
#define STORE16 0
#endif

#if STORE16 == 0
layout(std430, binding = IN_BINDING) readonly buffer IN_NAME { T data[]; };
#define LOAD(i) data[i]
#else
layout(std430, binding = IN_BINDING) readonly buffer IN_NAME { uint data[]; };
#define LOAD(i) load16(i)
float load16(uint i) {
	uint w = data[i >> 1u];
	uint h = (i & 1u) != 0u ? w >> 16u : w & 0xffffu;
#if STORE16 == 1
	if ((h & 0x7c00u) == 0x7c00u) { // Inf or NaN
		return uintBitsToFloat(((h & 0x8000u) << 16u) | 0x7f800000u | ((h & 0x3ffu) << 13u));
	}
	return unpackHalf2x16(h).x;
#else
	return uintBitsToFloat(h << 16u);
#endif
}
#endif
