package engine

/*
#include <stdlib.h>
#include "native.h"

// The calls a sequence makes for every step, made from C. vulkan-go
// copies a slice argument's structures into C memory that a finalizer
// frees, and the finalizer can run (a garbage collection finishing on
// another thread) while the driver still reads them: a rare use after free,
// found in pipeline creation (see kernel.go). Here every structure lives on
// the C stack for the length of the call.
// vks_dev (native.h) holds the device-level entry points.

static int vks_dev_load(void *gipa, VkInstance inst, VkDevice dev, vks_dev *fn) {
	PFN_vkGetDeviceProcAddr gdpa = (PFN_vkGetDeviceProcAddr)((PFN_vkGetInstanceProcAddr)gipa)(inst, "vkGetDeviceProcAddr");
	if (!gdpa) return 0;
	fn->queueSubmit = (PFN_vkQueueSubmit)gdpa(dev, "vkQueueSubmit");
	fn->barrier = (PFN_vkCmdPipelineBarrier)gdpa(dev, "vkCmdPipelineBarrier");
	fn->copyBuffer = (PFN_vkCmdCopyBuffer)gdpa(dev, "vkCmdCopyBuffer");
	fn->updateSets = (PFN_vkUpdateDescriptorSets)gdpa(dev, "vkUpdateDescriptorSets");
	fn->bindSets = (PFN_vkCmdBindDescriptorSets)gdpa(dev, "vkCmdBindDescriptorSets");
	fn->allocSets = (PFN_vkAllocateDescriptorSets)gdpa(dev, "vkAllocateDescriptorSets");
	return fn->queueSubmit && fn->barrier && fn->copyBuffer && fn->updateSets && fn->bindSets && fn->allocSets;
}

static VkResult vks_submit(vks_dev *fn, VkQueue q, VkCommandBuffer cmd, VkSemaphore wait,
		VkPipelineStageFlags wait_stage, VkSemaphore signal, VkFence fence) {
	VkSubmitInfo info = {VK_STRUCTURE_TYPE_SUBMIT_INFO};
	if (cmd) {
		info.commandBufferCount = 1;
		info.pCommandBuffers = &cmd;
	}
	if (wait) {
		info.waitSemaphoreCount = 1;
		info.pWaitSemaphores = &wait;
		info.pWaitDstStageMask = &wait_stage;
	}
	if (signal) {
		info.signalSemaphoreCount = 1;
		info.pSignalSemaphores = &signal;
	}
	return fn->queueSubmit(q, 1, &info, fence);
}

static void vks_barrier(vks_dev *fn, VkCommandBuffer cmd, VkPipelineStageFlags src, VkPipelineStageFlags dst,
		VkAccessFlags src_access, VkAccessFlags dst_access) {
	VkMemoryBarrier b = {VK_STRUCTURE_TYPE_MEMORY_BARRIER, NULL, src_access, dst_access};
	fn->barrier(cmd, src, dst, 0, 1, &b, 0, NULL, 0, NULL);
}

static void vks_copy(vks_dev *fn, VkCommandBuffer cmd, VkBuffer src, VkBuffer dst,
		VkDeviceSize src_off, VkDeviceSize dst_off, VkDeviceSize n) {
	VkBufferCopy r = {src_off, dst_off, n};
	fn->copyBuffer(cmd, src, dst, 1, &r);
}

// vks_write_set points bindings 0..n-1 of set at the buffer ranges.
static void vks_write_set(vks_dev *fn, VkDevice dev, VkDescriptorSet set, uint32_t n,
		const VkBuffer *bufs, const VkDeviceSize *offs, const VkDeviceSize *ranges) {
	VkDescriptorBufferInfo info[32];
	VkWriteDescriptorSet w[32];
	for (uint32_t i = 0; i < n && i < 32; i++) {
		info[i] = (VkDescriptorBufferInfo){bufs[i], offs[i], ranges[i]};
		w[i] = (VkWriteDescriptorSet){VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET};
		w[i].dstSet = set;
		w[i].dstBinding = i;
		w[i].descriptorCount = 1;
		w[i].descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER;
		w[i].pBufferInfo = &info[i];
	}
	fn->updateSets(dev, n < 32 ? n : 32, w, 0, NULL);
}

static void vks_bind_set(vks_dev *fn, VkCommandBuffer cmd, VkPipelineLayout layout, VkDescriptorSet set) {
	fn->bindSets(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, layout, 0, 1, &set, 0, NULL);
}

static VkResult vks_alloc_set(vks_dev *fn, VkDevice dev, VkDescriptorPool pool, VkDescriptorSetLayout layout, VkDescriptorSet *out) {
	VkDescriptorSetAllocateInfo info = {VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO};
	info.descriptorPool = pool;
	info.descriptorSetCount = 1;
	info.pSetLayouts = &layout;
	return fn->allocSets(dev, &info, out);
}
*/
import "C"

import (
	"errors"
	"unsafe"

	vk "github.com/vulkan-go/vulkan"
)

// maxBindings is the most storage buffers one kernel binds.
const maxBindings = 32

func (d *Device) loadCommands() error {
	d.fn = (*C.vks_dev)(C.calloc(1, C.size_t(unsafe.Sizeof(C.vks_dev{}))))
	if C.vks_dev_load(d.inst.gipa, *(*C.VkInstance)(unsafe.Pointer(&d.inst.handle)), *(*C.VkDevice)(unsafe.Pointer(&d.handle)), d.fn) == 0 {
		return errors.New("vkGetDeviceProcAddr: a core Vulkan 1.0 command is missing")
	}
	return nil
}

func (d *Device) freeCommands() {
	if d.fn != nil {
		C.free(unsafe.Pointer(d.fn))
		d.fn = nil
	}
}

func cHandle[T any, C any](h T) C { return *(*C)(unsafe.Pointer(&h)) }

// submit submits cmd (or nothing when nil) on q, waiting on wait at stage
// and signalling signal (each when not null), then fence.
func (d *Device) submit(q vk.Queue, cmd vk.CommandBuffer, wait vk.Semaphore, stage vk.PipelineStageFlagBits, signal vk.Semaphore, fence vk.Fence) vk.Result {
	return vk.Result(C.vks_submit(d.fn, cHandle[vk.Queue, C.VkQueue](q), cHandle[vk.CommandBuffer, C.VkCommandBuffer](cmd),
		cHandle[vk.Semaphore, C.VkSemaphore](wait), C.VkPipelineStageFlags(stage),
		cHandle[vk.Semaphore, C.VkSemaphore](signal), cHandle[vk.Fence, C.VkFence](fence)))
}

func (d *Device) cmdBarrier(cmd vk.CommandBuffer, src, dst vk.PipelineStageFlagBits, srcAccess, dstAccess vk.AccessFlagBits) {
	C.vks_barrier(d.fn, cHandle[vk.CommandBuffer, C.VkCommandBuffer](cmd), C.VkPipelineStageFlags(src), C.VkPipelineStageFlags(dst),
		C.VkAccessFlags(srcAccess), C.VkAccessFlags(dstAccess))
}

func (d *Device) cmdCopy(cmd vk.CommandBuffer, src, dst vk.Buffer, srcOff, dstOff, n int64) {
	C.vks_copy(d.fn, cHandle[vk.CommandBuffer, C.VkCommandBuffer](cmd), cHandle[vk.Buffer, C.VkBuffer](src), cHandle[vk.Buffer, C.VkBuffer](dst),
		C.VkDeviceSize(srcOff), C.VkDeviceSize(dstOff), C.VkDeviceSize(n))
}

// writeSet points the set's bindings at binds (at most maxBindings).
func (d *Device) writeSet(set vk.DescriptorSet, binds []Binding, sizes []int64) {
	var bufs [maxBindings]C.VkBuffer
	var offs, ranges [maxBindings]C.VkDeviceSize
	n := min(len(binds), maxBindings)
	for i := 0; i < n; i++ {
		bufs[i] = cHandle[vk.Buffer, C.VkBuffer](binds[i].Buf.handle)
		offs[i], ranges[i] = C.VkDeviceSize(binds[i].Offset), C.VkDeviceSize(sizes[i])
	}
	C.vks_write_set(d.fn, cHandle[vk.Device, C.VkDevice](d.handle), cHandle[vk.DescriptorSet, C.VkDescriptorSet](set), C.uint32_t(n),
		&bufs[0], &offs[0], &ranges[0])
}

func (d *Device) cmdBindSet(cmd vk.CommandBuffer, layout vk.PipelineLayout, set vk.DescriptorSet) {
	C.vks_bind_set(d.fn, cHandle[vk.CommandBuffer, C.VkCommandBuffer](cmd), cHandle[vk.PipelineLayout, C.VkPipelineLayout](layout),
		cHandle[vk.DescriptorSet, C.VkDescriptorSet](set))
}

func (d *Device) allocSet(pool vk.DescriptorPool, layout vk.DescriptorSetLayout) (vk.DescriptorSet, vk.Result) {
	var set C.VkDescriptorSet
	r := C.vks_alloc_set(d.fn, cHandle[vk.Device, C.VkDevice](d.handle), cHandle[vk.DescriptorPool, C.VkDescriptorPool](pool),
		cHandle[vk.DescriptorSetLayout, C.VkDescriptorSetLayout](layout), &set)
	return *(*vk.DescriptorSet)(unsafe.Pointer(&set)), vk.Result(r)
}
