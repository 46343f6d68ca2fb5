package cov

import (
	"fmt"
	"testing"

	"github.com/vkstat/vkstat/tensor"
)

// kernelSets lists the kernel sets this machine can run (plain Go, and the
// assembly where the processor has it), so that the tests below hold each
// against the reference, not only the one the CPU path picks.
func kernelSets() []kernels {
	k := []kernels{goKernels}
	if impl.name != goKernels.name {
		k = append(k, impl)
	}
	return k
}

// using is opt making the CPU path use k.
func using(k kernels, opt Options) Options {
	opt.test = &testOptions{kernels: &k}
	return opt
}

// blockEdgeP straddle the 4-row and 8-column tiles of syrkLower and the
// 8-column padding of the panel; blockEdgeT include one and two samples
// and odd counts (the kernels have no T blocking, but the assembly loop
// must stop on every count).
var (
	blockEdgeP = []int{1, 2, 3, 4, 5, 7, 8, 9, 12, 15, 16, 17, 49, 64}
	blockEdgeT = []int{1, 2, 3, 5, 64, 65}
)

// TestCPUBlockEdges holds the CPU path, with each kernel, against Reference
// for every estimator and dtype at sizes around the blocking edges, from an
// (N, T, P) array and gathered from a cube.
func TestCPUBlockEdges(t *testing.T) {
	for _, k := range kernelSets() {
		kname := k.name
		for _, p := range blockEdgeP {
			for _, tt := range blockEdgeT {
				x := sampleSets(3, tt, p, uint64(7*p+tt), false)
				for _, est := range allEstimators {
					want, err := Reference(x, Options{Estimator: est})
					if err != nil {
						t.Fatal(err)
					}
					for _, dt := range []tensor.DType{tensor.F64, tensor.F32} {
						t.Run(fmt.Sprintf("%s/P%d/T%d/%s/%s", kname, p, tt, est, dt), func(t *testing.T) {
							got, err := CPU(x.As(dt), using(k, Options{Estimator: est}))
							if err != nil {
								t.Fatal(err)
							}
							checkResult(t, got, want, dt)
						})
					}
				}
			}
		}
		t.Run(kname+"/gather", func(t *testing.T) {
			cube := testCube(5, 12, 13, 3)
			for _, off := range [][][2]int{PatchOffsets(1), blockOffsets(3, 3), PatchOffsets(4)} {
				g := Gather{Locations: ValidLocations(12, 13, off), Offsets: off}
				for _, est := range allEstimators {
					want, err := ReferenceGather(cube, g, Options{Estimator: est})
					if err != nil {
						t.Fatal(err)
					}
					for _, dt := range []tensor.DType{tensor.F64, tensor.F32} {
						got, err := CPUGather(cube.As(dt), g, using(k, Options{Estimator: est}))
						if err != nil {
							t.Fatal(err)
						}
						checkResult(t, got, want, dt)
					}
				}
			}
		})
	}
}

// TestCPUHandRankOne checks exact values worked out by hand: sample t of
// variable i is c_i + u_t·a_i with Σu = 0, so the mean is c and
// S = (Σu²/T)·a aᵀ, which float64 holds exactly for these small integers.
// u = (1, −1) gives S = a aᵀ; u = (1, 1, −2) gives S = 2 a aᵀ.
func TestCPUHandRankOne(t *testing.T) {
	for _, k := range kernelSets() {
		kname := k.name
		for _, p := range blockEdgeP {
			for _, u := range [][]float64{{1, -1}, {1, 1, -2}} {
				T := len(u)
				f := map[int]float64{2: 1, 3: 2}[T]
				x := tensor.New(tensor.F64, 2, T, p)
				for n := 0; n < 2; n++ {
					for tt := 0; tt < T; tt++ {
						for i := 0; i < p; i++ {
							x.F64[(n*T+tt)*p+i] = float64(100*(n+1)+i) + u[tt]*float64(i+1+n)
						}
					}
				}
				got, err := CPU(x, using(k, Options{}))
				if err != nil {
					t.Fatal(err)
				}
				for n := 0; n < 2; n++ {
					for i := 0; i < p; i++ {
						if m := got.Mean.F64[n*p+i]; m != float64(100*(n+1)+i) {
							t.Errorf("%s P%d T%d set %d: mean[%d] = %g, want %d", kname, p, T, n, i, m, 100*(n+1)+i)
						}
						for j := 0; j < p; j++ {
							want := f * float64((i+1+n)*(j+1+n))
							if c := got.Cov.F64[(n*p+i)*p+j]; c != want {
								t.Errorf("%s P%d T%d set %d: C[%d][%d] = %g, want %g", kname, p, T, n, i, j, c, want)
							}
						}
					}
				}
			}
		}
	}
}
