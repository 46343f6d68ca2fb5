package paco

import (
	"testing"

	"github.com/vkstat/vkstat/pipelines/synth"
)

// BenchmarkEstimateCenter measures the star centre of synth's 64×64×48
// cube (vkstat synth paco --size 64 --frames 48).
func BenchmarkEstimateCenter(b *testing.B) {
	cfg := synth.Default()
	cfg.H, cfg.W, cfg.Frames = 64, 64, 48
	ds, err := synth.Generate(cfg)
	if err != nil {
		b.Fatal(err)
	}
	fwhm := FWHMOfStamp(ds.PSF)
	c0 := cpuTime()
	for b.Loop() {
		if _, err := EstimateCenter(ds.Cube, fwhm); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric((cpuTime()-c0).Seconds()*1e3/float64(b.N), "cpu-ms/op")
}
