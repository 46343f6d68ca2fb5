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

// DevicePlan says where the slices of a call are sorted, decided from the
// device's report alone (PlanDevice).
type DevicePlan struct {
	// Device: quantile.comp sorts each slice in one workgroup's shared
	// memory. Otherwise the CPU takes the quantiles, and Why says why.
	Device bool
	Why    string
	// Size is the sorting network's length, the power of two at or above
	// the slice's length: quantile.comp's SORT_SIZE.
	Size int
	// Workgroup is quantile.comp's workgroup size, WG_SIZE.
	Workgroup int
}

// PlanDevice plans slices of n values of dt on info's device: on the
// device when Size values of dt fit its shared memory (slices of up to
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
	es := int64(engine.Variant{DType: dt}.ValueSize())
	shared := int64(info.MaxSharedMemory)
	if need := int64(size) * es; need > shared {
		return DevicePlan{Why: fmt.Sprintf("slices of %d %s values (sorted as %d, %s) exceed the %s of shared memory of a workgroup of %s: the CPU takes their quantiles",
			n, dt, size, engine.SizeText(need), engine.SizeText(shared), info.Name)}, nil
	}
	wg := max(1, min(maxWorkgroup, size/2))
	if lim := int(info.MaxWorkgroupInvocation); lim > 0 {
		wg = min(wg, 1<<(bits.Len(uint(lim))-1))
	}
	return DevicePlan{Device: true, Size: size, Workgroup: wg}, nil
}
