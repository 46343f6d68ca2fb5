package quantile

import (
	"context"
	"math/rand/v2"
	"testing"

	"github.com/vkstat/vkstat/device/testdev"
	"github.com/vkstat/vkstat/engine"
	"github.com/vkstat/vkstat/tensor"
)

// benchStack is a float32 (T, H, W) = (64, 256, 256) stack of random
// values, the temporal-median workload of bench/peers/numpy_quantile.py's
// defaults.
func benchStack() *tensor.Tensor {
	rng := rand.New(rand.NewPCG(0, 0))
	x := tensor.New(tensor.F32, 64, 256, 256)
	for i := range x.F32 {
		x.F32[i] = rng.Float32()
	}
	return x
}

func benchRun(b *testing.B, dev *engine.Device, x *tensor.Tensor, opt Options) {
	b.SetBytes(int64(4 * x.Len()))
	var kernel float64
	for range b.N {
		res, err := Run(context.Background(), dev, x, opt)
		if err != nil {
			b.Fatal(err)
		}
		kernel += res.Timing.Kernel.Seconds()
	}
	b.ReportMetric(kernel/float64(b.N)*1e3, "kernel-ms/op")
}

// BenchmarkMedianCPU: the temporal median (q = 0.5 along axis 0) of a
// (64, 256, 256) float32 stack on the CPU path.
func BenchmarkMedianCPU(b *testing.B) {
	benchRun(b, nil, benchStack(), Options{Axis: 0, Q: []float64{0.5}})
}

// BenchmarkQuantilesCPU: the 10th, 50th and 90th percentiles of the same
// stack.
func BenchmarkQuantilesCPU(b *testing.B) {
	benchRun(b, nil, benchStack(), Options{Axis: 0, Q: []float64{0.1, 0.5, 0.9}})
}

// BenchmarkMedianVulkan is BenchmarkMedianCPU on each Vulkan device, from
// host array to host array; the kernel time is kernel-ms/op.
func BenchmarkMedianVulkan(b *testing.B) {
	x := benchStack()
	for _, dev := range testdev.Devices(b) {
		b.Run(dev.Info.Name, func(b *testing.B) { benchRun(b, dev, x, Options{Axis: 0, Q: []float64{0.5}}) })
	}
}
