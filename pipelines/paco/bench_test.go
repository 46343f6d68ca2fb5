package paco

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/vkstat/vkstat/internal/device/testdev"
	"github.com/vkstat/vkstat/tensor"
)

// benchSizes are the seeds' scenario (100×100 pixels, 252 frames) and a
// larger one; both with R = 4 (49-pixel patches), as in
// bench/peers/numpy_paco.py.
var benchSizes = [][3]int{{252, 100, 100}, {128, 256, 256}}

func benchInput(T, H, W int) Input {
	rng := rand.New(rand.NewPCG(0, 0))
	cube := tensor.New(tensor.F32, T, H, W)
	for i := range cube.F32 {
		cube.F32[i] = 10 + float32(rng.NormFloat64())
	}
	ang := make([]float64, T)
	for i := range ang {
		ang[i] = 60 * float64(i) / float64(T-1)
	}
	return Input{Cube: cube, Angles: ang, PSF: gaussPSF(21, 4), Radius: 4}
}

func reportStages(b *testing.B, sum map[string]float64) {
	for name, v := range sum {
		b.ReportMetric(v/float64(b.N)*1e3, strings.ReplaceAll(name, " ", "_")+"-ms/op")
	}
}

func BenchmarkPACOCPU(b *testing.B) {
	for _, s := range benchSizes {
		b.Run(fmt.Sprintf("%dx%dx%d", s[0], s[1], s[2]), func(b *testing.B) {
			if testing.Short() && s[1] > 100 {
				b.Skip("large")
			}
			in := benchInput(s[0], s[1], s[2])
			sum := map[string]float64{}
			for i := 0; i < b.N; i++ {
				m, err := CPU(context.Background(), in)
				if err != nil {
					b.Fatal(err)
				}
				for _, st := range m.Stages {
					sum[st.Name] += st.Time.Seconds()
				}
			}
			reportStages(b, sum)
		})
	}
}

func BenchmarkPACOVulkan(b *testing.B) {
	for _, dev := range testdev.Devices(b) {
		for _, s := range benchSizes {
			b.Run(fmt.Sprintf("%s/%dx%dx%d", dev.Info.Name, s[0], s[1], s[2]), func(b *testing.B) {
				if testing.Short() && s[1] > 100 {
					b.Skip("large")
				}
				in := benchInput(s[0], s[1], s[2])
				if _, err := Vulkan(context.Background(), dev, in); err != nil { // warm-up: pipelines
					b.Fatal(err)
				}
				sum := map[string]float64{}
				b.ResetTimer()
				for i := 0; i < b.N; i++ {
					m, err := Vulkan(context.Background(), dev, in)
					if err != nil {
						b.Fatal(err)
					}
					for _, st := range m.Stages {
						if st.Name != "total (device)" {
							sum[st.Name] += st.Time.Seconds()
						}
					}
				}
				reportStages(b, sum)
			})
		}
	}
}

// BenchmarkPACOCPUSubpixel is BenchmarkPACOCPU's seeds' scenario with the
// PSF placed at every exact trajectory position (PlacementSubpixel).
func BenchmarkPACOCPUSubpixel(b *testing.B) {
	in := benchInput(252, 100, 100)
	in.Placement = PlacementSubpixel
	sum := map[string]float64{}
	for i := 0; i < b.N; i++ {
		m, err := CPU(context.Background(), in)
		if err != nil {
			b.Fatal(err)
		}
		for _, st := range m.Stages {
			sum[st.Name] += st.Time.Seconds()
		}
	}
	reportStages(b, sum)
}
