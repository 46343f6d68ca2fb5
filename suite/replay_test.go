package suite

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/vkstat/vkstat/engine"
	"github.com/vkstat/vkstat/pipelines/reduce"
	"github.com/vkstat/vkstat/tensor"
)

// BenchmarkReplayFloor (issue 39, item 3) sets the library's wall of a
// 1,000-element float64 mean on lavapipe (Timing.Wall: the call's whole
// time inside the library) against the driver's floor, an empty submit
// and fence wait (Device.EmptySubmit), measured in turn in the same loop:
// on a device that replays the call's recorded command buffer, and on one
// that records it anew at every call (DeviceOptions.NoReplay, as before
// replay). It reports medians in µs, the ratios to the floor, and the
// host's part of each call (the wall less the wait for the device) and
// its record phase, and the kernels' own time by timestamps
// (docs/benchmarks/replay.md):
//
//	go test -run '^$' -bench ReplayFloor -benchtime 2000x ./suite
func BenchmarkReplayFloor(b *testing.B) {
	in, err := engine.NewInstance(engine.Options{})
	if err != nil {
		b.Skipf("no Vulkan: %v", err)
	}
	defer in.Close()
	idx := -1
	for _, info := range in.Devices() {
		if info.IsLavapipe() {
			idx = info.Index
		}
	}
	if idx < 0 {
		b.Skip("no lavapipe")
	}
	opt, err := engine.DeviceOptionsFromEnv()
	if err != nil {
		b.Fatal(err)
	}
	opt.NoReplay = false
	replay, err := in.OpenWith(idx, opt)
	if err != nil {
		b.Fatal(err)
	}
	defer replay.Close()
	opt.NoReplay = true
	record, err := in.OpenWith(idx, opt)
	if err != nil {
		b.Fatal(err)
	}
	defer record.Close()

	var op Op
	for _, o := range Ops() {
		if o.Name == "reduce" {
			op = o
		}
	}
	c := reduce.NewCase([]int{1000}, 0, reduce.Options{}, []reduce.Stat{reduce.Mean}, false)
	c.Seed = 5
	x := op.Build(c, tensor.F64)
	ctx := context.Background()
	// call returns the call's wall, its host part (the wall less the wait
	// for the device, which runs the two dispatches: on lavapipe, on the
	// host's cores) and its record phase (command buffers, descriptor
	// sets and queries, where replay saves).
	var gpu []time.Duration // the two dispatches' time by timestamps
	call := func(d *engine.Device) (wall, host, rec time.Duration) {
		_, tm, err := op.Run(ctx, d, c, x)
		if err != nil {
			b.Fatal(err)
		}
		gpu = append(gpu, tm.Kernel)
		return tm.Wall, tm.Wall - tm.Phase(engine.TimeWait), tm.Phase(engine.TimeRecord)
	}
	floor := func(d *engine.Device) time.Duration {
		t, err := d.EmptySubmit()
		if err != nil {
			b.Fatal(err)
		}
		return t
	}
	for i := 0; i < 20; i++ { // warm-up: pipelines, memory, the recording
		call(replay)
		call(record)
		floor(replay)
	}
	var fl, rp, rc, hp, hc, tp, tc []time.Duration
	gpu = nil
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		fl = append(fl, floor(replay))
		w, h, t := call(replay)
		rp, hp, tp = append(rp, w), append(hp, h), append(tp, t)
		w, h, t = call(record)
		rc, hc, tc = append(rc, w), append(hc, h), append(tc, t)
	}
	b.StopTimer()
	med := func(v []time.Duration) float64 {
		slices.Sort(v)
		return float64(v[len(v)/2].Nanoseconds()) / 1e3
	}
	f, p, r := med(fl), med(rp), med(rc)
	b.ReportMetric(f, "floor-µs")
	b.ReportMetric(p, "replay-µs")
	b.ReportMetric(r, "record-µs")
	b.ReportMetric(p/f, "replay/floor")
	b.ReportMetric(r/f, "record/floor")
	b.ReportMetric(med(hp), "replay-host-µs")
	b.ReportMetric(med(hc), "record-host-µs")
	b.ReportMetric(med(tp), "replay-rec-µs")
	b.ReportMetric(med(tc), "record-rec-µs")
	b.ReportMetric(med(gpu), "kernel-µs")
}
