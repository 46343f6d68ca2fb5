package vec

import "unsafe"

// Float is the element type of the sums: they accumulate in float64 for
// both.
type Float interface{ float32 | float64 }

// Sum is Σ x[i] in float64, in several partial sums (sixteen in the AVX2
// kernel, four in Go) added pairwise at the end.
func Sum[T Float](x []T) float64 {
	if a, b, is64 := split(x); is64 {
		return impl.sum64(a)
	} else {
		return impl.sum32(b)
	}
}

// SumSqDev is Σ (x[i] − m)² in float64, in partial sums as Sum's.
func SumSqDev[T Float](x []T, m float64) float64 {
	if a, b, is64 := split(x); is64 {
		return impl.sqDev64(a, m)
	} else {
		return impl.sqDev32(b, m)
	}
}

// SumRuns sets dst[r] to Sum(x[r·n : (r+1)·n]) for r < len(dst), the
// same sums, in one call for runs too short to pay for one each.
func SumRuns[T Float](dst []float64, x []T, n int) {
	if len(dst) == 0 {
		return
	}
	if n < 1 {
		clear(dst)
		return
	}
	_ = x[len(dst)*n-1]
	if a, b, is64 := split(x); is64 {
		impl.sumRuns64(dst, a, n)
	} else {
		impl.sumRuns32(dst, b, n)
	}
}

// SumSqDevRuns sets dst[r] to SumSqDev(x[r·n : (r+1)·n], m[r]) for
// r < len(dst); dst may be m.
func SumSqDevRuns[T Float](dst, m []float64, x []T, n int) {
	if len(dst) == 0 {
		return
	}
	if n < 1 {
		clear(dst)
		return
	}
	_, _ = m[len(dst)-1], x[len(dst)*n-1]
	if a, b, is64 := split(x); is64 {
		impl.sqDevRuns64(dst, m, a, n)
	} else {
		impl.sqDevRuns32(dst, m, b, n)
	}
}

// AddRows adds rows rows of x, stride apart and len(cs) long, to cs:
// cs[j] += Σ_{r<rows} x[r·stride+j]. It takes the rows eight at a time
// (then four, then one), adding each group in a tree before cs, so that a
// long column keeps the accuracy of a sum of rows/8 terms; the assembly
// gives the Go code's results to the bit.
func AddRows[T Float](cs []float64, x []T, stride, rows int) {
	if rows < 1 || len(cs) == 0 {
		return
	}
	_ = x[(rows-1)*stride+len(cs)-1]
	if a, b, is64 := split(x); is64 {
		impl.rows64(cs, a, stride, rows)
	} else {
		impl.rows32(cs, b, stride, rows)
	}
}

// AddSqDevRows is AddRows of the squared deviations of x from cm (as long
// as cq): cq[j] += Σ_{r<rows} (x[r·stride+j] − cm[j])².
func AddSqDevRows[T Float](cq, cm []float64, x []T, stride, rows int) {
	if rows < 1 || len(cq) == 0 {
		return
	}
	_, _ = cm[len(cq)-1], x[(rows-1)*stride+len(cq)-1]
	if a, b, is64 := split(x); is64 {
		impl.sqDevRows64(cq, cm, a, stride, rows)
	} else {
		impl.sqDevRows32(cq, cm, b, stride, rows)
	}
}

// split is x as []float64 (is64) or as []float32: T is one or the other.
func split[T Float](x []T) (a []float64, b []float32, is64 bool) {
	var z T
	p := unsafe.Pointer(unsafe.SliceData(x))
	if unsafe.Sizeof(z) == 8 {
		return unsafe.Slice((*float64)(p), len(x)), nil, true
	}
	return nil, unsafe.Slice((*float32)(p), len(x)), false
}

// kernels are the loops under Sum, SumSqDev, AddRows, AddSqDevRows, Stencil and Exp; the
// row kernels are called with their arguments checked.
type kernels struct {
	name        string
	sum64       func(x []float64) float64
	sum32       func(x []float32) float64
	sqDev64     func(x []float64, m float64) float64
	sqDev32     func(x []float32, m float64) float64
	sumRuns64   func(dst, x []float64, n int)
	sumRuns32   func(dst []float64, x []float32, n int)
	sqDevRuns64 func(dst, m, x []float64, n int)
	sqDevRuns32 func(dst, m []float64, x []float32, n int)
	rows64      func(cs, x []float64, stride, rows int)
	rows32      func(cs []float64, x []float32, stride, rows int)
	sqDevRows64 func(cq, cm, x []float64, stride, rows int)
	sqDevRows32 func(cq, cm []float64, x []float32, stride, rows int)
	stencil     func(dst, x []float64, off []int, w []float64)
	exp         func(x []float64)
}

// goKernels are plain Go, for every processor.
var goKernels = kernels{"go", sumGo[float64], sumGo[float32], sqDevGo[float64], sqDevGo[float32],
	sumRunsGo[float64], sumRunsGo[float32], sqDevRunsGo[float64], sqDevRunsGo[float32], addRowsGo[float64], addRowsGo[float32], addSqDevRowsGo[float64], addSqDevRowsGo[float32], stencilGo, expGo}

// impl is the set in use: goKernels, or the assembly where the processor
// has AVX2 and FMA (sum_amd64.go).
var impl = goKernels

// sumGo adds x in float64 with four accumulators.
func sumGo[T Float](x []T) float64 {
	var s0, s1, s2, s3 float64
	for len(x) >= 4 {
		s0 += float64(x[0])
		s1 += float64(x[1])
		s2 += float64(x[2])
		s3 += float64(x[3])
		x = x[4:]
	}
	for _, v := range x {
		s0 += float64(v)
	}
	return (s0 + s1) + (s2 + s3)
}

// sqDevGo adds (x − m)² in float64 with four accumulators.
func sqDevGo[T Float](x []T, m float64) float64 {
	var s0, s1, s2, s3 float64
	for len(x) >= 4 {
		d0 := float64(x[0]) - m
		d1 := float64(x[1]) - m
		d2 := float64(x[2]) - m
		d3 := float64(x[3]) - m
		s0 += d0 * d0
		s1 += d1 * d1
		s2 += d2 * d2
		s3 += d3 * d3
		x = x[4:]
	}
	for _, v := range x {
		d := float64(v) - m
		s0 += d * d
	}
	return (s0 + s1) + (s2 + s3)
}

// sumRunsGo is SumRuns in Go.
func sumRunsGo[T Float](dst []float64, x []T, n int) {
	for r := range dst {
		dst[r] = sumGo(x[r*n : (r+1)*n])
	}
}

// sqDevRunsGo is SumSqDevRuns in Go.
func sqDevRunsGo[T Float](dst, m []float64, x []T, n int) {
	for r := range dst {
		dst[r] = sqDevGo(x[r*n:(r+1)*n], m[r])
	}
}

// addRowsGo is AddRows in Go.
func addRowsGo[T Float](cs []float64, x []T, stride, rows int) {
	w := len(cs)
	i := 0
	for ; i+8 <= rows; i += 8 {
		r := x[i*stride:]
		r0, r1, r2, r3 := r[:w], r[stride:][:w], r[2*stride:][:w], r[3*stride:][:w]
		r4, r5, r6, r7 := r[4*stride:][:w], r[5*stride:][:w], r[6*stride:][:w], r[7*stride:][:w]
		for j := range cs {
			cs[j] += ((float64(r0[j]) + float64(r1[j])) + (float64(r2[j]) + float64(r3[j]))) +
				((float64(r4[j]) + float64(r5[j])) + (float64(r6[j]) + float64(r7[j])))
		}
	}
	for ; i+4 <= rows; i += 4 {
		r := x[i*stride:]
		r0, r1, r2, r3 := r[:w], r[stride:][:w], r[2*stride:][:w], r[3*stride:][:w]
		for j := range cs {
			cs[j] += (float64(r0[j]) + float64(r1[j])) + (float64(r2[j]) + float64(r3[j]))
		}
	}
	for ; i < rows; i++ {
		for j, v := range x[i*stride:][:w] {
			cs[j] += float64(v)
		}
	}
}

// addSqDevRowsGo is AddSqDevRows in Go. The squares are converted
// explicitly so that no compiler fuses them into the additions (the
// assembly rounds them apart too).
func addSqDevRowsGo[T Float](cq, cm []float64, x []T, stride, rows int) {
	w := len(cq)
	cm = cm[:w]
	i := 0
	for ; i+8 <= rows; i += 8 {
		r := x[i*stride:]
		r0, r1, r2, r3 := r[:w], r[stride:][:w], r[2*stride:][:w], r[3*stride:][:w]
		r4, r5, r6, r7 := r[4*stride:][:w], r[5*stride:][:w], r[6*stride:][:w], r[7*stride:][:w]
		for j := range cq {
			m := cm[j]
			d0, d1 := float64(r0[j])-m, float64(r1[j])-m
			d2, d3 := float64(r2[j])-m, float64(r3[j])-m
			d4, d5 := float64(r4[j])-m, float64(r5[j])-m
			d6, d7 := float64(r6[j])-m, float64(r7[j])-m
			cq[j] += ((float64(d0*d0) + float64(d1*d1)) + (float64(d2*d2) + float64(d3*d3))) +
				((float64(d4*d4) + float64(d5*d5)) + (float64(d6*d6) + float64(d7*d7)))
		}
	}
	for ; i+4 <= rows; i += 4 {
		r := x[i*stride:]
		r0, r1, r2, r3 := r[:w], r[stride:][:w], r[2*stride:][:w], r[3*stride:][:w]
		for j := range cq {
			m := cm[j]
			d0, d1 := float64(r0[j])-m, float64(r1[j])-m
			d2, d3 := float64(r2[j])-m, float64(r3[j])-m
			cq[j] += (float64(d0*d0) + float64(d1*d1)) + (float64(d2*d2) + float64(d3*d3))
		}
	}
	for ; i < rows; i++ {
		for j, v := range x[i*stride:][:w] {
			d := float64(v) - cm[j]
			cq[j] += float64(d * d)
		}
	}
}
