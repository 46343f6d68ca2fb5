// native.h: the few Vulkan calls that vulkan-go (headers 1.1.88) does not
// wrap: loading the loader from a chosen path, the debug-utils messenger that
// turns validation messages into Go errors, the Properties2/Features2
// queries behind the device report; the instance and device creation and
// the enumerations, whose arrays vulkan-go frees in finalizers that may run
// during the call; and the device-level commands a call makes, whose
// create-infos vulkan-go would copy into C memory it never frees (vks_dev,
// cmds.go), host-memory import among them.
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
// The optional shader features vkstat enables where the device offers them
// (bits of vks_shader_features' answer; names in info.go).
enum {
	VKS_STORAGE_BUFFER_16 = 1 << 0,
	VKS_UNIFORM_16 = 1 << 1,
	VKS_PUSH_16 = 1 << 2,
	VKS_STORAGE_BUFFER_8 = 1 << 3,
	VKS_UNIFORM_8 = 1 << 4,
	VKS_PUSH_8 = 1 << 5,
	VKS_FLOAT16 = 1 << 6,
	VKS_INT8 = 1 << 7,
	VKS_MEMORY_MODEL = 1 << 8,
	VKS_MEMORY_MODEL_DEVICE = 1 << 9,
	VKS_MEMORY_MODEL_CHAINS = 1 << 10,
	VKS_SUBGROUP_EXTENDED = 1 << 11,
	VKS_INTEGER_DOT = 1 << 12,
	VKS_MAINTENANCE4 = 1 << 13,
};
// vks_shader_features is the set of those features the device offers at
// api (the version it runs at): 16-bit storage from 1.1, the rest of the
// Vulkan 1.2 features from 1.2, the integer dot product and maintenance4
// (SPIR-V 1.6's LocalSizeId) from 1.3; 0 before 1.1.
uint32_t vks_shader_features(void *gipa, VkInstance inst, VkPhysicalDevice pd, uint32_t api);
// vks_device_features allocates the feature structs enabling the features
// in m (a subset of vks_shader_features' answer at the same api) and sets
// *head to the start of their chain for VkDeviceCreateInfo.pNext; free the
// returned block after vkCreateDevice. NULL (and *head untouched) before
// Vulkan 1.1.
void *vks_device_features(uint32_t api, uint32_t m, void **head);
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

// vulkan-go copies the arrays of a create-info, and the arrays an
// enumeration writes, into C memory that a finalizer frees at the next
// garbage collection, and that collection may come during the very call
// that reads or writes them (a use after free: SIGSEGV in the loader, or a
// corrupted C heap). The calls below take C memory of their own instead.

// What vks_enumerate lists.
enum {
	VKS_INSTANCE_LAYERS,     // VkLayerProperties
	VKS_INSTANCE_EXTENSIONS, // VkExtensionProperties
	VKS_DEVICE_EXTENSIONS,   // VkExtensionProperties of pd
	VKS_QUEUE_FAMILIES,      // VkQueueFamilyProperties of pd
};
// vks_enumerate returns what kind lists as a malloc'd array the caller
// frees, with its length in *n; NULL with *n = 0 when there is nothing or
// the call fails.
void *vks_enumerate(void *gipa, VkInstance inst, VkPhysicalDevice pd, int kind, uint32_t *n);
// vks_create_instance creates the instance for api, with the validation
// layer, VK_EXT_debug_utils and the messenger and validation features
// chained where validate is set.
VkResult vks_create_instance(void *gipa, uint32_t api, int validate, VkInstance *out);
// vks_create_device creates a device with count queues (1 or 2) of family,
// one of xfamily where it is not negative, the three core features given,
// VK_EXT_external_memory_host where import_host is set and next (the
// feature chain of vks_device_features, or NULL) as pNext.
VkResult vks_create_device(void *gipa, VkInstance inst, VkPhysicalDevice pd, uint32_t family, uint32_t count,
	int32_t xfamily, int float64, int int64, int int16, int import_host, void *next, VkDevice *out);

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
