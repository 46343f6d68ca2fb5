package mapx

import (
	"math/rand/v2"
	"testing"

	"github.com/vkstat/vkstat/tensor"
)

// benchGrade2 times CPU on n elements of dt, the workload of
// bench/peers/numpy_map.py (a=3.5, b=2.8, c=10).
func benchGrade2(b *testing.B, dt tensor.DType, n int) {
	rng := rand.New(rand.NewPCG(0, 0))
	x, y := tensor.New(dt, n), tensor.New(dt, n)
	for i := 0; i < n; i++ {
		if dt == tensor.F64 {
			x.F64[i], y.F64[i] = rng.Float64(), rng.Float64()
		} else {
			x.F32[i], y.F32[i] = rng.Float32(), rng.Float32()
		}
	}
	p := Options{A: 3.5, B: 2.8, C: 10}
	b.SetBytes(int64(3 * dt.Size() * n))
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := CPU(x, y, p); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkGrade2CPU: z = a·x² + b·y + c on 5e6 float64 (24 bytes moved per
// element: x, y and z).
func BenchmarkGrade2CPU(b *testing.B) { benchGrade2(b, tensor.F64, 5_000_000) }

// BenchmarkGrade2CPUF32 is BenchmarkGrade2CPU in float32.
func BenchmarkGrade2CPUF32(b *testing.B) { benchGrade2(b, tensor.F32, 5_000_000) }
