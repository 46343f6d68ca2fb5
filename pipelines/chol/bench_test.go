package chol

import (
	"context"
	"fmt"
	"math/rand/v2"
	"sync"
	"testing"
	"time"

	"github.com/vkstat/vkstat/device/testdev"
	"github.com/vkstat/vkstat/engine"
	"github.com/vkstat/vkstat/pipelines/cov"
	"github.com/vkstat/vkstat/tensor"
)

// The benchmark workload of docs/benchmarks/covchol.md: N sample sets of T
// samples of P variables (PACO's patch of radius 4 over a 252-frame
// sequence), PACO shrinkage, Cholesky and inverse.
const (
	benchN = 10000
	benchT = 252
	benchP = 49
)

// Nominal floating-point operations per sample set: the covariance's lower
// triangle (2·T·P(P+1)/2), the factorisation (P³/3) and the inverse from the
// factor (potri: 2P³/3). Peers are credited with the same count.
const (
	flopsCov  = 2 * benchT * benchP * (benchP + 1) / 2
	flopsChol = benchP * benchP * benchP / 3
	flopsInv  = 2 * benchP * benchP * benchP / 3
)

var (
	benchOnce sync.Once
	benchX64  *tensor.Tensor
)

// benchSamples is the (N, T, P) input: 100 + standard normal values
// (float32-representable), made once.
func benchSamples(dt tensor.DType) *tensor.Tensor {
	benchOnce.Do(func() {
		rng := rand.New(rand.NewPCG(1, 2))
		benchX64 = tensor.New(tensor.F64, benchN, benchT, benchP)
		for i := range benchX64.F64 {
			benchX64.F64[i] = float64(float32(100 + rng.NormFloat64()))
		}
	})
	return benchX64.As(dt)
}

type benchDev struct {
	name string
	dev  *engine.Device
}

func benchDevices(b *testing.B) []benchDev {
	devs := []benchDev{{"cpu", nil}}
	for _, d := range testdev.Devices(b) {
		devs = append(devs, benchDev{d.Info.Name, d})
	}
	return devs
}

func report(b *testing.B, el time.Duration, flopsPerSet float64) {
	sets := float64(benchN) * float64(b.N)
	b.ReportMetric(sets/el.Seconds(), "matrices/s")
	b.ReportMetric(sets*flopsPerSet/el.Seconds()/1e9, "GFLOP/s")
}

// BenchmarkCovChol times, per device and dtype: cov (mean, S, PACO
// shrinkage), chol+inverse of the resulting covariances, and the whole
// chain (host arrays in, host arrays out; the covariances go back to the
// host between the two steps, as a user of the two commands would see).
func BenchmarkCovChol(b *testing.B) {
	ctx := context.Background()
	opt := cov.Options{Estimator: cov.PACO}
	for _, dt := range []tensor.DType{tensor.F32, tensor.F64} {
		x := benchSamples(dt)
		for _, d := range benchDevices(b) {
			if dt == tensor.F64 && d.dev != nil && !d.dev.Info.Float64 {
				continue
			}
			c, err := cov.Run(ctx, d.dev, x, opt) // warm-up: pipelines built
			if err != nil {
				b.Fatal(err)
			}
			b.Run(fmt.Sprintf("cov/%s/%s", d.name, dt), func(b *testing.B) {
				t0 := time.Now()
				for i := 0; i < b.N; i++ {
					if _, err := cov.Run(ctx, d.dev, x, opt); err != nil {
						b.Fatal(err)
					}
				}
				report(b, time.Since(t0), flopsCov)
			})
			in, inv := Input{A: c.Cov}, Options{Inverse: true}
			if _, err := Run(ctx, d.dev, in, inv); err != nil {
				b.Fatal(err)
			}
			b.Run(fmt.Sprintf("chol+inverse/%s/%s", d.name, dt), func(b *testing.B) {
				t0 := time.Now()
				for i := 0; i < b.N; i++ {
					if _, err := Run(ctx, d.dev, in, inv); err != nil {
						b.Fatal(err)
					}
				}
				report(b, time.Since(t0), flopsChol+flopsInv)
			})
			b.Run(fmt.Sprintf("cov+chol+inverse/%s/%s", d.name, dt), func(b *testing.B) {
				t0 := time.Now()
				for i := 0; i < b.N; i++ {
					c, err := cov.Run(ctx, d.dev, x, opt)
					if err != nil {
						b.Fatal(err)
					}
					r, err := Run(ctx, d.dev, Input{A: c.Cov}, inv)
					if err != nil {
						b.Fatal(err)
					}
					if r.Failed() != 0 {
						b.Fatalf("%d matrices failed", r.Failed())
					}
				}
				report(b, time.Since(t0), flopsCov+flopsChol+flopsInv)
			})
		}
	}
}
