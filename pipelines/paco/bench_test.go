package paco

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/vkstat/vkstat/device/testdev"
	"github.com/vkstat/vkstat/internal/par"
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
				m, err := cpuOf(context.Background(), in)
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
				if _, err := vulkanOf(context.Background(), dev, in); err != nil { // warm-up: pipelines
					b.Fatal(err)
				}
				sum := map[string]float64{}
				b.ResetTimer()
				for i := 0; i < b.N; i++ {
					m, err := vulkanOf(context.Background(), dev, in)
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
		m, err := cpuOf(context.Background(), in)
		if err != nil {
			b.Fatal(err)
		}
		for _, st := range m.Stages {
			sum[st.Name] += st.Time.Seconds()
		}
	}
	reportStages(b, sum)
}

// BenchmarkHostStages times Run's host-side steps on a 128×1024×1024
// float32 cube (noise around a Gaussian star, FWHM 4): the cube's scan,
// the star centre's measurement, the contrast curve and the detections
// of 1024×1024 maps. (docs/benchmarks/paco.md, "From files".)
func BenchmarkHostStages(b *testing.B) {
	if testing.Short() {
		b.Skip("a 512 MiB cube")
	}
	const T, H, W = 128, 1024, 1024
	cube := tensor.New(tensor.F32, T, H, W)
	par.Range(T, 1, func(lo, hi int) {
		for t := lo; t < hi; t++ {
			rng := rand.New(rand.NewPCG(uint64(t), 1))
			f := cube.F32[t*H*W : (t+1)*H*W]
			for i := range f {
				y, x := float64(i/W-H/2)+0.3, float64(i%W-W/2)-0.2
				f[i] = float32(100*math.Exp(-(y*y+x*x)/(2*1.7*1.7)) + rng.Float64())
			}
		}
	})
	psf := gaussPSF(25, 4)
	m := benchInput(2, H, W).Cube // noise: an SNR map without sources
	snr, sigma := make([]float64, H*W), make([]float64, H*W)
	for i := range sigma {
		snr[i], sigma[i] = float64(m.F32[i])-10, 1+0.1*float64(m.F32[i])
	}
	maps := &Maps{H: H, W: W, SNR: snr, Flux: snr, Sigma: sigma}
	for _, st := range []struct {
		name string
		run  func() error
	}{
		{"scan", func() error { scanCube(cube); return nil }},
		{"centre", func() error { _, err := EstimateCenter(cube, FWHMOfStamp(psf)); return err }},
		{"contrast", func() error { ContrastCurve(sigma, H, W, H/2, W/2, 5, 0); return nil }},
		{"detect", func() error { Detect(maps, 5, H/2, W/2, 8); return nil }},
	} {
		b.Run(st.name, func(b *testing.B) {
			c0 := cpuTime()
			for b.Loop() {
				if err := st.run(); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric((cpuTime()-c0).Seconds()*1e3/float64(b.N), "cpu-ms/op")
		})
	}
}

// cpuTime is the process' CPU time so far, user and system: on a shared
// machine a step's CPU time says what it costs where its wall time does
// not.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
