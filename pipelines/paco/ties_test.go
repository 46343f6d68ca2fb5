package paco

import (
	"context"
	"math"
	"os"
	"testing"

	"github.com/vkstat/vkstat/device/testdev"
	"github.com/vkstat/vkstat/tensor"
)

// float32Position is Position computed in float32, as a kernel without
// float64 would compute it.
func float32Position(p *Prepared, y0, x0, l int) (int, int) {
	dy, dx := float32(y0-p.CY), float32(x0-p.CX)
	cs, sn := float32(p.Cos[l]), float32(p.Sin[l])
	py, px, qy, qx := dy*cs, dx*cs, dx*sn, dy*sn
	yl := float32(p.CY) + (py - qy)
	xl := float32(p.CX) + (px + qx)
	return int(math.Round(float64(yl))), int(math.Round(float64(xl)))
}

// TestTrajectoryTies pins the cause of issue 13: on the verify case that
// failed on devices without float64, a few trajectories pass within
// float32 rounding of a half pixel, where float32 picks the other pixel and
// those pixels' SNR came out at half its value. Every device, including
// one without float64, must match the reference on exactly those pixels.
func TestTrajectoryTies(t *testing.T) {
	// verify's first PACO case: 24 frames of 32×32, 2.6° apart, R = 2.
	const T, H, W = 24, 32, 32
	cube, ang := testCube(tensor.F32, T, H, W, 60, 11, [3]float64{8, 45, 100})
	for l := range ang {
		ang[l] = 60 * float64(l) / (T - 1)
	}
	in := Input{Cube: cube, Angles: ang, PSF: gaussPSF(9, 2), Radius: 2}
	p, err := prepare(in)
	if err != nil {
		t.Fatal(err)
	}
	var ties []int
	for q := 0; q < H*W; q++ {
		for l := 0; l < T; l++ {
			y, x := p.Position(q/W, q%W, l)
			if y32, x32 := float32Position(p, q/W, q%W, l); y32 != y || x32 != x {
				ties = append(ties, q)
				break
			}
		}
	}
	if len(ties) == 0 {
		t.Fatal("no trajectory rounds differently in float32: the case no longer tests the hazard")
	}
	ref, err := Reference(Input{Cube: cube.As(tensor.F64), Angles: ang, PSF: in.PSF, Radius: 2})
	if err != nil {
		t.Fatal(err)
	}
	tab := make([]int32, T*H*W)
	p.Trajectories(0, T, tab)
	for l := 0; l < T; l++ {
		for q := 0; q < H*W; q++ {
			y, x := p.Position(q/W, q%W, l)
			want := int32(y*W + x)
			if y < 0 || y >= H || x < 0 || x >= W {
				want = -1
			}
			if tab[l*H*W+q] != want {
				t.Fatalf("Trajectories[%d, %d] = %d, Position says %d", l, q, tab[l*H*W+q], want)
			}
		}
	}
	devs := testdev.Devices(t)
	noF64 := false
	for _, dev := range devs {
		noF64 = noF64 || !dev.Info.Float64
		t.Run(dev.Info.Name, func(t *testing.T) {
			got, err := vulkanOf(context.Background(), dev, in)
			if err != nil {
				t.Fatal(err)
			}
			for _, q := range ties {
				if math.IsNaN(ref.SNR[q]) {
					continue
				}
				if d := math.Abs(got.SNR[q] - ref.SNR[q]); !(d <= 1e-4*(1+math.Abs(ref.SNR[q]))) {
					t.Errorf("snr[%d] (a trajectory near a half pixel) = %.6g, reference %.6g", q, got.SNR[q], ref.SNR[q])
				}
			}
		})
	}
	if !noF64 && os.Getenv("VKSTAT_TEST_WITHOUT_FLOAT64") != "0" {
		t.Error("no device without float64 among the test devices (testdev opens one)")
	}
}
