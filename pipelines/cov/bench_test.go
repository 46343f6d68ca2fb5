package cov

import (
	"math/rand/v2"
	"runtime"
	"testing"

	"github.com/vkstat/vkstat/tensor"
)

// BenchmarkCPU is the covariance workload of docs/benchmarks/cpu.md
// (16384 sets of 64 samples of 49 variables, float32, PACO shrinkage) on
// the CPU path; `go test -bench CPU -cpuprofile` shows where its time goes.
// Like `vkstat bench` (suite.Measure), it collects garbage before each run,
// so the outputs are new memory every time.
func BenchmarkCPU(b *testing.B) {
	const n, t, p = 16384, 64, 49
	rng := rand.New(rand.NewPCG(1, 2))
	x := tensor.New(tensor.F32, n, t, p)
	for i := range x.F32 {
		x.F32[i] = float32(100 + rng.NormFloat64())
	}
	b.SetBytes(int64(4 * n * t * p))
	b.ResetTimer()
	for range b.N {
		b.StopTimer()
		runtime.GC()
		b.StartTimer()
		if _, err := CPU(x, Options{Estimator: PACO}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkCPUStrided is the latent PCA's covariance (docs/latent.md): 64
// samples of 16 channels over 16·64·64 values, each channel contiguous,
// read in place as strided sets.
func BenchmarkCPUStrided(b *testing.B) {
	const n, p, t = 64, 16, 16 * 64 * 64
	rng := rand.New(rand.NewPCG(1, 2))
	x := tensor.New(tensor.F32, n, p, t)
	for i := range x.F32 {
		x.F32[i] = float32(rng.NormFloat64())
	}
	s := Strided{Bases: make([]int, n), Offsets: make([]int, p), T: t, TStride: 1}
	for k := range n {
		s.Bases[k] = k * p * t
	}
	for i := range p {
		s.Offsets[i] = i * t
	}
	b.SetBytes(int64(4 * n * t * p))
	b.ResetTimer()
	for range b.N {
		if _, err := CPUStrided(x, s, Options{DDof: 1}); err != nil {
			b.Fatal(err)
		}
	}
}
