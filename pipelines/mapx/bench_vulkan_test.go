package mapx

import (
	"context"
	"math/rand/v2"
	"testing"

	"github.com/vkstat/vkstat/device/testdev"
	"github.com/vkstat/vkstat/tensor"
)

// BenchmarkGrade2Vulkan is BenchmarkGrade2CPU on each Vulkan device, end to
// end from host arrays to host array (uploads and download included); the
// kernel-only time is reported as kernel-ms/op.
func BenchmarkGrade2Vulkan(b *testing.B) {
	const n = 5_000_000
	rng := rand.New(rand.NewPCG(0, 0))
	x, y := tensor.New(tensor.F64, n), tensor.New(tensor.F64, n)
	for i := 0; i < n; i++ {
		x.F64[i], y.F64[i] = rng.Float64(), rng.Float64()
	}
	for _, dev := range testdev.Devices(b) {
		b.Run(dev.Info.Name, func(b *testing.B) {
			if !dev.Info.Float64 {
				b.Skip("no float64")
			}
			b.SetBytes(3 * 8 * n)
			var kernel float64
			for i := 0; i < b.N; i++ {
				_, tm, err := Vulkan(context.Background(), dev, x, y, Options{A: 3.5, B: 2.8, C: 10})
				if err != nil {
					b.Fatal(err)
				}
				kernel += tm.Kernel.Seconds()
			}
			b.ReportMetric(kernel/float64(b.N)*1e3, "kernel-ms/op")
		})
	}
}
