package stack

import (
	"context"
	"fmt"
	"testing"
)

// BenchmarkCPU times the CPU path on an in-memory stack (no file reads):
// 4 dates of 1024×1024 complex samples, 4×4 or 2×2 multilook, with and
// without filters.
func BenchmarkCPU(b *testing.B) {
	const T, H, W = 4, 1024, 1024
	g := Grid{Width: W, Height: H, Complex: true}
	dates := make([]Date, T)
	for t := range dates {
		data := make([]float32, 2*H*W)
		for i := range data {
			data[i] = float32((i*7+t*13)%101) - 50
		}
		dates[t] = &memDate{name: fmt.Sprint(t), g: g, data: data}
	}
	for _, c := range []struct {
		f     FilterKind
		looks int
	}{{NoFilter, 4}, {NoFilter, 2}, {Lee, 4}, {RefinedLee, 4}} {
		b.Run(fmt.Sprintf("%s-%dx%d", c.f, c.looks, c.looks), func(b *testing.B) {
			p, err := NewPlan(Config{LooksAz: c.looks, LooksRg: c.looks, Filter: Filter{Kind: c.f, Size: 7}}, g)
			if err != nil {
				b.Fatal(err)
			}
			b.SetBytes(int64(T * H * W * 8))
			for i := 0; i < b.N; i++ {
				if _, err := CPU(context.Background(), p, dates); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
