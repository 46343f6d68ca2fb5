package cov

import (
	"context"
	"fmt"
	"testing"

	"github.com/vkstat/vkstat/device/testdev"
	"github.com/vkstat/vkstat/device/tune"
	"github.com/vkstat/vkstat/engine"
	"github.com/vkstat/vkstat/internal/checks"
	"github.com/vkstat/vkstat/tensor"
)

// tiledCtx forces the tiled kernel (cov_tiled.comp) with the parameters set
// adds (split-K off: it would take the long sets of estimator None).
func tiledCtx(set map[string]any) context.Context {
	m := map[string]any{"kernel": "tiled", "splitk_min_t": 0}
	for k, v := range set {
		m[k] = v
	}
	return tune.WithOverride(context.Background(), "cov", m)
}

// requireTiled fails t unless the kernel that ctx selects for p variables
// of dt runs sets of tt samples on cov_tiled.comp (so that a fallback to
// cov.comp cannot pass for the tiled kernel), where p fits a workgroup of
// dev; it reports whether it does.
func requireTiled(t *testing.T, ctx context.Context, dev *engine.Device, p, tt int, dt tensor.DType) bool {
	t.Helper()
	k, err := newKernel(ctx, dev, p, 0, None, dt, testOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if k.useTiled(tt) {
		return true
	}
	// Every P here fits a workgroup of 256 with R ≤ 8 (P = 130: R = 6, 253
	// invocations), the least the devices tested offer.
	if int(dev.Info.MaxWorkgroupInvocation) >= 256 {
		t.Fatalf("P = %d, T = %d, %s: the tiled kernel was not used (tiled %+v)", p, tt, dt, k.tiled)
	}
	t.Logf("P = %d, %s: %s falls back to the blocks kernel (workgroup limit %d)", p, dt, dev.Info.Name, dev.Info.MaxWorkgroupInvocation)
	return false
}

// tiledRefs holds the float64 Reference of x for every estimator and ddof.
func tiledRefs(t *testing.T, x *tensor.Tensor) map[Options]*Result {
	out := map[Options]*Result{}
	for _, est := range allEstimators {
		for _, ddof := range []int{0, 1} {
			opt := Options{Estimator: est, DDof: ddof}
			r, err := Reference(x, opt)
			if err != nil {
				t.Fatal(err)
			}
			out[opt] = r
		}
	}
	return out
}

// TestVulkanTiled holds the tiled kernel, forced through the tune override,
// against Reference on every device (lavapipe, lavapipe without float64,
// SwiftShader where present): every estimator, ddof 0 and 1, P of 1 to 130
// (a register block of R = 4 straddled: 3, 4, 5, 16, 17; PACO's 49; 130,
// whose 561 blocks of 4×4 exceed SwiftShader's workgroup, with R raised to
// 6 there), T of 2 to 252 (tiles
// of 32 straddled: 63, 64, 65), float32, float64, float16 and bfloat16.
// Five sets, one constant and one with a NaN sample.
func TestVulkanTiled(t *testing.T) {
	ps := []int{1, 3, 4, 5, 16, 17, 49, 64, 81, 130}
	ts := []int{2, 3, 63, 64, 65, 252}
	if testing.Short() { // the race runs: the tile edges, not the whole grid (make test runs it)
		ps, ts = []int{1, 5, 17, 49, 130}, []int{2, 65}
	}
	ctx := tiledCtx(nil)
	for _, dev := range testdev.Devices(t) {
		t.Run(dev.Info.Name, func(t *testing.T) {
			for _, p := range ps {
				for _, tt := range ts {
					x := sampleSets(5, tt, p, uint64(31*p+tt), true)
					data := map[tensor.DType]*tensor.Tensor{tensor.F32: x, tensor.F64: x}
					refs := map[tensor.DType]map[Options]*Result{}
					refs[tensor.F32] = tiledRefs(t, x)
					refs[tensor.F64] = refs[tensor.F32]
					for _, dt := range []tensor.DType{tensor.F16, tensor.BF16} {
						h := x.As(dt)
						data[dt] = h
						refs[dt] = tiledRefs(t, tensor.FromF64(checks.Halves(dt == tensor.BF16, h.U16), h.Shape...))
					}
					for _, dt := range []tensor.DType{tensor.F32, tensor.F64, tensor.F16, tensor.BF16} {
						if dt == tensor.F64 && !dev.Info.Float64 {
							continue
						}
						t.Run(fmt.Sprintf("P%d/T%d/%s", p, tt, dt), func(t *testing.T) {
							requireTiled(t, ctx, dev, p, tt, dt)
							want := dt
							if dt.Is16() {
								want = tensor.F32
							}
							for _, est := range allEstimators {
								for _, ddof := range []int{0, 1} {
									opt := Options{Estimator: est, DDof: ddof}
									got, _, err := Vulkan(ctx, dev, data[dt].As(dt), opt)
									if err != nil {
										t.Fatalf("%v: %v", opt, err)
									}
									t.Run(fmt.Sprintf("%s/ddof%d", est, ddof), func(t *testing.T) {
										checkResult(t, got, refs[dt][opt], want)
									})
								}
							}
						})
					}
				}
			}
		})
	}
}

// TestVulkanTiledParams runs the tiled kernel with other register blocks,
// workgroups and tiles, float accumulation chosen through tune, many sets
// (several workgroups, the last one part-filled), and the fallback to the
// blocks kernel past tiled_max_t.
func TestVulkanTiledParams(t *testing.T) {
	for _, dev := range testdev.Devices(t) {
		t.Run(dev.Info.Name, func(t *testing.T) {
			for _, c := range []struct {
				name string
				set  map[string]any
				n    int
				ps   []int
				ts   []int
			}{
				{"acc-float", map[string]any{"accumulate": "float"}, 7, []int{5, 49, 130}, []int{63, 252}},
				{"r1-tt8", map[string]any{"tiled_r": 1, "tiled_tt": 8}, 5, []int{3, 17}, []int{2, 65}},
				{"r2-wg64", map[string]any{"tiled_r": 2, "tiled_wg": 64}, 9, []int{7, 16, 49}, []int{33, 100}},
				{"r8-tt1", map[string]any{"tiled_r": 8, "tiled_tt": 1}, 5, []int{9, 49}, []int{3, 40}},
				{"r3-wg1", map[string]any{"tiled_r": 3, "tiled_wg": 1}, 4, []int{10, 49}, []int{20}},
				{"many-sets", nil, 1001, []int{1, 2, 49}, []int{24}},
			} {
				ctx := tiledCtx(c.set)
				for _, p := range c.ps {
					for _, tt := range c.ts {
						x := sampleSets(c.n, tt, p, uint64(7*p+tt), true)
						refs := tiledRefs(t, x)
						for _, dt := range []tensor.DType{tensor.F32, tensor.F64, tensor.BF16} {
							if dt == tensor.F64 && !dev.Info.Float64 {
								continue
							}
							in, ref := x.As(dt), refs
							want := dt
							if dt.Is16() {
								ref, want = tiledRefs(t, tensor.FromF64(checks.Halves(true, in.U16), in.Shape...)), tensor.F32
							}
							t.Run(fmt.Sprintf("%s/P%d/T%d/%s", c.name, p, tt, dt), func(t *testing.T) {
								requireTiled(t, ctx, dev, p, tt, dt)
								for _, est := range allEstimators {
									opt := Options{Estimator: est, DDof: int(tt % 2)}
									got, _, err := Vulkan(ctx, dev, in, opt)
									if err != nil {
										t.Fatal(err)
									}
									checkResult(t, got, ref[opt], want)
								}
							})
						}
					}
				}
			}
			t.Run("fallback", func(t *testing.T) {
				ctx := tiledCtx(map[string]any{"tiled_max_t": 10})
				x := sampleSets(6, 63, 13, 3, true)
				refs := tiledRefs(t, x)
				k, err := newKernel(ctx, dev, 13, 0, None, tensor.F32, testOptions{})
				if err != nil {
					t.Fatal(err)
				}
				if k.tiled == nil || !k.useTiled(10) || k.useTiled(11) {
					t.Fatalf("tiled_max_t = 10: tiled %+v", k.tiled)
				}
				got, _, err := Vulkan(ctx, dev, x.As(tensor.F32), Options{Estimator: LedoitWolf})
				if err != nil {
					t.Fatal(err)
				}
				checkResult(t, got, refs[Options{Estimator: LedoitWolf}], tensor.F32)
			})
		})
	}
}

// TestVulkanTiledSuite runs the whole cov suite (gathers of PACO and block
// patches included, which the tiled kernel reads through base/off as
// cov.comp does) with the tiled kernel forced.
func TestVulkanTiledSuite(t *testing.T) {
	ctx := tiledCtx(nil)
	for _, dev := range testdev.Devices(t) {
		t.Run(dev.Info.Name, func(t *testing.T) {
			runCovSuite(t, covImpl{
				array: func(x *tensor.Tensor, opt Options) (*Result, error) {
					r, _, err := Vulkan(ctx, dev, x, opt)
					return r, err
				},
				gather: func(cube *tensor.Tensor, g Gather, opt Options) (*Result, error) {
					r, _, err := VulkanGather(ctx, dev, cube, g, opt)
					return r, err
				},
			})
		})
	}
}

// TestVulkanTiledStrided runs the strided-sets suite (the latent layouts)
// with the tiled kernel asked for: it reads the sets through the same
// gather addressing.
func TestVulkanTiledStrided(t *testing.T) {
	ctx := tiledCtx(nil)
	for _, dev := range testdev.Devices(t) {
		t.Run(dev.Info.Name, func(t *testing.T) {
			runStridedSuite(t, vulkanStridedCtx(ctx, dev), dev.Info.Float64)
		})
	}
}

// TestVulkanTiledLongest runs the tiled kernel on sets of exactly the most
// samples it takes (maxT, from its loop count), with Ledoit-Wolf (the most
// loops), against Reference: lavapipe silently ends an invocation's loops
// after 65,535 iterations, which would drop the last samples' products.
func TestVulkanTiledLongest(t *testing.T) {
	ctx := tiledCtx(nil)
	for _, dev := range testdev.Devices(t) {
		for _, p := range []int{1, 5, 49} {
			t.Run(fmt.Sprintf("%s/P%d", dev.Info.Name, p), func(t *testing.T) {
				k, err := newKernel(ctx, dev, p, 0, None, tensor.F32, testOptions{})
				if err != nil {
					t.Fatal(err)
				}
				if k.tiled == nil {
					t.Fatal("no tiled kernel")
				}
				tt := k.tiled.maxT
				t.Logf("maxT = %d (R %d, %d sets of a workgroup of %d, tiles of %d)", tt, k.tiled.r, k.tiled.sets, k.tiled.wg, k.tiled.tt)
				x := sampleSets(3, tt, p, uint64(p), false)
				opt := Options{Estimator: LedoitWolf}
				want, err := Reference(x, opt)
				if err != nil {
					t.Fatal(err)
				}
				got, _, err := Vulkan(ctx, dev, x.As(tensor.F32), opt)
				if err != nil {
					t.Fatal(err)
				}
				checkResult(t, got, want, tensor.F32)
			})
		}
	}
}
