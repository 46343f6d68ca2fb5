package latent

import (
	"context"
	"fmt"
	"math"
	"testing"

	"github.com/vkstat/vkstat/device/testdev"
	"github.com/vkstat/vkstat/device/tune"
	"github.com/vkstat/vkstat/internal/checks"
	"github.com/vkstat/vkstat/tensor"
)

// TestVulkanLongLatent: the channel correlation runs the covariance kernel
// over F·H·W samples a set, and llvmpipe (lavapipe) silently ends an
// invocation's loops after 65,535 iterations in all: 16 frames of 48×48
// (36,864 samples) came back NaN (no error) until the kernel split
// long sets over dispatches. Against the reference on every device.
func TestVulkanLongLatent(t *testing.T) {
	shape := []int{1, 4, 16, 48, 48}
	for _, st := range []storage{storages[2], storages[3]} { // float32, float64
		x := latentData(shape, 11, st)
		req := Options{Corr: true}
		want, err := Reference(x, req)
		if err != nil {
			t.Fatal(err)
		}
		for _, dev := range testdev.Devices(t) {
			t.Run(dev.Info.Name+"/"+st.name, func(t *testing.T) {
				got, err := deviceRunner(dev)(x, req)
				testdev.SkipNoFloat64(t, err)
				if err != nil {
					t.Fatal(err)
				}
				compare(t, got, want, tolFor(st.dt, !dev.Info.Float64))
			})
		}
	}
}

// TestVulkanLongMoments: moments over 4·128·130 = 66,560 values a slice,
// past lavapipe's 65,535 loop iterations per invocation, with each kernel
// choice for the rows (an invocation per record; a workgroup of one per
// record with one record per row asked for, so that only reduce's chunk
// cap splits them; a workgroup of 64), every storage type, both NaN
// policies: channel 0 holds a NaN and a +Inf, channel 1 is constant.
// Skewness and kurtosis come from reduce.Options.Central there; against the
// reference.
func TestVulkanLongMoments(t *testing.T) {
	shape := []int{1, 3, 4, 128, 130}
	hw := 4 * 128 * 130
	kernels := map[string]map[string]any{
		"invocation":  {"rows_kernel": "none"},
		"one lane":    {"rows_kernel": "workgroup", "rows_wg": 1, "rows_records": 1, "rows_min": 1},
		"workgroup64": {"rows_kernel": "workgroup", "rows_wg": 64, "rows_min": 1},
	}
	for _, st := range storages {
		x := latentData(shape, 13, st)
		setAt(x, 1000, math.NaN())
		setAt(x, 50_000, math.Inf(1))
		for p := hw; p < 2*hw; p++ {
			setAt(x, p, 0.25)
		}
		ref, in := x, x
		switch st.name {
		case "float16", "bfloat16":
			dt := map[string]tensor.DType{"float16": tensor.F16, "bfloat16": tensor.BF16}[st.name]
			in = x.As(dt)
			ref = tensor.FromF64(checks.Halves(dt == tensor.BF16, in.U16), shape...)
		}
		for _, policy := range []NaNPolicy{Propagate, Skip} {
			req := Options{Moments: true, Axes: []int{2, 3, 4}, NaN: policy}
			want, err := Reference(ref, req)
			if err != nil {
				t.Fatal(err)
			}
			for _, dev := range testdev.Devices(t) {
				for kname, set := range kernels {
					t.Run(fmt.Sprintf("%s/%s/%s/%s", dev.Info.Name, st.name, policy, kname), func(t *testing.T) {
						ctx := tune.WithOverride(context.Background(), "reduce", set)
						got, err := Run(ctx, dev, in, req)
						testdev.SkipNoFloat64(t, err)
						if err != nil {
							t.Fatal(err)
						}
						compare(t, got, want, tolFor(st.dt, !dev.Info.Float64))
						if s := got.Moments.Skew.F64; math.IsNaN(s[2]) || math.IsNaN(s[0]) != (policy == Propagate) || !math.IsNaN(s[1]) {
							t.Errorf("skew %v: want channel 0 NaN only under propagate, channel 1 (constant) NaN, channel 2 a number", s)
						}
					})
				}
			}
		}
	}
}
