package cov

import (
	"context"
	"fmt"
	"testing"

	"github.com/vkstat/vkstat/device/testdev"
	"github.com/vkstat/vkstat/internal/checks"
	"github.com/vkstat/vkstat/tensor"
)

// runHalfSuite holds impl on float16 and bfloat16 inputs against Reference
// on the values decoded independently (checks.Halves), to float32's
// tolerance (the values are exactly float32s; their rounding to 16 bits is
// the data's, seen by both). Odd T·P put sets' first values in either half
// of a packed word; N straddles the 64-set edges; every estimator; sets
// with a NaN and a constant set.
func runHalfSuite(t *testing.T, impl covImpl) {
	cases := []struct{ n, t, p int }{{1, 2, 1}, {5, 7, 3}, {64, 33, 5}, {65, 251, 13}, {3, 31, 49}, {2, 257, 64}}
	for ci, c := range cases {
		for _, dt := range []tensor.DType{tensor.F16, tensor.BF16} {
			t.Run(fmt.Sprintf("%s/%dx%dx%d", dt, c.n, c.t, c.p), func(t *testing.T) {
				x := sampleSets(c.n, c.t, c.p, uint64(77+ci), c.n >= 3).As(dt)
				ref := tensor.FromF64(checks.Halves(dt == tensor.BF16, x.U16), x.Shape...)
				for _, est := range allEstimators {
					for _, ddof := range []int{0, 1} {
						opt := Options{Estimator: est, DDof: ddof}
						want, err := Reference(ref, opt)
						if err != nil {
							t.Fatal(err)
						}
						got, err := impl.array(x, opt)
						if err != nil {
							t.Fatalf("%v: %v", opt, err)
						}
						checkResult(t, got, want, tensor.F32)
					}
				}
			})
		}
	}
}

func TestCPUHalf(t *testing.T) {
	runHalfSuite(t, covImpl{array: CPU})
}

// TestVulkanHalf runs the 16-bit suite on every device; then with small
// chunks (so that a chunk of sets of odd T·P starts at an even set), with
// float accumulation, and with sets long enough to be split over
// dispatches.
func TestVulkanHalf(t *testing.T) {
	for _, dev := range testdev.Devices(t) {
		impl := vulkanImpl(t, dev)
		t.Run(dev.Info.Name, func(t *testing.T) {
			runHalfSuite(t, impl)
			// check holds the 16-bit run to the reference; where float
			// accumulation over very long sets (acc32 and long) exceeds
			// float32's tolerance, as it does for float32 inputs, it holds
			// it instead to the float32 kernel on the same (widened) values:
			// the 16-bit storage adds no error of its own.
			check := func(t *testing.T, n, tt, p int, seed uint64, long bool, test *testOptions) {
				for _, dt := range []tensor.DType{tensor.F16, tensor.BF16} {
					x := sampleSets(n, tt, p, seed, false).As(dt)
					ref := tensor.FromF64(checks.Halves(dt == tensor.BF16, x.U16), x.Shape...)
					for _, est := range []Estimator{None, LedoitWolf} {
						want, err := Reference(ref, Options{Estimator: est})
						if err != nil {
							t.Fatal(err)
						}
						got, err := impl.array(x, Options{Estimator: est, test: test})
						if err != nil {
							t.Fatal(err)
						}
						if !long || (dev.Info.Float64 && !test.get().acc32) {
							checkResult(t, got, want, tensor.F32)
							continue
						}
						got32, err := impl.array(ref.As(tensor.F32), Options{Estimator: est, test: test})
						if err != nil {
							t.Fatal(err)
						}
						checkResult(t, got, got32.asF64(), tensor.F32)
						checkBlocks(t, "cov (float32 run)", got.Cov.Float64s(), got32.Cov.Float64s(), n, 1e-6, false)
					}
				}
			}
			t.Run("chunks", func(t *testing.T) {
				check(t, 37, 11, 7, 5, false, &testOptions{chunkBytes: 3000}) // 77 values a set, a few sets a chunk
			})
			t.Run("acc32", func(t *testing.T) {
				check(t, 9, 45, 13, 6, false, &testOptions{acc32: true})
			})
			t.Run("long", func(t *testing.T) {
				check(t, 2, 30_011, 3, 8, true, &testOptions{}) // split over dispatches (as TestVulkanLongSets, whose T it keeps)
			})
		})
	}
}

// TestVulkanHalfMemory: the device buffer that holds the samples of the
// same batch is half as large in float16 and bfloat16 as in float32
// (rounded up to a whole 4-byte word).
func TestVulkanHalfMemory(t *testing.T) {
	for _, dev := range testdev.Devices(t) {
		for _, shape := range [][3]int{{64, 256, 16}, {5, 7, 3}} {
			size := map[tensor.DType]int64{}
			for _, dt := range []tensor.DType{tensor.F32, tensor.F16, tensor.BF16} {
				x := sampleSets(shape[0], shape[1], shape[2], 1, false).As(dt)
				_, _, err := Vulkan(context.Background(), dev, x, Options{test: &testOptions{inputBuffer: func(b int64) { size[dt] = b }}})
				if err != nil {
					t.Fatal(err)
				}
			}
			n := int64(shape[0] * shape[1] * shape[2])
			want := (2*n + 3) &^ 3
			t.Logf("%s: %v samples buffer %v bytes (float32, float16, bfloat16)", dev.Info.Name, shape,
				[]int64{size[tensor.F32], size[tensor.F16], size[tensor.BF16]})
			if size[tensor.F32] != 4*n || size[tensor.F16] != want || size[tensor.BF16] != want {
				t.Errorf("%s %v: samples buffer %d bytes in float32, %d in float16, %d in bfloat16; want %d and %d",
					dev.Info.Name, shape, size[tensor.F32], size[tensor.F16], size[tensor.BF16], 4*n, want)
			}
		}
	}
}
