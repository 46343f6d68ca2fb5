package quantile

import (
	"fmt"
	"math/bits"

	"github.com/vkstat/vkstat/engine"
	"github.com/vkstat/vkstat/tensor"
)

// maxWorkgroup is quantile.comp's largest workgroup: each invocation sorts
// Size/(2·workgroup) pairs per step of the bitonic network.
const maxWorkgroup = 256

// threadMax is the longest slice that one invocation sorts by itself
// (quantile_thread: insertion, up to threadMax²/2 steps, private memory);
// longer slices take a workgroup each. A variable: tests set it to 0 to
// run short slices through the workgroup kernel.
var threadMax = 64

// threadWorkgroup is quantile_thread's workgroup size: slices per
// workgroup.
const threadWorkgroup = 64

// kernel is the name of p's kernel for values of v.
func (p DevicePlan) kernel(v engine.Variant) string {
	if p.PerThread {
		return "quantile_thread" + v.Suffix()
	}
	return "quantile" + v.Suffix()
}

// groups is how many workgroups p's kernel takes for count slices.
func (p DevicePlan) groups(count int) int {
	if p.PerThread {
		return (count + p.Workgroup - 1) / p.Workgroup
	}
	return count
}

// DevicePlan says where the slices of a call are sorted, decided from the
// device's report alone (PlanDevice).
type DevicePlan struct {
	// Device: quantile.comp sorts each slice in one workgroup's shared
	// memory, or with PerThread in one invocation's private memory.
	// Otherwise the CPU takes the quantiles, and Why says why.
	Device    bool
	PerThread bool
	Why       string
	// Size is the sort's length, the power of two at or above the slice's
	// length: quantile.comp's SORT_SIZE.
	Size int
	// Workgroup is quantile.comp's workgroup size, WG_SIZE.
	Workgroup int
}

// PlanDevice plans slices of n values of dt on info's device: one
// invocation per slice up to threadMax values, else one workgroup per
// slice when Size values of dt fit its shared memory (slices of up to
// 8,192 float32 or 4,096 float64 values in lavapipe's 32 KiB or NVIDIA's
// 48 KiB, the sort's length being a power of two), on the CPU otherwise.
func PlanDevice(n int, dt tensor.DType, info engine.DeviceInfo) (DevicePlan, error) {
	if n < 1 {
		return DevicePlan{}, fmt.Errorf("quantile: slices of %d values", n)
	}
	size := 1
	if n > 1 {
		size = 1 << bits.Len(uint(n-1))
	}
	lim := int(info.MaxWorkgroupInvocation)
	if lim <= 0 {
		lim = maxWorkgroup
	}
	lim = 1 << (bits.Len(uint(lim)) - 1) // a power of two
	if n <= threadMax {
		return DevicePlan{Device: true, PerThread: true, Size: size, Workgroup: min(threadWorkgroup, lim)}, nil
	}
	es := int64(engine.Variant{DType: dt}.ValueSize())
	shared := int64(info.MaxSharedMemory)
	if need := int64(size) * es; need > shared {
		return DevicePlan{Why: fmt.Sprintf("slices of %d %s values (sorted as %d, %s) exceed the %s of shared memory of a workgroup of %s: the CPU takes their quantiles",
			n, dt, size, engine.SizeText(need), engine.SizeText(shared), info.Name)}, nil
	}
	return DevicePlan{Device: true, Size: size, Workgroup: max(1, min(maxWorkgroup, size/2, lim))}, nil
}
