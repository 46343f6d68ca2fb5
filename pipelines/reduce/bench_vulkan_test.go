package reduce

import (
	"context"
	"math/rand/v2"
	"testing"

	"github.com/vkstat/vkstat/device/testdev"
	"github.com/vkstat/vkstat/tensor"
)

// BenchmarkMeanStdVulkan is BenchmarkMeanStdCPU on each Vulkan device, end
// to end (upload, kernels, download, host merge); kernel-only time is
// reported as kernel-ms/op.
func BenchmarkMeanStdVulkan(b *testing.B) {
	if testing.Short() {
		b.Skip("large input: skipped under -short")
	}
	in := tensor.New(tensor.F32, 64, 1024, 1024)
	rng := rand.New(rand.NewPCG(0, 0))
	for i := range in.F32 {
		in.F32[i] = rng.Float32()
	}
	for _, dev := range testdev.Devices(b) {
		b.Run(dev.Info.Name, func(b *testing.B) {
			b.SetBytes(int64(in.Bytes()))
			var kernel float64
			for i := 0; i < b.N; i++ {
				_, tm, err := Vulkan(context.Background(), dev, in, Options{Axes: Axes{0}}, []Stat{Mean, Std})
				if err != nil {
					b.Fatal(err)
				}
				kernel += tm.Kernel.Seconds()
			}
			b.ReportMetric(kernel/float64(b.N)*1e3, "kernel-ms/op")
		})
	}
}
