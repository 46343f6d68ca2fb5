package inputs

import (
	"math"
	"math/rand/v2"
	"runtime"
	"slices"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// TestWithEigen holds WithEigen's matrices to the spectrum asked for, as
// gonum's symmetric eigensolver finds it, and to exact symmetry.
func TestWithEigen(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for _, p := range []int{1, 2, 5, 30, 65} {
		for _, eig := range [][]float64{LogSpaced(p, 1e3, 4), Separated(p, 0.5, r)} {
			a := make([]float64, p*p)
			WithEigen(a, eig, 3, r)
			for i := 0; i < p; i++ {
				for j := 0; j < i; j++ {
					if a[i*p+j] != a[j*p+i] {
						t.Fatalf("p = %d: a[%d,%d] = %g, a[%d,%d] = %g", p, i, j, a[i*p+j], j, i, a[j*p+i])
					}
				}
			}
			var es mat.EigenSym
			if !es.Factorize(mat.NewSymDense(p, a), false) {
				t.Fatalf("p = %d: gonum did not factorise", p)
			}
			got, want := es.Values(nil), slices.Clone(eig)
			slices.Sort(want)
			for i := range want {
				if d := math.Abs(got[i] - want[i]); d > 1e-13*4 {
					t.Errorf("p = %d: eigenvalue %d is %.17g, want %.17g", p, i, got[i], want[i])
				}
			}
		}
	}
	if e := LogSpaced(3, 100, 2); e[0] != 2 || math.Abs(e[1]-0.2) > 1e-16 || math.Abs(e[2]-0.02) > 1e-17 {
		t.Errorf("LogSpaced(3, 100, 2) = %v, want [2 0.2 0.02]", e)
	}
}

// TestFillSameOnAnyCores: the values depend on the seed and the length,
// not on how many goroutines filled them; float32 are the float64 rounded.
func TestFillSameOnAnyCores(t *testing.T) {
	n := 3<<20 + 5
	x64, x32 := make([]float64, n), make([]float32, n)
	prev := runtime.GOMAXPROCS(1)
	Fill(x64, 7, Normal(1000, 2))
	runtime.GOMAXPROCS(4)
	Fill(x32, 7, Normal(1000, 2))
	runtime.GOMAXPROCS(prev)
	for i := range x64 {
		if x32[i] != float32(x64[i]) {
			t.Fatalf("element %d: float32 %g, float64 %g", i, x32[i], x64[i])
		}
	}
	if r := rand.New(rand.NewPCG(7, 1)); x64[1<<20] != 1000+2*r.NormFloat64() {
		t.Errorf("the second piece does not start its own stream")
	}
}

// TestPlantNaNSlices: the first slice all NaN, the second one value left.
func TestPlantNaNSlices(t *testing.T) {
	const outer, nAxis, inner = 3, 17, 4
	x := make([]float64, outer*nAxis*inner)
	PlantNaNSlices(x, outer, nAxis, inner, 9)
	count := func(out int) (nan int) {
		o, j := out/inner, out%inner
		for i := 0; i < nAxis; i++ {
			if math.IsNaN(x[(o*nAxis+i)*inner+j]) {
				nan++
			}
		}
		return nan
	}
	if count(0) != nAxis || count(1) != nAxis-1 {
		t.Errorf("slice 0 has %d NaNs, slice 1 %d; want %d and %d", count(0), count(1), nAxis, nAxis-1)
	}
}
