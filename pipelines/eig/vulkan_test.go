package eig

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/vkstat/vkstat/device/testdev"
	"github.com/vkstat/vkstat/engine"
	"github.com/vkstat/vkstat/tensor"
)

func TestMain(m *testing.M) { testdev.Main(m) }

func vulkanImpl(dev *engine.Device) eigImpl {
	return func(a *tensor.Tensor, opt Options) (*Result, error) {
		r, _, err := Vulkan(context.Background(), dev, a, opt)
		return r, err
	}
}

// TestVulkan runs the suite on every Vulkan device, the validation layer
// on.
func TestVulkan(t *testing.T) {
	for _, dev := range testdev.Devices(t) {
		t.Run(dev.Info.Name, func(t *testing.T) {
			t.Logf("A in workgroup memory up to n = %d (float32), %d (float64)", SharedLimit(dev, tensor.F32), SharedLimit(dev, tensor.F64))
			runEigSuite(t, vulkanImpl(dev))
		})
	}
}

// TestVulkanGlobal runs the kernel with A in global memory: forced on
// small n, and by necessity for n beyond workgroup memory.
func TestVulkanGlobal(t *testing.T) {
	for _, dev := range testdev.Devices(t) {
		t.Run(dev.Info.Name, func(t *testing.T) {
			for _, c := range []struct {
				n     int
				force bool
			}{{1, true}, {33, true}, {0, false}} {
				for _, dt := range dtypes() {
					n := c.n
					if n == 0 {
						n = SharedLimit(dev, dt) + 1
						if n > 200 {
							n = 200
						}
					}
					t.Run(fmt.Sprintf("n%d/%s", n, dt), func(t *testing.T) {
						test := &testOptions{global: c.force}
						k, err := newKernel(dev, n, dt, test)
						if err != nil {
							skipNoFloat64(t, err)
							t.Fatal(err)
						}
						if !k.global {
							t.Skipf("n = %d %s fits workgroup memory on this device", n, dt)
						}
						a := batch(2, n, uint64(n)+1)
						check(t, a, run(t, vulkanImpl(dev), a.As(dt), Options{test: test}), dt)
					})
				}
			}
		})
	}
}

// TestVulkanTooLarge: an order whose single Jacobi round would pass the
// per-dispatch loop budget is an error wrapping engine.ErrDeviceLimit, not
// a wrong answer (the budget is lowered here so that n = 40 needs it).
func TestVulkanTooLarge(t *testing.T) {
	for _, dev := range testdev.Devices(t) {
		_, _, err := Vulkan(context.Background(), dev, batch(1, 40, 1).As(tensor.F32), Options{test: &testOptions{loopBudget: 40}})
		if !errors.Is(err, engine.ErrDeviceLimit) {
			t.Errorf("%s: n = 40 under a budget of 40 iterations: got %v, want ErrDeviceLimit", dev.Info.Name, err)
		}
	}
}

// TestRunCPU: Run without a device is the CPU path.
func TestRunCPU(t *testing.T) {
	a := batch(2, 5, 3)
	r, err := Run(context.Background(), nil, a, Options{})
	if err != nil || r.Timing.Wall <= 0 {
		t.Fatalf("Run(nil): %v, result %+v", err, r)
	}
	check(t, a, r, tensor.F64)
}
