package paco

import (
	"context"
	"errors"
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/vkstat/vkstat/engine"
	"github.com/vkstat/vkstat/tensor"
)

// budgetDevice opens device index of a new instance (validation on) with
// a device memory budget, and float64 disabled when noF64; it skips when
// there is no Vulkan. The device and instance close with the test.
func budgetDevice(t *testing.T, index int, budget int64, noF64 bool) *engine.Device {
	t.Helper()
	inst, err := engine.NewInstance(engine.Options{Validate: true})
	if err != nil {
		t.Skipf("no Vulkan: %v", err)
	}
	opt := engine.DeviceOptions{Budget: budget}
	if noF64 {
		opt.Disable |= engine.Float64
	}
	dev, err := inst.OpenWith(index, opt)
	if err != nil {
		inst.Close()
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := dev.Close(); err != nil {
			t.Error(err)
		}
		if err := inst.Close(); err != nil {
			t.Error(err)
		}
	})
	return dev
}

// TestVulkanBudgetPasses (issue 24): a 96×96×64 float32 cube needed 8 MiB
// of device memory more than an 8 MiB budget held and was refused; now the
// locations run in passes over bands of rows, and the SNR map is the CPU
// path's (≤ 2e-3) on lavapipe. On every device (lavapipe, lavapipe
// without float64, whose trajectory table then comes in chunks too, and
// SwiftShader when present), a small cube with a dead pixel and a NaN,
// nearest placement (and sub-pixel on lavapipe): a budget below one row of locations is
// refused with the minimum it needs, in KiB, and that minimum runs, in
// passes, to the CPU path's maps.
func TestVulkanBudgetPasses(t *testing.T) {
	inst, err := engine.NewInstance(engine.Options{})
	if err != nil {
		t.Skipf("no Vulkan: %v", err)
	}
	infos := inst.Devices()
	inst.Close()
	if len(infos) == 0 {
		t.Skip("no Vulkan device")
	}
	ctx := context.Background()
	// The case on lavapipe (the first device without it): a few
	// seconds there, a few times that on SwiftShader.
	first := infos[0]
	for _, info := range infos {
		if strings.Contains(info.Name, "llvmpipe") {
			first = info
		}
	}

	t.Run("96x96x64 in 8 MiB", func(t *testing.T) {
		dev := budgetDevice(t, first.Index, 8<<20, false)
		cube, ang := testCube(tensor.F32, 64, 96, 96, 60, 11, [3]float64{20, 45, 60})
		in := Input{Cube: cube, Angles: ang, PSF: gaussPSF(9, 3), Radius: 4}
		want, err := cpuOf(ctx, in)
		if err != nil {
			t.Fatal(err)
		}
		got, err := vulkanOf(ctx, dev, in)
		if err != nil {
			t.Fatal(err)
		}
		if got.Passes < 2 {
			t.Errorf("%s, budget 8 MiB: %d pass, want several", dev.Info.Name, got.Passes)
		}
		t.Logf("%s, budget 8 MiB: %d passes", dev.Info.Name, got.Passes)
		checkAgainst(t, "8 MiB vs CPU", got, want, 2e-3)
	})

	small, ang := testCube(tensor.F64, 12, 30, 32, 50, 5, [3]float64{8, 30, 40})
	T, H, W := 12, 30, 32
	for tt := 0; tt < T; tt++ {
		small.F64[tt*H*W+12*W+7] = 5 // dead pixel
	}
	small.F64[7*H*W+15*W+16] = math.NaN()
	for _, info := range infos {
		for _, noF64 := range []bool{false, true} {
			if noF64 && !info.Float64 {
				continue
			}
			for _, pl := range []Placement{PlacementNearest, PlacementSubpixel} {
				if pl == PlacementSubpixel && info.Index != first.Index {
					continue // seconds on SwiftShader; its kernels are lavapipe's
				}
				name := fmt.Sprintf("%s/float64 %v/%s", info.Name, !noF64 && info.Float64, pl)
				t.Run(name, func(t *testing.T) {
					in := Input{Cube: small.As(tensor.F32), Angles: ang, PSF: gaussPSF(9, 2), Radius: 2, Placement: pl}
					want, err := cpuOf(ctx, in)
					if err != nil {
						t.Fatal(err)
					}
					// Too small a budget says what it takes, in KiB; that
					// much works, in passes.
					_, err = vulkanOf(ctx, budgetDevice(t, info.Index, 256<<10, noF64), in)
					m := regexp.MustCompile(`needs at least ([0-9,]+) KiB`).FindStringSubmatch(fmt.Sprint(err))
					if !errors.Is(err, engine.ErrNoFit) || m == nil {
						t.Fatalf("budget 256 KiB: %v, want ErrNoFit saying what the cube needs in KiB", err)
					}
					kib, _ := strconv.ParseInt(strings.ReplaceAll(m[1], ",", ""), 10, 64)
					got, err := vulkanOf(ctx, budgetDevice(t, info.Index, kib<<10, noF64), in)
					if err != nil {
						t.Fatalf("budget %d KiB, what the error asked for: %v", kib, err)
					}
					if got.Passes < 2 {
						t.Errorf("budget %d KiB: %d pass, want several", kib, got.Passes)
					}
					t.Logf("budget %d KiB: %d passes", kib, got.Passes)
					checkAgainst(t, "in passes vs CPU", got, want, 2e-3)
					if got.InvalidLocations != want.InvalidLocations {
						t.Errorf("%d invalid locations, CPU %d", got.InvalidLocations, want.InvalidLocations)
					}
				})
			}
		}
	}
}
