package mapx

import (
	"context"
	"fmt"
	"os"
	"testing"

	"github.com/vkstat/vkstat/device/testdev"
	"github.com/vkstat/vkstat/device/tune"
	"github.com/vkstat/vkstat/engine"
	"github.com/vkstat/vkstat/tensor"
)

func TestMain(m *testing.M) {
	// The built-in tuning only: a tune cache of the machine's user must
	// not change what the tests run.
	os.Setenv("VKSTAT_TUNE_DIR", "off")
	testdev.Main(m)
}

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
	return func(x, y *tensor.Tensor, p Options) (*tensor.Tensor, error) {
		z, _, err := Vulkan(context.Background(), dev, x, y, p)
		return z, err
	}
}

// TestVulkanWorkgroups runs the map suite (its small cases) with the
// smallest and largest workgroup sizes bench --tune may choose.
func TestVulkanWorkgroups(t *testing.T) {
	for _, dev := range testdev.Devices(t) {
		for _, wg := range []int{64, int(dev.Info.MaxWorkgroupInvocation)} {
			t.Run(fmt.Sprintf("%s/wg%d", dev.Info.Name, wg), func(t *testing.T) {
				ctx := tune.WithOverride(context.Background(), "mapx", map[string]any{"workgroup": wg})
				runMapSuite(t, func(x, y *tensor.Tensor, p Options) (*tensor.Tensor, error) {
					z, _, err := Vulkan(ctx, dev, x, y, p)
					return z, err
				}, false)
			})
		}
	}
}
