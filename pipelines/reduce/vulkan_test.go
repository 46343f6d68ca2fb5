package reduce

import (
	"context"
	"math"
	"os"
	"strings"
	"testing"

	"github.com/vkstat/vkstat/device/testdev"
	"github.com/vkstat/vkstat/device/tune"
	"github.com/vkstat/vkstat/engine"
	"github.com/vkstat/vkstat/tensor"
)

func TestMain(m *testing.M) {
	// The built-in tuning only: a tune cache of the machine's user must
	// not change which kernels the tests run.
	os.Setenv("VKSTAT_TUNE_DIR", "off")
	testdev.Main(m)
}

// TestVulkan runs the reduction suite on every Vulkan device, the
// validation layer on; float64 cases skip on devices without shaderFloat64.
func TestVulkan(t *testing.T) {
	for _, dev := range testdev.Devices(t) {
		t.Run(dev.Info.Name, func(t *testing.T) {
			runReduceSuite(t, func(in *tensor.Tensor, opt Options, stats []Stat) (map[Stat]*tensor.Tensor, error) {
				out, _, err := Vulkan(context.Background(), dev, in, opt, stats)
				return out, err
			}, !testing.Short())
		})
	}
}

// TestVulkanRowsKernel runs the last-axis cases through the
// workgroup-per-record kernel that GPUs use, on every device.
func TestVulkanRowsKernel(t *testing.T) {
	ctx := tune.WithOverride(context.Background(), "reduce", map[string]any{"rows_kernel": "workgroup", "rows_min": 1})
	cases := []struct {
		shape []int
		off   float64
	}{{[]int{1_000_003}, 1000}, {[]int{5, 40_000}, 1000}, {[]int{3, 257, 5}, -40}, {[]int{7, 1}, 2}}
	for _, dev := range testdev.Devices(t) {
		impl := func(in *tensor.Tensor, opt Options, stats []Stat) (map[Stat]*tensor.Tensor, error) {
			out, _, err := Vulkan(ctx, dev, in, opt, stats)
			return out, err
		}
		for i, c := range cases {
			for _, dt := range []tensor.DType{tensor.F64, tensor.F32} {
				if dt == tensor.F64 && !dev.Info.Float64 {
					continue
				}
				for _, nan := range []bool{false, true} {
					in := reduceSuiteData(dt, c.shape, -1, c.off, 1, uint64(100+i), nan)
					for _, skip := range []bool{false, true} {
						reduceSuiteCheck(t, impl, in, in.Float64s(), Options{Axes: Axes{-1}, DDof: 1, SkipNaN: skip}, AllStats(), reduceRTol(dt))
					}
				}
			}
		}
	}
}

// TestVulkanFinishLoopLimit: llvmpipe (lavapipe) silently ends an
// invocation's loops after 65,535 iterations in all. A whole-array
// reduction of 2^22 values is planned as one tile of 65,536 records, which
// reduce_finish merged in one loop per output: on lavapipe the merge
// stopped short and the statistics loop after it never ran (std, min, max
// and sum came back 0). Against the reference on every device.
func TestVulkanFinishLoopLimit(t *testing.T) {
	shape := []int{1 << 22}
	for _, dev := range testdev.Devices(t) {
		impl := func(in *tensor.Tensor, opt Options, stats []Stat) (map[Stat]*tensor.Tensor, error) {
			out, _, err := Vulkan(context.Background(), dev, in, opt, stats)
			return out, err
		}
		for _, dt := range []tensor.DType{tensor.F32, tensor.F64} {
			if dt == tensor.F64 && !dev.Info.Float64 {
				continue
			}
			for _, nan := range []bool{false, true} {
				in := reduceSuiteData(dt, shape, 0, 1000, 1, 7, nan)
				reduceSuiteCheck(t, impl, in, in.Float64s(), Options{Axes: Axes{0}, DDof: 1, SkipNaN: nan}, AllStats(), reduceRTol(dt))
			}
		}
	}
}

// TestVulkanRowsKernels holds both last-axis kernels, reduce_rows (a
// workgroup per record) and reduce_rows_sg (a subgroup per record), against
// Reference at row lengths that straddle subgroup sizes (lavapipe 8,
// SwiftShader 4, GPUs 32 or 64) and workgroup sizes, with NaNs planted,
// float32 and float64, several rows per workgroup and a last workgroup
// partly used. On a device without subgroup arithmetic "subgroup" runs the
// workgroup kernel (resolveTuning).
func TestVulkanRowsKernels(t *testing.T) {
	for _, dev := range testdev.Devices(t) {
		for _, kernel := range []string{"workgroup", "subgroup"} {
			for _, wg := range []int{64, 256} {
				if wg > int(dev.Info.MaxWorkgroupInvocation) {
					continue
				}
				ctx := tune.WithOverride(context.Background(), "reduce", map[string]any{"rows_kernel": kernel, "rows_min": 1, "rows_wg": wg})
				impl := func(in *tensor.Tensor, opt Options, stats []Stat) (map[Stat]*tensor.Tensor, error) {
					out, _, err := Vulkan(ctx, dev, in, opt, stats)
					return out, err
				}
				for i, n := range []int{1, 7, 8, 9, 31, 33, 1000, 4097} {
					for _, dt := range []tensor.DType{tensor.F64, tensor.F32} {
						if dt == tensor.F64 && !dev.Info.Float64 {
							continue
						}
						for _, nan := range []bool{false, true} {
							in := reduceSuiteData(dt, []int{37, n}, -1, 1000, 1, uint64(200+i), nan)
							for _, skip := range []bool{false, true} {
								reduceSuiteCheck(t, impl, in, in.Float64s(), Options{Axes: Axes{-1}, DDof: 1, SkipNaN: skip}, AllStats(), reduceRTol(dt))
							}
						}
					}
				}
			}
		}
	}
}

// TestVulkanRowsLoopLimit: lavapipe silently ends an invocation's loops
// after 65,535 iterations in all. With one record aimed at (rows_records 1)
// a 400,000-element row is split only by the kernels' chunk caps, and its
// first 150,000 elements are NaN, so that reduce_rows_sg's scan for the
// shift walks as far as it can before the sums: the longest loops either
// kernel can be given. Against Reference on every device.
func TestVulkanRowsLoopLimit(t *testing.T) {
	const n = 400_000
	for _, dev := range testdev.Devices(t) {
		for _, kernel := range []string{"workgroup", "subgroup"} {
			ctx := tune.WithOverride(context.Background(), "reduce", map[string]any{"rows_kernel": kernel, "rows_min": 1, "rows_records": 1, "rows_wg": 64})
			impl := func(in *tensor.Tensor, opt Options, stats []Stat) (map[Stat]*tensor.Tensor, error) {
				out, _, err := Vulkan(ctx, dev, in, opt, stats)
				return out, err
			}
			for _, dt := range []tensor.DType{tensor.F64, tensor.F32} {
				if dt == tensor.F64 && !dev.Info.Float64 {
					continue
				}
				t.Logf("%s: %s kernel, %s", dev.Info.Name, kernel, dt)
				in := reduceSuiteData(dt, []int{2, n}, -1, 1000, 1, 9, false)
				for i := 0; i < 150_000; i++ {
					if dt == tensor.F64 {
						in.F64[i] = math.NaN()
					} else {
						in.F32[i] = float32(math.NaN())
					}
				}
				reduceSuiteCheck(t, impl, in, in.Float64s(), Options{Axes: Axes{-1}, DDof: 1, SkipNaN: true}, AllStats(), reduceRTol(dt))
			}
		}
	}
}

// TestResolveTuning: the built-in rule keeps CPU devices on the
// invocation-per-record kernel and GPUs on the workgroup one; "subgroup"
// falls back to "workgroup" without subgroup arithmetic; a workgroup size
// over the device's limit is an error that says where it came from.
func TestResolveTuning(t *testing.T) {
	gpu := engine.DeviceInfo{Name: "gpu", Type: "discrete", SubgroupSize: 32, SubgroupOps: []string{"basic", "arithmetic"}, MaxWorkgroupInvocation: 1024}
	cpu := gpu
	cpu.Type = "cpu"
	ctx := context.Background()
	for _, c := range []struct {
		info engine.DeviceInfo
		want string
	}{{gpu, "workgroup"}, {cpu, "none"}} {
		tn, err := resolveTuning(ctx, c.info)
		if err != nil || tn.rowsKernel != c.want || tn.workgroup != 256 {
			t.Errorf("%s: got %+v, %v; want rows kernel %s, workgroup 256", c.info.Type, tn, err, c.want)
		}
	}
	sg := tune.WithOverride(ctx, "reduce", map[string]any{"rows_kernel": "subgroup", "rows_wg": 16})
	if tn, err := resolveTuning(sg, gpu); err != nil || tn.rowsKernel != "subgroup" || tn.rowsWG != 32 {
		t.Errorf("subgroup on a GPU with arithmetic: got %+v, %v; want subgroup, rows_wg raised to 32", tn, err)
	}
	basic := gpu
	basic.SubgroupOps = []string{"basic"}
	if tn, err := resolveTuning(sg, basic); err != nil || tn.rowsKernel != "workgroup" {
		t.Errorf("subgroup without arithmetic: got %+v, %v; want workgroup", tn, err)
	}
	small := gpu
	small.MaxWorkgroupInvocation = 128
	_, err := resolveTuning(ctx, small)
	if err == nil || !strings.Contains(err.Error(), "reduce.workgroup = 256 (from default)") {
		t.Errorf("workgroup 256 on a device of 128: got %v", err)
	}
}
