package engine

/*
#include <stdlib.h>
*/
import "C"

import (
	"fmt"
	"sync"

	vk "github.com/vulkan-go/vulkan"
)

// Device is an opened logical device with one compute queue.
type Device struct {
	Info DeviceInfo

	inst   *Instance
	pd     vk.PhysicalDevice
	handle vk.Device
	queue  vk.Queue
	pool   vk.CommandPool
	fence  vk.Fence
	cache  vk.PipelineCache

	mu      sync.Mutex // guards the queue, the command pool and the caches
	kernels map[string]*Kernel
	local   *allocator // storage buffers
	staging *allocator // host-visible transfer buffers
	uma     bool       // storage buffers are host-visible: no staging
}

// Open creates a logical device on physical device index.
func (in *Instance) Open(index int) (*Device, error) {
	if index < 0 || index >= len(in.devices) {
		return nil, fmt.Errorf("no Vulkan device %d (found %d)", index, len(in.devices))
	}
	info := in.infos[index]
	if info.queueFamily < 0 {
		return nil, fmt.Errorf("device %d (%s) has no compute queue", index, info.Name)
	}
	pd := in.devices[index]
	d := &Device{Info: info, inst: in, pd: pd, kernels: map[string]*Kernel{}}

	feats := vk.PhysicalDeviceFeatures{ShaderFloat64: vkBool(info.Float64), ShaderInt64: vkBool(info.Int64)}
	dci := vk.DeviceCreateInfo{
		SType:                vk.StructureTypeDeviceCreateInfo,
		QueueCreateInfoCount: 1,
		PQueueCreateInfos: []vk.DeviceQueueCreateInfo{{
			SType:            vk.StructureTypeDeviceQueueCreateInfo,
			QueueFamilyIndex: uint32(info.queueFamily),
			QueueCount:       1,
			PQueuePriorities: []float32{1},
		}},
		PEnabledFeatures: []vk.PhysicalDeviceFeatures{feats},
	}
	var dh vk.Device
	if err := check(vk.CreateDevice(pd, &dci, nil, &dh), "vkCreateDevice"); err != nil {
		return nil, fmt.Errorf("opening %s: %w", info.Name, err)
	}
	d.handle = dh
	in.mu.Lock()
	in.open++
	in.mu.Unlock()
	var q vk.Queue
	vk.GetDeviceQueue(d.handle, uint32(info.queueFamily), 0, &q)
	d.queue = q

	fail := func(err error) (*Device, error) {
		d.Close()
		return nil, err
	}
	var pool vk.CommandPool
	if err := check(vk.CreateCommandPool(d.handle, &vk.CommandPoolCreateInfo{
		SType:            vk.StructureTypeCommandPoolCreateInfo,
		Flags:            vk.CommandPoolCreateFlags(vk.CommandPoolCreateResetCommandBufferBit),
		QueueFamilyIndex: uint32(info.queueFamily),
	}, nil, &pool), "vkCreateCommandPool"); err != nil {
		return fail(err)
	}
	d.pool = pool
	var fence vk.Fence
	if err := check(vk.CreateFence(d.handle, &vk.FenceCreateInfo{SType: vk.StructureTypeFenceCreateInfo}, nil, &fence), "vkCreateFence"); err != nil {
		return fail(err)
	}
	d.fence = fence
	if err := d.initMemory(); err != nil {
		return fail(err)
	}
	d.loadPipelineCache()
	if err := in.takeValidation(); err != nil {
		return fail(err)
	}
	return d, nil
}

func vkBool(b bool) vk.Bool32 {
	if b {
		return vk.True
	}
	return vk.False
}

func (d *Device) initMemory() error {
	var mem vk.PhysicalDeviceMemoryProperties
	vk.GetPhysicalDeviceMemoryProperties(d.pd, &mem)
	mem.Deref()
	const (
		local    = vk.MemoryPropertyFlags(vk.MemoryPropertyDeviceLocalBit)
		visible  = vk.MemoryPropertyFlags(vk.MemoryPropertyHostVisibleBit)
		coherent = vk.MemoryPropertyFlags(vk.MemoryPropertyHostCoherentBit)
		cached   = vk.MemoryPropertyFlags(vk.MemoryPropertyHostCachedBit)
	)
	find := func(want, prefer vk.MemoryPropertyFlags) int {
		best := -1
		for i := uint32(0); i < mem.MemoryTypeCount; i++ {
			t := mem.MemoryTypes[i]
			t.Deref()
			if t.PropertyFlags&want != want {
				continue
			}
			if best < 0 || t.PropertyFlags&prefer == prefer {
				best = int(i)
				if t.PropertyFlags&prefer == prefer {
					break
				}
			}
		}
		return best
	}
	stagingType := find(visible|coherent, cached)
	if stagingType < 0 {
		return fmt.Errorf("%s has no host-visible coherent memory", d.Info.Name)
	}
	localType := find(local, 0)
	if d.Info.Type == "cpu" || d.Info.Type == "integrated" {
		if t := find(local|visible|coherent, cached); t >= 0 {
			localType, d.uma = t, true
		}
	}
	if localType < 0 {
		localType, d.uma = stagingType, true
	}
	d.local = newAllocator(d, uint32(localType), d.uma)
	d.staging = newAllocator(d, uint32(stagingType), true)
	return nil
}

// UMA reports whether storage buffers are host-visible, so uploads and
// downloads are plain memory copies with no staging.
func (d *Device) UMA() bool { return d.uma }

// MaxBinding is the largest byte range one kernel binding may cover
// (maxStorageBufferRange), rounded down to a multiple of 256.
func (d *Device) MaxBinding() int64 {
	return int64(d.Info.MaxStorageBufferRange) &^ 255
}

// Alignment is the offset alignment of a binding (at least 256 bytes, which
// keeps chunk arithmetic simple on every device).
func (d *Device) Alignment() int64 {
	a := int64(d.Info.MinStorageAlignment)
	if a < 256 {
		a = 256
	}
	return a
}

// Close waits for the device to go idle and destroys everything it created.
// It returns validation messages raised on the way.
func (d *Device) Close() error {
	if d.handle == nil {
		return nil
	}
	vk.DeviceWaitIdle(d.handle)
	for _, k := range d.kernels {
		k.destroy(d.handle)
	}
	d.kernels = nil
	if d.cache != vk.NullPipelineCache {
		d.savePipelineCache()
		vk.DestroyPipelineCache(d.handle, d.cache, nil)
	}
	if d.local != nil {
		d.local.close()
	}
	if d.staging != nil {
		d.staging.close()
	}
	if d.fence != vk.NullFence {
		vk.DestroyFence(d.handle, d.fence, nil)
	}
	if d.pool != vk.NullCommandPool {
		vk.DestroyCommandPool(d.handle, d.pool, nil)
	}
	vk.DestroyDevice(d.handle, nil)
	d.handle = nil
	d.inst.mu.Lock()
	d.inst.open--
	d.inst.mu.Unlock()
	return d.inst.takeValidation()
}

// Validation returns (and clears) validation messages raised since the last
// call, as an error wrapping ErrValidation.
func (d *Device) Validation() error { return d.inst.takeValidation() }
