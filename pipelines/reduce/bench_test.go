package reduce

import (
	"math/rand/v2"
	"testing"

	"github.com/vkstat/vkstat/tensor"
)

// benchReduce times CPU on a float32 array of shape filled with uniform
// values in [0, 1) (the data of bench/peers/numpy_reduce.py).
func benchReduce(b *testing.B, shape []int, opt Options, stats []Stat) {
	if testing.Short() {
		b.Skip("large input: skipped under -short")
	}
	in := tensor.New(tensor.F32, shape...)
	rng := rand.New(rand.NewPCG(0, 0))
	for i := range in.F32 {
		in.F32[i] = rng.Float32()
	}
	b.SetBytes(int64(in.Bytes()))
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := CPU(in, opt, stats); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkMeanStdCPU: per-pixel mean and std of a (64, 1024, 1024) float32
// stack along axis 0, the workload of
// `numpy_reduce.py --shape 64,1024,1024 --axis 0`.
func BenchmarkMeanStdCPU(b *testing.B) {
	benchReduce(b, []int{64, 1024, 1024}, Options{Axes: Axes{0}}, []Stat{Mean, Std})
}

// BenchmarkAllStatsCPU is BenchmarkMeanStdCPU with all six statistics.
func BenchmarkAllStatsCPU(b *testing.B) {
	benchReduce(b, []int{64, 1024, 1024}, Options{Axes: Axes{0}}, AllStats())
}

// BenchmarkMeanStdLastAxisCPU reduces contiguous runs: (1024, 65536) along
// axis 1.
func BenchmarkMeanStdLastAxisCPU(b *testing.B) {
	benchReduce(b, []int{1024, 65536}, Options{Axes: Axes{1}}, []Stat{Mean, Std})
}

// BenchmarkMeanStd1DCPU reduces one run of 64·2²⁰ elements, split across
// goroutines.
func BenchmarkMeanStd1DCPU(b *testing.B) {
	benchReduce(b, []int{64 << 20}, Options{Axes: Axes{0}}, []Stat{Mean, Std})
}
