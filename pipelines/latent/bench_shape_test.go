package latent

import (
	"context"
	"testing"

	"github.com/vkstat/vkstat/device/testdev"
	"github.com/vkstat/vkstat/pipelines/reduce"
	"github.com/vkstat/vkstat/tensor"
)

// BenchmarkMoments times the moments' two passes on scripts/
// bench-latent.sh's spatial case, a (2, 16, 16, 64, 64) float32 latent seen
// as (512, 4096), on each device, three ways: "host" is what runMoments did
// before skewness and kurtosis ran on the device (reduce.Run, then shape34
// on the host); "fused" is reduce.Options.Central (both passes in one
// submission, the array uploaded once); "reupload" is reduce.Run, then
// reduce.Central (the array uploaded again).
func BenchmarkMoments(b *testing.B) {
	cfg := DefaultSynth()
	cfg.N, cfg.F, cfg.H, cfg.W = 2, 16, 64, 64
	x, err := Synth(cfg)
	if err != nil {
		b.Fatal(err)
	}
	outer, inner := 2*16*16, 64*64
	p := x.As(tensor.F32)
	p.Shape = []int{outer, inner}
	skew, kurt := make([]float64, outer), make([]float64, outer)
	want := []reduce.Stat{reduce.Mean, reduce.Var, reduce.Std, reduce.Min, reduce.Max}
	opt := reduce.Options{Axes: reduce.Axes{1}, Stats: want}
	ctx := context.Background()
	for _, dev := range testdev.Devices(b) {
		b.Run(dev.Info.Name+"/host", func(b *testing.B) {
			b.SetBytes(int64(p.Bytes()))
			for range b.N {
				if _, err := reduce.Run(ctx, dev, p, opt); err != nil {
					b.Fatal(err)
				}
				shape34(p.F32, outer, inner, shapeOpt{}, skew, kurt)
			}
		})
		b.Run(dev.Info.Name+"/fused", func(b *testing.B) {
			b.SetBytes(int64(p.Bytes()))
			for range b.N {
				copt := opt
				copt.Central = true
				if r, err := reduce.Run(ctx, dev, p, copt); err != nil || r.Central == nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(dev.Info.Name+"/reupload", func(b *testing.B) {
			b.SetBytes(int64(p.Bytes()))
			for range b.N {
				out, err := reduce.Run(ctx, dev, p, opt)
				if err != nil {
					b.Fatal(err)
				}
				if _, _, err := reduce.Central(ctx, dev, tensor.SourceOf(p), out.Stats[reduce.Mean].As(tensor.F64).F64); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
