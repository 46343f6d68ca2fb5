package engine

/*
#include "native.h"
*/
import "C"

import (
	"fmt"
	"slices"
	"strings"
	"unsafe"

	vk "github.com/vulkan-go/vulkan"
)

// Heap is one memory heap of a device.
type Heap struct {
	Size        uint64 `json:"size"`
	DeviceLocal bool   `json:"device_local"`
}

// DeviceInfo is the report of one physical device.
type DeviceInfo struct {
	Index                  int       `json:"index"`
	Name                   string    `json:"name"`
	Vendor                 string    `json:"vendor"`
	VendorID               uint32    `json:"vendor_id"`
	DeviceID               uint32    `json:"device_id"`
	Type                   string    `json:"type"`
	Driver                 string    `json:"driver"`
	DriverInfo             string    `json:"driver_info"`
	DriverVersion          string    `json:"driver_version"`
	APIVersion             string    `json:"api_version"`
	Heaps                  []Heap    `json:"heaps"`
	MaxStorageBufferRange  uint32    `json:"max_storage_buffer_range"`
	MaxMemoryAllocation    uint64    `json:"max_memory_allocation,omitempty"`
	MinStorageAlignment    uint64    `json:"min_storage_buffer_offset_alignment"`
	MaxSharedMemory        uint32    `json:"max_compute_shared_memory"`
	MaxWorkgroupSize       [3]uint32 `json:"max_workgroup_size"`
	MaxWorkgroupInvocation uint32    `json:"max_workgroup_invocations"`
	MaxWorkgroupCount      [3]uint32 `json:"max_workgroup_count"`
	MaxPushConstants       uint32    `json:"max_push_constants"`
	SubgroupSize           uint32    `json:"subgroup_size"`
	// SubgroupOps names the subgroup operations compute shaders may use:
	// basic, vote, arithmetic, ballot, shuffle, shuffle_relative,
	// clustered, quad.
	SubgroupOps       []string `json:"subgroup_ops"`
	Float16           bool     `json:"float16"`
	Float64           bool     `json:"float64"`
	Int64             bool     `json:"int64"`
	Timestamps        bool     `json:"timestamps"`
	TimestampPeriodNs float32  `json:"timestamp_period_ns"`
	PipelineCacheUUID string   `json:"pipeline_cache_uuid"`
	// TransferQueue reports a transfer-only queue family (a DMA engine
	// that copies while the compute queue computes).
	TransferQueue bool `json:"transfer_queue"`
	// ExternalMemoryHost reports VK_EXT_external_memory_host: the device
	// can copy straight from and into the caller's memory.
	ExternalMemoryHost bool `json:"external_memory_host"`
	// MemoryBudget reports VK_EXT_memory_budget.
	MemoryBudget bool `json:"memory_budget"`
	// ShaderFeatures names (as Vulkan does) the optional shader features
	// the device offers and vkstat enables when it opens it: 16- and 8-bit
	// storage and arithmetic (storageBuffer16BitAccess, shaderFloat16,
	// shaderInt8, shaderInt16, ...), the memory model (vulkanMemoryModel,
	// ...), shaderSubgroupExtendedTypes and shaderIntegerDotProduct, as far
	// as the Vulkan version the device runs at has them (ShaderFeatureAPI).
	ShaderFeatures []string `json:"shader_features"`
	// Disabled lists the features this handle treats as absent
	// (DeviceOptions.Disable), e.g. "float64".
	Disabled string `json:"disabled,omitempty"`

	apiRaw         uint32
	driverRaw      uint32 // VkPhysicalDeviceProperties.driverVersion
	queueFamily    int
	queueCount     uint32 // queues in queueFamily
	transferFamily int    // a transfer-only family, or -1
	timestampBits  uint32
	importAlign    int64  // minImportedHostPointerAlignment; 0 where host memory cannot be imported
	runAPI         uint32 // the version the device runs at: the lower of its own and the instance's
	shaderFeats    uint32 // vks_shader_features' bits, as enabled at creation
}

// shaderFeatureNames are the bits of vks_shader_features (native.h) by
// their Vulkan names, with the Vulkan version that has them.
var shaderFeatureNames = []struct {
	bit  uint32
	name string
	api  string
}{
	{C.VKS_STORAGE_BUFFER_16, "storageBuffer16BitAccess", "1.1"},
	{C.VKS_UNIFORM_16, "uniformAndStorageBuffer16BitAccess", "1.1"},
	{C.VKS_PUSH_16, "storagePushConstant16", "1.1"},
	{C.VKS_STORAGE_BUFFER_8, "storageBuffer8BitAccess", "1.2"},
	{C.VKS_UNIFORM_8, "uniformAndStorageBuffer8BitAccess", "1.2"},
	{C.VKS_PUSH_8, "storagePushConstant8", "1.2"},
	{C.VKS_FLOAT16, "shaderFloat16", "1.2"},
	{C.VKS_INT8, "shaderInt8", "1.2"},
	{C.VKS_MEMORY_MODEL, "vulkanMemoryModel", "1.2"},
	{C.VKS_MEMORY_MODEL_DEVICE, "vulkanMemoryModelDeviceScope", "1.2"},
	{C.VKS_MEMORY_MODEL_CHAINS, "vulkanMemoryModelAvailabilityVisibilityChains", "1.2"},
	{C.VKS_SUBGROUP_EXTENDED, "shaderSubgroupExtendedTypes", "1.2"},
	{C.VKS_INTEGER_DOT, "shaderIntegerDotProduct", "1.3"},
}

// ShaderFeatureAPI is the Vulkan version ("1.2") that has the shader
// feature name (ShaderFeatures; shaderInt16 is 1.0's), or "" for a name
// vkstat does not enable.
func ShaderFeatureAPI(name string) string {
	if name == "shaderInt16" {
		return "1.0"
	}
	for _, f := range shaderFeatureNames {
		if f.name == name {
			return f.api
		}
	}
	return ""
}

// RunsAt is the Vulkan version the device runs at ("1.2"): the lower of
// its own and the loader's; for a report not made by an Instance, its
// APIVersion's first two numbers ("" without one).
func (d DeviceInfo) RunsAt() string {
	if d.runAPI == 0 {
		f := strings.SplitN(d.APIVersion, ".", 3)
		if len(f) < 2 {
			return ""
		}
		return f[0] + "." + f[1]
	}
	return fmt.Sprintf("%d.%d", d.runAPI>>22, (d.runAPI>>12)&0x3ff)
}

// HasShaderFeature reports whether ShaderFeatures names name.
func (d DeviceInfo) HasShaderFeature(name string) bool {
	return slices.Contains(d.ShaderFeatures, name)
}

// nameShaderFeatures sets ShaderFeatures from shaderFeats and int16.
func (d *DeviceInfo) nameShaderFeatures(int16 bool) {
	d.ShaderFeatures = []string{}
	for _, f := range shaderFeatureNames {
		if d.shaderFeats&f.bit != 0 {
			d.ShaderFeatures = append(d.ShaderFeatures, f.name)
		}
	}
	if int16 {
		d.ShaderFeatures = append(d.ShaderFeatures, "shaderInt16")
	}
}

// IsCPU reports whether the device is a software rasteriser such as lavapipe.
func (d DeviceInfo) IsCPU() bool { return d.Type == "cpu" }

// IsLavapipe reports whether the device is Mesa's lavapipe (llvmpipe).
func (d DeviceInfo) IsLavapipe() bool {
	n := strings.ToLower(d.Name + " " + d.Driver)
	return strings.Contains(n, "llvmpipe") || strings.Contains(n, "lavapipe")
}

// DeviceMemory is the total size of the device-local heaps.
func (d DeviceInfo) DeviceMemory() uint64 {
	var s uint64
	for _, h := range d.Heaps {
		if h.DeviceLocal {
			s += h.Size
		}
	}
	return s
}

func vendorName(id uint32) string {
	switch id {
	case 0x10DE:
		return "NVIDIA"
	case 0x1002, 0x1022:
		return "AMD"
	case 0x8086:
		return "Intel"
	case 0x13B5:
		return "ARM"
	case 0x5143:
		return "Qualcomm"
	case 0x106B:
		return "Apple"
	case 0x10005:
		return "Mesa"
	}
	return fmt.Sprintf("0x%04x", id)
}

func typeName(t vk.PhysicalDeviceType) string {
	switch t {
	case vk.PhysicalDeviceTypeDiscreteGpu:
		return "discrete"
	case vk.PhysicalDeviceTypeIntegratedGpu:
		return "integrated"
	case vk.PhysicalDeviceTypeVirtualGpu:
		return "virtual"
	case vk.PhysicalDeviceTypeCpu:
		return "cpu"
	}
	return "other"
}

func versionString(v uint32) string {
	return fmt.Sprintf("%d.%d.%d", v>>22, (v>>12)&0x3ff, v&0xfff)
}

func driverVersionString(vendor, v uint32) string {
	if vendor == 0x10DE { // NVIDIA packs 10.8.8.6 bits
		return fmt.Sprintf("%d.%d.%d", v>>22, (v>>14)&0xff, (v>>6)&0xff)
	}
	return versionString(v)
}

func (in *Instance) describe(index int, pd vk.PhysicalDevice) DeviceInfo {
	var props vk.PhysicalDeviceProperties
	vk.GetPhysicalDeviceProperties(pd, &props)
	props.Deref()
	props.Limits.Deref()
	lim := props.Limits
	var feats vk.PhysicalDeviceFeatures
	vk.GetPhysicalDeviceFeatures(pd, &feats)
	feats.Deref()
	var mem vk.PhysicalDeviceMemoryProperties
	vk.GetPhysicalDeviceMemoryProperties(pd, &mem)
	mem.Deref()

	info := DeviceInfo{
		Index:                  index,
		Name:                   vk.ToString(props.DeviceName[:]),
		VendorID:               props.VendorID,
		DeviceID:               props.DeviceID,
		Vendor:                 vendorName(props.VendorID),
		Type:                   typeName(props.DeviceType),
		APIVersion:             versionString(props.ApiVersion),
		DriverVersion:          driverVersionString(props.VendorID, props.DriverVersion),
		MaxStorageBufferRange:  lim.MaxStorageBufferRange,
		MinStorageAlignment:    uint64(lim.MinStorageBufferOffsetAlignment),
		MaxSharedMemory:        lim.MaxComputeSharedMemorySize,
		MaxWorkgroupSize:       lim.MaxComputeWorkGroupSize,
		MaxWorkgroupInvocation: lim.MaxComputeWorkGroupInvocations,
		MaxWorkgroupCount:      lim.MaxComputeWorkGroupCount,
		MaxPushConstants:       lim.MaxPushConstantsSize,
		Float64:                feats.ShaderFloat64 == vk.True,
		Int64:                  feats.ShaderInt64 == vk.True,
		TimestampPeriodNs:      lim.TimestampPeriod,
		PipelineCacheUUID:      fmt.Sprintf("%x", props.PipelineCacheUUID[:]),
		apiRaw:                 props.ApiVersion,
		driverRaw:              props.DriverVersion,
		queueFamily:            -1,
		transferFamily:         -1,
	}
	for i := uint32(0); i < mem.MemoryHeapCount; i++ {
		h := mem.MemoryHeaps[i]
		h.Deref()
		info.Heaps = append(info.Heaps, Heap{Size: uint64(h.Size), DeviceLocal: h.Flags&vk.MemoryHeapFlags(vk.MemoryHeapDeviceLocalBit) != 0})
	}

	for i, q := range enumerate[C.VkQueueFamilyProperties](in.gipa, in.handle, pd, C.VKS_QUEUE_FAMILIES) {
		flags := vk.QueueFlags(q.queueFlags)
		if flags&vk.QueueFlags(vk.QueueComputeBit) != 0 {
			// Prefer a family that also does graphics: it is the one
			// drivers tune and whose timestamps are guaranteed.
			if info.queueFamily < 0 || flags&vk.QueueFlags(vk.QueueGraphicsBit) != 0 && info.timestampBits == 0 {
				info.queueFamily = i
				info.queueCount = uint32(q.queueCount)
				info.timestampBits = uint32(q.timestampValidBits)
			}
		}
		const computeOrGraphics = vk.QueueFlags(vk.QueueComputeBit | vk.QueueGraphicsBit)
		if flags&vk.QueueFlags(vk.QueueTransferBit) != 0 && flags&computeOrGraphics == 0 && info.transferFamily < 0 {
			info.transferFamily = i
		}
	}
	info.TransferQueue = info.transferFamily >= 0
	info.Timestamps = info.timestampBits > 0 && lim.TimestampPeriod > 0

	exts := extensionNames(enumerate[C.VkExtensionProperties](in.gipa, in.handle, pd, C.VKS_DEVICE_EXTENSIONS))
	info.ExternalMemoryHost = exts["VK_EXT_external_memory_host"]
	info.MemoryBudget = exts["VK_EXT_memory_budget"]
	var p2 C.vks_props2
	C.vks_query_props2(in.gipa, C.VkInstance(unsafe.Pointer(in.handle)), C.VkPhysicalDevice(unsafe.Pointer(pd)),
		C.uint32_t(props.ApiVersion), boolInt(exts["VK_KHR_driver_properties"]), boolInt(exts["VK_KHR_shader_float16_int8"]),
		boolInt(info.ExternalMemoryHost), &p2)
	info.SubgroupSize = uint32(p2.subgroup_size)
	if p2.subgroup_stages&C.uint32_t(vk.ShaderStageComputeBit) != 0 {
		for i, name := range []string{"basic", "vote", "arithmetic", "ballot", "shuffle", "shuffle_relative", "clustered", "quad"} {
			if p2.subgroup_ops&(1<<i) != 0 {
				info.SubgroupOps = append(info.SubgroupOps, name)
			}
		}
	}
	info.MaxMemoryAllocation = uint64(p2.max_memory_allocation)
	info.importAlign = int64(p2.min_import_alignment)
	info.Float16 = p2.float16 != 0
	info.runAPI = min(props.ApiVersion, in.api)
	info.shaderFeats = uint32(C.vks_shader_features(in.gipa, C.VkInstance(unsafe.Pointer(in.handle)),
		C.VkPhysicalDevice(unsafe.Pointer(pd)), C.uint32_t(info.runAPI)))
	info.nameShaderFeatures(feats.ShaderInt16 == vk.True)
	if p2.has_driver_props != 0 {
		info.Driver = C.GoString(&p2.driver_name[0])
		info.DriverInfo = C.GoString(&p2.driver_info[0])
	}
	return info
}

func boolInt(b bool) C.int {
	if b {
		return 1
	}
	return 0
}

// Without is the report of the device opened with the features f
// disabled (DeviceOptions.Disable).
func (info DeviceInfo) Without(f Features) DeviceInfo {
	info.SubgroupOps = slices.Clone(info.SubgroupOps)
	info.ShaderFeatures = slices.Clone(info.ShaderFeatures)
	info.disable(f)
	return info
}

// disable masks the features in f: the report says they are absent, the
// device is created without them, and the name says so, so that reports
// and errors tell this handle from the full device.
func (info *DeviceInfo) disable(f Features) {
	if f == 0 {
		return
	}
	if f&Float64 != 0 {
		info.Float64 = false
	}
	if f&Float16 != 0 {
		info.Float16 = false
		info.shaderFeats &^= C.VKS_FLOAT16
	}
	if f&Subgroup != 0 && len(info.SubgroupOps) > 0 {
		info.SubgroupOps = info.SubgroupOps[:1] // basic: always there in Vulkan 1.1
		info.shaderFeats &^= C.VKS_SUBGROUP_EXTENDED
	}
	info.nameShaderFeatures(info.HasShaderFeature("shaderInt16"))
	info.Disabled = f.String()
	info.Name += " [without " + info.Disabled + "]"
}
