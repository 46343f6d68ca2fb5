package cov

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/vkstat/vkstat/device/testdev"
	"github.com/vkstat/vkstat/engine"
	"github.com/vkstat/vkstat/internal/checks"
	"github.com/vkstat/vkstat/tensor"
)

// splitkOpt forces the split-K kernel onto sets of any length, in splits of
// about len samples (many splits, and a short last one, on small sets).
func splitkOpt(ddof, len int, acc32 bool) Options {
	return Options{DDof: ddof, test: &testOptions{splitkMinT: 1, splitkLen: len, acc32: acc32}}
}

// kernelSteps lists the kernels a run recorded (Timing.Steps, on devices
// with timestamps): nil where there are none.
func kernelSteps(tm engine.Timing) []string {
	var out []string
	for _, s := range tm.Steps {
		if s.Phase == engine.PhaseKernel {
			out = append(out, s.Name)
		}
	}
	return out
}

// checkSplitK fails t unless steps are the split-K kernel's two dispatches
// (where the device records steps).
func checkSplitK(t *testing.T, dev *engine.Device, tm engine.Timing) {
	t.Helper()
	if !dev.Info.Timestamps {
		return
	}
	st := kernelSteps(tm)
	if len(st) != 2 || !strings.HasPrefix(st[0], "cov_splitk_") || !strings.HasPrefix(st[1], "cov_splitk_sum_") {
		t.Errorf("kernels %v, want cov_splitk_* then cov_splitk_sum_*", st)
	}
}

// TestVulkanSplitK holds the split-K kernel (cov_splitk.comp, then
// cov_splitk_sum.comp) to Reference on every device: P from 1 to 65 (one
// tile with many lanes, uneven register blocks, several tiles of the lower
// triangle), T from 1 split to many with a short last one, ddof 0 and 1,
// float32 (double and float sums) and float64, a constant set and a set
// with a NaN; sets laid out as (N, T, P) arrays (samples P apart), as
// vkstat latent's strided sets (samples contiguous, variables T apart) and
// gathered from a cube; float16 and bfloat16 against the values decoded
// independently. Each run is its two dispatches.
func TestVulkanSplitK(t *testing.T) {
	for _, dev := range testdev.Devices(t) {
		t.Run(dev.Info.Name, func(t *testing.T) {
			for _, c := range []struct{ n, t, p, len int }{
				{3, 300, 5, 64}, {4, 257, 17, 50}, {3, 100, 1, 30}, {3, 513, 33, 200}, {3, 129, 65, 40}, {2, 64, 16, 4096},
			} {
				x := sampleSets(c.n, c.t, c.p, uint64(c.p*c.t), true)
				for _, ddof := range []int{0, 1} {
					want, err := Reference(x, Options{DDof: ddof})
					if err != nil {
						t.Fatal(err)
					}
					for _, v := range []struct {
						dt    tensor.DType
						acc32 bool
					}{{tensor.F32, false}, {tensor.F32, true}, {tensor.F64, false}} {
						if v.dt == tensor.F64 && !dev.Info.Float64 {
							continue
						}
						t.Run(fmt.Sprintf("%dx%dx%d/ddof%d/%s/acc32=%v", c.n, c.t, c.p, ddof, v.dt, v.acc32), func(t *testing.T) {
							got, tm, err := Vulkan(context.Background(), dev, x.As(v.dt), splitkOpt(ddof, c.len, v.acc32))
							if err != nil {
								t.Fatal(err)
							}
							checkResult(t, got, want, v.dt)
							checkSplitK(t, dev, tm)
						})
					}
				}
			}
			t.Run("strided", func(t *testing.T) {
				// Channels of (N, C, F, H, W) latents: C sets of F·H·W
				// contiguous samples; and frames: F sets of H·W.
				x := latentData([]int{3, 6, 4, 5, 7}, 3)
				for _, l := range latentLayouts(3, 6, 4, 5, 7) {
					want, err := ReferenceStrided(x, l.s, Options{DDof: 1})
					if err != nil {
						t.Fatal(err)
					}
					for _, dt := range []tensor.DType{tensor.F32, tensor.F64} {
						if dt == tensor.F64 && !dev.Info.Float64 {
							continue
						}
						got, tm, err := VulkanStrided(context.Background(), dev, x.As(dt), l.s, splitkOpt(1, 32, false))
						if err != nil {
							t.Fatal(err)
						}
						checkResult(t, got, want, dt)
						checkSplitK(t, dev, tm)
					}
				}
			})
			t.Run("gather", func(t *testing.T) {
				cube := testCube(200, 5, 6, 9)
				offs := PatchOffsets(1)
				g := Gather{Locations: ValidLocations(5, 6, offs), Offsets: offs}
				want, err := ReferenceGather(cube, g, Options{})
				if err != nil {
					t.Fatal(err)
				}
				got, tm, err := VulkanGather(context.Background(), dev, cube.As(tensor.F32), g, splitkOpt(0, 64, false))
				if err != nil {
					t.Fatal(err)
				}
				checkResult(t, got, want, tensor.F32)
				checkSplitK(t, dev, tm)
			})
			t.Run("16-bit", func(t *testing.T) {
				for _, dt := range []tensor.DType{tensor.F16, tensor.BF16} {
					x := sampleSets(5, 301, 13, 41, true).As(dt)
					ref := tensor.FromF64(checks.Halves(dt == tensor.BF16, x.U16), x.Shape...)
					want, err := Reference(ref, Options{})
					if err != nil {
						t.Fatal(err)
					}
					for _, acc32 := range []bool{false, true} {
						got, tm, err := Vulkan(context.Background(), dev, x, splitkOpt(0, 64, acc32))
						if err != nil {
							t.Fatal(err)
						}
						checkResult(t, got, want, tensor.F32)
						checkSplitK(t, dev, tm)
					}
				}
			})
		})
	}
}

// TestVulkanSplitKDispatches: the split-K path's dispatches do not grow
// with the number of sets or their length: two for 2 sets of 16 variables
// of 65,536 samples and for 8 (vkstat latent's channel correlations of 2
// and 8 samples of [16, 16, 64, 64]: cov.comp took ten, split over
// lavapipe's loop limit), with the built-in parameters, on lavapipe.
func TestVulkanSplitKDispatches(t *testing.T) {
	if testing.Short() {
		t.Skip("reads 10 sets of 1 M values")
	}
	for _, dev := range testdev.Devices(t) {
		if !dev.Info.Timestamps || !dev.Info.IsLavapipe() {
			continue
		}
		for _, n := range []int{2, 8} {
			const c, k = 16, 65536
			x := tensor.New(tensor.F32, n, c, k)
			for i := range x.F32 {
				x.F32[i] = float32(i%977) * 0.25
			}
			s := Strided{Bases: make([]int, n), Offsets: make([]int, c), T: k, TStride: 1}
			for i := range s.Bases {
				s.Bases[i] = i * c * k
			}
			for i := range s.Offsets {
				s.Offsets[i] = i * k
			}
			_, tm, err := VulkanStrided(context.Background(), dev, x, s, Options{})
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("%s: %d sets: kernels %v", dev.Info.Name, n, kernelSteps(tm))
			checkSplitK(t, dev, tm)
		}
	}
}
