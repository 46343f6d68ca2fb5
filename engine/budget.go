package engine

/*
#include "native.h"
*/
import "C"

import (
	"fmt"
	"unsafe"

	vk "github.com/vulkan-go/vulkan"
)

// DefaultBudgetFraction is the part of the device-local heaps vkstat plans
// on where the driver does not report a budget (no VK_EXT_memory_budget),
// and the default cap of its allocator (DeviceOptions.Budget).
const DefaultBudgetFraction = 0.9

// MemoryBudget is how much device memory a workload may plan to use.
type MemoryBudget struct {
	// Bytes is what may be planned on: with VK_EXT_memory_budget, the
	// device-local heaps' budget less their usage (the driver's estimate of
	// what this process can allocate without oversubscribing); without it,
	// DefaultBudgetFraction of the device-local heaps. On an open device it
	// is also capped by the allocator's headroom (Device.Available).
	Bytes int64 `json:"bytes"`
	// HeapSize is the total size of the device-local heaps.
	HeapSize uint64 `json:"heap_size"`
	// HeapBudget and HeapUsage are VK_EXT_memory_budget's heapBudget and
	// heapUsage summed over the device-local heaps (0 without it).
	HeapBudget uint64 `json:"heap_budget,omitempty"`
	HeapUsage  uint64 `json:"heap_usage,omitempty"`
	// Source says where Bytes comes from: "VK_EXT_memory_budget",
	// "90% of device-local heaps", or "DeviceOptions.Budget" where that
	// cap is the smaller.
	Source string `json:"source"`
}

// String words the budget for reports: "7.2 GiB (VK_EXT_memory_budget)".
func (b MemoryBudget) String() string {
	return fmt.Sprintf("%.1f GiB (%s)", float64(b.Bytes)/(1<<30), b.Source)
}

// In is b with its Source in a front end's words: the cap of
// DeviceOptions.Budget is set's device_memory.
func (b MemoryBudget) In(set Setting) MemoryBudget {
	if b.Source == "DeviceOptions.Budget" {
		b.Source = set("device_memory", "")
	}
	return b
}

// MemoryBudget queries physical device index's memory budget (see
// MemoryBudget): with VK_EXT_memory_budget, vkGetPhysicalDeviceMemoryProperties2
// with VkPhysicalDeviceMemoryBudgetPropertiesEXT chained. That query is
// physical-device-level functionality of a device extension, usable once
// the device lists the extension: it needs no logical device, nor the
// extension enabled on one.
func (in *Instance) MemoryBudget(index int) (MemoryBudget, error) {
	if index < 0 || index >= len(in.infos) {
		return MemoryBudget{}, fmt.Errorf("engine: no device %d (%d present)", index, len(in.infos))
	}
	b := in.memoryBudget(in.devices[index], in.infos[index])
	return b, in.takeValidation()
}

func (in *Instance) memoryBudget(pd vk.PhysicalDevice, info DeviceInfo) MemoryBudget {
	b := MemoryBudget{HeapSize: info.DeviceMemory()}
	local := localHeaps(info)
	if info.MemoryBudget && info.apiRaw >= vk.MakeVersion(1, 1, 0) {
		var budget, usage [C.VK_MAX_MEMORY_HEAPS]C.uint64_t
		n := int(C.vks_query_memory_budget(in.gipa, C.VkInstance(unsafe.Pointer(in.handle)), C.VkPhysicalDevice(unsafe.Pointer(pd)),
			&budget[0], &usage[0]))
		if n > 0 {
			var free uint64
			for _, i := range local {
				if i >= n {
					continue
				}
				bu, us := uint64(budget[i]), uint64(usage[i])
				b.HeapBudget += bu
				b.HeapUsage += us
				if bu > us {
					free += bu - us
				}
			}
			b.Bytes = int64(min(free, 1<<62))
			b.Source = "VK_EXT_memory_budget"
			return b
		}
	}
	b.Bytes = int64(float64(b.HeapSize) * DefaultBudgetFraction)
	b.Source = "90% of device-local heaps"
	return b
}

// localHeaps lists the device-local heaps (every heap when none is).
func localHeaps(info DeviceInfo) []int {
	var out, all []int
	for i, h := range info.Heaps {
		all = append(all, i)
		if h.DeviceLocal {
			out = append(out, i)
		}
	}
	if len(out) == 0 {
		return all
	}
	return out
}

// MemoryBudget is the device memory a workload may plan to use now: the
// physical device's budget (Instance.MemoryBudget; VK_EXT_memory_budget's
// heapUsage counts what this device already holds, so its idle blocks are
// added back), capped by the allocator's headroom (Available).
func (d *Device) MemoryBudget() MemoryBudget {
	b := d.inst.memoryBudget(d.pd, d.Info)
	avail := d.Available()
	if b.HeapBudget > 0 {
		d.mu.Lock()
		b.Bytes += d.local.idle()
		d.mu.Unlock()
	}
	if b.Bytes > avail {
		b.Bytes = avail
		if d.opt.Budget > 0 {
			b.Source = "DeviceOptions.Budget"
		}
	}
	return b
}
