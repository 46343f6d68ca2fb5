#include "native.h"
#include <dlfcn.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <stdio.h>

void *vks_load(const char *path, char *err, int errlen) {
	void *lib = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	if (!lib) {
		const char *e = dlerror();
		snprintf(err, errlen, "%s", e ? e : "dlopen failed");
		return NULL;
	}
	void *f = dlsym(lib, "vkGetInstanceProcAddr");
	if (!f) {
		snprintf(err, errlen, "%s has no vkGetInstanceProcAddr", path);
		return NULL;
	}
	return f;
}

static pthread_mutex_t msg_mu = PTHREAD_MUTEX_INITIALIZER;
static char *msg_buf = NULL;
static size_t msg_len = 0, msg_cap = 0;

static void append_msg(const char *s) {
	size_t n = strlen(s);
	pthread_mutex_lock(&msg_mu);
	if (msg_len + n + 2 > msg_cap) {
		size_t cap = (msg_cap + n + 2) * 2;
		char *p = realloc(msg_buf, cap);
		if (!p) {
			pthread_mutex_unlock(&msg_mu);
			return;
		}
		msg_buf = p;
		msg_cap = cap;
	}
	memcpy(msg_buf + msg_len, s, n);
	msg_len += n;
	msg_buf[msg_len++] = '\n';
	msg_buf[msg_len] = 0;
	pthread_mutex_unlock(&msg_mu);
}

char *vks_take_messages(void) {
	pthread_mutex_lock(&msg_mu);
	char *out = NULL;
	if (msg_len > 0) {
		out = msg_buf;
		msg_buf = NULL;
		msg_len = msg_cap = 0;
	}
	pthread_mutex_unlock(&msg_mu);
	return out;
}

static VKAPI_ATTR VkBool32 VKAPI_CALL on_message(
	VkDebugUtilsMessageSeverityFlagBitsEXT severity,
	VkDebugUtilsMessageTypeFlagsEXT types,
	const VkDebugUtilsMessengerCallbackDataEXT *data, void *user) {
	(void)types;
	(void)user;
	const char *level = (severity & VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT) ? "error" : "warning";
	char head[64];
	snprintf(head, sizeof head, "[%s] ", level);
	size_t n = strlen(head) + (data && data->pMessage ? strlen(data->pMessage) : 0) + 1;
	char *line = malloc(n);
	if (!line)
		return VK_FALSE;
	snprintf(line, n, "%s%s", head, data && data->pMessage ? data->pMessage : "");
	append_msg(line);
	free(line);
	return VK_FALSE;
}

static VkDebugUtilsMessengerCreateInfoEXT messenger_info = {
	.sType = VK_STRUCTURE_TYPE_DEBUG_UTILS_MESSENGER_CREATE_INFO_EXT,
	.messageSeverity = VK_DEBUG_UTILS_MESSAGE_SEVERITY_WARNING_BIT_EXT | VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT,
	.messageType = VK_DEBUG_UTILS_MESSAGE_TYPE_GENERAL_BIT_EXT | VK_DEBUG_UTILS_MESSAGE_TYPE_VALIDATION_BIT_EXT | VK_DEBUG_UTILS_MESSAGE_TYPE_PERFORMANCE_BIT_EXT,
	.pfnUserCallback = on_message,
};

void *vks_messenger_info(void) { return &messenger_info; }

static VkValidationFeatureEnableEXT enables[] = {VK_VALIDATION_FEATURE_ENABLE_SYNCHRONIZATION_VALIDATION_EXT};
static VkValidationFeaturesEXT features = {
	.sType = VK_STRUCTURE_TYPE_VALIDATION_FEATURES_EXT,
	.enabledValidationFeatureCount = 1,
	.pEnabledValidationFeatures = enables,
};

void *vks_validation_features(void *next) {
	features.pNext = next;
	return &features;
}

uint32_t vks_instance_version(void *gipa) {
	PFN_vkGetInstanceProcAddr get = (PFN_vkGetInstanceProcAddr)gipa;
	PFN_vkEnumerateInstanceVersion version =
		(PFN_vkEnumerateInstanceVersion)get(VK_NULL_HANDLE, "vkEnumerateInstanceVersion");
	uint32_t v = VK_API_VERSION_1_0;
	if (!version || version(&v) != VK_SUCCESS)
		return VK_API_VERSION_1_0;
	return v;
}

// The feature structs of one device: queried into, then chained (with
// only what is enabled set) into VkDeviceCreateInfo.pNext.
typedef struct {
	VkPhysicalDeviceVulkan11Features v11;
	VkPhysicalDeviceVulkan12Features v12;
	VkPhysicalDeviceVulkan13Features v13;
	VkPhysicalDevice16BitStorageFeatures s16;
} vks_chain;

// chain links the structs the version allows: 1.2 and later have the
// VulkanNNFeatures structs (1.3's holds maintenance4 and the integer dot
// product); 1.1 has 16-bit storage only (the rest are extensions there).
static void *chain(vks_chain *c, uint32_t api) {
	memset(c, 0, sizeof *c);
	c->v11.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_1_FEATURES;
	c->v12.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES;
	c->v13.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_3_FEATURES;
	c->s16.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_16BIT_STORAGE_FEATURES;
	if (api < VK_API_VERSION_1_1)
		return NULL;
	if (api < VK_API_VERSION_1_2)
		return &c->s16;
	c->v11.pNext = &c->v12;
	if (api >= VK_API_VERSION_1_3)
		c->v12.pNext = &c->v13;
	return &c->v11;
}

uint32_t vks_shader_features(void *gipa, VkInstance inst, VkPhysicalDevice pd, uint32_t api) {
	PFN_vkGetInstanceProcAddr get = (PFN_vkGetInstanceProcAddr)gipa;
	PFN_vkGetPhysicalDeviceFeatures2 feats2 =
		(PFN_vkGetPhysicalDeviceFeatures2)get(inst, "vkGetPhysicalDeviceFeatures2");
	vks_chain c;
	void *next = chain(&c, api);
	if (!feats2 || !next)
		return 0;
	VkPhysicalDeviceFeatures2 f = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2, .pNext = next};
	feats2(pd, &f);
	uint32_t m = 0;
	if (api < VK_API_VERSION_1_2) {
		m |= c.s16.storageBuffer16BitAccess ? VKS_STORAGE_BUFFER_16 : 0;
		m |= c.s16.uniformAndStorageBuffer16BitAccess ? VKS_UNIFORM_16 : 0;
		m |= c.s16.storagePushConstant16 ? VKS_PUSH_16 : 0;
		return m;
	}
	m |= c.v11.storageBuffer16BitAccess ? VKS_STORAGE_BUFFER_16 : 0;
	m |= c.v11.uniformAndStorageBuffer16BitAccess ? VKS_UNIFORM_16 : 0;
	m |= c.v11.storagePushConstant16 ? VKS_PUSH_16 : 0;
	m |= c.v12.storageBuffer8BitAccess ? VKS_STORAGE_BUFFER_8 : 0;
	m |= c.v12.uniformAndStorageBuffer8BitAccess ? VKS_UNIFORM_8 : 0;
	m |= c.v12.storagePushConstant8 ? VKS_PUSH_8 : 0;
	m |= c.v12.shaderFloat16 ? VKS_FLOAT16 : 0;
	m |= c.v12.shaderInt8 ? VKS_INT8 : 0;
	m |= c.v12.vulkanMemoryModel ? VKS_MEMORY_MODEL : 0;
	m |= c.v12.vulkanMemoryModelDeviceScope ? VKS_MEMORY_MODEL_DEVICE : 0;
	m |= c.v12.vulkanMemoryModelAvailabilityVisibilityChains ? VKS_MEMORY_MODEL_CHAINS : 0;
	m |= c.v12.shaderSubgroupExtendedTypes ? VKS_SUBGROUP_EXTENDED : 0;
	if (api >= VK_API_VERSION_1_3) {
		m |= c.v13.shaderIntegerDotProduct ? VKS_INTEGER_DOT : 0;
		m |= c.v13.maintenance4 ? VKS_MAINTENANCE4 : 0;
	}
	return m;
}

void *vks_device_features(uint32_t api, uint32_t m, void **head) {
	vks_chain *c = malloc(sizeof *c);
	if (!c)
		return NULL;
	void *next = chain(c, api);
	if (!next) {
		free(c);
		return NULL;
	}
	c->s16.storageBuffer16BitAccess = c->v11.storageBuffer16BitAccess = (m & VKS_STORAGE_BUFFER_16) != 0;
	c->s16.uniformAndStorageBuffer16BitAccess = c->v11.uniformAndStorageBuffer16BitAccess = (m & VKS_UNIFORM_16) != 0;
	c->s16.storagePushConstant16 = c->v11.storagePushConstant16 = (m & VKS_PUSH_16) != 0;
	c->v12.storageBuffer8BitAccess = (m & VKS_STORAGE_BUFFER_8) != 0;
	c->v12.uniformAndStorageBuffer8BitAccess = (m & VKS_UNIFORM_8) != 0;
	c->v12.storagePushConstant8 = (m & VKS_PUSH_8) != 0;
	c->v12.shaderFloat16 = (m & VKS_FLOAT16) != 0;
	c->v12.shaderInt8 = (m & VKS_INT8) != 0;
	c->v12.vulkanMemoryModel = (m & VKS_MEMORY_MODEL) != 0;
	c->v12.vulkanMemoryModelDeviceScope = (m & VKS_MEMORY_MODEL_DEVICE) != 0;
	c->v12.vulkanMemoryModelAvailabilityVisibilityChains = (m & VKS_MEMORY_MODEL_CHAINS) != 0;
	c->v12.shaderSubgroupExtendedTypes = (m & VKS_SUBGROUP_EXTENDED) != 0;
	c->v13.shaderIntegerDotProduct = (m & VKS_INTEGER_DOT) != 0;
	c->v13.maintenance4 = (m & VKS_MAINTENANCE4) != 0;
	*head = next;
	return c;
}

int vks_create_messenger(void *gipa, VkInstance inst, VkDebugUtilsMessengerEXT *out) {
	PFN_vkGetInstanceProcAddr get = (PFN_vkGetInstanceProcAddr)gipa;
	PFN_vkCreateDebugUtilsMessengerEXT create =
		(PFN_vkCreateDebugUtilsMessengerEXT)get(inst, "vkCreateDebugUtilsMessengerEXT");
	if (!create)
		return VK_ERROR_EXTENSION_NOT_PRESENT;
	return create(inst, &messenger_info, NULL, out);
}

void vks_destroy_messenger(void *gipa, VkInstance inst, VkDebugUtilsMessengerEXT messenger) {
	if (messenger == VK_NULL_HANDLE)
		return;
	PFN_vkGetInstanceProcAddr get = (PFN_vkGetInstanceProcAddr)gipa;
	PFN_vkDestroyDebugUtilsMessengerEXT destroy =
		(PFN_vkDestroyDebugUtilsMessengerEXT)get(inst, "vkDestroyDebugUtilsMessengerEXT");
	if (destroy)
		destroy(inst, messenger, NULL);
}

void vks_query_props2(void *gipa, VkInstance inst, VkPhysicalDevice pd, uint32_t api, int has_driver_ext, int has_f16_ext,
		int has_host_import_ext, vks_props2 *out) {
	memset(out, 0, sizeof *out);
	PFN_vkGetInstanceProcAddr get = (PFN_vkGetInstanceProcAddr)gipa;
	PFN_vkGetPhysicalDeviceProperties2 props2 =
		(PFN_vkGetPhysicalDeviceProperties2)get(inst, "vkGetPhysicalDeviceProperties2");
	PFN_vkGetPhysicalDeviceFeatures2 feats2 =
		(PFN_vkGetPhysicalDeviceFeatures2)get(inst, "vkGetPhysicalDeviceFeatures2");
	if (!props2 || !feats2 || api < VK_API_VERSION_1_1)
		return;

	VkPhysicalDeviceSubgroupProperties sub = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SUBGROUP_PROPERTIES};
	VkPhysicalDeviceMaintenance3Properties m3 = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_MAINTENANCE_3_PROPERTIES, .pNext = &sub};
	VkPhysicalDeviceDriverProperties drv = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_DRIVER_PROPERTIES, .pNext = &m3};
	VkPhysicalDeviceExternalMemoryHostPropertiesEXT host = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_EXTERNAL_MEMORY_HOST_PROPERTIES_EXT};
	VkPhysicalDeviceProperties2 p = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2};
	p.pNext = has_driver_ext ? (void *)&drv : (void *)&m3;
	if (has_host_import_ext) {
		host.pNext = p.pNext;
		p.pNext = &host;
	}
	props2(pd, &p);
	out->min_import_alignment = has_host_import_ext ? host.minImportedHostPointerAlignment : 0;
	out->subgroup_size = sub.subgroupSize;
	out->subgroup_stages = sub.supportedStages;
	out->subgroup_ops = sub.supportedOperations;
	out->max_memory_allocation = m3.maxMemoryAllocationSize;
	if (has_driver_ext) {
		out->has_driver_props = 1;
		snprintf(out->driver_name, sizeof out->driver_name, "%s", drv.driverName);
		snprintf(out->driver_info, sizeof out->driver_info, "%s", drv.driverInfo);
	}

	VkPhysicalDeviceShaderFloat16Int8Features f16 = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SHADER_FLOAT16_INT8_FEATURES};
	VkPhysicalDeviceFeatures2 f = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2};
	if (has_f16_ext)
		f.pNext = &f16;
	feats2(pd, &f);
	out->float16 = f16.shaderFloat16;
	out->int8 = f16.shaderInt8;
}

int vks_query_memory_budget(void *gipa, VkInstance inst, VkPhysicalDevice pd, uint64_t *budget, uint64_t *usage) {
	PFN_vkGetInstanceProcAddr get = (PFN_vkGetInstanceProcAddr)gipa;
	PFN_vkGetPhysicalDeviceMemoryProperties2 mem2 =
		(PFN_vkGetPhysicalDeviceMemoryProperties2)get(inst, "vkGetPhysicalDeviceMemoryProperties2");
	if (!mem2)
		return 0;
	VkPhysicalDeviceMemoryBudgetPropertiesEXT b = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_MEMORY_BUDGET_PROPERTIES_EXT};
	VkPhysicalDeviceMemoryProperties2 p = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_MEMORY_PROPERTIES_2, .pNext = &b};
	mem2(pd, &p);
	uint32_t n = p.memoryProperties.memoryHeapCount;
	for (uint32_t i = 0; i < n && i < VK_MAX_MEMORY_HEAPS; i++) {
		budget[i] = b.heapBudget[i];
		usage[i] = b.heapUsage[i];
	}
	return (int)n;
}

// list makes one call of vks_enumerate's kind through fn.
static VkResult list(int kind, PFN_vkVoidFunction fn, VkPhysicalDevice pd, uint32_t *n, void *out) {
	switch (kind) {
	case VKS_INSTANCE_LAYERS:
		return ((PFN_vkEnumerateInstanceLayerProperties)fn)(n, out);
	case VKS_INSTANCE_EXTENSIONS:
		return ((PFN_vkEnumerateInstanceExtensionProperties)fn)(NULL, n, out);
	case VKS_DEVICE_EXTENSIONS:
		return ((PFN_vkEnumerateDeviceExtensionProperties)fn)(pd, NULL, n, out);
	default:
		((PFN_vkGetPhysicalDeviceQueueFamilyProperties)fn)(pd, n, out);
		return VK_SUCCESS;
	}
}

void *vks_enumerate(void *gipa, VkInstance inst, VkPhysicalDevice pd, int kind, uint32_t *n) {
	PFN_vkGetInstanceProcAddr get = (PFN_vkGetInstanceProcAddr)gipa;
	static const char *names[] = {"vkEnumerateInstanceLayerProperties", "vkEnumerateInstanceExtensionProperties",
		"vkEnumerateDeviceExtensionProperties", "vkGetPhysicalDeviceQueueFamilyProperties"};
	static const size_t sizes[] = {sizeof(VkLayerProperties), sizeof(VkExtensionProperties),
		sizeof(VkExtensionProperties), sizeof(VkQueueFamilyProperties)};
	*n = 0;
	if (kind < 0 || kind > VKS_QUEUE_FAMILIES)
		return NULL;
	PFN_vkVoidFunction fn = get(kind < VKS_DEVICE_EXTENSIONS ? VK_NULL_HANDLE : inst, names[kind]);
	if (!fn)
		return NULL;
	// A layer or driver may add entries between the two calls
	// (VK_INCOMPLETE): ask again, a few times.
	for (int try = 0; try < 4; try++) {
		uint32_t count = 0;
		if (list(kind, fn, pd, &count, NULL) != VK_SUCCESS || count == 0)
			return NULL;
		void *out = calloc(count, sizes[kind]);
		if (!out)
			return NULL;
		VkResult r = list(kind, fn, pd, &count, out);
		if (r == VK_SUCCESS) {
			*n = count;
			return out;
		}
		free(out);
		if (r != VK_INCOMPLETE)
			return NULL;
	}
	return NULL;
}

VkResult vks_create_instance(void *gipa, uint32_t api, int validate, VkInstance *out) {
	PFN_vkGetInstanceProcAddr get = (PFN_vkGetInstanceProcAddr)gipa;
	PFN_vkCreateInstance create = (PFN_vkCreateInstance)get(VK_NULL_HANDLE, "vkCreateInstance");
	if (!create)
		return VK_ERROR_INITIALIZATION_FAILED;
	static const char *layers[] = {"VK_LAYER_KHRONOS_validation"};
	static const char *exts[] = {"VK_EXT_debug_utils"};
	VkApplicationInfo app = {
		.sType = VK_STRUCTURE_TYPE_APPLICATION_INFO,
		.pApplicationName = "vkstat",
		.pEngineName = "vkstat",
		.apiVersion = api,
	};
	VkInstanceCreateInfo ci = {.sType = VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO, .pApplicationInfo = &app};
	if (validate) {
		ci.pNext = vks_validation_features(vks_messenger_info());
		ci.enabledLayerCount = 1;
		ci.ppEnabledLayerNames = layers;
		ci.enabledExtensionCount = 1;
		ci.ppEnabledExtensionNames = exts;
	}
	return create(&ci, NULL, out);
}

VkResult vks_create_device(void *gipa, VkInstance inst, VkPhysicalDevice pd, uint32_t family, uint32_t count,
		int32_t xfamily, int float64, int int64, int int16, int import_host, void *next, VkDevice *out) {
	PFN_vkGetInstanceProcAddr get = (PFN_vkGetInstanceProcAddr)gipa;
	PFN_vkCreateDevice create = (PFN_vkCreateDevice)get(inst, "vkCreateDevice");
	if (!create)
		return VK_ERROR_INITIALIZATION_FAILED;
	static const float priorities[] = {1, 1};
	static const char *exts[] = {"VK_EXT_external_memory_host"};
	VkDeviceQueueCreateInfo queues[2] = {{
		.sType = VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO,
		.queueFamilyIndex = family,
		.queueCount = count,
		.pQueuePriorities = priorities,
	}};
	uint32_t nqueues = 1;
	if (xfamily >= 0) {
		queues[1] = queues[0];
		queues[1].queueFamilyIndex = (uint32_t)xfamily;
		queues[1].queueCount = 1;
		nqueues = 2;
	}
	VkPhysicalDeviceFeatures feats = {
		.shaderFloat64 = float64 ? VK_TRUE : VK_FALSE,
		.shaderInt64 = int64 ? VK_TRUE : VK_FALSE,
		.shaderInt16 = int16 ? VK_TRUE : VK_FALSE,
	};
	VkDeviceCreateInfo ci = {
		.sType = VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO,
		.pNext = next,
		.queueCreateInfoCount = nqueues,
		.pQueueCreateInfos = queues,
		.pEnabledFeatures = &feats,
	};
	if (import_host) {
		ci.enabledExtensionCount = 1;
		ci.ppEnabledExtensionNames = exts;
	}
	return create(pd, &ci, NULL, out);
}
