package survey

import (
	"context"
	"io"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/vkstat/vkstat/engine"
	"github.com/vkstat/vkstat/formats"
	"github.com/vkstat/vkstat/formats/figure"
	"github.com/vkstat/vkstat/pipelines/paco"
	"github.com/vkstat/vkstat/tensor"
)

// benchResult is a PACO result of n×n maps as a run gives them: noise in
// the SNR map, NaN beyond the reach of the patches, one detection, and the
// contrast curve of its σ map.
func benchResult(n int) *paco.Result {
	rng := rand.New(rand.NewPCG(1, 2))
	m := &paco.Maps{H: n, W: n, SNR: make([]float64, n*n), Flux: make([]float64, n*n), Sigma: make([]float64, n*n), Device: "bench", Precision: "f32"}
	c := float64(n / 2)
	for y := range n {
		for x := range n {
			i := y*n + x
			if math.Hypot(float64(y)-c, float64(x)-c) > 0.47*float64(n) {
				m.SNR[i], m.Flux[i], m.Sigma[i] = math.NaN(), math.NaN(), math.NaN()
				continue
			}
			m.SNR[i] = rng.NormFloat64()
			m.Sigma[i] = 1 + 0.1*rng.Float64()
			m.Flux[i] = m.SNR[i] * m.Sigma[i]
		}
	}
	res := &paco.Result{Maps: m, T: 256, H: n, W: n, P: 49, Radius: 4, PSF: tensor.New(tensor.F64, 25, 25),
		Center:     paco.CenterInfo{Source: "geometric", Y: c, X: c, Used: [2]int{n / 2, n / 2}, Geometric: [2]int{n / 2, n / 2}},
		Detections: []paco.Detection{{Y: n/2 + 52, X: n/2 - 30, Sep: 60, SNR: 50, Flux: 32, SigmaFlux: 0.65}}}
	res.Contrast = paco.ContrastCurve(m.Sigma, n, n, n/2, n/2, 5, 0)
	return res
}

// BenchmarkWriteTarget writes a 1024×1024 run's outputs (FITS maps,
// tables, pictures) and reports its steps; the sub-benchmarks encode one
// file each (the SNR picture in each format), to show which costs what.
func BenchmarkWriteTarget(b *testing.B) {
	res := benchResult(1024)
	t := &Target{Cube: "cube.npy", Format: "fits", Options: paco.DefaultOptions()}
	b.Run("all", func(b *testing.B) {
		dir := b.TempDir()
		sum := map[string]float64{}
		for b.Loop() {
			var tm engine.Timing
			if _, err := WriteTarget(context.Background(), t, dir, res, "bench", &tm); err != nil {
				b.Fatal(err)
			}
			for _, st := range tm.Phases {
				sum[st.Name] += st.Time.Seconds()
			}
		}
		for name, v := range sum {
			b.ReportMetric(v/float64(b.N)*1e3, strings.ReplaceAll(name, " ", "_")+"-ms/op")
		}
	})
	snr, _, _ := res.Maps.Tensors()
	b.Run("snr.fits", func(b *testing.B) {
		for b.Loop() {
			if err := formats.EncodeFITS(io.Discard, snr, nil); err != nil {
				b.Fatal(err)
			}
		}
	})
	m := figure.Map{Data: snr, Title: "bench", BarLabel: "SNR", Compass: &figure.Compass{}}
	for _, f := range figure.Formats {
		b.Run("snr."+string(f), func(b *testing.B) {
			for b.Loop() {
				if err := figure.Encode(io.Discard, m, f); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
	b.Run("contrast", func(b *testing.B) {
		for b.Loop() {
			paco.ContrastCurve(res.Maps.Sigma, 1024, 1024, 512, 512, 5, 0)
		}
	})
}
