package engine

import (
	"errors"
	"unsafe"
)

// Handles are the raw Vulkan handles of an opened device, for C libraries
// that record their own commands on it (VkFFT: pipelines/spectra). Use them
// only inside Device.WithHandles or Sequence.Record.
type Handles struct {
	GetInstanceProcAddr unsafe.Pointer // the loader's vkGetInstanceProcAddr
	Instance            unsafe.Pointer // VkInstance
	PhysicalDevice      unsafe.Pointer // VkPhysicalDevice
	Device              unsafe.Pointer // VkDevice
	Queue               unsafe.Pointer // VkQueue: the compute queue
	CommandPool         unsafe.Pointer // VkCommandPool of the compute queue's family
	Fence               unsafe.Pointer // VkFence, unsignalled; a user must leave it unsignalled
}

// WithHandles calls fn with the device's handles while it holds the locks
// that guard the command pool, the fence and queue submissions, so that
// fn may allocate command buffers from the pool and submit to the queue
// (and wait on the fence) without racing a Sequence.
func (d *Device) WithHandles(fn func(h Handles) error) error {
	if !d.settle() {
		return d.busy()
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	d.qmu.Lock()
	defer d.qmu.Unlock()
	return fn(Handles{
		GetInstanceProcAddr: d.inst.gipa,
		Instance:            raw(d.inst.handle),
		PhysicalDevice:      raw(d.pd),
		Device:              raw(d.handle),
		Queue:               raw(d.queue),
		CommandPool:         raw(d.pool),
		Fence:               raw(d.fence),
	})
}

// raw is a Vulkan handle (a pointer, dispatchable or not, on 64-bit hosts) as an unsafe.Pointer.
func raw[T any](h T) unsafe.Pointer { return *(*unsafe.Pointer)(unsafe.Pointer(&h)) }

// Handle is the buffer's VkBuffer, bound at offset 0 of its own range:
// a C library addresses the buffer from 0 to Size.
func (b *Buffer) Handle() unsafe.Pointer { return raw(b.handle) }

// Record lets fn record commands of its own (dispatches, barriers between
// them) into the sequence's command buffer, as one kernel step named name
// that uses bufs: the usual barrier follows it, and the step is timed. fn
// is called when the sequence is submitted (its error is Submit's), and
// a sequence with such a step is recorded anew at every run (replay.go).
func (s *Sequence) Record(name string, fn func(cmd unsafe.Pointer) error, bufs ...*Buffer) error {
	if s.err != nil {
		return s.err
	}
	if !s.recording {
		return s.fail(errors.New("engine: sequence already ran"))
	}
	for _, b := range bufs {
		if err := s.touch(b); err != nil {
			return err
		}
	}
	s.ops = append(s.ops, op{phase: PhaseKernel, name: name, fn: fn})
	s.noReplay = true
	return nil
}
