#include "textflag.h"

// The kernels of sum_amd64.go. Every one accumulates in float64; the
// float32 ones widen four values per VCVTPS2PD (one VCVTSS2SD in the
// tails). The 1-D sums keep sixteen partial sums (four YMM registers) and
// add them pairwise at the end; the row kernels add the rows of a group in
// the same tree as the Go code (sum.go), four columns per instruction, so
// that their results are the Go code's to the bit.

// func sum64AVX(x *float64, n int) float64
//
// Σ_{i<n} x[i].
TEXT ·sum64AVX(SB), NOSPLIT, $0-24
	MOVQ x+0(FP), SI
	MOVQ n+8(FP), CX
	VXORPD Y0, Y0, Y0
	VXORPD Y1, Y1, Y1
	VXORPD Y2, Y2, Y2
	VXORPD Y3, Y3, Y3

loop16:
	CMPQ CX, $16
	JLT  loop4
	VADDPD (SI), Y0, Y0
	VADDPD 32(SI), Y1, Y1
	VADDPD 64(SI), Y2, Y2
	VADDPD 96(SI), Y3, Y3
	ADDQ $128, SI
	SUBQ $16, CX
	JMP  loop16

loop4:
	CMPQ CX, $4
	JLT  fold
	VADDPD (SI), Y0, Y0
	ADDQ $32, SI
	SUBQ $4, CX
	JMP  loop4

fold:
	VADDPD Y1, Y0, Y0
	VADDPD Y3, Y2, Y2
	VADDPD Y2, Y0, Y0
	VEXTRACTF128 $1, Y0, X1
	VADDPD X1, X0, X0
	VUNPCKHPD X0, X0, X1
	VADDSD X1, X0, X0

tail:
	TESTQ CX, CX
	JZ    done
	VMOVSD (SI), X1
	VADDSD X1, X0, X0
	ADDQ $8, SI
	DECQ CX
	JMP  tail

done:
	VZEROUPPER
	MOVSD X0, ret+16(FP)
	RET

// func sum32AVX(x *float32, n int) float64
//
// Σ_{i<n} x[i].
TEXT ·sum32AVX(SB), NOSPLIT, $0-24
	MOVQ x+0(FP), SI
	MOVQ n+8(FP), CX
	VXORPD Y0, Y0, Y0
	VXORPD Y1, Y1, Y1
	VXORPD Y2, Y2, Y2
	VXORPD Y3, Y3, Y3

loop16:
	CMPQ CX, $16
	JLT  loop4
	VCVTPS2PD (SI), Y4
	VADDPD Y4, Y0, Y0
	VCVTPS2PD 16(SI), Y5
	VADDPD Y5, Y1, Y1
	VCVTPS2PD 32(SI), Y6
	VADDPD Y6, Y2, Y2
	VCVTPS2PD 48(SI), Y7
	VADDPD Y7, Y3, Y3
	ADDQ $64, SI
	SUBQ $16, CX
	JMP  loop16

loop4:
	CMPQ CX, $4
	JLT  fold
	VCVTPS2PD (SI), Y4
	VADDPD Y4, Y0, Y0
	ADDQ $16, SI
	SUBQ $4, CX
	JMP  loop4

fold:
	VADDPD Y1, Y0, Y0
	VADDPD Y3, Y2, Y2
	VADDPD Y2, Y0, Y0
	VEXTRACTF128 $1, Y0, X1
	VADDPD X1, X0, X0
	VUNPCKHPD X0, X0, X1
	VADDSD X1, X0, X0

tail:
	TESTQ CX, CX
	JZ    done
	VCVTSS2SD (SI), X1, X1
	VADDSD X1, X0, X0
	ADDQ $4, SI
	DECQ CX
	JMP  tail

done:
	VZEROUPPER
	MOVSD X0, ret+16(FP)
	RET

// func sqDev64FMA(x *float64, n int, m float64) float64
//
// Σ_{i<n} (x[i] − m)², the squares fused into the additions.
TEXT ·sqDev64FMA(SB), NOSPLIT, $0-32
	MOVQ x+0(FP), SI
	MOVQ n+8(FP), CX
	VBROADCASTSD m+16(FP), Y8
	VXORPD Y0, Y0, Y0
	VXORPD Y1, Y1, Y1
	VXORPD Y2, Y2, Y2
	VXORPD Y3, Y3, Y3

loop16:
	CMPQ CX, $16
	JLT  loop4
	VSUBPD (SI), Y8, Y4
	VFMADD231PD Y4, Y4, Y0
	VSUBPD 32(SI), Y8, Y5
	VFMADD231PD Y5, Y5, Y1
	VSUBPD 64(SI), Y8, Y6
	VFMADD231PD Y6, Y6, Y2
	VSUBPD 96(SI), Y8, Y7
	VFMADD231PD Y7, Y7, Y3
	ADDQ $128, SI
	SUBQ $16, CX
	JMP  loop16

loop4:
	CMPQ CX, $4
	JLT  fold
	VSUBPD (SI), Y8, Y4
	VFMADD231PD Y4, Y4, Y0
	ADDQ $32, SI
	SUBQ $4, CX
	JMP  loop4

fold:
	VADDPD Y1, Y0, Y0
	VADDPD Y3, Y2, Y2
	VADDPD Y2, Y0, Y0
	VEXTRACTF128 $1, Y0, X1
	VADDPD X1, X0, X0
	VUNPCKHPD X0, X0, X1
	VADDSD X1, X0, X0

tail:
	TESTQ CX, CX
	JZ    done
	VMOVSD (SI), X1
	VSUBSD X8, X1, X1
	VFMADD231SD X1, X1, X0
	ADDQ $8, SI
	DECQ CX
	JMP  tail

done:
	VZEROUPPER
	MOVSD X0, ret+24(FP)
	RET

// func sqDev32FMA(x *float32, n int, m float64) float64
//
// Σ_{i<n} (x[i] − m)², the squares fused into the additions.
TEXT ·sqDev32FMA(SB), NOSPLIT, $0-32
	MOVQ x+0(FP), SI
	MOVQ n+8(FP), CX
	VBROADCASTSD m+16(FP), Y8
	VXORPD Y0, Y0, Y0
	VXORPD Y1, Y1, Y1
	VXORPD Y2, Y2, Y2
	VXORPD Y3, Y3, Y3

loop16:
	CMPQ CX, $16
	JLT  loop4
	VCVTPS2PD (SI), Y4
	VSUBPD Y8, Y4, Y4
	VFMADD231PD Y4, Y4, Y0
	VCVTPS2PD 16(SI), Y5
	VSUBPD Y8, Y5, Y5
	VFMADD231PD Y5, Y5, Y1
	VCVTPS2PD 32(SI), Y6
	VSUBPD Y8, Y6, Y6
	VFMADD231PD Y6, Y6, Y2
	VCVTPS2PD 48(SI), Y7
	VSUBPD Y8, Y7, Y7
	VFMADD231PD Y7, Y7, Y3
	ADDQ $64, SI
	SUBQ $16, CX
	JMP  loop16

loop4:
	CMPQ CX, $4
	JLT  fold
	VCVTPS2PD (SI), Y4
	VSUBPD Y8, Y4, Y4
	VFMADD231PD Y4, Y4, Y0
	ADDQ $16, SI
	SUBQ $4, CX
	JMP  loop4

fold:
	VADDPD Y1, Y0, Y0
	VADDPD Y3, Y2, Y2
	VADDPD Y2, Y0, Y0
	VEXTRACTF128 $1, Y0, X1
	VADDPD X1, X0, X0
	VUNPCKHPD X0, X0, X1
	VADDSD X1, X0, X0

tail:
	TESTQ CX, CX
	JZ    done
	VCVTSS2SD (SI), X1, X1
	VSUBSD X8, X1, X1
	VFMADD231SD X1, X1, X0
	ADDQ $4, SI
	DECQ CX
	JMP  tail

done:
	VZEROUPPER
	MOVSD X0, ret+24(FP)
	RET

// func sumRuns64AVX(dst *float64, x *float64, n, runs int)
//
// dst[r] = Σ_{i<n} x[r·n+i] for r < runs, n, runs ≥ 1. Each run as sum64AVX.
TEXT ·sumRuns64AVX(SB), NOSPLIT, $0-32
	MOVQ dst+0(FP), DI
	MOVQ x+8(FP), SI
	MOVQ n+16(FP), DX
	MOVQ runs+24(FP), R8

run:
	MOVQ DX, CX
	VXORPD Y0, Y0, Y0
	VXORPD Y1, Y1, Y1
	VXORPD Y2, Y2, Y2
	VXORPD Y3, Y3, Y3

loop16:
	CMPQ CX, $16
	JLT  loop4
	VADDPD (SI), Y0, Y0
	VADDPD 32(SI), Y1, Y1
	VADDPD 64(SI), Y2, Y2
	VADDPD 96(SI), Y3, Y3
	ADDQ $128, SI
	SUBQ $16, CX
	JMP  loop16

loop4:
	CMPQ CX, $4
	JLT  fold
	VADDPD (SI), Y0, Y0
	ADDQ $32, SI
	SUBQ $4, CX
	JMP  loop4

fold:
	VADDPD Y1, Y0, Y0
	VADDPD Y3, Y2, Y2
	VADDPD Y2, Y0, Y0
	VEXTRACTF128 $1, Y0, X1
	VADDPD X1, X0, X0
	VUNPCKHPD X0, X0, X1
	VADDSD X1, X0, X0

tail:
	TESTQ CX, CX
	JZ    done
	VMOVSD (SI), X1
	VADDSD X1, X0, X0
	ADDQ $8, SI
	DECQ CX
	JMP  tail

done:
	VMOVSD X0, (DI)
	ADDQ $8, DI
	DECQ R8
	JNZ  run
	VZEROUPPER
	RET

// func sumRuns32AVX(dst *float64, x *float32, n, runs int)
//
// dst[r] = Σ_{i<n} x[r·n+i] for r < runs, n, runs ≥ 1. Each run as sum32AVX.
TEXT ·sumRuns32AVX(SB), NOSPLIT, $0-32
	MOVQ dst+0(FP), DI
	MOVQ x+8(FP), SI
	MOVQ n+16(FP), DX
	MOVQ runs+24(FP), R8

run:
	MOVQ DX, CX
	VXORPD Y0, Y0, Y0
	VXORPD Y1, Y1, Y1
	VXORPD Y2, Y2, Y2
	VXORPD Y3, Y3, Y3

loop16:
	CMPQ CX, $16
	JLT  loop4
	VCVTPS2PD (SI), Y4
	VADDPD Y4, Y0, Y0
	VCVTPS2PD 16(SI), Y5
	VADDPD Y5, Y1, Y1
	VCVTPS2PD 32(SI), Y6
	VADDPD Y6, Y2, Y2
	VCVTPS2PD 48(SI), Y7
	VADDPD Y7, Y3, Y3
	ADDQ $64, SI
	SUBQ $16, CX
	JMP  loop16

loop4:
	CMPQ CX, $4
	JLT  fold
	VCVTPS2PD (SI), Y4
	VADDPD Y4, Y0, Y0
	ADDQ $16, SI
	SUBQ $4, CX
	JMP  loop4

fold:
	VADDPD Y1, Y0, Y0
	VADDPD Y3, Y2, Y2
	VADDPD Y2, Y0, Y0
	VEXTRACTF128 $1, Y0, X1
	VADDPD X1, X0, X0
	VUNPCKHPD X0, X0, X1
	VADDSD X1, X0, X0

tail:
	TESTQ CX, CX
	JZ    done
	VCVTSS2SD (SI), X1, X1
	VADDSD X1, X0, X0
	ADDQ $4, SI
	DECQ CX
	JMP  tail

done:
	VMOVSD X0, (DI)
	ADDQ $8, DI
	DECQ R8
	JNZ  run
	VZEROUPPER
	RET

// func sqDevRuns64FMA(dst, m *float64, x *float64, n, runs int)
//
// dst[r] = Σ_{i<n} (x[r·n+i] − m[r])² for r < runs, n, runs ≥ 1; m[r] is
// read before dst[r] is written (dst may be m). Each run as sqDev64FMA.
TEXT ·sqDevRuns64FMA(SB), NOSPLIT, $0-40
	MOVQ dst+0(FP), DI
	MOVQ m+8(FP), R9
	MOVQ x+16(FP), SI
	MOVQ n+24(FP), DX
	MOVQ runs+32(FP), R8

run:
	MOVQ DX, CX
	VBROADCASTSD (R9), Y8
	ADDQ $8, R9
	VXORPD Y0, Y0, Y0
	VXORPD Y1, Y1, Y1
	VXORPD Y2, Y2, Y2
	VXORPD Y3, Y3, Y3

loop16:
	CMPQ CX, $16
	JLT  loop4
	VSUBPD (SI), Y8, Y4
	VFMADD231PD Y4, Y4, Y0
	VSUBPD 32(SI), Y8, Y5
	VFMADD231PD Y5, Y5, Y1
	VSUBPD 64(SI), Y8, Y6
	VFMADD231PD Y6, Y6, Y2
	VSUBPD 96(SI), Y8, Y7
	VFMADD231PD Y7, Y7, Y3
	ADDQ $128, SI
	SUBQ $16, CX
	JMP  loop16

loop4:
	CMPQ CX, $4
	JLT  fold
	VSUBPD (SI), Y8, Y4
	VFMADD231PD Y4, Y4, Y0
	ADDQ $32, SI
	SUBQ $4, CX
	JMP  loop4

fold:
	VADDPD Y1, Y0, Y0
	VADDPD Y3, Y2, Y2
	VADDPD Y2, Y0, Y0
	VEXTRACTF128 $1, Y0, X1
	VADDPD X1, X0, X0
	VUNPCKHPD X0, X0, X1
	VADDSD X1, X0, X0

tail:
	TESTQ CX, CX
	JZ    done
	VMOVSD (SI), X1
	VSUBSD X8, X1, X1
	VFMADD231SD X1, X1, X0
	ADDQ $8, SI
	DECQ CX
	JMP  tail

done:
	VMOVSD X0, (DI)
	ADDQ $8, DI
	DECQ R8
	JNZ  run
	VZEROUPPER
	RET

// func sqDevRuns32FMA(dst, m *float64, x *float32, n, runs int)
//
// dst[r] = Σ_{i<n} (x[r·n+i] − m[r])² for r < runs, n, runs ≥ 1; m[r] is
// read before dst[r] is written (dst may be m). Each run as sqDev32FMA.
TEXT ·sqDevRuns32FMA(SB), NOSPLIT, $0-40
	MOVQ dst+0(FP), DI
	MOVQ m+8(FP), R9
	MOVQ x+16(FP), SI
	MOVQ n+24(FP), DX
	MOVQ runs+32(FP), R8

run:
	MOVQ DX, CX
	VBROADCASTSD (R9), Y8
	ADDQ $8, R9
	VXORPD Y0, Y0, Y0
	VXORPD Y1, Y1, Y1
	VXORPD Y2, Y2, Y2
	VXORPD Y3, Y3, Y3

loop16:
	CMPQ CX, $16
	JLT  loop4
	VCVTPS2PD (SI), Y4
	VSUBPD Y8, Y4, Y4
	VFMADD231PD Y4, Y4, Y0
	VCVTPS2PD 16(SI), Y5
	VSUBPD Y8, Y5, Y5
	VFMADD231PD Y5, Y5, Y1
	VCVTPS2PD 32(SI), Y6
	VSUBPD Y8, Y6, Y6
	VFMADD231PD Y6, Y6, Y2
	VCVTPS2PD 48(SI), Y7
	VSUBPD Y8, Y7, Y7
	VFMADD231PD Y7, Y7, Y3
	ADDQ $64, SI
	SUBQ $16, CX
	JMP  loop16

loop4:
	CMPQ CX, $4
	JLT  fold
	VCVTPS2PD (SI), Y4
	VSUBPD Y8, Y4, Y4
	VFMADD231PD Y4, Y4, Y0
	ADDQ $16, SI
	SUBQ $4, CX
	JMP  loop4

fold:
	VADDPD Y1, Y0, Y0
	VADDPD Y3, Y2, Y2
	VADDPD Y2, Y0, Y0
	VEXTRACTF128 $1, Y0, X1
	VADDPD X1, X0, X0
	VUNPCKHPD X0, X0, X1
	VADDSD X1, X0, X0

tail:
	TESTQ CX, CX
	JZ    done
	VCVTSS2SD (SI), X1, X1
	VSUBSD X8, X1, X1
	VFMADD231SD X1, X1, X0
	ADDQ $4, SI
	DECQ CX
	JMP  tail

done:
	VMOVSD X0, (DI)
	ADDQ $8, DI
	DECQ R8
	JNZ  run
	VZEROUPPER
	RET

// func addRows64AVX(cs *float64, x *float64, stride, rows, w int)
//
// cs[j] += Σ_{r<rows} x[r·stride/8+j] for j < w; stride in bytes. Rows go
// in groups of eight, then four, then one, each group added in a tree
// before cs[j] (addRowsGo's order).
TEXT ·addRows64AVX(SB), NOSPLIT, $0-40
	MOVQ cs+0(FP), DI
	MOVQ x+8(FP), SI
	MOVQ stride+16(FP), DX
	MOVQ rows+24(FP), CX
	MOVQ w+32(FP), R9
	MOVQ R9, R10
	ANDQ $-4, R10 // the columns taken four at a time
	LEAQ (DX)(DX*2), R11

g8:
	CMPQ CX, $8
	JLT  g4
	XORQ BX, BX
g8v:
	CMPQ BX, R10
	JGE  g8s
	LEAQ (SI)(BX*8), AX
	LEAQ (AX)(DX*4), R12
	VMOVUPD (AX), Y0
	VMOVUPD (AX)(DX*1), Y1
	VMOVUPD (AX)(DX*2), Y2
	VMOVUPD (AX)(R11*1), Y3
	VMOVUPD (R12), Y4
	VMOVUPD (R12)(DX*1), Y5
	VMOVUPD (R12)(DX*2), Y6
	VMOVUPD (R12)(R11*1), Y7
	VADDPD Y1, Y0, Y0
	VADDPD Y3, Y2, Y2
	VADDPD Y2, Y0, Y0
	VADDPD Y5, Y4, Y4
	VADDPD Y7, Y6, Y6
	VADDPD Y6, Y4, Y4
	VADDPD Y4, Y0, Y0
	VADDPD (DI)(BX*8), Y0, Y0
	VMOVUPD Y0, (DI)(BX*8)
	ADDQ $4, BX
	JMP  g8v
g8s:
	CMPQ BX, R9
	JGE  g8n
	LEAQ (SI)(BX*8), AX
	LEAQ (AX)(DX*4), R12
	VMOVSD (AX), X0
	VMOVSD (AX)(DX*1), X1
	VMOVSD (AX)(DX*2), X2
	VMOVSD (AX)(R11*1), X3
	VMOVSD (R12), X4
	VMOVSD (R12)(DX*1), X5
	VMOVSD (R12)(DX*2), X6
	VMOVSD (R12)(R11*1), X7
	VADDSD X1, X0, X0
	VADDSD X3, X2, X2
	VADDSD X2, X0, X0
	VADDSD X5, X4, X4
	VADDSD X7, X6, X6
	VADDSD X6, X4, X4
	VADDSD X4, X0, X0
	VADDSD (DI)(BX*8), X0, X0
	VMOVSD X0, (DI)(BX*8)
	INCQ BX
	JMP  g8s
g8n:
	LEAQ (SI)(DX*8), SI
	SUBQ $8, CX
	JMP  g8

g4:
	CMPQ CX, $4
	JLT  g1
	XORQ BX, BX
g4v:
	CMPQ BX, R10
	JGE  g4s
	LEAQ (SI)(BX*8), AX
	VMOVUPD (AX), Y0
	VMOVUPD (AX)(DX*1), Y1
	VMOVUPD (AX)(DX*2), Y2
	VMOVUPD (AX)(R11*1), Y3
	VADDPD Y1, Y0, Y0
	VADDPD Y3, Y2, Y2
	VADDPD Y2, Y0, Y0
	VADDPD (DI)(BX*8), Y0, Y0
	VMOVUPD Y0, (DI)(BX*8)
	ADDQ $4, BX
	JMP  g4v
g4s:
	CMPQ BX, R9
	JGE  g4n
	LEAQ (SI)(BX*8), AX
	VMOVSD (AX), X0
	VMOVSD (AX)(DX*1), X1
	VMOVSD (AX)(DX*2), X2
	VMOVSD (AX)(R11*1), X3
	VADDSD X1, X0, X0
	VADDSD X3, X2, X2
	VADDSD X2, X0, X0
	VADDSD (DI)(BX*8), X0, X0
	VMOVSD X0, (DI)(BX*8)
	INCQ BX
	JMP  g4s
g4n:
	LEAQ (SI)(DX*4), SI
	SUBQ $4, CX
	JMP  g4

g1:
	CMPQ CX, $1
	JLT  done
	XORQ BX, BX
g1v:
	CMPQ BX, R10
	JGE  g1s
	LEAQ (SI)(BX*8), AX
	VMOVUPD (AX), Y0
	VADDPD (DI)(BX*8), Y0, Y0
	VMOVUPD Y0, (DI)(BX*8)
	ADDQ $4, BX
	JMP  g1v
g1s:
	CMPQ BX, R9
	JGE  g1n
	LEAQ (SI)(BX*8), AX
	VMOVSD (AX), X0
	VADDSD (DI)(BX*8), X0, X0
	VMOVSD X0, (DI)(BX*8)
	INCQ BX
	JMP  g1s
g1n:
	ADDQ DX, SI
	SUBQ $1, CX
	JMP  g1

done:
	VZEROUPPER
	RET

// func addRows32AVX(cs *float64, x *float32, stride, rows, w int)
//
// cs[j] += Σ_{r<rows} x[r·stride/4+j] for j < w; stride in bytes. Rows go
// in groups of eight, then four, then one, each group added in a tree
// before cs[j] (addRowsGo's order).
TEXT ·addRows32AVX(SB), NOSPLIT, $0-40
	MOVQ cs+0(FP), DI
	MOVQ x+8(FP), SI
	MOVQ stride+16(FP), DX
	MOVQ rows+24(FP), CX
	MOVQ w+32(FP), R9
	MOVQ R9, R10
	ANDQ $-4, R10 // the columns taken four at a time
	LEAQ (DX)(DX*2), R11

g8:
	CMPQ CX, $8
	JLT  g4
	XORQ BX, BX
g8v:
	CMPQ BX, R10
	JGE  g8s
	LEAQ (SI)(BX*4), AX
	LEAQ (AX)(DX*4), R12
	VCVTPS2PD (AX), Y0
	VCVTPS2PD (AX)(DX*1), Y1
	VCVTPS2PD (AX)(DX*2), Y2
	VCVTPS2PD (AX)(R11*1), Y3
	VCVTPS2PD (R12), Y4
	VCVTPS2PD (R12)(DX*1), Y5
	VCVTPS2PD (R12)(DX*2), Y6
	VCVTPS2PD (R12)(R11*1), Y7
	VADDPD Y1, Y0, Y0
	VADDPD Y3, Y2, Y2
	VADDPD Y2, Y0, Y0
	VADDPD Y5, Y4, Y4
	VADDPD Y7, Y6, Y6
	VADDPD Y6, Y4, Y4
	VADDPD Y4, Y0, Y0
	VADDPD (DI)(BX*8), Y0, Y0
	VMOVUPD Y0, (DI)(BX*8)
	ADDQ $4, BX
	JMP  g8v
g8s:
	CMPQ BX, R9
	JGE  g8n
	LEAQ (SI)(BX*4), AX
	LEAQ (AX)(DX*4), R12
	VCVTSS2SD (AX), X0, X0
	VCVTSS2SD (AX)(DX*1), X1, X1
	VCVTSS2SD (AX)(DX*2), X2, X2
	VCVTSS2SD (AX)(R11*1), X3, X3
	VCVTSS2SD (R12), X4, X4
	VCVTSS2SD (R12)(DX*1), X5, X5
	VCVTSS2SD (R12)(DX*2), X6, X6
	VCVTSS2SD (R12)(R11*1), X7, X7
	VADDSD X1, X0, X0
	VADDSD X3, X2, X2
	VADDSD X2, X0, X0
	VADDSD X5, X4, X4
	VADDSD X7, X6, X6
	VADDSD X6, X4, X4
	VADDSD X4, X0, X0
	VADDSD (DI)(BX*8), X0, X0
	VMOVSD X0, (DI)(BX*8)
	INCQ BX
	JMP  g8s
g8n:
	LEAQ (SI)(DX*8), SI
	SUBQ $8, CX
	JMP  g8

g4:
	CMPQ CX, $4
	JLT  g1
	XORQ BX, BX
g4v:
	CMPQ BX, R10
	JGE  g4s
	LEAQ (SI)(BX*4), AX
	VCVTPS2PD (AX), Y0
	VCVTPS2PD (AX)(DX*1), Y1
	VCVTPS2PD (AX)(DX*2), Y2
	VCVTPS2PD (AX)(R11*1), Y3
	VADDPD Y1, Y0, Y0
	VADDPD Y3, Y2, Y2
	VADDPD Y2, Y0, Y0
	VADDPD (DI)(BX*8), Y0, Y0
	VMOVUPD Y0, (DI)(BX*8)
	ADDQ $4, BX
	JMP  g4v
g4s:
	CMPQ BX, R9
	JGE  g4n
	LEAQ (SI)(BX*4), AX
	VCVTSS2SD (AX), X0, X0
	VCVTSS2SD (AX)(DX*1), X1, X1
	VCVTSS2SD (AX)(DX*2), X2, X2
	VCVTSS2SD (AX)(R11*1), X3, X3
	VADDSD X1, X0, X0
	VADDSD X3, X2, X2
	VADDSD X2, X0, X0
	VADDSD (DI)(BX*8), X0, X0
	VMOVSD X0, (DI)(BX*8)
	INCQ BX
	JMP  g4s
g4n:
	LEAQ (SI)(DX*4), SI
	SUBQ $4, CX
	JMP  g4

g1:
	CMPQ CX, $1
	JLT  done
	XORQ BX, BX
g1v:
	CMPQ BX, R10
	JGE  g1s
	LEAQ (SI)(BX*4), AX
	VCVTPS2PD (AX), Y0
	VADDPD (DI)(BX*8), Y0, Y0
	VMOVUPD Y0, (DI)(BX*8)
	ADDQ $4, BX
	JMP  g1v
g1s:
	CMPQ BX, R9
	JGE  g1n
	LEAQ (SI)(BX*4), AX
	VCVTSS2SD (AX), X0, X0
	VADDSD (DI)(BX*8), X0, X0
	VMOVSD X0, (DI)(BX*8)
	INCQ BX
	JMP  g1s
g1n:
	ADDQ DX, SI
	SUBQ $1, CX
	JMP  g1

done:
	VZEROUPPER
	RET

// func sqDevRows64AVX(cq, cm *float64, x *float64, stride, rows, w int)
//
// cq[j] += Σ_{r<rows} (x[r·stride/8+j] − cm[j])² for j < w; stride in
// bytes. Rows go in groups of eight, then four, then one, each group's
// squares added in a tree before cq[j] (addSqDevRowsGo's order).
TEXT ·sqDevRows64AVX(SB), NOSPLIT, $0-48
	MOVQ cq+0(FP), DI
	MOVQ cm+8(FP), R8
	MOVQ x+16(FP), SI
	MOVQ stride+24(FP), DX
	MOVQ rows+32(FP), CX
	MOVQ w+40(FP), R9
	MOVQ R9, R10
	ANDQ $-4, R10 // the columns taken four at a time
	LEAQ (DX)(DX*2), R11

g8:
	CMPQ CX, $8
	JLT  g4
	XORQ BX, BX
g8v:
	CMPQ BX, R10
	JGE  g8s
	LEAQ (SI)(BX*8), AX
	LEAQ (AX)(DX*4), R12
	VMOVUPD (R8)(BX*8), Y8
	VMOVUPD (AX), Y0
	VSUBPD Y8, Y0, Y0
	VMULPD Y0, Y0, Y0
	VMOVUPD (AX)(DX*1), Y1
	VSUBPD Y8, Y1, Y1
	VMULPD Y1, Y1, Y1
	VMOVUPD (AX)(DX*2), Y2
	VSUBPD Y8, Y2, Y2
	VMULPD Y2, Y2, Y2
	VMOVUPD (AX)(R11*1), Y3
	VSUBPD Y8, Y3, Y3
	VMULPD Y3, Y3, Y3
	VMOVUPD (R12), Y4
	VSUBPD Y8, Y4, Y4
	VMULPD Y4, Y4, Y4
	VMOVUPD (R12)(DX*1), Y5
	VSUBPD Y8, Y5, Y5
	VMULPD Y5, Y5, Y5
	VMOVUPD (R12)(DX*2), Y6
	VSUBPD Y8, Y6, Y6
	VMULPD Y6, Y6, Y6
	VMOVUPD (R12)(R11*1), Y7
	VSUBPD Y8, Y7, Y7
	VMULPD Y7, Y7, Y7
	VADDPD Y1, Y0, Y0
	VADDPD Y3, Y2, Y2
	VADDPD Y2, Y0, Y0
	VADDPD Y5, Y4, Y4
	VADDPD Y7, Y6, Y6
	VADDPD Y6, Y4, Y4
	VADDPD Y4, Y0, Y0
	VADDPD (DI)(BX*8), Y0, Y0
	VMOVUPD Y0, (DI)(BX*8)
	ADDQ $4, BX
	JMP  g8v
g8s:
	CMPQ BX, R9
	JGE  g8n
	LEAQ (SI)(BX*8), AX
	LEAQ (AX)(DX*4), R12
	VMOVSD (R8)(BX*8), X8
	VMOVSD (AX), X0
	VSUBSD X8, X0, X0
	VMULSD X0, X0, X0
	VMOVSD (AX)(DX*1), X1
	VSUBSD X8, X1, X1
	VMULSD X1, X1, X1
	VMOVSD (AX)(DX*2), X2
	VSUBSD X8, X2, X2
	VMULSD X2, X2, X2
	VMOVSD (AX)(R11*1), X3
	VSUBSD X8, X3, X3
	VMULSD X3, X3, X3
	VMOVSD (R12), X4
	VSUBSD X8, X4, X4
	VMULSD X4, X4, X4
	VMOVSD (R12)(DX*1), X5
	VSUBSD X8, X5, X5
	VMULSD X5, X5, X5
	VMOVSD (R12)(DX*2), X6
	VSUBSD X8, X6, X6
	VMULSD X6, X6, X6
	VMOVSD (R12)(R11*1), X7
	VSUBSD X8, X7, X7
	VMULSD X7, X7, X7
	VADDSD X1, X0, X0
	VADDSD X3, X2, X2
	VADDSD X2, X0, X0
	VADDSD X5, X4, X4
	VADDSD X7, X6, X6
	VADDSD X6, X4, X4
	VADDSD X4, X0, X0
	VADDSD (DI)(BX*8), X0, X0
	VMOVSD X0, (DI)(BX*8)
	INCQ BX
	JMP  g8s
g8n:
	LEAQ (SI)(DX*8), SI
	SUBQ $8, CX
	JMP  g8

g4:
	CMPQ CX, $4
	JLT  g1
	XORQ BX, BX
g4v:
	CMPQ BX, R10
	JGE  g4s
	LEAQ (SI)(BX*8), AX
	VMOVUPD (R8)(BX*8), Y8
	VMOVUPD (AX), Y0
	VSUBPD Y8, Y0, Y0
	VMULPD Y0, Y0, Y0
	VMOVUPD (AX)(DX*1), Y1
	VSUBPD Y8, Y1, Y1
	VMULPD Y1, Y1, Y1
	VMOVUPD (AX)(DX*2), Y2
	VSUBPD Y8, Y2, Y2
	VMULPD Y2, Y2, Y2
	VMOVUPD (AX)(R11*1), Y3
	VSUBPD Y8, Y3, Y3
	VMULPD Y3, Y3, Y3
	VADDPD Y1, Y0, Y0
	VADDPD Y3, Y2, Y2
	VADDPD Y2, Y0, Y0
	VADDPD (DI)(BX*8), Y0, Y0
	VMOVUPD Y0, (DI)(BX*8)
	ADDQ $4, BX
	JMP  g4v
g4s:
	CMPQ BX, R9
	JGE  g4n
	LEAQ (SI)(BX*8), AX
	VMOVSD (R8)(BX*8), X8
	VMOVSD (AX), X0
	VSUBSD X8, X0, X0
	VMULSD X0, X0, X0
	VMOVSD (AX)(DX*1), X1
	VSUBSD X8, X1, X1
	VMULSD X1, X1, X1
	VMOVSD (AX)(DX*2), X2
	VSUBSD X8, X2, X2
	VMULSD X2, X2, X2
	VMOVSD (AX)(R11*1), X3
	VSUBSD X8, X3, X3
	VMULSD X3, X3, X3
	VADDSD X1, X0, X0
	VADDSD X3, X2, X2
	VADDSD X2, X0, X0
	VADDSD (DI)(BX*8), X0, X0
	VMOVSD X0, (DI)(BX*8)
	INCQ BX
	JMP  g4s
g4n:
	LEAQ (SI)(DX*4), SI
	SUBQ $4, CX
	JMP  g4

g1:
	CMPQ CX, $1
	JLT  done
	XORQ BX, BX
g1v:
	CMPQ BX, R10
	JGE  g1s
	LEAQ (SI)(BX*8), AX
	VMOVUPD (R8)(BX*8), Y8
	VMOVUPD (AX), Y0
	VSUBPD Y8, Y0, Y0
	VMULPD Y0, Y0, Y0
	VADDPD (DI)(BX*8), Y0, Y0
	VMOVUPD Y0, (DI)(BX*8)
	ADDQ $4, BX
	JMP  g1v
g1s:
	CMPQ BX, R9
	JGE  g1n
	LEAQ (SI)(BX*8), AX
	VMOVSD (R8)(BX*8), X8
	VMOVSD (AX), X0
	VSUBSD X8, X0, X0
	VMULSD X0, X0, X0
	VADDSD (DI)(BX*8), X0, X0
	VMOVSD X0, (DI)(BX*8)
	INCQ BX
	JMP  g1s
g1n:
	ADDQ DX, SI
	SUBQ $1, CX
	JMP  g1

done:
	VZEROUPPER
	RET

// func sqDevRows32AVX(cq, cm *float64, x *float32, stride, rows, w int)
//
// cq[j] += Σ_{r<rows} (x[r·stride/4+j] − cm[j])² for j < w; stride in
// bytes. Rows go in groups of eight, then four, then one, each group's
// squares added in a tree before cq[j] (addSqDevRowsGo's order).
TEXT ·sqDevRows32AVX(SB), NOSPLIT, $0-48
	MOVQ cq+0(FP), DI
	MOVQ cm+8(FP), R8
	MOVQ x+16(FP), SI
	MOVQ stride+24(FP), DX
	MOVQ rows+32(FP), CX
	MOVQ w+40(FP), R9
	MOVQ R9, R10
	ANDQ $-4, R10 // the columns taken four at a time
	LEAQ (DX)(DX*2), R11

g8:
	CMPQ CX, $8
	JLT  g4
	XORQ BX, BX
g8v:
	CMPQ BX, R10
	JGE  g8s
	LEAQ (SI)(BX*4), AX
	LEAQ (AX)(DX*4), R12
	VMOVUPD (R8)(BX*8), Y8
	VCVTPS2PD (AX), Y0
	VSUBPD Y8, Y0, Y0
	VMULPD Y0, Y0, Y0
	VCVTPS2PD (AX)(DX*1), Y1
	VSUBPD Y8, Y1, Y1
	VMULPD Y1, Y1, Y1
	VCVTPS2PD (AX)(DX*2), Y2
	VSUBPD Y8, Y2, Y2
	VMULPD Y2, Y2, Y2
	VCVTPS2PD (AX)(R11*1), Y3
	VSUBPD Y8, Y3, Y3
	VMULPD Y3, Y3, Y3
	VCVTPS2PD (R12), Y4
	VSUBPD Y8, Y4, Y4
	VMULPD Y4, Y4, Y4
	VCVTPS2PD (R12)(DX*1), Y5
	VSUBPD Y8, Y5, Y5
	VMULPD Y5, Y5, Y5
	VCVTPS2PD (R12)(DX*2), Y6
	VSUBPD Y8, Y6, Y6
	VMULPD Y6, Y6, Y6
	VCVTPS2PD (R12)(R11*1), Y7
	VSUBPD Y8, Y7, Y7
	VMULPD Y7, Y7, Y7
	VADDPD Y1, Y0, Y0
	VADDPD Y3, Y2, Y2
	VADDPD Y2, Y0, Y0
	VADDPD Y5, Y4, Y4
	VADDPD Y7, Y6, Y6
	VADDPD Y6, Y4, Y4
	VADDPD Y4, Y0, Y0
	VADDPD (DI)(BX*8), Y0, Y0
	VMOVUPD Y0, (DI)(BX*8)
	ADDQ $4, BX
	JMP  g8v
g8s:
	CMPQ BX, R9
	JGE  g8n
	LEAQ (SI)(BX*4), AX
	LEAQ (AX)(DX*4), R12
	VMOVSD (R8)(BX*8), X8
	VCVTSS2SD (AX), X0, X0
	VSUBSD X8, X0, X0
	VMULSD X0, X0, X0
	VCVTSS2SD (AX)(DX*1), X1, X1
	VSUBSD X8, X1, X1
	VMULSD X1, X1, X1
	VCVTSS2SD (AX)(DX*2), X2, X2
	VSUBSD X8, X2, X2
	VMULSD X2, X2, X2
	VCVTSS2SD (AX)(R11*1), X3, X3
	VSUBSD X8, X3, X3
	VMULSD X3, X3, X3
	VCVTSS2SD (R12), X4, X4
	VSUBSD X8, X4, X4
	VMULSD X4, X4, X4
	VCVTSS2SD (R12)(DX*1), X5, X5
	VSUBSD X8, X5, X5
	VMULSD X5, X5, X5
	VCVTSS2SD (R12)(DX*2), X6, X6
	VSUBSD X8, X6, X6
	VMULSD X6, X6, X6
	VCVTSS2SD (R12)(R11*1), X7, X7
	VSUBSD X8, X7, X7
	VMULSD X7, X7, X7
	VADDSD X1, X0, X0
	VADDSD X3, X2, X2
	VADDSD X2, X0, X0
	VADDSD X5, X4, X4
	VADDSD X7, X6, X6
	VADDSD X6, X4, X4
	VADDSD X4, X0, X0
	VADDSD (DI)(BX*8), X0, X0
	VMOVSD X0, (DI)(BX*8)
	INCQ BX
	JMP  g8s
g8n:
	LEAQ (SI)(DX*8), SI
	SUBQ $8, CX
	JMP  g8

g4:
	CMPQ CX, $4
	JLT  g1
	XORQ BX, BX
g4v:
	CMPQ BX, R10
	JGE  g4s
	LEAQ (SI)(BX*4), AX
	VMOVUPD (R8)(BX*8), Y8
	VCVTPS2PD (AX), Y0
	VSUBPD Y8, Y0, Y0
	VMULPD Y0, Y0, Y0
	VCVTPS2PD (AX)(DX*1), Y1
	VSUBPD Y8, Y1, Y1
	VMULPD Y1, Y1, Y1
	VCVTPS2PD (AX)(DX*2), Y2
	VSUBPD Y8, Y2, Y2
	VMULPD Y2, Y2, Y2
	VCVTPS2PD (AX)(R11*1), Y3
	VSUBPD Y8, Y3, Y3
	VMULPD Y3, Y3, Y3
	VADDPD Y1, Y0, Y0
	VADDPD Y3, Y2, Y2
	VADDPD Y2, Y0, Y0
	VADDPD (DI)(BX*8), Y0, Y0
	VMOVUPD Y0, (DI)(BX*8)
	ADDQ $4, BX
	JMP  g4v
g4s:
	CMPQ BX, R9
	JGE  g4n
	LEAQ (SI)(BX*4), AX
	VMOVSD (R8)(BX*8), X8
	VCVTSS2SD (AX), X0, X0
	VSUBSD X8, X0, X0
	VMULSD X0, X0, X0
	VCVTSS2SD (AX)(DX*1), X1, X1
	VSUBSD X8, X1, X1
	VMULSD X1, X1, X1
	VCVTSS2SD (AX)(DX*2), X2, X2
	VSUBSD X8, X2, X2
	VMULSD X2, X2, X2
	VCVTSS2SD (AX)(R11*1), X3, X3
	VSUBSD X8, X3, X3
	VMULSD X3, X3, X3
	VADDSD X1, X0, X0
	VADDSD X3, X2, X2
	VADDSD X2, X0, X0
	VADDSD (DI)(BX*8), X0, X0
	VMOVSD X0, (DI)(BX*8)
	INCQ BX
	JMP  g4s
g4n:
	LEAQ (SI)(DX*4), SI
	SUBQ $4, CX
	JMP  g4

g1:
	CMPQ CX, $1
	JLT  done
	XORQ BX, BX
g1v:
	CMPQ BX, R10
	JGE  g1s
	LEAQ (SI)(BX*4), AX
	VMOVUPD (R8)(BX*8), Y8
	VCVTPS2PD (AX), Y0
	VSUBPD Y8, Y0, Y0
	VMULPD Y0, Y0, Y0
	VADDPD (DI)(BX*8), Y0, Y0
	VMOVUPD Y0, (DI)(BX*8)
	ADDQ $4, BX
	JMP  g1v
g1s:
	CMPQ BX, R9
	JGE  g1n
	LEAQ (SI)(BX*4), AX
	VMOVSD (R8)(BX*8), X8
	VCVTSS2SD (AX), X0, X0
	VSUBSD X8, X0, X0
	VMULSD X0, X0, X0
	VADDSD (DI)(BX*8), X0, X0
	VMOVSD X0, (DI)(BX*8)
	INCQ BX
	JMP  g1s
g1n:
	ADDQ DX, SI
	SUBQ $1, CX
	JMP  g1

done:
	VZEROUPPER
	RET

// func cpuHasAVX2FMA() bool
TEXT ·cpuHasAVX2FMA(SB), NOSPLIT, $0-1
	MOVB $0, ret+0(FP)
	MOVL $0, AX
	CPUID
	CMPL AX, $7
	JLT no
	MOVL $1, AX
	MOVL $0, CX
	CPUID
	// ECX: FMA (bit 12), OSXSAVE (27), AVX (28)
	MOVL CX, BX
	ANDL $0x18001000, BX
	CMPL BX, $0x18001000
	JNE no
	MOVL $0, CX
	XGETBV
	ANDL $6, AX
	CMPL AX, $6
	JNE no
	MOVL $7, AX
	MOVL $0, CX
	CPUID
	// EBX: AVX2 (bit 5)
	ANDL $0x20, BX
	JZ no
	MOVB $1, ret+0(FP)
no:
	RET

// func stencilAVX(dst, x *float64, off *int, w *float64, n, taps int)
//
// dst[i] = Σ_{t<taps} w[t]·x[i+off[t]] for i < n, the taps in order from
// 0, a VMULPD then a VADDPD each (no FMA: the Go code's roundings), sixteen
// outputs (four YMM registers) per pass over the taps, then four, then one.
TEXT ·stencilAVX(SB), NOSPLIT, $0-48
	MOVQ dst+0(FP), DI
	MOVQ x+8(FP), SI
	MOVQ off+16(FP), R8
	MOVQ w+24(FP), R9
	MOVQ n+32(FP), CX
	MOVQ taps+40(FP), DX

loop16:
	CMPQ   CX, $16
	JLT    loop4
	VXORPD Y0, Y0, Y0
	VXORPD Y1, Y1, Y1
	VXORPD Y2, Y2, Y2
	VXORPD Y3, Y3, Y3
	XORQ   BX, BX

taps16:
	MOVQ         (R8)(BX*8), AX
	VBROADCASTSD (R9)(BX*8), Y4
	LEAQ         (SI)(AX*8), R10
	VMULPD       (R10), Y4, Y5
	VADDPD       Y5, Y0, Y0
	VMULPD       32(R10), Y4, Y6
	VADDPD       Y6, Y1, Y1
	VMULPD       64(R10), Y4, Y7
	VADDPD       Y7, Y2, Y2
	VMULPD       96(R10), Y4, Y8
	VADDPD       Y8, Y3, Y3
	INCQ         BX
	CMPQ         BX, DX
	JLT          taps16
	VMOVUPD      Y0, (DI)
	VMOVUPD      Y1, 32(DI)
	VMOVUPD      Y2, 64(DI)
	VMOVUPD      Y3, 96(DI)
	ADDQ         $128, DI
	ADDQ         $128, SI
	SUBQ         $16, CX
	JMP          loop16

loop4:
	CMPQ   CX, $4
	JLT    loop1
	VXORPD Y0, Y0, Y0
	XORQ   BX, BX

taps4:
	MOVQ         (R8)(BX*8), AX
	VBROADCASTSD (R9)(BX*8), Y4
	VMULPD       (SI)(AX*8), Y4, Y5
	VADDPD       Y5, Y0, Y0
	INCQ         BX
	CMPQ         BX, DX
	JLT          taps4
	VMOVUPD      Y0, (DI)
	ADDQ         $32, DI
	ADDQ         $32, SI
	SUBQ         $4, CX
	JMP          loop4

loop1:
	CMPQ   CX, $1
	JLT    done
	VXORPD X0, X0, X0
	XORQ   BX, BX

taps1:
	MOVQ   (R8)(BX*8), AX
	VMOVSD (R9)(BX*8), X4
	VMULSD (SI)(AX*8), X4, X5
	VADDSD X5, X0, X0
	INCQ   BX
	CMPQ   BX, DX
	JLT    taps1
	VMOVSD X0, (DI)
	ADDQ   $8, DI
	ADDQ   $8, SI
	DECQ   CX
	JMP    loop1

done:
	VZEROUPPER
	RET

// func stencil4AVX(dst, x *float64, off *int, w *float64, taps int, at *[4]int)
//
// stencilAVX's sums for four blocks of four outputs at once, starting at
// dst[at[k]] (x[at[k]]), the taps in order (four chains of additions
// interleaved, where one block alone waits on each addition); blocks may
// overlap, giving the same outputs twice.
TEXT ·stencil4AVX(SB), NOSPLIT, $0-48
	MOVQ dst+0(FP), DI
	MOVQ x+8(FP), SI
	MOVQ off+16(FP), R8
	MOVQ w+24(FP), R9
	MOVQ taps+32(FP), DX
	MOVQ at+40(FP), AX
	MOVQ 0(AX), R11
	MOVQ 8(AX), R12
	MOVQ 16(AX), R13
	MOVQ 24(AX), R14
	VXORPD Y0, Y0, Y0
	VXORPD Y1, Y1, Y1
	VXORPD Y2, Y2, Y2
	VXORPD Y3, Y3, Y3
	XORQ   BX, BX

taps4x4:
	MOVQ         (R8)(BX*8), AX
	VBROADCASTSD (R9)(BX*8), Y4
	LEAQ         (SI)(AX*8), R10
	VMULPD       (R10)(R11*8), Y4, Y5
	VADDPD       Y5, Y0, Y0
	VMULPD       (R10)(R12*8), Y4, Y6
	VADDPD       Y6, Y1, Y1
	VMULPD       (R10)(R13*8), Y4, Y7
	VADDPD       Y7, Y2, Y2
	VMULPD       (R10)(R14*8), Y4, Y8
	VADDPD       Y8, Y3, Y3
	INCQ         BX
	CMPQ         BX, DX
	JLT          taps4x4
	VMOVUPD      Y0, (DI)(R11*8)
	VMOVUPD      Y1, (DI)(R12*8)
	VMOVUPD      Y2, (DI)(R13*8)
	VMOVUPD      Y3, (DI)(R14*8)
	VZEROUPPER
	RET

// The constants of math.Exp's assembly (exp_amd64.s), four copies each
// for the packed operations: log2(e), ln 2 in two parts, 1/16, the Taylor
// coefficients 1/8! … 1/2!, 1, 2; then the exponent bias 1023 as four
// int32s.
DATA expk<>+0(SB)/8, $1.4426950408889634073599246810018920
DATA expk<>+8(SB)/8, $1.4426950408889634073599246810018920
DATA expk<>+16(SB)/8, $1.4426950408889634073599246810018920
DATA expk<>+24(SB)/8, $1.4426950408889634073599246810018920
DATA expk<>+32(SB)/8, $0.69314718055966295651160180568695068359375
DATA expk<>+40(SB)/8, $0.69314718055966295651160180568695068359375
DATA expk<>+48(SB)/8, $0.69314718055966295651160180568695068359375
DATA expk<>+56(SB)/8, $0.69314718055966295651160180568695068359375
DATA expk<>+64(SB)/8, $0.28235290563031577122588448175013436025525412068e-12
DATA expk<>+72(SB)/8, $0.28235290563031577122588448175013436025525412068e-12
DATA expk<>+80(SB)/8, $0.28235290563031577122588448175013436025525412068e-12
DATA expk<>+88(SB)/8, $0.28235290563031577122588448175013436025525412068e-12
DATA expk<>+96(SB)/8, $0.0625
DATA expk<>+104(SB)/8, $0.0625
DATA expk<>+112(SB)/8, $0.0625
DATA expk<>+120(SB)/8, $0.0625
DATA expk<>+128(SB)/8, $2.4801587301587301587e-5
DATA expk<>+136(SB)/8, $2.4801587301587301587e-5
DATA expk<>+144(SB)/8, $2.4801587301587301587e-5
DATA expk<>+152(SB)/8, $2.4801587301587301587e-5
DATA expk<>+160(SB)/8, $1.9841269841269841270e-4
DATA expk<>+168(SB)/8, $1.9841269841269841270e-4
DATA expk<>+176(SB)/8, $1.9841269841269841270e-4
DATA expk<>+184(SB)/8, $1.9841269841269841270e-4
DATA expk<>+192(SB)/8, $1.3888888888888888889e-3
DATA expk<>+200(SB)/8, $1.3888888888888888889e-3
DATA expk<>+208(SB)/8, $1.3888888888888888889e-3
DATA expk<>+216(SB)/8, $1.3888888888888888889e-3
DATA expk<>+224(SB)/8, $8.3333333333333333333e-3
DATA expk<>+232(SB)/8, $8.3333333333333333333e-3
DATA expk<>+240(SB)/8, $8.3333333333333333333e-3
DATA expk<>+248(SB)/8, $8.3333333333333333333e-3
DATA expk<>+256(SB)/8, $4.1666666666666666667e-2
DATA expk<>+264(SB)/8, $4.1666666666666666667e-2
DATA expk<>+272(SB)/8, $4.1666666666666666667e-2
DATA expk<>+280(SB)/8, $4.1666666666666666667e-2
DATA expk<>+288(SB)/8, $1.6666666666666666667e-1
DATA expk<>+296(SB)/8, $1.6666666666666666667e-1
DATA expk<>+304(SB)/8, $1.6666666666666666667e-1
DATA expk<>+312(SB)/8, $1.6666666666666666667e-1
DATA expk<>+320(SB)/8, $0.5
DATA expk<>+328(SB)/8, $0.5
DATA expk<>+336(SB)/8, $0.5
DATA expk<>+344(SB)/8, $0.5
DATA expk<>+352(SB)/8, $1.0
DATA expk<>+360(SB)/8, $1.0
DATA expk<>+368(SB)/8, $1.0
DATA expk<>+376(SB)/8, $1.0
DATA expk<>+384(SB)/8, $2.0
DATA expk<>+392(SB)/8, $2.0
DATA expk<>+400(SB)/8, $2.0
DATA expk<>+408(SB)/8, $2.0
DATA expk<>+416(SB)/4, $1023
DATA expk<>+420(SB)/4, $1023
DATA expk<>+424(SB)/4, $1023
DATA expk<>+428(SB)/4, $1023
GLOBL expk<>(SB), RODATA, $432

// The range exp4AVX takes: −708 four times, then 709 four times.
DATA exprange<>+0(SB)/8, $-708.0
DATA exprange<>+8(SB)/8, $-708.0
DATA exprange<>+16(SB)/8, $-708.0
DATA exprange<>+24(SB)/8, $-708.0
DATA exprange<>+32(SB)/8, $709.0
DATA exprange<>+40(SB)/8, $709.0
DATA exprange<>+48(SB)/8, $709.0
DATA exprange<>+56(SB)/8, $709.0
GLOBL exprange<>(SB), RODATA, $64

// func exp4AVX(x *float64, n int) int
//
// x[i] = e^x[i] for i < n, n a multiple of 4, four at a time while all
// four lie within [−708, 709] (not NaN): math.Exp's steps on processors
// with FMA (its avxfma path), the same operations in the same order, four
// values per instruction, without its branches for arguments that
// overflow, underflow or are not finite. It returns how many it set: n,
// or where the first block with a value out of that range starts.
TEXT ·exp4AVX(SB), NOSPLIT, $0-24
	MOVQ x+0(FP), DI
	MOVQ n+8(FP), CX
	MOVQ CX, R8

loop:
	CMPQ         CX, $4
	JLT          done
	VMOVUPD      (DI), Y0
	VCMPPD       $0x1d, exprange<>+0(SB), Y0, Y5  // x ≥ −708, ordered
	VCMPPD       $0x12, exprange<>+32(SB), Y0, Y6 // x ≤ 709, ordered
	VANDPD       Y6, Y5, Y5
	VMOVMSKPD    Y5, AX
	CMPQ         AX, $15
	JNE          done
	VMULPD       expk<>+0(SB), Y0, Y1
	VCVTPD2DQY   Y1, X2
	VCVTDQ2PD    X2, Y1
	VFNMADD231PD expk<>+32(SB), Y1, Y0
	VFNMADD231PD expk<>+64(SB), Y1, Y0
	VMULPD       expk<>+96(SB), Y0, Y0
	VMOVUPD      expk<>+128(SB), Y1
	VFMADD213PD  expk<>+160(SB), Y0, Y1
	VFMADD213PD  expk<>+192(SB), Y0, Y1
	VFMADD213PD  expk<>+224(SB), Y0, Y1
	VFMADD213PD  expk<>+256(SB), Y0, Y1
	VFMADD213PD  expk<>+288(SB), Y0, Y1
	VFMADD213PD  expk<>+320(SB), Y0, Y1
	VFMADD213PD  expk<>+352(SB), Y0, Y1
	VMULPD       Y1, Y0, Y0
	VADDPD       expk<>+384(SB), Y0, Y1
	VMULPD       Y1, Y0, Y0
	VADDPD       expk<>+384(SB), Y0, Y1
	VMULPD       Y1, Y0, Y0
	VADDPD       expk<>+384(SB), Y0, Y1
	VMULPD       Y1, Y0, Y0
	VADDPD       expk<>+384(SB), Y0, Y1
	VFMADD213PD  expk<>+352(SB), Y1, Y0
	VPADDD       expk<>+416(SB), X2, X2
	VPMOVSXDQ    X2, Y3
	VPSLLQ       $52, Y3, Y3
	VMULPD       Y3, Y0, Y0
	VMOVUPD      Y0, (DI)
	ADDQ         $32, DI
	SUBQ         $4, CX
	JMP          loop

done:
	SUBQ CX, R8
	MOVQ R8, ret+16(FP)
	VZEROUPPER
	RET
