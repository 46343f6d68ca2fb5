#include "textflag.h"

// func kern4x8FMA(a, b *float64, stride, t int, tile *[32]float64)
//
// tile[r*8+c] = Σ_{k<t} a[k*stride/8 + r] · b[k*stride/8 + c], r < 4, c < 8;
// stride in bytes, t ≥ 1. Y0..Y7 accumulate rows 0..3 (two YMM of four
// columns each); Y8, Y9 hold the eight b values of a row, Y10, Y11 the
// broadcast a values.
TEXT ·kern4x8FMA(SB), NOSPLIT, $0-40
	MOVQ a+0(FP), SI
	MOVQ b+8(FP), DI
	MOVQ stride+16(FP), DX
	MOVQ t+24(FP), CX
	MOVQ tile+32(FP), R8
	VXORPD Y0, Y0, Y0
	VXORPD Y1, Y1, Y1
	VXORPD Y2, Y2, Y2
	VXORPD Y3, Y3, Y3
	VXORPD Y4, Y4, Y4
	VXORPD Y5, Y5, Y5
	VXORPD Y6, Y6, Y6
	VXORPD Y7, Y7, Y7
	TESTQ CX, CX
	JLE done

loop:
	VMOVUPD (DI), Y8
	VMOVUPD 32(DI), Y9
	VBROADCASTSD (SI), Y10
	VBROADCASTSD 8(SI), Y11
	VFMADD231PD Y8, Y10, Y0
	VFMADD231PD Y9, Y10, Y1
	VFMADD231PD Y8, Y11, Y2
	VFMADD231PD Y9, Y11, Y3
	VBROADCASTSD 16(SI), Y10
	VBROADCASTSD 24(SI), Y11
	VFMADD231PD Y8, Y10, Y4
	VFMADD231PD Y9, Y10, Y5
	VFMADD231PD Y8, Y11, Y6
	VFMADD231PD Y9, Y11, Y7
	ADDQ DX, SI
	ADDQ DX, DI
	DECQ CX
	JNZ loop

done:
	VMOVUPD Y0, (R8)
	VMOVUPD Y1, 32(R8)
	VMOVUPD Y2, 64(R8)
	VMOVUPD Y3, 96(R8)
	VMOVUPD Y4, 128(R8)
	VMOVUPD Y5, 160(R8)
	VMOVUPD Y6, 192(R8)
	VMOVUPD Y7, 224(R8)
	VZEROUPPER
	RET

// func centreF32AVX(dst *float64, pp int, src *float32, p, t int, mean *float64)
//
// dst[k*pp+i] = float64(src[k*p+i]) − mean[i] for k < t, i < p; p, t ≥ 1.
TEXT ·centreF32AVX(SB), NOSPLIT, $0-48
	MOVQ dst+0(FP), DI
	MOVQ pp+8(FP), R10
	MOVQ src+16(FP), SI
	MOVQ p+24(FP), DX
	MOVQ t+32(FP), CX
	MOVQ mean+40(FP), R8
	MOVQ DX, R9
	ANDQ $-4, R9

crow:
	XORQ BX, BX

cvec:
	CMPQ BX, R9
	JGE  ctail
	VCVTPS2PD (SI)(BX*4), Y0
	VSUBPD    (R8)(BX*8), Y0, Y0
	VMOVUPD   Y0, (DI)(BX*8)
	ADDQ      $4, BX
	JMP       cvec

ctail:
	CMPQ BX, DX
	JGE  cnext
	VCVTSS2SD (SI)(BX*4), X0, X0
	VSUBSD    (R8)(BX*8), X0, X0
	VMOVSD    X0, (DI)(BX*8)
	INCQ      BX
	JMP       ctail

cnext:
	LEAQ (SI)(DX*4), SI
	LEAQ (DI)(R10*8), DI
	DECQ CX
	JNZ  crow
	VZEROUPPER
	RET
