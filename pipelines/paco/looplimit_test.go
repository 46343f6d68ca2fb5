package paco

import (
	"context"
	"fmt"
	"testing"

	"github.com/vkstat/vkstat/device/testdev"
	"github.com/vkstat/vkstat/tensor"
)

// TestVulkanVeryLongSequences: llvmpipe (lavapipe) silently ends an
// invocation's loops after 65,535 iterations in all, and the centring and
// lagged-product kernels loop once per frame of a block; a block held as
// many frames as one binding does (414,000 frames of 9×9 float32), so
// past 65,535 frames the means and the products lost the last frames until
// blocks were capped at blockFrameBudget frames. Against the reference on
// lavapipe.
func TestVulkanVeryLongSequences(t *testing.T) {
	const T, H = 70000, 9
	cube, ang := testCube(tensor.F64, T, H, H, 60, 3, [3]float64{3, 20, 0.5}) // SNR 20: float32 sums over 70,000 frames stay within tolerance
	in := Input{Cube: cube, Angles: ang, PSF: gaussPSF(5, 2), Radius: 1}
	ref, err := Reference(in)
	if err != nil {
		t.Fatal(err)
	}
	if ref.InvalidPixels == len(ref.SNR) {
		t.Fatal("every pixel invalid")
	}
	for _, dev := range testdev.Devices(t) {
		if !dev.Info.IsLavapipe() {
			continue // no loop limit; blocks are tested on every device (testOptions.maxBlockFrames)
		}
		for _, dt := range []tensor.DType{tensor.F32, tensor.F64} {
			if dt == tensor.F64 && !dev.Info.Float64 {
				continue
			}
			in := in
			in.Cube = cube.As(dt)
			got, err := vulkanOf(context.Background(), dev, in)
			if err != nil {
				t.Fatal(err)
			}
			tol := map[tensor.DType]float64{tensor.F32: 2e-2, tensor.F64: 1e-3}[dt]
			if !dev.Info.Float64 {
				// float32 accumulation of the detection sums over 70,000
				// frames: 0.022 off at SNR 20 (0.044 at SNR 200); the loop
				// limit put it 193 off.
				tol = 5e-2
			}
			checkAgainst(t, fmt.Sprintf("%s, %d frames, %s", dev.Info.Name, T, dt), got, ref, tol)
		}
	}
}
