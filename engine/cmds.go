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

static int vks_dev_load(void *gipa, VkInstance inst, VkDevice dev, int host_import, vks_dev *fn) {
	PFN_vkGetDeviceProcAddr gdpa = (PFN_vkGetDeviceProcAddr)((PFN_vkGetInstanceProcAddr)gipa)(inst, "vkGetDeviceProcAddr");
	if (!gdpa) return 0;
	fn->queueSubmit = (PFN_vkQueueSubmit)gdpa(dev, "vkQueueSubmit");
	fn->barrier = (PFN_vkCmdPipelineBarrier)gdpa(dev, "vkCmdPipelineBarrier");
	fn->copyBuffer = (PFN_vkCmdCopyBuffer)gdpa(dev, "vkCmdCopyBuffer");
	fn->updateSets = (PFN_vkUpdateDescriptorSets)gdpa(dev, "vkUpdateDescriptorSets");
	fn->bindSets = (PFN_vkCmdBindDescriptorSets)gdpa(dev, "vkCmdBindDescriptorSets");
	fn->allocSets = (PFN_vkAllocateDescriptorSets)gdpa(dev, "vkAllocateDescriptorSets");
	fn->beginCmd = (PFN_vkBeginCommandBuffer)gdpa(dev, "vkBeginCommandBuffer");
	fn->allocCmds = (PFN_vkAllocateCommandBuffers)gdpa(dev, "vkAllocateCommandBuffers");
	fn->createBuffer = (PFN_vkCreateBuffer)gdpa(dev, "vkCreateBuffer");
	fn->bufferReqs = (PFN_vkGetBufferMemoryRequirements)gdpa(dev, "vkGetBufferMemoryRequirements");
	fn->allocMemory = (PFN_vkAllocateMemory)gdpa(dev, "vkAllocateMemory");
	fn->createQueryPool = (PFN_vkCreateQueryPool)gdpa(dev, "vkCreateQueryPool");
	fn->createDescriptorPool = (PFN_vkCreateDescriptorPool)gdpa(dev, "vkCreateDescriptorPool");
	fn->createFence = (PFN_vkCreateFence)gdpa(dev, "vkCreateFence");
	if (host_import)
		fn->hostPointerProps = (PFN_vkGetMemoryHostPointerPropertiesEXT)gdpa(dev, "vkGetMemoryHostPointerPropertiesEXT");
	return fn->queueSubmit && fn->barrier && fn->copyBuffer && fn->updateSets && fn->bindSets && fn->allocSets &&
		fn->beginCmd && fn->allocCmds && fn->createBuffer && fn->bufferReqs && fn->allocMemory && fn->createQueryPool &&
		fn->createDescriptorPool && fn->createFence;
}

// vks_begin begins recording cmd: for one submission, or for as many as
// the replay cache makes (once in flight at a time) when reuse.
static VkResult vks_begin(vks_dev *fn, VkCommandBuffer cmd, int reuse) {
	VkCommandBufferBeginInfo info = {VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
	info.flags = reuse ? 0 : VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT;
	return fn->beginCmd(cmd, &info);
}

static VkResult vks_alloc_cmd(vks_dev *fn, VkDevice dev, VkCommandPool pool, VkCommandBuffer *out) {
	VkCommandBufferAllocateInfo info = {VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO};
	info.commandPool = pool;
	info.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
	info.commandBufferCount = 1;
	return fn->allocCmds(dev, &info, out);
}

// vks_create_buffer creates a buffer shared by the nfam queue families
// (exclusive for one), made for imported host memory when host_import,
// and fills req with its memory requirements.
static VkResult vks_create_buffer(vks_dev *fn, VkDevice dev, VkDeviceSize size, VkBufferUsageFlags usage,
		uint32_t nfam, const uint32_t *fams, int host_import, VkBuffer *out, VkMemoryRequirements *req) {
	VkExternalMemoryBufferCreateInfo ext = {VK_STRUCTURE_TYPE_EXTERNAL_MEMORY_BUFFER_CREATE_INFO};
	ext.handleTypes = VK_EXTERNAL_MEMORY_HANDLE_TYPE_HOST_ALLOCATION_BIT_EXT;
	VkBufferCreateInfo info = {VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO};
	if (host_import)
		info.pNext = &ext;
	info.size = size;
	info.usage = usage;
	info.sharingMode = VK_SHARING_MODE_EXCLUSIVE;
	if (nfam > 1) {
		info.sharingMode = VK_SHARING_MODE_CONCURRENT;
		info.queueFamilyIndexCount = nfam;
		info.pQueueFamilyIndices = fams;
	}
	VkResult r = fn->createBuffer(dev, &info, NULL, out);
	if (r == VK_SUCCESS)
		fn->bufferReqs(dev, *out, req);
	return r;
}

// vks_alloc_memory allocates size bytes of memory type type, importing the
// host memory at host (VK_EXT_external_memory_host) when it is not NULL.
// (host is an address, not a pointer, for cgo: the page it starts may hold
// Go pointers of another object.)
static VkResult vks_alloc_memory(vks_dev *fn, VkDevice dev, VkDeviceSize size, uint32_t type, uintptr_t host, VkDeviceMemory *out) {
	VkImportMemoryHostPointerInfoEXT imp = {VK_STRUCTURE_TYPE_IMPORT_MEMORY_HOST_POINTER_INFO_EXT};
	imp.handleType = VK_EXTERNAL_MEMORY_HANDLE_TYPE_HOST_ALLOCATION_BIT_EXT;
	imp.pHostPointer = (void *)host;
	VkMemoryAllocateInfo info = {VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO};
	if (host)
		info.pNext = &imp;
	info.allocationSize = size;
	info.memoryTypeIndex = type;
	return fn->allocMemory(dev, &info, NULL, out);
}

// vks_host_pointer_types is the memory types the host memory at p may be
// imported as (0 when it cannot be).
static uint32_t vks_host_pointer_types(vks_dev *fn, VkDevice dev, uintptr_t p) {
	if (!fn->hostPointerProps)
		return 0;
	VkMemoryHostPointerPropertiesEXT props = {VK_STRUCTURE_TYPE_MEMORY_HOST_POINTER_PROPERTIES_EXT};
	if (fn->hostPointerProps(dev, VK_EXTERNAL_MEMORY_HANDLE_TYPE_HOST_ALLOCATION_BIT_EXT, (void *)p, &props) != VK_SUCCESS)
		return 0;
	return props.memoryTypeBits;
}

static VkResult vks_create_query_pool(vks_dev *fn, VkDevice dev, uint32_t count, VkQueryPool *out) {
	VkQueryPoolCreateInfo info = {VK_STRUCTURE_TYPE_QUERY_POOL_CREATE_INFO};
	info.queryType = VK_QUERY_TYPE_TIMESTAMP;
	info.queryCount = count;
	return fn->createQueryPool(dev, &info, NULL, out);
}

static VkResult vks_create_descriptor_pool(vks_dev *fn, VkDevice dev, uint32_t sets, uint32_t descriptors, VkDescriptorPool *out) {
	VkDescriptorPoolSize size = {VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, descriptors};
	VkDescriptorPoolCreateInfo info = {VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO};
	info.maxSets = sets;
	info.poolSizeCount = 1;
	info.pPoolSizes = &size;
	return fn->createDescriptorPool(dev, &info, NULL, out);
}

static VkResult vks_create_fence(vks_dev *fn, VkDevice dev, VkFence *out) {
	VkFenceCreateInfo info = {VK_STRUCTURE_TYPE_FENCE_CREATE_INFO};
	return fn->createFence(dev, &info, NULL, out);
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
	"time"
	"unsafe"

	vk "github.com/vulkan-go/vulkan"
)

// maxBindings is the most storage buffers one kernel binds.
const maxBindings = 32

func (d *Device) loadCommands() error {
	d.fn = (*C.vks_dev)(C.calloc(1, C.size_t(unsafe.Sizeof(C.vks_dev{}))))
	if C.vks_dev_load(d.inst.gipa, *(*C.VkInstance)(unsafe.Pointer(&d.inst.handle)), *(*C.VkDevice)(unsafe.Pointer(&d.handle)), boolInt(d.importAlign > 0), d.fn) == 0 {
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
	d.count(cSubmits, 1)
	defer d.since(phSubmit, time.Now())
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
func (d *Device) writeSet(set vk.DescriptorSet, binds []bound) {
	var bufs [maxBindings]C.VkBuffer
	var offs, ranges [maxBindings]C.VkDeviceSize
	n := min(len(binds), maxBindings)
	d.count(cDescriptorWrites, int64(n))
	for i := 0; i < n; i++ {
		bufs[i] = cHandle[vk.Buffer, C.VkBuffer](binds[i].buf)
		offs[i], ranges[i] = C.VkDeviceSize(binds[i].off), C.VkDeviceSize(binds[i].size)
	}
	C.vks_write_set(d.fn, cHandle[vk.Device, C.VkDevice](d.handle), cHandle[vk.DescriptorSet, C.VkDescriptorSet](set), C.uint32_t(n),
		&bufs[0], &offs[0], &ranges[0])
}

func (d *Device) cmdBindSet(cmd vk.CommandBuffer, layout vk.PipelineLayout, set vk.DescriptorSet) {
	C.vks_bind_set(d.fn, cHandle[vk.CommandBuffer, C.VkCommandBuffer](cmd), cHandle[vk.PipelineLayout, C.VkPipelineLayout](layout),
		cHandle[vk.DescriptorSet, C.VkDescriptorSet](set))
}

func (d *Device) allocSet(pool vk.DescriptorPool, layout vk.DescriptorSetLayout) (vk.DescriptorSet, vk.Result) {
	d.count(cDescriptorSets, 1)
	var set C.VkDescriptorSet
	r := C.vks_alloc_set(d.fn, cHandle[vk.Device, C.VkDevice](d.handle), cHandle[vk.DescriptorPool, C.VkDescriptorPool](pool),
		cHandle[vk.DescriptorSetLayout, C.VkDescriptorSetLayout](layout), &set)
	return *(*vk.DescriptorSet)(unsafe.Pointer(&set)), vk.Result(r)
}

func (d *Device) cdev() C.VkDevice { return cHandle[vk.Device, C.VkDevice](d.handle) }

// beginCmd begins recording cmd for one submission, or for many (reuse:
// a recording the replay cache keeps).
func (d *Device) beginCmd(cmd vk.CommandBuffer, reuse bool) error {
	d.count(cRecordings, 1)
	return check(vk.Result(C.vks_begin(d.fn, cHandle[vk.CommandBuffer, C.VkCommandBuffer](cmd), boolInt(reuse))), "vkBeginCommandBuffer")
}

// allocCmd allocates a primary command buffer from pool (d.mu, or the
// pool's own lock, held).
func (d *Device) allocCmd(pool vk.CommandPool) (vk.CommandBuffer, error) {
	var cmd C.VkCommandBuffer
	if err := check(vk.Result(C.vks_alloc_cmd(d.fn, d.cdev(), cHandle[vk.CommandPool, C.VkCommandPool](pool), &cmd)), "vkAllocateCommandBuffers"); err != nil {
		return nil, err
	}
	d.count(cCommandBuffers, 1)
	return *(*vk.CommandBuffer)(unsafe.Pointer(&cmd)), nil
}

// memReqs is a buffer's VkMemoryRequirements.
type memReqs struct {
	size, align int64
	types       uint32
}

// createBuffer creates a buffer of size bytes shared by the device's queue
// families, for imported host memory when imported.
func (d *Device) createBuffer(size int64, usage vk.BufferUsageFlagBits, imported bool) (vk.Buffer, memReqs, error) {
	var h C.VkBuffer
	var req C.VkMemoryRequirements
	var fams *C.uint32_t
	if len(d.families) > 0 {
		fams = (*C.uint32_t)(unsafe.Pointer(&d.families[0]))
	}
	r := C.vks_create_buffer(d.fn, d.cdev(), C.VkDeviceSize(size), C.VkBufferUsageFlags(usage), C.uint32_t(len(d.families)), fams,
		boolInt(imported), &h, &req)
	if err := check(vk.Result(r), "vkCreateBuffer"); err != nil {
		return vk.NullBuffer, memReqs{}, err
	}
	d.count(cBuffers, 1)
	return *(*vk.Buffer)(unsafe.Pointer(&h)), memReqs{int64(req.size), int64(req.alignment), uint32(req.memoryTypeBits)}, nil
}

// allocMemory allocates size bytes of memory type typ, importing the host
// memory at address host where it is not 0 (the caller counts).
func (d *Device) allocMemory(size int64, typ uint32, host uintptr) (vk.DeviceMemory, vk.Result) {
	var mem C.VkDeviceMemory
	r := C.vks_alloc_memory(d.fn, d.cdev(), C.VkDeviceSize(size), C.uint32_t(typ), C.uintptr_t(host), &mem)
	return *(*vk.DeviceMemory)(unsafe.Pointer(&mem)), vk.Result(r)
}

// hostPointerTypes is the memory types the host memory at address p may
// be imported as: 0 when it cannot be.
func (d *Device) hostPointerTypes(p uintptr) uint32 {
	return uint32(C.vks_host_pointer_types(d.fn, d.cdev(), C.uintptr_t(p)))
}

func (d *Device) createQueryPool(n uint32) (vk.QueryPool, error) {
	var qp C.VkQueryPool
	if err := check(vk.Result(C.vks_create_query_pool(d.fn, d.cdev(), C.uint32_t(n), &qp)), "vkCreateQueryPool"); err != nil {
		return vk.NullQueryPool, err
	}
	d.count(cQueryPools, 1)
	return *(*vk.QueryPool)(unsafe.Pointer(&qp)), nil
}

func (d *Device) createDescriptorPool(sets, descriptors uint32) (vk.DescriptorPool, error) {
	var p C.VkDescriptorPool
	if err := check(vk.Result(C.vks_create_descriptor_pool(d.fn, d.cdev(), C.uint32_t(sets), C.uint32_t(descriptors), &p)), "vkCreateDescriptorPool"); err != nil {
		return vk.NullDescriptorPool, err
	}
	d.count(cDescriptorPools, 1)
	return *(*vk.DescriptorPool)(unsafe.Pointer(&p)), nil
}

func (d *Device) createFence() (vk.Fence, error) {
	var f C.VkFence
	if err := check(vk.Result(C.vks_create_fence(d.fn, d.cdev(), &f)), "vkCreateFence"); err != nil {
		return vk.NullFence, err
	}
	d.count(cFences, 1)
	return *(*vk.Fence)(unsafe.Pointer(&f)), nil
}

func (d *Device) createSemaphore() (vk.Semaphore, error) {
	var h vk.Semaphore
	if err := check(vk.CreateSemaphore(d.handle, &vk.SemaphoreCreateInfo{SType: vk.StructureTypeSemaphoreCreateInfo}, nil, &h), "vkCreateSemaphore"); err != nil {
		return vk.NullSemaphore, err
	}
	d.count(cSemaphores, 1)
	return h, nil
}
