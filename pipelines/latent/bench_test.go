package latent

import (
	"context"
	"testing"

	"github.com/vkstat/vkstat/tensor"
)

// BenchmarkCPU times the CPU path on a (4, 16, 8, 32, 32) float32 latent:
// spatial moments, channel correlation and lagged correlation (3 lags).
func BenchmarkCPU(b *testing.B) {
	cfg := DefaultSynth()
	cfg.N = 4
	x, err := Synth(cfg)
	if err != nil {
		b.Fatal(err)
	}
	x32 := x.As(tensor.F32)
	req := Options{Moments: true, Axes: []int{3, 4}, Corr: true, LagCorr: true, Lags: 3}
	b.SetBytes(int64(x32.Bytes()))
	b.ResetTimer()
	for range b.N {
		if _, err := Run(context.Background(), nil, x32, req); err != nil {
			b.Fatal(err)
		}
	}
}
