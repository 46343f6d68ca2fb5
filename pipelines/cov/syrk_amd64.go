package cov

import "github.com/vkstat/vkstat/internal/vec"

// On amd64 processors with AVX2 and FMA (and an operating system that saves
// the YMM registers), the CPU path's inner loops are the assembly of
// syrk_amd64.s: kern4x8 keeps its 32 outputs in eight YMM registers and
// costs two vector loads, four broadcasts and eight fused multiply-adds per
// panel row; the float32 packing converts four values per instruction.

//go:noescape
func kern4x8FMA(a, b *float64, stride, t int, tile *[32]float64)

//go:noescape
func centreF32AVX(dst *float64, pp int, src *float32, p, t int, mean *float64)

// The wrappers check once that every address the assembly touches lies in
// the slices.

func kern4x8AVX2(x []float64, pp, t, i0, jb int, tile *[32]float64) {
	if t < 1 {
		clear(tile[:])
		return
	}
	_ = x[(t-1)*pp+max(i0+3, jb+7)]
	kern4x8FMA(&x[i0], &x[jb], pp*8, t, tile)
}

func centreF32AVX2(dst []float64, pp int, src []float32, p, t int, mean []float64) {
	if p < 1 || t < 1 {
		return
	}
	if pp < p {
		panic("cov: centreF32: row stride below the row length")
	}
	_, _, _ = dst[(t-1)*pp+p-1], src[t*p-1], mean[p-1]
	centreF32AVX(&dst[0], pp, &src[0], p, t, &mean[0])
}

// asmKernels is the assembly set.
var asmKernels = kernels{"asm", kern4x8AVX2, centreF32AVX2}

func init() {
	if vec.HasAVX2FMA {
		impl = asmKernels
	}
}
