package latent

import (
	"context"
	"testing"

	"github.com/vkstat/vkstat/internal/testdev"
	"github.com/vkstat/vkstat/pipelines/reduce"
	"github.com/vkstat/vkstat/tensor"
)

// BenchmarkShape times the second pass of the moments (skewness and
// kurtosis from the mean) alone, on scripts/bench-latent.sh's spatial
// case: a (2, 16, 16, 64, 64) float32 latent seen as (512, 4096), on the
// host (shape34, what runMoments did on every path) and on each device
// (reduce.Central: the upload, the central sums, the records back).
func BenchmarkShape(b *testing.B) {
	cfg := DefaultSynth()
	cfg.N, cfg.F, cfg.H, cfg.W = 2, 16, 64, 64
	x, err := Synth(cfg)
	if err != nil {
		b.Fatal(err)
	}
	outer, inner := 2*16*16, 64*64
	p := x.As(tensor.F32)
	p.Shape = []int{outer, inner}
	mean := make([]float64, outer)
	skew, kurt := make([]float64, outer), make([]float64, outer)
	b.Run("host", func(b *testing.B) {
		b.SetBytes(int64(p.Bytes()))
		for range b.N {
			shape34(p.F32, outer, inner, false, skew, kurt)
		}
	})
	for _, dev := range testdev.Devices(b) {
		b.Run(dev.Info.Name, func(b *testing.B) {
			b.SetBytes(int64(p.Bytes()))
			var up, kern float64
			for range b.N {
				_, tm, err := reduce.Central(context.Background(), dev, tensor.SourceOf(p), mean)
				if err != nil {
					b.Fatal(err)
				}
				up += tm.Upload.Seconds()
				kern += tm.Kernel.Seconds()
			}
			b.ReportMetric(up/float64(b.N)*1e3, "upload-ms/op")
			b.ReportMetric(kern/float64(b.N)*1e3, "kernel-ms/op")
		})
	}
}
