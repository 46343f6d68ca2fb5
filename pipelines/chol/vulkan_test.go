package chol

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/vkstat/vkstat/engine"
	"github.com/vkstat/vkstat/internal/testdev"
	"github.com/vkstat/vkstat/pipelines/cov"
	"github.com/vkstat/vkstat/tensor"
)

func TestMain(m *testing.M) { testdev.Main(m) }

func vulkanImpl(t *testing.T, dev *engine.Device) cholImpl {
	return func(r Request) (*Result, error) {
		res, _, err := Vulkan(context.Background(), dev, r)
		return res, err
	}
}

// TestVulkan runs the suite on every Vulkan device, the validation layer on.
func TestVulkan(t *testing.T) {
	for _, dev := range testdev.Devices(t) {
		t.Run(dev.Info.Name, func(t *testing.T) {
			runCholSuite(t, vulkanImpl(t, dev))
		})
	}
}

func fusedVulkanImpl(t *testing.T, dev *engine.Device) fusedImpl {
	return func(cube *tensor.Tensor, g cov.Gather, h []float64, opt cov.Options) (*FusedResult, error) {
		r, _, err := FusedVulkan(context.Background(), dev, cube, g, h, opt)
		return r, err
	}
}

func TestFusedVulkan(t *testing.T) {
	for _, dev := range testdev.Devices(t) {
		t.Run(dev.Info.Name, func(t *testing.T) {
			runFusedSuite(t, fusedVulkanImpl(t, dev))
		})
	}
}

// TestVulkanGlobal runs the factorisation with L in global memory: forced
// on small P, and by necessity for P beyond workgroup memory (float64
// P = 100, float32 P = 150).
func TestVulkanGlobal(t *testing.T) {
	for _, dev := range testdev.Devices(t) {
		t.Run(dev.Info.Name, func(t *testing.T) {
			for _, c := range []struct {
				p     int
				force bool
			}{{1, true}, {5, true}, {49, true}, {100, false}, {150, false}} {
				for _, dt := range []tensor.DType{tensor.F64, tensor.F32} {
					t.Run(fmt.Sprintf("P%d/%s", c.p, dt), func(t *testing.T) {
						defer func(f bool) { forceGlobal = f }(forceGlobal)
						forceGlobal = c.force || (c.p == 100 && dt == tensor.F32) // float32 P = 100 fits
						k, err := newKernel(dev, c.p, dt)
						if err != nil {
							if dt == tensor.F64 && !dev.Info.Float64 {
								t.Skip(err)
							}
							t.Fatal(err)
						}
						if !k.global {
							t.Fatalf("P = %d %s did not take the global path", c.p, dt)
						}
						n := 65
						if c.p > 64 {
							n = 17
						}
						tc := makeCase(n, c.p, 2, false, true, dt == tensor.F64, uint64(c.p))
						want := tc.reference(t, fmt.Sprintf("global/P%d/%v", c.p, dt == tensor.F64))
						got, err := vulkanImpl(t, dev)(tc.request(dt))
						if err != nil {
							t.Fatal(err)
						}
						checkCholResult(t, got, want, dt, tc.request(dt))
					})
				}
			}
		})
	}
}

// TestVulkanFolded runs batches that need more than 65,535 workgroups, so
// that the batch index is folded over the dispatch dimensions.
func TestVulkanFolded(t *testing.T) {
	for _, dev := range testdev.Devices(t) {
		t.Run(dev.Info.Name, func(t *testing.T) {
			defer func(m int) { maxMPW = m }(maxMPW)
			maxMPW = 1
			const n = 70000
			tc := makeCase(n, 2, 1, true, true, false, 7)
			want := tc.reference(t, "folded")
			got, err := vulkanImpl(t, dev)(tc.request(tensor.F32))
			if err != nil {
				t.Fatal(err)
			}
			checkCholResult(t, got, want, tensor.F32, tc.request(tensor.F32))

			// Fused: one location per workgroup of the covariance kernel.
			offs := [][2]int{{0, 0}}
			cube := fusedCube(3, 270, 270, 9, 20, 5)
			g := cov.Gather{Locations: cov.ValidLocations(270, 270, offs), Offsets: offs}
			if len(g.Locations) <= 65535 {
				t.Fatalf("only %d locations", len(g.Locations))
			}
			fw, err := FusedReference(cube, g, []float64{2}, cov.Options{Estimator: cov.PACO})
			if err != nil {
				t.Fatal(err)
			}
			fg, err := fusedVulkanImpl(t, dev)(cube.As(tensor.F32), g, []float64{2}, cov.Options{Estimator: cov.PACO})
			if err != nil {
				t.Fatal(err)
			}
			conds := make([]float64, len(g.Locations))
			checkFusedResult(t, fg, fw, conds, tensor.F32)
		})
	}
}

// TestVulkanTooLarge checks that a P beyond one workgroup's invocations is
// a clear error, not a wrong answer.
func TestVulkanTooLarge(t *testing.T) {
	for _, dev := range testdev.Devices(t) {
		p := 2*int(dev.Info.MaxWorkgroupInvocation) + 1
		_, err := newKernel(dev, p, tensor.F32)
		if err == nil || !strings.Contains(err.Error(), "invocations") {
			t.Errorf("%s: P = %d: got %v, want an error about invocations", dev.Info.Name, p, err)
		}
		a := tensor.New(tensor.F32, 1, p, p)
		if _, _, err := Vulkan(context.Background(), dev, Request{A: a}); err == nil {
			t.Errorf("%s: P = %d: Vulkan gave no error", dev.Info.Name, p)
		}
	}
}
