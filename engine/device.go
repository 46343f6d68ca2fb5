package engine

/*
#include <stdlib.h>
#include "native.h"
*/
import "C"

import (
	"fmt"
	"sync"
	"sync/atomic"
	"time"
	"unsafe"

	vk "github.com/vulkan-go/vulkan"
)

// Device is an opened logical device with a compute queue and, where the
// device has one (or DeviceOptions ask), a queue for copies.
type Device struct {
	Info DeviceInfo

	inst   *Instance
	pd     vk.PhysicalDevice
	handle vk.Device
	queue  vk.Queue
	pool   vk.CommandPool
	fence  vk.Fence
	cache  vk.PipelineCache
	opt    DeviceOptions

	// Copies: xqueue (which may be queue itself) in family xfamily, with
	// its own command pool. separate means copies and compute are ordered
	// by semaphores (each submission's: Sequence.Submit) rather than by
	// queue order.
	xqueue   vk.Queue
	xfamily  uint32
	xpool    vk.CommandPool
	separate bool
	families []uint32 // queue families that share buffers (concurrent sharing when 2)
	xmu      sync.Mutex
	ring     *ring
	fn       *C.vks_dev // commands called from C (cmds.go)

	mu      sync.Mutex // guards the command pools, the allocators and the caches
	qmu     sync.Mutex // guards submissions to queue and xqueue
	kernels map[string]*Kernel
	local   *allocator // storage buffers
	staging *allocator // host-visible transfer buffers
	uma     bool       // storage buffers are host-visible: no staging
	budget  int64      // bytes of device memory the local allocator may hold
	held    []*Held    // host arrays kept on the device (held.go)
	meter   meter      // counts and phase times (timing.go)
	// Objects sequences reuse (d.mu): command buffers of pool, descriptor
	// pools (reset when given back) and timestamp query pools.
	freeCmds    []cmdBuf
	freeSets    []vk.DescriptorPool
	freeQueries []vk.QueryPool
	// Recorded command buffers kept for replay (replay.go), and the ids
	// of views and kernels, never reused.
	replays replays
	ids     atomic.Uint64
	// Each submission's fence and semaphores (Sequence.Submit), reused;
	// sequences counts the sequences submitted.
	freeFences []vk.Fence
	freeSems   []vk.Semaphore
	sequences  atomic.Int64
	// importAlign is minImportedHostPointerAlignment where host memory is
	// imported (import.go), else 0.
	importAlign int64
	registered  []*Registered // host ranges imported until their owner releases them
	values      []value       // what packages keep for the device's life (values.go)
	vmu         sync.Mutex    // guards values (mk may take mu)

	// Runaway kernels (timeout.go): timeout is SetTimeout's (0: wait for
	// ever); stuck a submission that timed out and may still run; gaveUp
	// that settle waited for it in vain (later calls only poll).
	timeout time.Duration
	stuck   *Sequence
	gaveUp  bool

	// Start-up (startup.go): the time OpenWith took, of which the
	// pipeline cache's load; pipelines built and the time it took.
	opened, cacheLoad, buildTime time.Duration
	built                        int
	cacheSum                     [32]byte                   // SHA-256 of the pipeline cache data loaded (cache.go)
	modules                      map[string]vk.ShaderModule // by SPIR-V code (kernel.go)
}

// Open creates a logical device on physical device index, with the options
// of the environment (DeviceOptionsFromEnv).
func (in *Instance) Open(index int) (*Device, error) {
	opt, err := DeviceOptionsFromEnv()
	if err != nil {
		return nil, err
	}
	return in.OpenWith(index, opt)
}

// OpenWith creates a logical device on physical device index.
func (in *Instance) OpenWith(index int, opt DeviceOptions) (*Device, error) {
	if index < 0 || index >= len(in.devices) {
		return nil, fmt.Errorf("no Vulkan device %d (found %d)", index, len(in.devices))
	}
	t0 := time.Now()
	info := in.infos[index]
	if info.queueFamily < 0 {
		return nil, fmt.Errorf("device %d (%s) has no compute queue", index, info.Name)
	}
	pd := in.devices[index]
	info.disable(opt.Disable)
	d := &Device{Info: info, inst: in, pd: pd, kernels: map[string]*Kernel{}, opt: opt}
	d.replays.d = d
	var err error

	// Where copies go: a transfer-only family, else a second queue of the
	// compute family, else the compute queue with the same synchronisation.
	mode := opt.Transfer
	if mode == TransferAuto {
		mode = TransferMain
		if info.Type == "discrete" && info.transferFamily >= 0 {
			mode = TransferQueue
		}
	}
	d.xfamily = uint32(info.queueFamily)
	xindex := uint32(0)
	d.families = []uint32{uint32(info.queueFamily)}
	count, xfamily := uint32(1), int32(-1)
	if mode == TransferQueue {
		d.separate = true
		switch {
		case info.transferFamily >= 0:
			d.xfamily = uint32(info.transferFamily)
			d.families = append(d.families, d.xfamily)
			xfamily = int32(info.transferFamily)
		case info.queueCount >= 2:
			count, xindex = 2, 1
		}
	}
	// Host memory is imported where the device offers it (Vulkan 1.1 has
	// the external-memory core it builds on) and the data path copies.
	importHost := info.ExternalMemoryHost && info.importAlign > 0 && min(info.apiRaw, in.api) >= vk.MakeVersion(1, 1, 0) && !opt.NoImport
	if importHost {
		d.importAlign = info.importAlign
	}
	// The device runs at the lower of its version and the instance's; the
	// shader features it offers there are enabled (info.ShaderFeatures),
	// maintenance4 among them for SPIR-V 1.6's LocalSizeId.
	var head unsafe.Pointer
	if feats := C.vks_device_features(C.uint32_t(info.runAPI), C.uint32_t(info.shaderFeats), &head); feats != nil {
		defer C.free(feats)
	}
	var ch C.VkDevice
	r := C.vks_create_device(in.gipa, C.VkInstance(unsafe.Pointer(in.handle)), C.VkPhysicalDevice(unsafe.Pointer(pd)),
		C.uint32_t(info.queueFamily), C.uint32_t(count), C.int32_t(xfamily), boolInt(info.Float64), boolInt(info.Int64),
		boolInt(info.HasShaderFeature("shaderInt16")), boolInt(importHost), head, &ch)
	if err := check(vk.Result(r), "vkCreateDevice"); err != nil {
		return nil, fmt.Errorf("opening %s: %w", info.Name, err)
	}
	dh := vk.Device(unsafe.Pointer(ch))
	d.handle = dh
	in.mu.Lock()
	in.open++
	in.mu.Unlock()
	var q, xq vk.Queue
	vk.GetDeviceQueue(d.handle, uint32(info.queueFamily), 0, &q)
	vk.GetDeviceQueue(d.handle, d.xfamily, xindex, &xq)
	d.queue, d.xqueue = q, xq

	fail := func(err error) (*Device, error) {
		d.Close()
		return nil, err
	}
	if err := d.loadCommands(); err != nil {
		return fail(err)
	}
	if d.pool, err = d.newPool(uint32(info.queueFamily)); err != nil {
		return fail(err)
	}
	if d.xpool, err = d.newPool(d.xfamily); err != nil {
		return fail(err)
	}
	if d.fence, err = d.createFence(); err != nil {
		return fail(err)
	}
	if err := d.initMemory(); err != nil {
		return fail(err)
	}
	d.ring = &ring{d: d}
	d.loadPipelineCache()
	if err := in.takeValidation(); err != nil {
		return fail(err)
	}
	d.opened = time.Since(t0)
	return d, nil
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
	if (d.Info.Type == "cpu" || d.Info.Type == "integrated") && !d.opt.Discrete {
		if t := find(local|visible|coherent, cached); t >= 0 {
			localType, d.uma = t, true
		}
	}
	if localType < 0 && !d.opt.Discrete {
		localType, d.uma = stagingType, true
	}
	if localType < 0 {
		localType = stagingType
	}
	d.budget = d.opt.Budget
	if d.budget <= 0 {
		d.budget = int64(d.Info.DeviceMemory()) / 10 * 9
		if d.budget <= 0 {
			d.budget = 1 << 62
		}
	}
	// The cache keeps up to the whole budget of device memory, as
	// PyTorch's does; where buffers live in the host's memory (UMA, CPU
	// drivers), a quarter of it.
	keep, keepStaging := d.budget, int64(stagingKeep)
	if d.uma {
		keep = d.budget / 4
	}
	if d.opt.NoCache {
		keep, keepStaging = 0, 0
	}
	d.local = newAllocator(d, uint32(localType), d.uma, true, keep)
	d.staging = newAllocator(d, uint32(stagingType), true, false, keepStaging)
	return nil
}

// UMA reports whether storage buffers are host-visible, so uploads and
// downloads are plain memory copies with no staging.
func (d *Device) UMA() bool { return d.uma }

// Budget is the device memory, in bytes, that buffers may take together
// (DeviceOptions.Budget, else 90 % of the device-local heaps).
func (d *Device) Budget() int64 { return d.budget }

// Available is the budget not yet taken by buffers (and by the free space
// of the blocks small buffers are carved from).
func (d *Device) Available() int64 {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.budget - d.local.total + d.local.idle()
}

// MaxBuffer is the largest buffer the device allocates in one piece: the
// smaller of maxMemoryAllocationSize and the budget.
func (d *Device) MaxBuffer() int64 {
	m := d.budget
	if a := int64(d.Info.MaxMemoryAllocation); a > 0 {
		m = min(m, a)
	}
	return m
}

// Separate reports whether copies are submitted apart from compute (on a
// transfer queue, or with the synchronisation one needs).
func (d *Device) Separate() bool { return d.separate }

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
	if !d.settle() {
		// A runaway kernel still runs: destroying anything now would
		// pull memory from under it. Leave the device to the process's
		// end.
		return d.busy()
	}
	vk.DeviceWaitIdle(d.handle)
	d.releaseValues()
	if d.ring != nil {
		d.ring.drain()
		d.ring.free()
	}
	for _, r := range d.registered {
		d.unimport(r.imp)
		r.imp = nil
	}
	d.registered = nil
	d.mu.Lock()
	d.replays.close()
	d.mu.Unlock()
	d.destroyKernels()
	if d.cache != vk.NullPipelineCache {
		d.savePipelineCache()
		vk.DestroyPipelineCache(d.handle, d.cache, nil)
	}
	for _, p := range d.freeSets {
		vk.DestroyDescriptorPool(d.handle, p, nil)
	}
	for _, q := range d.freeQueries {
		vk.DestroyQueryPool(d.handle, q, nil)
	}
	for _, c := range d.freeCmds {
		vk.DestroyCommandPool(d.handle, c.pool, nil) // frees its buffer
	}
	d.freeCmds, d.freeSets, d.freeQueries = nil, nil, nil
	if d.local != nil {
		d.local.close()
	}
	if d.staging != nil {
		d.staging.close()
	}
	if d.fence != vk.NullFence {
		vk.DestroyFence(d.handle, d.fence, nil)
	}
	for _, p := range []vk.CommandPool{d.pool, d.xpool} {
		if p != vk.NullCommandPool {
			vk.DestroyCommandPool(d.handle, p, nil)
		}
	}
	for _, f := range d.freeFences {
		vk.DestroyFence(d.handle, f, nil)
	}
	for _, sem := range d.freeSems {
		vk.DestroySemaphore(d.handle, sem, nil)
	}
	d.freeFences, d.freeSems = nil, nil
	vk.DestroyDevice(d.handle, nil)
	d.handle = nil
	d.freeCommands()
	d.inst.mu.Lock()
	d.inst.open--
	d.inst.mu.Unlock()
	return d.inst.takeValidation()
}

// Validation returns (and clears) validation messages raised since the last
// call, as an error wrapping ErrValidation.
func (d *Device) Validation() error { return d.inst.takeValidation() }

// newPool creates a command pool of queue family family.
func (d *Device) newPool(family uint32) (vk.CommandPool, error) {
	var pool vk.CommandPool
	err := check(vk.CreateCommandPool(d.handle, &vk.CommandPoolCreateInfo{
		SType:            vk.StructureTypeCommandPoolCreateInfo,
		Flags:            vk.CommandPoolCreateFlags(vk.CommandPoolCreateResetCommandBufferBit),
		QueueFamilyIndex: family,
	}, nil, &pool), "vkCreateCommandPool")
	return pool, err
}

// cmdBuf is a sequence's command buffer in a pool of its own: a pool is
// externally synchronised with every buffer allocated from it, so that
// sequences recording at once on several goroutines need a pool each.
type cmdBuf struct {
	pool vk.CommandPool
	cmd  vk.CommandBuffer
}

// newCmdBuf makes a command buffer of the compute family in a new pool.
func (d *Device) newCmdBuf() (cmdBuf, error) {
	pool, err := d.newPool(uint32(d.Info.queueFamily))
	if err != nil {
		return cmdBuf{}, err
	}
	cmd, err := d.allocCmd(pool)
	if err != nil {
		vk.DestroyCommandPool(d.handle, pool, nil)
		return cmdBuf{}, err
	}
	return cmdBuf{pool, cmd}, nil
}
