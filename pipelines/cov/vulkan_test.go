package cov

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/vkstat/vkstat/device/testdev"
	"github.com/vkstat/vkstat/engine"
	"github.com/vkstat/vkstat/tensor"
)

func TestMain(m *testing.M) { testdev.Main(m) }

func vulkanImpl(t *testing.T, dev *engine.Device) covImpl {
	return covImpl{
		array: func(x *tensor.Tensor, opt Options) (*Result, error) {
			r, _, err := Vulkan(context.Background(), dev, x, opt)
			return r, err
		},
		gather: func(cube *tensor.Tensor, g Gather, opt Options) (*Result, error) {
			r, _, err := VulkanGather(context.Background(), dev, cube, g, opt)
			return r, err
		},
	}
}

// TestVulkan runs the suite on every Vulkan device, the validation layer on.
func TestVulkan(t *testing.T) {
	for _, dev := range testdev.Devices(t) {
		t.Run(dev.Info.Name, func(t *testing.T) {
			runCovSuite(t, vulkanImpl(t, dev))
		})
	}
}

// TestVulkanVariants exercises, on every device, the kernel variants the
// suite does not reach on lavapipe: float accumulation (devices without
// shaderFloat64) and several passes over the entries (P > 128 or few
// registers), on a few sizes and every estimator.
func TestVulkanVariants(t *testing.T) {
	for _, dev := range testdev.Devices(t) {
		t.Run(dev.Info.Name, func(t *testing.T) {
			for _, c := range []struct {
				name  string
				acc32 bool
				maxe  int
				ps    []int
			}{{"acc32", true, 4, []int{13, 130}}, {"passes", false, 1, []int{49, 130}}, {"acc32-passes", true, 1, []int{49}}} {
				test := &testOptions{acc32: c.acc32, maxBlocks: c.maxe}
				for _, p := range c.ps {
					x := sampleSets(65, 100, p, uint64(p), true)
					refs := referenceAll(fmt.Sprintf("variants/P%d", p), x, allEstimators)
					for _, est := range allEstimators {
						for _, dt := range []tensor.DType{tensor.F32, tensor.F64} {
							if dt == tensor.F64 && (c.acc32 || !dev.Info.Float64) {
								continue
							}
							t.Run(fmt.Sprintf("%s/P%d/%s/%s", c.name, p, est, dt), func(t *testing.T) {
								got, _, err := Vulkan(context.Background(), dev, x.As(dt), Options{Estimator: est, test: test})
								if err != nil {
									t.Fatal(err)
								}
								checkResult(t, got, refs[est], dt)
							})
						}
					}
				}
			}
		})
	}
}

// TestVulkanHandCase checks the Vulkan path against the hand-derived
// constants of TestHandCase, in both dtypes.
func TestVulkanHandCase(t *testing.T) {
	x := tensor.New(tensor.F64, 1, 8, 3)
	for i, r := range handCase.x {
		copy(x.F64[i*3:], r[:])
	}
	for _, dev := range testdev.Devices(t) {
		for _, dt := range []tensor.DType{tensor.F64, tensor.F32} {
			if dt == tensor.F64 && !dev.Info.Float64 {
				continue
			}
			for _, c := range []struct {
				est Estimator
				rho float64
			}{{None, 0}, {PACO, handCase.rhoPACO}, {LedoitWolf, handCase.rhoLW}, {OAS, handCase.rhoOAS}} {
				res, _, err := Vulkan(context.Background(), dev, x.As(dt), Options{Estimator: c.est})
				if err != nil {
					t.Fatal(err)
				}
				checkHand(t, dev.Info.Name+" "+dt.String(), c.est, res, c.rho)
			}
		}
	}
}

// TestVulkanTooLarge checks that a P beyond what the kernel can stage is a
// clear error, not a wrong answer.
func TestVulkanTooLarge(t *testing.T) {
	for _, dev := range testdev.Devices(t) {
		_, err := newKernel(context.Background(), dev, 20000, 0, None, tensor.F32, testOptions{})
		if err == nil || !strings.Contains(err.Error(), "shared memory") {
			t.Errorf("%s: P = 20000: got %v, want an error about shared memory", dev.Info.Name, err)
		}
	}
}

// TestVulkanLongSets: llvmpipe (lavapipe) silently ends an invocation's
// loops after 65,535 iterations in all, and the kernel loops about three
// times a sample (the means, then the products in each pass), so sets of
// more than about 22,000 samples lost their last samples' products: at
// T = 30,000 and P = 5 the covariance was off by 0.90 (relative Frobenius)
// and a NaN sample went unseen, until the host split the samples over
// dispatches. Every estimator (Ledoit-Wolf carries its own sums), float64
// and float32 accumulation, two passes (P = 41, one block an invocation),
// and the gather path, against the reference on lavapipe; one case on
// other devices, which have no such limit but run the same split.
func TestVulkanLongSets(t *testing.T) {
	const T = 30000
	for _, dev := range testdev.Devices(t) {
		t.Run(dev.Info.Name, func(t *testing.T) {
			for _, c := range []struct {
				name  string
				acc32 bool
				maxe  int
				p, t  int
			}{{"default", false, 4, 5, T}, {"acc32", true, 4, 5, T}, {"passes", false, 1, 41, 25000}} { // two passes: 3 loops a sample
				test := &testOptions{acc32: c.acc32, maxBlocks: c.maxe}
				x := sampleSets(3, c.t, c.p, uint64(c.p), true)
				refs := referenceAll(fmt.Sprintf("long/P%d/T%d", c.p, c.t), x, allEstimators)
				ests := allEstimators
				if c.name != "default" {
					ests = []Estimator{PACO, LedoitWolf}
				}
				if !dev.Info.IsLavapipe() {
					// No loop limit there, and slower (SwiftShader: 3 s a
					// run): one case shows that the split agrees.
					if c.name != "default" {
						continue
					}
					ests = []Estimator{LedoitWolf}
				}
				for _, est := range ests {
					for _, dt := range []tensor.DType{tensor.F32, tensor.F64} {
						if dt == tensor.F64 && (c.acc32 || !dev.Info.Float64) {
							continue
						}
						t.Run(fmt.Sprintf("%s/%s/%s", c.name, est, dt), func(t *testing.T) {
							got, _, err := Vulkan(context.Background(), dev, x.As(dt), Options{Estimator: est, test: test})
							if err != nil {
								t.Fatal(err)
							}
							checkResult(t, got, refs[est], dt)
						})
					}
				}
			}
			if !dev.Info.IsLavapipe() {
				return
			}
			cube := testCube(T, 5, 6, 9)
			offs := PatchOffsets(1)
			g := Gather{Locations: ValidLocations(5, 6, offs), Offsets: offs}
			for _, est := range []Estimator{LedoitWolf} {
				want, err := ReferenceGather(cube, g, Options{Estimator: est})
				if err != nil {
					t.Fatal(err)
				}
				for _, dt := range []tensor.DType{tensor.F32, tensor.F64} {
					if dt == tensor.F64 && !dev.Info.Float64 {
						continue
					}
					t.Run(fmt.Sprintf("gather/%s/%s", est, dt), func(t *testing.T) {
						got, _, err := VulkanGather(context.Background(), dev, cube.As(dt), g, Options{Estimator: est})
						if err != nil {
							t.Fatal(err)
						}
						checkResult(t, got, want, dt)
					})
				}
			}
		})
	}
}
