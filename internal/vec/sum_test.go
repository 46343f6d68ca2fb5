package vec

import (
	"math"
	"math/rand/v2"
	"testing"
)

// sets are the kernel sets this processor runs: Go, and the assembly where
// it has AVX2 and FMA.
func sets(t *testing.T) []kernels {
	s := []kernels{goKernels}
	if HasAVX2FMA && asmKernels != nil {
		s = append(s, *asmKernels)
	} else {
		t.Log("no AVX2 and FMA here: the Go kernels only")
	}
	return s
}

// lengths are around the kernels' blocks (4 and 16 values) and one long,
// odd one.
var lengths = []int{0, 1, 3, 4, 7, 8, 9, 15, 16, 17, 31, 33, 1000003}

// ramp is 1, 2, …, n from offset off of a longer slice (an unaligned start).
func ramp[T Float](n, off int) []T {
	x := make([]T, n+off)
	for i := range n {
		x[off+i] = T(i + 1)
	}
	return x[off:]
}

func runSetsTyped[T Float](t *testing.T, name string, fn func(t *testing.T, k kernels, sum func([]T) float64, sq func([]T, float64) float64)) {
	for _, k := range sets(t) {
		t.Run(k.name+"/"+name, func(t *testing.T) {
			var sum func([]T) float64
			var sq func([]T, float64) float64
			switch any(*new(T)).(type) {
			case float64:
				sum = any(k.sum64).(func([]T) float64)
				sq = any(k.sqDev64).(func([]T, float64) float64)
			default:
				sum = any(k.sum32).(func([]T) float64)
				sq = any(k.sqDev32).(func([]T, float64) float64)
			}
			fn(t, k, sum, sq)
		})
	}
}

// TestSumRamp: Σ 1..n = n(n+1)/2 and, about the middle m = (n+1)/2,
// Σ (i−m)² = n(n²−1)/12, hand-derived, for float32 and float64 data
// starting on every offset of a 32-byte line's elements. The sums of
// integers below 2⁵³ are exact in any order.
func TestSumRamp(t *testing.T) {
	testRamp[float64](t, "float64")
	testRamp[float32](t, "float32")
}

func testRamp[T Float](t *testing.T, name string) {
	runSetsTyped(t, name, func(t *testing.T, _ kernels, sum func([]T) float64, sq func([]T, float64) float64) {
		for _, n := range lengths {
			for off := range 4 {
				x := ramp[T](n, off)
				fn := float64(n)
				if got, want := sum(x), fn*(fn+1)/2; got != want {
					t.Errorf("n %d, offset %d: sum %v, want %v", n, off, got, want)
				}
				want := fn * (fn*fn - 1) / 12
				got := sq(x, (fn+1)/2)
				tol := 0.0
				if want > 1<<53 {
					// The squares are integers; their sum rounds above 2⁵³,
					// Go's four chains of 250,000 terms to 5e-12.
					tol = 1e-11 * want
				}
				if math.Abs(got-want) > tol {
					t.Errorf("n %d, offset %d: squared deviations %v, want %v", n, off, got, want)
				}
			}
		}
	})
}

// TestSumAsmNoLessAccurate: on the long ramp the assembly's sixteen partial
// sums are at least as close to n(n²−1)/12 as Go's four.
func TestSumAsmNoLessAccurate(t *testing.T) {
	if !HasAVX2FMA {
		t.Skip("no AVX2 and FMA here")
	}
	n := 1000003
	x := ramp[float64](n, 0)
	fn := float64(n)
	want, m := fn*(fn*fn-1)/12, (fn+1)/2
	ea, eg := math.Abs(asmKernels.sqDev64(x, m)-want), math.Abs(sqDevGo(x, m)-want)
	if ea > eg {
		t.Errorf("squared deviations of 1..%d: asm off by %v, Go by %v", n, ea, eg)
	}
	t.Logf("squared deviations of 1..%d: asm off by %v, Go by %v", n, ea, eg)
}

// TestSumNonFinite: a NaN anywhere makes the sum NaN; +Inf gives +Inf,
// +Inf and −Inf NaN, in the vector body, the four-value loop and the tail.
func TestSumNonFinite(t *testing.T) {
	testNonFinite[float64](t, "float64")
	testNonFinite[float32](t, "float32")
}

func testNonFinite[T Float](t *testing.T, name string) {
	nan, inf := math.NaN(), math.Inf(1)
	runSetsTyped(t, name, func(t *testing.T, _ kernels, sum func([]T) float64, sq func([]T, float64) float64) {
		for _, n := range []int{1, 3, 7, 9, 17, 23, 100} {
			for at := range n {
				x := ramp[T](n, 1)
				x[at] = T(nan)
				if got := sum(x); !math.IsNaN(got) {
					t.Errorf("n %d, NaN at %d: sum %v", n, at, got)
				}
				if got := sq(x, 1); !math.IsNaN(got) {
					t.Errorf("n %d, NaN at %d: squared deviations %v", n, at, got)
				}
				x[at] = T(inf)
				if got := sum(x); got != inf {
					t.Errorf("n %d, +Inf at %d: sum %v", n, at, got)
				}
				if got := sq(x, 1); got != inf {
					t.Errorf("n %d, +Inf at %d: squared deviations %v", n, at, got)
				}
				x[(at+n/2)%n] = T(-inf)
				if got := sum(x); n > 1 && !math.IsNaN(got) {
					t.Errorf("n %d, +Inf at %d and −Inf: sum %v", n, at, got)
				}
			}
		}
	})
}

// TestSumAsmMatchesGo: random data, every length and offset, the assembly
// and the Go kernels to 1e-13 of Σ|x| (their partial sums differ).
func TestSumAsmMatchesGo(t *testing.T) {
	if !HasAVX2FMA {
		t.Skip("no AVX2 and FMA here")
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for _, n := range lengths {
		for off := range 4 {
			x := make([]float64, n+off)
			y := make([]float32, n+off)
			for i := range x {
				x[i] = 1e3 * rng.NormFloat64()
				y[i] = float32(x[i])
			}
			x, y = x[off:], y[off:]
			abs := 0.0
			for _, v := range x {
				abs += math.Abs(v)
			}
			// Σ|x| bounds the sums' terms; the squares are positive.
			check := func(what string, got, want, scale float64) {
				t.Helper()
				if math.Abs(got-want) > 1e-13*scale {
					t.Errorf("n %d, offset %d: %s asm %v, Go %v", n, off, what, got, want)
				}
			}
			check("sum float64", asmKernels.sum64(x), sumGo(x), abs)
			check("sum float32", asmKernels.sum32(y), sumGo(y), abs)
			q := sqDevGo(x, 3.25)
			check("squared deviations float64", asmKernels.sqDev64(x, 3.25), q, q)
			q = sqDevGo(y, -7)
			check("squared deviations float32", asmKernels.sqDev32(y, -7), q, q)
		}
	}
}

// TestSumRuns: the runs' sums and squared deviations are Sum's and
// SumSqDev's of each run to the bit, with m given as dst, for float32 and
// float64, every kernel set, runs of lengths about the kernels' blocks.
func TestSumRuns(t *testing.T) {
	testRuns[float64](t, "float64")
	testRuns[float32](t, "float32")
}

func testRuns[T Float](t *testing.T, name string) {
	rng := rand.New(rand.NewPCG(5, 6))
	for _, k := range sets(t) {
		t.Run(k.name+"/"+name, func(t *testing.T) {
			for _, n := range []int{1, 3, 4, 7, 9, 16, 17, 100, 2048} {
				for _, runs := range []int{1, 2, 5} {
					x := make([]T, 1+n*runs)
					for i := range x {
						x[i] = T(rng.NormFloat64() * 100)
					}
					x = x[1:] // an unaligned start
					if runs > 1 {
						x[n+n/2] = T(math.NaN())
					}
					s, q := make([]float64, runs), make([]float64, runs)
					withKernels(k, func() {
						SumRuns(s, x, n)
						for r := range q {
							q[r] = s[r] / float64(n)
						}
						SumSqDevRuns(q, q, x, n)
					})
					for r := range runs {
						run := x[r*n : (r+1)*n]
						var ws, wq float64
						withKernels(k, func() {
							ws = Sum(run)
							wq = SumSqDev(run, ws/float64(n))
						})
						same := func(a, b float64) bool { return a == b || (math.IsNaN(a) && math.IsNaN(b)) }
						if !same(s[r], ws) || !same(q[r], wq) {
							t.Errorf("n %d, run %d of %d: %v and %v, Sum and SumSqDev %v and %v", n, r, runs, s[r], q[r], ws, wq)
						}
						if r == 1 && !math.IsNaN(s[r]) {
							t.Errorf("n %d: run 1 holds a NaN but sums to %v", n, s[r])
						}
					}
				}
			}
		})
	}
}

// TestAddRowsHand: rows 1..rows of a column j holding (r+1)·(j+1): the
// column sums (j+1)·rows(rows+1)/2 and squared deviations about m_j
// = (j+1)(rows+1)/2 of (j+1)²·rows(rows²−1)/12, hand-derived, with a
// stride wider than the block, at odd widths and row counts.
func TestAddRowsHand(t *testing.T) {
	testRowsHand[float64](t, "float64")
	testRowsHand[float32](t, "float32")
}

func testRowsHand[T Float](t *testing.T, name string) {
	for _, k := range sets(t) {
		t.Run(k.name+"/"+name, func(t *testing.T) {
			for _, w := range []int{1, 3, 4, 5, 8, 9, 13} {
				for _, rows := range []int{1, 3, 4, 7, 8, 9, 12, 17, 1003} {
					stride := w + 3
					x := make([]T, 1+rows*stride)
					for r := range rows {
						for j := range w {
							x[1+r*stride+j] = T((r + 1) * (j + 1))
						}
					}
					cs, cq, cm := make([]float64, w), make([]float64, w), make([]float64, w)
					fr := float64(rows)
					for j := range cm {
						cs[j] = 0.5 // added to
						cm[j] = float64(j+1) * (fr + 1) / 2
					}
					withKernels(k, func() {
						AddRows(cs, x[1:], stride, rows)
						AddSqDevRows(cq, cm, x[1:], stride, rows)
					})
					for j := range w {
						c := float64(j + 1)
						if want := 0.5 + c*fr*(fr+1)/2; cs[j] != want {
							t.Errorf("w %d, %d rows: column %d sum %v, want %v", w, rows, j, cs[j], want)
						}
						if want := c * c * fr * (fr*fr - 1) / 12; cq[j] != want {
							t.Errorf("w %d, %d rows: column %d squared deviations %v, want %v", w, rows, j, cq[j], want)
						}
					}
				}
			}
		})
	}
}

// withKernels runs fn with k as the package's kernels.
func withKernels(k kernels, fn func()) {
	old := impl
	impl = k
	defer func() { impl = old }()
	fn()
}

// TestAddRowsAsmMatchesGo: the assembly row kernels give the Go code's
// results to the bit, NaN and ±Inf in some columns.
func TestAddRowsAsmMatchesGo(t *testing.T) {
	if !HasAVX2FMA {
		t.Skip("no AVX2 and FMA here")
	}
	rng := rand.New(rand.NewPCG(3, 4))
	for _, w := range []int{1, 2, 3, 4, 5, 7, 8, 9, 16, 17, 100} {
		for _, rows := range []int{1, 2, 3, 4, 5, 7, 8, 9, 15, 16, 17, 333} {
			stride := w + rng.IntN(5)
			x := make([]float64, 3+rows*stride)
			y := make([]float32, len(x))
			for i := range x {
				x[i] = rng.NormFloat64() * math.Exp(4*rng.NormFloat64())
				y[i] = float32(x[i])
			}
			if w > 2 && rows > 2 {
				x[3+stride+1], y[3+stride+1] = math.NaN(), float32(math.NaN())
				x[3+2*stride+2], y[3+2*stride+2] = math.Inf(-1), float32(math.Inf(-1))
			}
			cm := make([]float64, w)
			for j := range cm {
				cm[j] = rng.NormFloat64()
			}
			run := func(k kernels) (s64, q64, s32, q32 []float64) {
				s64, q64 = make([]float64, w), make([]float64, w)
				s32, q32 = make([]float64, w), make([]float64, w)
				withKernels(k, func() {
					AddRows(s64, x[3:], stride, rows)
					AddSqDevRows(q64, cm, x[3:], stride, rows)
					AddRows(s32, y[3:], stride, rows)
					AddSqDevRows(q32, cm, y[3:], stride, rows)
				})
				return
			}
			a := [4][]float64{}
			g := [4][]float64{}
			a[0], a[1], a[2], a[3] = run(*asmKernels)
			g[0], g[1], g[2], g[3] = run(goKernels)
			for i, what := range []string{"sum float64", "squared deviations float64", "sum float32", "squared deviations float32"} {
				for j := range w {
					if p, q := a[i][j], g[i][j]; p != q && !(math.IsNaN(p) && math.IsNaN(q)) {
						t.Errorf("w %d, %d rows: %s column %d: asm %v, Go %v", w, rows, what, j, p, q)
					}
				}
			}
		}
	}
}

// TestSumAllocatesNothing: the generic entries convert no slice to an
// interface.
func TestSumAllocatesNothing(t *testing.T) {
	x, y := make([]float64, 100), make([]float32, 100)
	cs := make([]float64, 10)
	if n := testing.AllocsPerRun(100, func() {
		_ = Sum(x) + Sum(y) + SumSqDev(x, 1) + SumSqDev(y, 1)
		SumRuns(cs, x, 10)
		SumSqDevRuns(cs, cs, y, 10)
		AddRows(cs, x, 10, 10)
		AddSqDevRows(cs, cs, y, 10, 10)
	}); n != 0 {
		t.Errorf("%v allocations a call", n)
	}
}
