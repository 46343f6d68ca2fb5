package paco

import (
	"context"
	"testing"

	"github.com/vkstat/vkstat/engine"
	"github.com/vkstat/vkstat/internal/testdev"
	"github.com/vkstat/vkstat/tensor"
)

func TestMain(m *testing.M) { testdev.Main(m) }

func vulkanImpl(dev *engine.Device) implFunc {
	return func(in Input) (*Maps, error) { return Vulkan(context.Background(), dev, in) }
}

func TestVulkanAgreesWithReference(t *testing.T) {
	for _, dev := range testdev.Devices(t) {
		t.Run(dev.Info.Name, func(t *testing.T) {
			if dev.Info.Float64 {
				runAgreement(t, vulkanImpl(dev), tensor.F64, 1e-3)
			}
			runAgreement(t, vulkanImpl(dev), tensor.F32, 2e-2)
		})
	}
}

func TestVulkanBadPixels(t *testing.T) {
	for _, dev := range testdev.Devices(t) {
		t.Run(dev.Info.Name, func(t *testing.T) { runBadPixels(t, vulkanImpl(dev), tensor.F32) })
	}
}
