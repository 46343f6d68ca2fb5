// native.h: the few Vulkan calls that vulkan-go (headers 1.1.88) does not
// wrap: loading the loader from a chosen path, the debug-utils messenger that
// turns validation messages into Go errors, the Properties2/Features2
// queries behind the device report; and the device-level commands a call
// makes, whose create-infos vulkan-go would copy into C memory it never
// frees (vks_dev, cmds.go), host-memory import among them.
#ifndef VKSTAT_NATIVE_H
#define VKSTAT_NATIVE_H
#define VK_NO_PROTOTYPES 1
#include <vulkan/vulkan.h>

// vks_load dlopens path and returns its vkGetInstanceProcAddr, or NULL with
// the dlerror text copied into err.
void *vks_load(const char *path, char *err, int errlen);
// vks_messenger_info returns a static create-info for chaining into
// VkInstanceCreateInfo.pNext (catches messages of create/destroy instance).
void *vks_messenger_info(void);
// vks_validation_features returns a static VkValidationFeaturesEXT that
// enables synchronization validation; next is chained behind it.
void *vks_validation_features(void *next);
// vks_instance_version is what vkEnumerateInstanceVersion says the loader
// offers, or VK_API_VERSION_1_0 for a loader without it.
uint32_t vks_instance_version(void *gipa);
// vks_maintenance4 returns a VkPhysicalDeviceMaintenance4Features (malloc'd:
// free it) enabling maintenance4 for chaining into VkDeviceCreateInfo.pNext,
// where api (the version the device runs at) is 1.3 or later and the
// device has the feature; else NULL. SPIR-V 1.6 (Vulkan 1.3 targets) sets
// the local size with LocalSizeId, which needs it.
void *vks_maintenance4(void *gipa, VkInstance inst, VkPhysicalDevice pd, uint32_t api);
int vks_create_messenger(void *gipa, VkInstance inst, VkDebugUtilsMessengerEXT *out);
void vks_destroy_messenger(void *gipa, VkInstance inst, VkDebugUtilsMessengerEXT m);
// vks_take_messages returns the messages gathered since the last call (a
// malloc'd string the caller frees) or NULL when there are none.
char *vks_take_messages(void);

typedef struct {
	uint32_t subgroup_size;
	uint32_t subgroup_stages;
	uint32_t subgroup_ops;
	int has_driver_props;
	char driver_name[256];
	char driver_info[256];
	int float16;
	int int8;
	uint64_t max_memory_allocation;
	// min_import_alignment is VK_EXT_external_memory_host's
	// minImportedHostPointerAlignment (0 without the extension).
	uint64_t min_import_alignment;
} vks_props2;

void vks_query_props2(void *gipa, VkInstance inst, VkPhysicalDevice pd, uint32_t api, int has_driver_ext, int has_f16_ext,
	int has_host_import_ext, vks_props2 *out);

// vks_query_memory_budget fills budget and usage (VK_MAX_MEMORY_HEAPS
// entries each) from VkPhysicalDeviceMemoryBudgetPropertiesEXT and returns
// the number of heaps, or 0 without vkGetPhysicalDeviceMemoryProperties2.
// Call it only where the device lists VK_EXT_memory_budget.
int vks_query_memory_budget(void *gipa, VkInstance inst, VkPhysicalDevice pd, uint64_t *budget, uint64_t *usage);

// vks_dev holds the device-level commands engine/cmds.go calls from C.
typedef struct {
	PFN_vkQueueSubmit queueSubmit;
	PFN_vkCmdPipelineBarrier barrier;
	PFN_vkCmdCopyBuffer copyBuffer;
	PFN_vkUpdateDescriptorSets updateSets;
	PFN_vkCmdBindDescriptorSets bindSets;
	PFN_vkAllocateDescriptorSets allocSets;
	// The calls that take a create-info, made from C (cmds.go): vulkan-go
	// copies create-infos into C memory it never frees.
	PFN_vkBeginCommandBuffer beginCmd;
	PFN_vkAllocateCommandBuffers allocCmds;
	PFN_vkCreateBuffer createBuffer;
	PFN_vkGetBufferMemoryRequirements bufferReqs;
	PFN_vkAllocateMemory allocMemory;
	PFN_vkCreateQueryPool createQueryPool;
	PFN_vkCreateDescriptorPool createDescriptorPool;
	PFN_vkCreateFence createFence;
	// hostPointerProps is NULL unless VK_EXT_external_memory_host is enabled.
	PFN_vkGetMemoryHostPointerPropertiesEXT hostPointerProps;
} vks_dev;
#endif
