package latent

import (
	"fmt"
	"testing"

	"github.com/vkstat/vkstat/device/testdev"
	"github.com/vkstat/vkstat/internal/checks"
	"github.com/vkstat/vkstat/tensor"
)

// runHalfSuite holds run on float16 and bfloat16 tensors, kept 16-bit up to
// the device, against Reference on the values decoded independently
// (checks.Halves), to float32's tolerances: the values are exactly float32s,
// so the error is the accumulation's. Every suite shape, both NaN policies,
// with NaN, +Inf, a constant channel and a constant frame planted.
func runHalfSuite(t *testing.T, run runner, acc32 bool) {
	for si, shape := range suiteShapes {
		for _, st := range storages[:2] { // float16, bfloat16
			dt := map[string]tensor.DType{"float16": tensor.F16, "bfloat16": tensor.BF16}[st.name]
			for _, policy := range []NaNPolicy{Propagate, Skip} {
				t.Run(fmt.Sprintf("%v/%s/%s", shape, dt, policy), func(t *testing.T) {
					x := latentData(shape, uint64(100*si+7), st)
					d, _ := DimsOf(shape)
					plant(x, d, si)
					x16 := x.As(dt) // exact: the values are 16-bit ones
					ref := tensor.FromF64(checks.Halves(dt == tensor.BF16, x16.U16), shape...)
					req := Options{Moments: true, Axes: axesFor(si, len(shape)), DDof: si % 2, Corr: true, CorrFrames: true,
						LagCorr: len(shape) == 5, Lags: max(1, min(3, d.F-1)), NaN: policy}
					got, err := run(x16, req)
					if err != nil {
						t.Fatal(err)
					}
					if x16.DType != dt {
						t.Fatalf("the input became %s", x16.DType)
					}
					want, err := Reference(ref, req)
					if err != nil {
						t.Fatal(err)
					}
					compare(t, got, want, tolFor(tensor.F32, acc32))
				})
			}
		}
	}
}

func TestCPUHalf(t *testing.T) { runHalfSuite(t, cpuRunner, false) }

func TestVulkanHalf(t *testing.T) {
	for _, dev := range testdev.Devices(t) {
		t.Run(dev.Info.Name, func(t *testing.T) { runHalfSuite(t, deviceRunner(dev), !dev.Info.Float64) })
	}
}
