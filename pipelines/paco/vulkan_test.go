package paco

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/vkstat/vkstat/device/testdev"
	"github.com/vkstat/vkstat/engine"
	"github.com/vkstat/vkstat/tensor"
)

func TestMain(m *testing.M) { testdev.Main(m) }

func vulkanImpl(dev *engine.Device) implFunc {
	return func(in Input) (*Maps, error) { return vulkanOf(context.Background(), dev, in) }
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

// TestVulkanBlocks runs the path a cube larger than one allocation takes
// (blocks of frames: 7, 7, 6 of 20, say) against the reference, with bad
// pixels, and against the one-block run, which it must match to rounding.
func TestVulkanBlocks(t *testing.T) {
	for _, dev := range testdev.Devices(t) {
		t.Run(dev.Info.Name, func(t *testing.T) {
			dts := []tensor.DType{tensor.F32}
			if dev.Info.Float64 {
				dts = append(dts, tensor.F64)
			}
			for _, dt := range dts {
				cube, ang := testCube(dt, 20, 23, 25, 50, 20, [3]float64{6, 30, 40})
				in := Input{Cube: cube, Angles: ang, PSF: gaussPSF(9, 2), Radius: 2}
				one, err := vulkanOf(context.Background(), dev, in)
				if err != nil {
					t.Fatal(err)
				}
				in.test = &testOptions{maxBlockFrames: 7}
				blocked, err := vulkanOf(context.Background(), dev, in)
				if err != nil {
					t.Fatal(err)
				}
				tol := 1e-10
				if dt == tensor.F32 {
					tol = 1e-4
				}
				checkAgainst(t, fmt.Sprintf("%s blocked vs one block", dt), blocked, one, tol)
				runAgreement(t, vulkanImpl(dev), dt, map[tensor.DType]float64{tensor.F32: 2e-2, tensor.F64: 1e-3}[dt])
				runBadPixels(t, vulkanImpl(dev), dt)
			}
		})
	}
}

// TestVulkanDeviceLimit: a patch too large for the device's shared memory
// is a typed error (the command line words the advice), not a crash.
func TestVulkanDeviceLimit(t *testing.T) {
	for _, dev := range testdev.Devices(t) {
		cube, ang := testCube(tensor.F32, 10, 40, 40, 30, 1)
		_, err := vulkanOf(context.Background(), dev, Input{Cube: cube, Angles: ang, PSF: gaussPSF(9, 2), Radius: 8})
		if !errors.Is(err, engine.ErrDeviceLimit) || !strings.Contains(err.Error(), "shared memory") {
			t.Errorf("%s: radius 8: %v, want ErrDeviceLimit about shared memory", dev.Info.Name, err)
		}
	}
}
