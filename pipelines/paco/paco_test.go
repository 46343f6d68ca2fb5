package paco

import (
	"context"
	"fmt"
	"testing"

	"github.com/vkstat/vkstat/tensor"
)

// implFunc is the API every implementation offers.
type implFunc func(in Input) (*Maps, error)

func cpuImpl(in Input) (*Maps, error) { return CPU(context.Background(), in) }

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

func TestCPUAgreesWithReference(t *testing.T) {
	runAgreement(t, cpuImpl, tensor.F64, 1e-9)
	runAgreement(t, cpuImpl, tensor.F32, 1e-6)
}
