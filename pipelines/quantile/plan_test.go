package quantile

import (
	"fmt"
	"strings"
	"testing"

	"github.com/vkstat/vkstat/engine"
	"github.com/vkstat/vkstat/pipelines/reduce"
	"github.com/vkstat/vkstat/tensor"
)

// TestPlanDevice checks, without a device, where slices go: one
// invocation each up to threadMax values, one workgroup each while the
// sorting network's power of two fits shared memory, the CPU beyond, with
// a reason that names the sizes.
func TestPlanDevice(t *testing.T) {
	lavapipe := engine.DeviceInfo{Name: "lavapipe", MaxSharedMemory: 32 << 10, MaxWorkgroupInvocation: 1024}
	nvidia := engine.DeviceInfo{Name: "H100", MaxSharedMemory: 48 << 10, MaxWorkgroupInvocation: 1024}
	small := engine.DeviceInfo{Name: "small", MaxSharedMemory: 16 << 10, MaxWorkgroupInvocation: 96}
	for _, c := range []struct {
		n                 int
		dt                tensor.DType
		info              engine.DeviceInfo
		threadMax         int
		device, perThread bool
		size, wg          int
	}{
		{1, tensor.F32, lavapipe, 64, true, true, 1, 64},
		{3, tensor.F64, lavapipe, 64, true, true, 4, 64},
		{64, tensor.F32, lavapipe, 64, true, true, 64, 64},
		{65, tensor.F32, lavapipe, 64, true, false, 128, 64},
		{1, tensor.F32, lavapipe, 0, true, false, 1, 1},
		{2, tensor.F32, lavapipe, 0, true, false, 2, 1},
		{3, tensor.F64, lavapipe, 0, true, false, 4, 2},
		{100, tensor.F32, lavapipe, 64, true, false, 128, 64},
		{513, tensor.F32, lavapipe, 64, true, false, 1024, 256},
		{8192, tensor.F32, lavapipe, 64, true, false, 8192, 256},
		{8193, tensor.F32, lavapipe, 64, false, false, 0, 0},
		{4096, tensor.F64, lavapipe, 64, true, false, 4096, 256},
		{4097, tensor.F64, lavapipe, 64, false, false, 0, 0},
		{12000, tensor.F32, nvidia, 64, false, false, 0, 0}, // 16,384 values: 64 KiB
		{4096, tensor.F32, small, 64, true, false, 4096, 64},
		{4097, tensor.F32, small, 64, false, false, 0, 0},
		{40, tensor.F32, small, 64, true, true, 64, 64},
	} {
		name := fmt.Sprintf("%s/%d/%s/threadMax%d", c.info.Name, c.n, c.dt, c.threadMax)
		old := threadMax
		threadMax = c.threadMax
		p, err := PlanDevice(c.n, c.dt, c.info)
		threadMax = old
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		if p.Device != c.device || p.PerThread != c.perThread || p.Size != c.size || p.Workgroup != c.wg {
			t.Errorf("%s: %+v, want device %v, per thread %v, size %d, workgroup %d", name, p, c.device, c.perThread, c.size, c.wg)
		}
		if !p.Device && !strings.Contains(p.Why, "shared memory") {
			t.Errorf("%s: the CPU without a reason: %q", name, p.Why)
		}
	}
	if _, err := PlanDevice(0, tensor.F32, lavapipe); err == nil {
		t.Errorf("PlanDevice of slices of 0 values: no error")
	}
}

// TestPasses checks that the passes cover every slice once, in order, each
// within its cap, either whole blocks or columns of one block.
func TestPasses(t *testing.T) {
	for _, g := range []reduce.Geometry{{Outer: 1, N: 5, Inner: 1}, {Outer: 7, N: 3, Inner: 1}, {Outer: 1, N: 9, Inner: 100}, {Outer: 4, N: 2, Inner: 33}} {
		for _, per := range []int{1, 2, 7, 32, 33, 34, 66, 100, 1000} {
			lo := 0
			for _, ps := range passes(g, per) {
				whole := ps.inner == g.Inner && ps.lo%g.Inner == 0 && (ps.hi%g.Inner == 0 || ps.hi == g.Outputs())
				cols := ps.inner == ps.hi-ps.lo && ps.lo/g.Inner == (ps.hi-1)/g.Inner
				if ps.lo != lo || ps.hi <= ps.lo || ps.hi-ps.lo > per || !(whole || cols) {
					t.Errorf("%+v per %d: pass %+v after %d", g, per, ps, lo)
				}
				lo = ps.hi
			}
			if lo != g.Outputs() {
				t.Errorf("%+v per %d: passes end at %d of %d", g, per, lo, g.Outputs())
			}
		}
	}
}
