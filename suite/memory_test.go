package suite

import (
	"context"
	"math"
	"runtime"
	"runtime/debug"
	"testing"

	"github.com/vkstat/vkstat/engine"
	"github.com/vkstat/vkstat/internal/checks"
	"github.com/vkstat/vkstat/pipelines/chol"
	"github.com/vkstat/vkstat/pipelines/mapx"
	"github.com/vkstat/vkstat/tensor"
)

// settledRSS is the resident memory once the Go heap has given back what it
// can, so that what remains is what the process holds.
func settledRSS() int64 {
	runtime.GC()
	debug.FreeOSMemory()
	return checks.RSS()
}

// openLavapipe opens lavapipe without the validation layer (whose records
// grow with every submission, and which users run without), with the
// environment's options; it skips tb without it, and closes it at the end.
func openLavapipe(tb testing.TB) *engine.Device {
	tb.Helper()
	in, err := engine.NewInstance(engine.Options{})
	if err != nil {
		tb.Skipf("no Vulkan: %v", err)
	}
	idx := -1
	for _, info := range in.Devices() {
		if info.IsLavapipe() {
			idx = info.Index
		}
	}
	if idx < 0 {
		in.Close()
		tb.Skip("no lavapipe")
	}
	dev, err := in.Open(idx)
	if err != nil {
		in.Close()
		tb.Fatal(err)
	}
	tb.Cleanup(func() {
		if err := dev.Close(); err != nil {
			tb.Error(err)
		}
		in.Close()
	})
	return dev
}

// TestLongSessionMemoryFlat (issue 34, item 7): a session on lavapipe that
// loops map and chol (with a solve, the inverse and the log-determinant)
// keeps its resident memory within 4 MiB after warm-up. Every call made
// Vulkan create-infos through vulkan-go, which copies them into C memory it
// never frees: 8.7 MiB over the 6,000 pairs here, 1.5 KiB a pair (28.7
// MiB over 19,000 in a Python session); 0.1-1 MiB since. Without the
// validation layer, as users run: the layer's own records grow with every
// submission. scripts/bench-memory.sh runs 100,000 calls.
func TestLongSessionMemoryFlat(t *testing.T) {
	if testing.Short() {
		t.Skip("6,000 calls on lavapipe")
	}
	if checks.RSS() < 0 {
		t.Skip("no /proc/self/statm")
	}
	dev := openLavapipe(t)
	const n, p = 16, 8
	a, b := tensor.New(tensor.F64, n, p, p), tensor.New(tensor.F64, n, p)
	for k := 0; k < n; k++ {
		for i := 0; i < p; i++ {
			for j := 0; j < p; j++ {
				a.F64[(k*p+i)*p+j] = 0.5 / p * math.Cos(float64(k+i+j))
			}
			a.F64[(k*p+i)*p+i] = p
			b.F64[k*p+i] = float64(i - k)
		}
	}
	x := tensor.New(tensor.F64, 1000)
	for i := range x.F64 {
		x.F64[i] = float64(i) / 1000
	}
	ctx := context.Background()
	calls := func(count int) {
		for i := 0; i < count; i++ {
			if _, err := mapx.Run(ctx, dev, mapx.Input{X: x, Y: x}, mapx.Options{A: 1, B: 2, C: 3}); err != nil {
				t.Fatal(err)
			}
			if _, err := chol.Run(ctx, dev, chol.Input{A: a, B: b}, chol.Options{Inverse: true, LogDet: true}); err != nil {
				t.Fatal(err)
			}
		}
	}
	calls(500) // warm-up: pipelines, the allocator's blocks, the Go heap
	before := settledRSS()
	calls(6000)
	grown := settledRSS() - before
	t.Logf("resident memory %+.2f MiB over 6,000 map+chol pairs", float64(grown)/(1<<20))
	if grown > 4<<20 {
		t.Errorf("resident memory grew by %.1f MiB over 6,000 map+chol pairs; want at most 4 MiB", float64(grown)/(1<<20))
	}
}
