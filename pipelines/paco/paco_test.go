package paco

import (
	"context"
	"fmt"
	"math"
	"testing"

	"github.com/vkstat/vkstat/tensor"
)

// implFunc is the API every implementation offers.
type implFunc func(in Input) (*Maps, error)

func cpuImpl(in Input) (*Maps, error) { return cpuOf(context.Background(), in) }

// runAgreement holds impl against Reference on small cubes, both compat
// modes, two radii and a star off the default centre.
func runAgreement(t *testing.T, impl implFunc, dt tensor.DType, tol float64) {
	for _, c := range []struct {
		T, H, W, R int
		compat     Compat
		center     *[2]int
	}{
		{20, 23, 25, 2, CompatNone, nil},
		{30, 25, 25, 4, CompatNone, nil},
		{24, 24, 22, 3, CompatVIP, nil},
		{16, 21, 21, 1, CompatNone, &[2]int{9, 11}},
	} {
		t.Run(fmt.Sprintf("T%d_%dx%d_R%d_compat%d", c.T, c.H, c.W, c.R, c.compat), func(t *testing.T) {
			cube, ang := testCube(dt, c.T, c.H, c.W, 50, uint64(c.T), [3]float64{6, 30, 40})
			in := Input{Cube: cube, Angles: ang, PSF: gaussPSF(9, 2), Radius: c.R, Compat: c.compat, Center: c.center}
			ref, err := Reference(in)
			if err != nil {
				t.Fatal(err)
			}
			got, err := impl(in)
			if err != nil {
				t.Fatal(err)
			}
			checkAgainst(t, "vs reference", got, ref, tol)
			if ref.InvalidPixels == len(ref.SNR) {
				t.Fatal("every pixel invalid: the test cube is too small")
			}
		})
	}
}

// runBadPixels plants a NaN pixel and a dead (constant) pixel: no error,
// NaN map pixels where their patches reach, the same ones on every path.
func runBadPixels(t *testing.T, impl implFunc, dt tensor.DType) {
	cube, ang := testCube(tensor.F64, 20, 25, 25, 40, 3)
	T, H, W := 20, 25, 25
	for tt := 0; tt < T; tt++ {
		cube.F64[tt*H*W+12*W+7] = 5 // dead pixel
	}
	cube.F64[7*H*W+15*W+16] = math.NaN()
	in := Input{Cube: cube.As(dt), Angles: ang, PSF: gaussPSF(9, 2), Radius: 2}
	ref, err := Reference(in)
	if err != nil {
		t.Fatal(err)
	}
	got, err := impl(in)
	if err != nil {
		t.Fatalf("bad pixels must not be an error: %v", err)
	}
	clean, _ := Reference(Input{Cube: testCubeOnly(dt, T, H, W), Angles: ang, PSF: gaussPSF(9, 2), Radius: 2})
	if ref.InvalidPixels <= clean.InvalidPixels || ref.InvalidLocations <= clean.InvalidLocations {
		t.Errorf("bad pixels did not invalidate anything: %d/%d invalid pixels/locations, clean cube %d/%d",
			ref.InvalidPixels, ref.InvalidLocations, clean.InvalidPixels, clean.InvalidLocations)
	}
	checkAgainst(t, "bad pixels", got, ref, 2e-2)
	if got.InvalidLocations != ref.InvalidLocations {
		t.Errorf("%d invalid locations, reference %d", got.InvalidLocations, ref.InvalidLocations)
	}
}

func testCubeOnly(dt tensor.DType, T, H, W int) *tensor.Tensor {
	c, _ := testCube(dt, T, H, W, 40, 3)
	return c
}

func TestCPUBadPixels(t *testing.T) {
	runBadPixels(t, cpuImpl, tensor.F64)
}

func TestCPUAgreesWithReference(t *testing.T) {
	runAgreement(t, cpuImpl, tensor.F64, 1e-9)
	runAgreement(t, cpuImpl, tensor.F32, 1e-6)
}
