package reduce

import (
	"context"
	"testing"

	"github.com/vkstat/vkstat/internal/testdev"
	"github.com/vkstat/vkstat/tensor"
)

func TestMain(m *testing.M) { testdev.Main(m) }

// TestVulkan runs the reduction suite on every Vulkan device, the
// validation layer on; float64 cases skip on devices without shaderFloat64.
func TestVulkan(t *testing.T) {
	for _, dev := range testdev.Devices(t) {
		t.Run(dev.Info.Name, func(t *testing.T) {
			runReduceSuite(t, func(in *tensor.Tensor, opt Options, stats []Stat) (map[Stat]*tensor.Tensor, error) {
				if in.DType == tensor.F64 && !dev.Info.Float64 {
					t.Skipf("%s has no float64", dev.Info.Name)
				}
				out, _, err := Vulkan(context.Background(), dev, in, opt, stats)
				return out, err
			}, !testing.Short())
		})
	}
}
