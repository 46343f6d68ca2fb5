package reduce

import (
	"context"
	"fmt"
	"testing"

	"github.com/vkstat/vkstat/device/tune"

	"github.com/vkstat/vkstat/device/testdev"
	"github.com/vkstat/vkstat/internal/checks"
	"github.com/vkstat/vkstat/tensor"
)

// Tolerance of the 16-bit storage types, elementwise relative: the values
// are exactly float32s, so the bound is float32's (the accumulation's and
// the output's rounding); the input's own rounding to 16 bits is the
// data's, and the reference sees the same rounded values.
const reduceRTol16 = reduceRTolF32

// halfSuiteData is reduceSuiteData rounded to dt (F16 or BF16): NaNs
// planted as for float32.
func halfSuiteData(dt tensor.DType, shape []int, axis int, off, scale float64, seed uint64, nan bool) (*tensor.Tensor, []float64) {
	in := reduceSuiteData(tensor.F32, shape, axis, off, scale, seed, nan).As(dt)
	return in, checks.Halves(dt == tensor.BF16, in.U16)
}

// runHalfSuite holds impl on float16 and bfloat16 inputs against Reference
// on the values decoded independently (checks.Halves): lengths that
// straddle the workgroup (255, 256, 257), odd lengths and odd strides (so
// that elements sit in either half of a packed word), every axis, NaNs,
// ddof 0 and 1, SkipNaN off and on.
func runHalfSuite(t *testing.T, impl reduceImpl) {
	cases := []struct {
		shape []int
		axes  []int
		off   float64
	}{
		{[]int{1}, []int{0}, 3},
		{[]int{255}, []int{0}, 100},
		{[]int{256}, []int{0}, -7.5},
		{[]int{257}, []int{0}, 1000},
		{[]int{100_003}, []int{0}, 1000},
		{[]int{33, 257}, []int{0, 1}, 1000},
		{[]int{3, 257, 5}, []int{0, 1, 2}, -40},
		{[]int{5, 4001}, []int{-1}, 1000},
		{[]int{3, 70, 1031}, []int{0, 1, 2}, 10},
		{[]int{7, 1}, []int{0, 1}, 2},
	}
	for ci, c := range cases {
		for _, axis := range c.axes {
			for _, dt := range []tensor.DType{tensor.F16, tensor.BF16} {
				for _, nan := range []bool{false, true} {
					t.Run(fmt.Sprintf("%s/%s/axis%d/nan=%v", dt, tensor.ShapeString(c.shape), axis, nan), func(t *testing.T) {
						in, ref := halfSuiteData(dt, c.shape, axis, c.off, 1, uint64(500+ci*10+axis), nan)
						for _, ddof := range []int{0, 1} {
							for _, skip := range []bool{false, true} {
								reduceSuiteCheck(t, impl, in, ref, Options{Axes: Axes{axis}, DDof: ddof, SkipNaN: skip}, AllStats(), reduceRTol16)
							}
						}
					})
				}
			}
		}
	}
}

func TestCPUHalf(t *testing.T) { runHalfSuite(t, CPU) }

// TestCPUHalfBlocks: an outer extent larger than one block of cpu16.
func TestCPUHalfBlocks(t *testing.T) {
	in, ref := halfSuiteData(tensor.BF16, []int{1<<12 + 3, 1025}, 1, 50, 2, 9, true)
	reduceSuiteCheck(t, CPU, in, ref, Options{Axes: Axes{1}, DDof: 1}, AllStats(), reduceRTol16)
}

// TestVulkanHalf runs the 16-bit suite on every Vulkan device: with the
// planned tiles, with the workgroup-per-record kernel, and with the input
// window bounded so that tiles start at odd elements (the second half of
// a packed word) and the host merges them.
func TestVulkanHalf(t *testing.T) {
	for _, dev := range testdev.Devices(t) {
		impl := func(in *tensor.Tensor, opt Options, stats []Stat) (map[Stat]*tensor.Tensor, error) {
			out, _, err := Vulkan(context.Background(), dev, in, opt, stats)
			return out, err
		}
		t.Run(dev.Info.Name, func(t *testing.T) {
			runHalfSuite(t, impl)
			for _, kernel := range []string{"workgroup", "subgroup"} {
				t.Run("rows "+kernel, func(t *testing.T) {
					ctx := tune.WithOverride(context.Background(), "reduce", map[string]any{"rows_kernel": kernel, "rows_min": 1})
					impl := func(in *tensor.Tensor, opt Options, stats []Stat) (map[Stat]*tensor.Tensor, error) {
						out, _, err := Vulkan(ctx, dev, in, opt, stats)
						return out, err
					}
					for i, shape := range [][]int{{100_003}, {5, 4001}, {3, 257, 5}} {
						for _, dt := range []tensor.DType{tensor.F16, tensor.BF16} {
							in, ref := halfSuiteData(dt, shape, -1, 1000, 1, uint64(40+i), true)
							for _, skip := range []bool{false, true} {
								reduceSuiteCheck(t, impl, in, ref, Options{Axes: Axes{-1}, DDof: 1, SkipNaN: skip}, AllStats(), reduceRTol16)
							}
						}
					}
				})
			}
			t.Run("tiles", func(t *testing.T) {
				small := &testOptions{window: 1<<12 + 64}
				for i, c := range []struct {
					shape []int
					axis  int
				}{{[]int{20_001}, 0}, {[]int{7, 3001}, 1}, {[]int{3, 999, 7}, 1}, {[]int{3, 5, 4097}, 1}, {[]int{2, 3, 5001}, 2}} {
					for _, dt := range []tensor.DType{tensor.F16, tensor.BF16} {
						in, ref := halfSuiteData(dt, c.shape, c.axis, 100, 1, uint64(60+i), true)
						reduceSuiteCheck(t, impl, in, ref, Options{Axes: Axes{c.axis}, DDof: 1, SkipNaN: true, test: small}, AllStats(), reduceRTol16)
						reduceSuiteCheck(t, impl, in, ref, Options{Axes: Axes{c.axis}, test: small}, AllStats(), reduceRTol16)
					}
				}
			})
		})
	}
}

// TestVulkanHalfMemory: the device buffer that holds the input of the same
// batch is half as large in float16 and bfloat16 as in float32 (rounded up
// to a whole 4-byte word for an odd count).
func TestVulkanHalfMemory(t *testing.T) {
	for _, dev := range testdev.Devices(t) {
		for _, shape := range [][]int{{4, 16, 4096}, {3, 5, 1001}} {
			size := map[tensor.DType]int64{}
			for _, dt := range []tensor.DType{tensor.F32, tensor.F16, tensor.BF16} {
				in := reduceSuiteData(tensor.F32, shape, -1, 1, 1, 3, false).As(dt)
				opt := Options{Axes: Axes{-1}, test: &testOptions{inputBuffer: func(b int64) { size[dt] = b }}}
				_, _, err := Vulkan(context.Background(), dev, in, opt, []Stat{Mean, Var})
				if err != nil {
					t.Fatal(err)
				}
			}
			want := (size[tensor.F32]/2 + 3) &^ 3
			t.Logf("%s: %s input buffer %v bytes (float32, float16, bfloat16)", dev.Info.Name, tensor.ShapeString(shape),
				[]int64{size[tensor.F32], size[tensor.F16], size[tensor.BF16]})
			if size[tensor.F32] != int64(4*tensor.NumElements(shape)) || size[tensor.F16] != want || size[tensor.BF16] != want {
				t.Errorf("%s %s: input buffer %d bytes in float32, %d in float16, %d in bfloat16; want %d and half that, %d",
					dev.Info.Name, tensor.ShapeString(shape), size[tensor.F32], size[tensor.F16], size[tensor.BF16], 4*tensor.NumElements(shape), want)
			}
		}
	}
}

// TestHalfSpecialValues: float16 subnormals widen exactly and ±Inf stays
// ±Inf (the shader rebuilds them from the bits), on the CPU path and every
// device.
func TestHalfSpecialValues(t *testing.T) {
	impls := map[string]reduceImpl{"cpu": CPU}
	for _, dev := range testdev.Devices(t) {
		impls[dev.Info.Name] = func(in *tensor.Tensor, opt Options, stats []Stat) (map[Stat]*tensor.Tensor, error) {
			out, _, err := Vulkan(context.Background(), dev, in, opt, stats)
			return out, err
		}
	}
	for name, impl := range impls {
		// Subnormals (2^-24 … 1023·2^-24), negative ones, the smallest normal.
		sub := tensor.FromU16(tensor.F16, []uint16{0x0001, 0x03ff, 0x8200, 0x0400, 0x0155}, 5)
		reduceSuiteCheck(t, impl, sub, checks.Halves(false, sub.U16), Options{Axes: Axes{0}}, AllStats(), reduceRTol16)
		for _, c := range []struct {
			dt   tensor.DType
			bits []uint16
		}{{tensor.F16, []uint16{0x3c00, 0x7c00, 0xfc00, 0x4000}}, {tensor.BF16, []uint16{0x3f80, 0x7f80, 0xff80, 0x4000}}} {
			in := tensor.FromU16(c.dt, c.bits, 4)
			out, err := impl(in, Options{Axes: Axes{0}}, []Stat{Min, Max})
			if err != nil {
				t.Fatalf("%s %s: %v", name, c.dt, err)
			}
			if mn, mx := out[Min].F32[0], out[Max].F32[0]; !(mn < -3e38 && mx > 3e38) || mn+1 != mn || mx+1 != mx {
				t.Errorf("%s %s: min %g max %g, want -Inf and +Inf", name, c.dt, mn, mx)
			}
		}
	}
}
