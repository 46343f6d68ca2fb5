package mapx

import (
	"context"
	"testing"

	"github.com/vkstat/vkstat/engine"
	"github.com/vkstat/vkstat/internal/testdev"
	"github.com/vkstat/vkstat/tensor"
)

func TestMain(m *testing.M) { testdev.Main(m) }

// TestVulkan runs the map suite on every Vulkan device, the validation
// layer on; float64 cases skip on devices without shaderFloat64.
func TestVulkan(t *testing.T) {
	for _, dev := range testdev.Devices(t) {
		t.Run(dev.Info.Name, func(t *testing.T) {
			runMapSuite(t, vulkanImpl(t, dev), !testing.Short())
		})
	}
}

func vulkanImpl(t *testing.T, dev *engine.Device) mapImpl {
	return func(x, y *tensor.Tensor, p Params) (*tensor.Tensor, error) {
		z, _, err := Vulkan(context.Background(), dev, x, y, p)
		return z, err
	}
}
