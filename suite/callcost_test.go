package suite

import (
	"context"
	"testing"

	"github.com/vkstat/vkstat/engine"
	"github.com/vkstat/vkstat/pipelines/reduce"
	"github.com/vkstat/vkstat/tensor"
)

// BenchmarkRepeatCall times a library call repeated on one session, as a
// program calling the library in a loop makes it: the wall of a call
// (ns/op), the phases that split it (ms/op each) and what the device
// counted (per op: vkAllocateMemory calls, host MiB copied, MiB imported).
// The device is lavapipe, opened with the environment's options, so
// (docs/benchmarks/datapath.md):
//
//	VKSTAT_DISCRETE=1 go test -run '^$' -bench RepeatCall -benchtime 5x ./suite
//	VKSTAT_DISCRETE=1 VKSTAT_NO_CACHE=1 VKSTAT_IMPORT=0 go test ...   (as before the cache and imports)
func BenchmarkRepeatCall(b *testing.B) {
	dev := openLavapipe(b)
	ops := map[string]Op{}
	for _, op := range Ops() {
		ops[op.Name] = op
	}
	ms := []reduce.Stat{reduce.Mean, reduce.Std}
	for _, k := range []struct {
		name, op string
		c        Case
	}{
		{"reduce-16MiB", "reduce", reduce.NewCase([]int{16, 512, 512}, 0, reduce.Options{}, ms, false)},
		{"reduce-256MiB", "reduce", reduce.NewCase([]int{64, 1024, 1024}, 0, reduce.Options{}, ms, false)},
		{"map-16MiB", "map", Case{Shape: []int{4 << 20}}},
		{"map-256MiB", "map", Case{Shape: []int{64 << 20}}},
	} {
		op, c := ops[k.op], k.c
		c.Seed = 11
		b.Run(k.name, func(b *testing.B) {
			x := op.Build(c, tensor.F32)
			ctx := context.Background()
			if _, _, err := op.Run(ctx, dev, c, x); err != nil { // warm-up: pipelines, memory
				b.Fatal(err)
			}
			var sum engine.Timing
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				_, tm, err := op.Run(ctx, dev, c, x)
				if err != nil {
					b.Fatal(err)
				}
				sum.Add(tm)
			}
			n := float64(b.N)
			for _, p := range sum.Phases {
				b.ReportMetric(float64(p.Time.Nanoseconds())/n/1e6, p.Name+"-ms/op")
			}
			b.ReportMetric(float64(sum.Other().Nanoseconds())/n/1e6, "other-ms/op")
			b.ReportMetric(float64(sum.Kernel.Nanoseconds())/n/1e6, "gpu-ms/op")
			b.ReportMetric(float64(sum.Counts.Allocs)/n, "vkalloc/op")
			b.ReportMetric(float64(sum.Counts.HostCopied())/n/(1<<20), "hostcopy-MiB/op")
			b.ReportMetric(float64(sum.Counts.Imported)/n/(1<<20), "imported-MiB/op")
		})
	}
}
