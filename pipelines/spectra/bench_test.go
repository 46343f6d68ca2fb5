package spectra

import (
	"context"
	"testing"

	"github.com/vkstat/vkstat/device/testdev"
)

// The latent of docs/latent.md's measurements, (8, 16, 16, 64, 64): 2048
// frames of 64×64 for the spatial spectra, 8·16·4096 series of 16 frames
// for the temporal ones.
const benchB, benchH, benchW, benchF = 8 * 16 * 16, 64, 64, 16

func BenchmarkSpatialCPU(b *testing.B) {
	x := randomFrames(benchB, benchH, benchW, 1)
	b.ResetTimer()
	for range b.N {
		if _, _, err := SpatialSpectra(context.Background(), x, benchB, benchH, benchW, Options{}); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkTemporalCPU(b *testing.B) {
	x := randomFrames(benchB*benchH*benchW/benchF, 1, benchF, 1)
	b.ResetTimer()
	for range b.N {
		if _, _, err := TemporalSpectra(context.Background(), x, len(x)/benchF, benchF, Options{}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkSpatialVulkan times VkFFT in float32 on each test device
// (planning, which compiles VkFFT's shaders, included: once per call).
func BenchmarkSpatialVulkan(b *testing.B) {
	x := randomFrames(benchB, benchH, benchW, 1)
	for _, d := range testdev.Devices(b) {
		b.Run(d.Info.Name, func(b *testing.B) {
			for range b.N {
				_, tm, err := SpatialSpectra(context.Background(), x, benchB, benchH, benchW, Options{Device: d})
				if err != nil {
					b.Fatal(err)
				}
				b.ReportMetric(float64(tm.Kernel.Microseconds())/1e3, "kernel-ms")
			}
		})
	}
}
