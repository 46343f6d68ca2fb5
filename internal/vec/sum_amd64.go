package vec

// On amd64 processors with AVX2 and FMA (and an operating system that saves
// the YMM registers) the sums are the assembly of sum_amd64.s.

//go:noescape
func sum64AVX(x *float64, n int) float64

//go:noescape
func sum32AVX(x *float32, n int) float64

//go:noescape
func sqDev64FMA(x *float64, n int, m float64) float64

//go:noescape
func sqDev32FMA(x *float32, n int, m float64) float64

//go:noescape
func sumRuns64AVX(dst, x *float64, n, runs int)

//go:noescape
func sumRuns32AVX(dst *float64, x *float32, n, runs int)

//go:noescape
func sqDevRuns64FMA(dst, m, x *float64, n, runs int)

//go:noescape
func sqDevRuns32FMA(dst, m *float64, x *float32, n, runs int)

//go:noescape
func exp4AVX(x *float64, n int) int

//go:noescape
func stencilAVX(dst, x *float64, off *int, w *float64, n, taps int)

//go:noescape
func stencil4AVX(dst, x *float64, off *int, w *float64, taps int, at *[4]int)

//go:noescape
func addRows64AVX(cs, x *float64, stride, rows, w int)

//go:noescape
func addRows32AVX(cs *float64, x *float32, stride, rows, w int)

//go:noescape
func sqDevRows64AVX(cq, cm *float64, x *float64, stride, rows, w int)

//go:noescape
func sqDevRows32AVX(cq, cm *float64, x *float32, stride, rows, w int)

// cpuHasAVX2FMA reports CPUID's AVX, AVX2, FMA and OSXSAVE bits and
// whether XGETBV shows the XMM and YMM state enabled.
func cpuHasAVX2FMA() bool

// HasAVX2FMA reports whether the processor runs AVX2 and FMA code (the
// kernels of this package and of pipelines/cov); it is fixed at start-up.
var HasAVX2FMA = cpuHasAVX2FMA()

// The wrappers pass the first element's address; the row kernels' callers
// have checked that every address the assembly touches lies in the slices.

func sum64(x []float64) float64 {
	if len(x) == 0 {
		return 0
	}
	return sum64AVX(&x[0], len(x))
}

func sum32(x []float32) float64 {
	if len(x) == 0 {
		return 0
	}
	return sum32AVX(&x[0], len(x))
}

func sqDev64(x []float64, m float64) float64 {
	if len(x) == 0 {
		return 0
	}
	return sqDev64FMA(&x[0], len(x), m)
}

func sqDev32(x []float32, m float64) float64 {
	if len(x) == 0 {
		return 0
	}
	return sqDev32FMA(&x[0], len(x), m)
}

func sumRuns64(dst, x []float64, n int) {
	sumRuns64AVX(&dst[0], &x[0], n, len(dst))
}

func sumRuns32(dst []float64, x []float32, n int) {
	sumRuns32AVX(&dst[0], &x[0], n, len(dst))
}

func sqDevRuns64(dst, m, x []float64, n int) {
	sqDevRuns64FMA(&dst[0], &m[0], &x[0], n, len(dst))
}

func sqDevRuns32(dst, m []float64, x []float32, n int) {
	sqDevRuns32FMA(&dst[0], &m[0], &x[0], n, len(dst))
}

func rows64(cs, x []float64, stride, rows int) {
	addRows64AVX(&cs[0], &x[0], stride*8, rows, len(cs))
}

func rows32(cs []float64, x []float32, stride, rows int) {
	addRows32AVX(&cs[0], &x[0], stride*4, rows, len(cs))
}

func sqDevRows64(cq, cm, x []float64, stride, rows int) {
	sqDevRows64AVX(&cq[0], &cm[0], &x[0], stride*8, rows, len(cq))
}

func sqDevRows32(cq, cm []float64, x []float32, stride, rows int) {
	sqDevRows32AVX(&cq[0], &cm[0], &x[0], stride*4, rows, len(cq))
}

// stencil takes sixteen outputs at once (four chains of additions, so
// that none waits on another) for all but fewer than four of them: the
// last sixteen, or those under sixteen, again at once, overlapping blocks
// already summed (the same sums).
func stencil(dst, x []float64, off []int, w []float64) {
	n := len(dst)
	if n < 4 {
		stencilAVX(&dst[0], &x[0], &off[0], &w[0], n, len(off))
		return
	}
	n16 := n &^ 15
	if n16 > 0 {
		stencilAVX(&dst[0], &x[0], &off[0], &w[0], n16, len(off))
	}
	switch {
	case n == n16:
	case n > 16:
		stencilAVX(&dst[n-16], &x[n-16], &off[0], &w[0], 16, len(off))
	default:
		at := [4]int{0, min(4, n-4), min(8, n-4), n - 4}
		stencil4AVX(&dst[0], &x[0], &off[0], &w[0], len(off), &at)
	}
}

// exp takes blocks of four in the assembly, a block with a value out of
// its range and the tail of fewer than four one at a time.
func exp(x []float64) {
	for len(x) >= 4 {
		x = x[exp4AVX(&x[0], len(x)&^3):]
		if len(x) >= 4 {
			expGo(x[:4])
			x = x[4:]
		}
	}
	expGo(x)
}

// asmKernels is the assembly set.
var asmKernels = &kernels{"asm", sum64, sum32, sqDev64, sqDev32, sumRuns64, sumRuns32, sqDevRuns64, sqDevRuns32, rows64, rows32, sqDevRows64, sqDevRows32, stencil, exp}

func init() {
	if HasAVX2FMA {
		impl = *asmKernels
	}
}
