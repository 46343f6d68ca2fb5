// vkfft.cpp: VkFFT's Vulkan backend (VKFFT_BACKEND 0) compiled against the
// engine's run-time-loaded Vulkan. vkstat dlopens the loader and links no
// libvulkan, while VkFFT calls vk* functions by name: with VK_NO_PROTOTYPES
// each name VkFFT uses is defined as a function pointer of this file,
// filled from the loader's vkGetInstanceProcAddr (the instance-level
// trampolines work for every device of the instance). VkFFT compiles the
// GLSL it generates with glslang's C interface: glslang-dev's static
// libraries, the same ones internal/glsl links beside libshaderc_combined
// (which carries shaderc only, not a second glslang).
#define VK_NO_PROTOTYPES 1
#include <vulkan/vulkan.h>
#include <stdlib.h>
#include <stddef.h>
#include <pthread.h>

#define VKS_FFT_FUNCS(X) \
	X(AllocateCommandBuffers) X(AllocateDescriptorSets) X(AllocateMemory) X(BeginCommandBuffer) \
	X(BindBufferMemory) X(CmdBindDescriptorSets) X(CmdBindPipeline) X(CmdCopyBuffer) X(CmdDispatch) \
	X(CmdPipelineBarrier) X(CmdPushConstants) X(CreateBuffer) X(CreateComputePipelines) \
	X(CreateDescriptorPool) X(CreateDescriptorSetLayout) X(CreatePipelineLayout) X(CreateShaderModule) \
	X(DestroyBuffer) X(DestroyDescriptorPool) X(DestroyDescriptorSetLayout) X(DestroyPipeline) \
	X(DestroyPipelineLayout) X(DestroyShaderModule) X(EndCommandBuffer) X(FreeCommandBuffers) \
	X(FreeMemory) X(GetBufferMemoryRequirements) X(GetPhysicalDeviceMemoryProperties) \
	X(GetPhysicalDeviceProperties) X(MapMemory) X(QueueSubmit) X(ResetFences) X(UnmapMemory) \
	X(UpdateDescriptorSets) X(WaitForFences)

#define VKS_DECL(n) static PFN_vk##n vks_fft_##n;
VKS_FFT_FUNCS(VKS_DECL)

#define vkAllocateCommandBuffers vks_fft_AllocateCommandBuffers
#define vkAllocateDescriptorSets vks_fft_AllocateDescriptorSets
#define vkAllocateMemory vks_fft_AllocateMemory
#define vkBeginCommandBuffer vks_fft_BeginCommandBuffer
#define vkBindBufferMemory vks_fft_BindBufferMemory
#define vkCmdBindDescriptorSets vks_fft_CmdBindDescriptorSets
#define vkCmdBindPipeline vks_fft_CmdBindPipeline
#define vkCmdCopyBuffer vks_fft_CmdCopyBuffer
#define vkCmdDispatch vks_fft_CmdDispatch
#define vkCmdPipelineBarrier vks_fft_CmdPipelineBarrier
#define vkCmdPushConstants vks_fft_CmdPushConstants
#define vkCreateBuffer vks_fft_CreateBuffer
#define vkCreateComputePipelines vks_fft_CreateComputePipelines
#define vkCreateDescriptorPool vks_fft_CreateDescriptorPool
#define vkCreateDescriptorSetLayout vks_fft_CreateDescriptorSetLayout
#define vkCreatePipelineLayout vks_fft_CreatePipelineLayout
#define vkCreateShaderModule vks_fft_CreateShaderModule
#define vkDestroyBuffer vks_fft_DestroyBuffer
#define vkDestroyDescriptorPool vks_fft_DestroyDescriptorPool
#define vkDestroyDescriptorSetLayout vks_fft_DestroyDescriptorSetLayout
#define vkDestroyPipeline vks_fft_DestroyPipeline
#define vkDestroyPipelineLayout vks_fft_DestroyPipelineLayout
#define vkDestroyShaderModule vks_fft_DestroyShaderModule
#define vkEndCommandBuffer vks_fft_EndCommandBuffer
#define vkFreeCommandBuffers vks_fft_FreeCommandBuffers
#define vkFreeMemory vks_fft_FreeMemory
#define vkGetBufferMemoryRequirements vks_fft_GetBufferMemoryRequirements
#define vkGetPhysicalDeviceMemoryProperties vks_fft_GetPhysicalDeviceMemoryProperties
#define vkGetPhysicalDeviceProperties vks_fft_GetPhysicalDeviceProperties
#define vkMapMemory vks_fft_MapMemory
#define vkQueueSubmit vks_fft_QueueSubmit
#define vkResetFences vks_fft_ResetFences
#define vkUnmapMemory vks_fft_UnmapMemory
#define vkUpdateDescriptorSets vks_fft_update_sets
static void vks_fft_update_sets(VkDevice, uint32_t, const VkWriteDescriptorSet *, uint32_t, const VkCopyDescriptorSet *);
#define vkWaitForFences vks_fft_WaitForFences

// VkFFT 1.2.26 fills a glslang_resource_t positionally with the fields of
// glslang 11 (92 limits, maxDualSourceDrawBuffersEXT, then the limits
// struct). glslang 12 (Debian's glslang-dev 12.0.0) inserted nine mesh
// shader limits before maxDualSourceDrawBuffersEXT, so that initialiser
// does not compile as C++ (and as C it silently shifts every field after
// the 92nd). vks_fft_resource has glslang 11's layout for VkFFT's
// initialiser; VkFFT only takes its address, and operator& hands glslang
// the same values in glslang 12's layout, the mesh limits at glslang's
// defaults (unused by compute shaders).
#include <glslang/Include/glslang_c_interface.h>
#include <string.h>
struct vks_fft_resource {
	int first[92];
	int max_dual_source_draw_buffers;
	glslang_limits_t limits;
	mutable glslang_resource_t full;
	const glslang_resource_t *operator&() const {
		memset(&full, 0, sizeof full);
		memcpy(&full, first, sizeof first);
		full.max_mesh_output_vertices_ext = 256;
		full.max_mesh_output_primitives_ext = 256;
		full.max_mesh_work_group_size_x_ext = 128;
		full.max_mesh_work_group_size_y_ext = 128;
		full.max_mesh_work_group_size_z_ext = 128;
		full.max_task_work_group_size_x_ext = 128;
		full.max_task_work_group_size_y_ext = 128;
		full.max_task_work_group_size_z_ext = 128;
		full.max_mesh_view_count_ext = 4;
		full.max_dual_source_draw_buffers_ext = max_dual_source_draw_buffers;
		full.limits = limits;
		return &full;
	}
};
static_assert(offsetof(glslang_resource_t, max_mesh_output_vertices_ext) == 92 * sizeof(int),
	"glslang_resource_t is not glslang 12's: revisit vks_fft_resource");
static_assert(offsetof(glslang_resource_t, max_dual_source_draw_buffers_ext) == 101 * sizeof(int),
	"glslang_resource_t is not glslang 12's: revisit vks_fft_resource");
#define glslang_resource_t vks_fft_resource

#define VKFFT_BACKEND 0
#include <vkFFT.h>
#undef glslang_resource_t

extern "C" {
#include "vkfft.h"
}
static_assert(VKS_FFT_R2C_UNSUPPORTED == VKFFT_ERROR_UNSUPPORTED_FFT_LENGTH_R2C, "VkFFT renumbered its results");

// vks_fft_update_sets passes VkFFT's descriptor writes on, except those of
// a null buffer. VkFFT 1.2.26 plans a Bluestein (prime size) axis, writing
// its descriptor set, before it allocates that axis' Bluestein buffers
// (initializeVkFFT: VkFFTPlanAxis, then VkFFTGeneratePhaseVectors), so the
// set's Bluestein bindings are first written with VK_NULL_HANDLE (invalid
// without nullDescriptor) and never again: the transform then reads no
// buffer. Those writes are dropped here, and vks_fft_bluestein_sets writes
// the bindings once the buffers exist.
static void vks_fft_update_sets(VkDevice d, uint32_t n, const VkWriteDescriptorSet *w, uint32_t nc, const VkCopyDescriptorSet *c) {
	for (uint32_t i = 0; i < n; i++) {
		if (w[i].pBufferInfo && w[i].pBufferInfo->buffer == VK_NULL_HANDLE)
			continue;
		vks_fft_UpdateDescriptorSets(d, 1, &w[i], 0, NULL);
	}
	if (nc)
		vks_fft_UpdateDescriptorSets(d, 0, NULL, nc, c);
}

// vks_fft_bluestein_sets rewrites the descriptor sets of the forward
// plan's Bluestein axes, now that their buffers exist.
static VkFFTResult vks_fft_bluestein_sets(VkFFTApplication *app) {
	VkFFTPlan *plan = app->localFFTPlan;
	for (uint64_t i = 0; i < app->configuration.FFTdim; i++) {
		if (!app->useBluesteinFFT[i])
			continue;
		for (uint64_t j = 0; j < plan->numAxisUploads[i]; j++) {
			VkFFTAxis *axis = &plan->axes[i][j];
			axis->specializationConstants.performBufferSetUpdate = 1;
			VkFFTResult r = VkFFTUpdateBufferSet(app, plan, axis, i, j, 0);
			if (r != VKFFT_SUCCESS)
				return r;
			if (j > 0) {
				axis = &plan->inverseBluesteinAxes[i][j];
				axis->specializationConstants.performBufferSetUpdate = 1;
				r = VkFFTUpdateBufferSet(app, plan, axis, i, j, 0);
				if (r != VKFFT_SUCCESS)
					return r;
			}
		}
	}
	return VKFFT_SUCCESS;
}

// vks_fft_delete is deleteVkFFT, first destroying what VkFFT 1.2.26's
// deleteVkFFT leaves: the inverse Bluestein axes of an axis long enough for
// several uploads (their pipelines, layouts and descriptor sets; their LUT
// is the forward axes', referenced, not owned).
static void vks_fft_delete(VkFFTApplication *app) {
	VkFFTPlan *plan = app->localFFTPlan;
	for (uint64_t i = 0; plan && i < app->configuration.FFTdim; i++) {
		if (!app->useBluesteinFFT[i] || plan->numAxisUploads[i] <= 1)
			continue;
		for (uint64_t j = 0; j < plan->numAxisUploads[i]; j++)
			deleteAxis(app, &plan->inverseBluesteinAxes[i][j]);
	}
	deleteVkFFT(app);
}

struct vks_fft_plan {
	VkFFTApplication app;
	VkPhysicalDevice physical;
	VkDevice device;
	VkQueue queue;
	VkCommandPool pool;
	VkFence fence;
	VkBuffer buffer;
	uint64_t bytes;
	VkBuffer temp;
	uint64_t temp_bytes;
	// The buffers a launch binds. VkFFT 1.2.26 notices other buffers by
	// the address of the VkBuffer it is handed (VkFFTCheckUpdateBufferSet
	// compares pointers, not handles), so a new pair goes into the other
	// slot and its address tells VkFFT to rewrite its descriptor sets; the
	// same pair keeps the same address and the sets as they are.
	VkBuffer slot_buf[2], slot_temp[2];
	int cur;
};

static pthread_mutex_t vks_fft_mu = PTHREAD_MUTEX_INITIALIZER;
static void *vks_fft_instance;

// vks_fft_load fills the entry points from inst (once per instance) and
// keeps one glslang client alive for the life of the process, so that
// each plan's initialise/finalise pair does not tear glslang down.
static int vks_fft_load(void *gipa, void *inst) {
	int ok = 1;
	pthread_mutex_lock(&vks_fft_mu);
	if (vks_fft_instance != inst) {
		PFN_vkGetInstanceProcAddr g = (PFN_vkGetInstanceProcAddr)gipa;
#define VKS_LOAD(n) vks_fft_##n = (PFN_vk##n)g((VkInstance)inst, "vk" #n); ok = ok && vks_fft_##n;
		VKS_FFT_FUNCS(VKS_LOAD)
		if (ok) {
			if (!vks_fft_instance)
				glslang_initialize_process();
			vks_fft_instance = inst;
		}
	}
	pthread_mutex_unlock(&vks_fft_mu);
	return ok;
}

extern "C" vks_fft_plan *vks_fft_plan_new(const vks_fft_handles *h, int dims, uint64_t n0, uint64_t n1, uint64_t batch,
		int dbl, int r2c, void *buf, uint64_t bytes, void *temp, uint64_t temp_bytes, const void *load, int save,
		int *err, uint64_t *need_bytes) {
	if (!vks_fft_load(h->gipa, h->instance)) {
		*err = -1;
		return NULL;
	}
	vks_fft_plan *p = (vks_fft_plan *)calloc(1, sizeof *p);
	if (!p) {
		*err = VKFFT_ERROR_MALLOC_FAILED;
		return NULL;
	}
	p->physical = (VkPhysicalDevice)h->physical;
	p->device = (VkDevice)h->device;
	p->queue = (VkQueue)h->queue;
	p->pool = (VkCommandPool)h->pool;
	p->fence = (VkFence)h->fence;
	p->buffer = (VkBuffer)buf;
	p->bytes = bytes;
	p->temp = (VkBuffer)temp;
	p->temp_bytes = temp_bytes;
	VkFFTConfiguration c = {};
	c.FFTdim = dims;
	c.size[0] = n0;
	c.size[1] = dims > 1 ? n1 : 1;
	c.size[2] = 1;
	c.numberBatches = batch;
	c.doublePrecision = dbl ? 1 : 0;
	// In place: VkFFT's default strides for R2C are n0/2+1 complex values
	// per row, the real input reading the same rows as 2·(n0/2+1) reals.
	c.performR2C = r2c ? 1 : 0;
	c.physicalDevice = &p->physical;
	c.device = &p->device;
	c.queue = &p->queue;
	c.commandPool = &p->pool;
	c.fence = &p->fence;
	c.buffer = &p->buffer;
	c.bufferSize = &p->bytes;
	c.makeForwardPlanOnly = 1;
	// glslang's process is initialised once (vks_fft_load), not by each
	// plan (whose deleteVkFFT would then finalise it).
	c.isCompilerInitialized = 1;
	if (load) {
		// The SPIR-V of an earlier plan of this very configuration
		// (checked by the caller): no GLSL is generated or compiled.
		c.loadApplicationFromString = 1;
		c.loadApplicationString = (void *)load;
	} else if (save) {
		c.saveApplicationToString = 1;
	}
	// Twiddle factors from a table computed on the host in double, not by
	// the shader's sin/cos: SwiftShader's single-precision sin/cos put
	// float32 spectra 4e-5 of the peak off, past the 1e-5 lavapipe meets.
	c.useLUT = 1;
	if (p->temp) {
		// Our own scratch buffer: VkFFT 1.2.26 otherwise writes a null
		// temp buffer into the descriptor sets of Bluestein's (prime size)
		// preparation plan, which the validation layer rejects.
		c.userTempBuffer = 1;
		c.tempBuffer = &p->temp;
		c.tempBufferSize = &p->temp_bytes;
	}
	VkFFTResult r = initializeVkFFT(&p->app, c);
	int multi = 0; // a Bluestein axis of several uploads: the scratch is bound at its padded size
	for (uint64_t i = 0; r == VKFFT_SUCCESS && i < c.FFTdim; i++)
		multi |= p->app.useBluesteinFFT[i] && p->app.localFFTPlan->numAxisUploads[i] > 1;
	if (r == VKFFT_SUCCESS && p->temp && multi && p->temp_bytes > temp_bytes) {
		// VkFFT raised the scratch size it was given to what its plan
		// needs (Bluestein's padded length), past the buffer's end.
		*need_bytes = p->temp_bytes;
		vks_fft_delete(&p->app);
		free(p);
		*err = VKS_FFT_SCRATCH;
		return NULL;
	}
	if (r == VKFFT_SUCCESS) {
		r = vks_fft_bluestein_sets(&p->app);
		if (r != VKFFT_SUCCESS)
			vks_fft_delete(&p->app);
	}
	if (r != VKFFT_SUCCESS) {
		*err = (int)r;
		free(p);
		return NULL;
	}
	p->slot_buf[0] = p->buffer;
	p->slot_temp[0] = p->temp;
	p->app.configuration.buffer = &p->slot_buf[0];
	if (p->temp)
		p->app.configuration.tempBuffer = &p->slot_temp[0];
	*err = 0;
	return p;
}

extern "C" const void *vks_fft_binary(vks_fft_plan *p, uint64_t *size) {
	*size = p->app.applicationStringSize;
	return p->app.saveApplicationString;
}

extern "C" int vks_fft_record(vks_fft_plan *p, void *cmd, void *buf, void *temp) {
	VkCommandBuffer cb = (VkCommandBuffer)cmd;
	VkFFTLaunchParams lp = {};
	lp.commandBuffer = &cb;
	if ((VkBuffer)buf != p->slot_buf[p->cur] || (p->temp && (VkBuffer)temp != p->slot_temp[p->cur])) {
		p->cur ^= 1;
		p->slot_buf[p->cur] = (VkBuffer)buf;
		p->slot_temp[p->cur] = p->temp ? (VkBuffer)temp : VK_NULL_HANDLE;
	}
	lp.buffer = &p->slot_buf[p->cur];
	if (p->temp)
		lp.tempBuffer = &p->slot_temp[p->cur];
	return (int)VkFFTAppend(&p->app, -1, &lp);
}

extern "C" void vks_fft_plan_free(vks_fft_plan *p) {
	if (!p)
		return;
	vks_fft_delete(&p->app);
	free(p);
}

extern "C" int vks_fft_version(void) { return VkFFTGetVersion(); }

extern "C" const char *vks_fft_error(int code) {
	switch (code) {
	case -1:
		return "a Vulkan entry point VkFFT needs is missing from the loader";
	case VKFFT_ERROR_MALLOC_FAILED:
		return "VKFFT_ERROR_MALLOC_FAILED";
	case VKFFT_ERROR_FAILED_TO_INITIALIZE:
		return "VKFFT_ERROR_FAILED_TO_INITIALIZE (glslang)";
	case VKFFT_ERROR_FAILED_SHADER_PREPROCESS:
		return "VKFFT_ERROR_FAILED_SHADER_PREPROCESS";
	case VKFFT_ERROR_FAILED_SHADER_PARSE:
		return "VKFFT_ERROR_FAILED_SHADER_PARSE";
	case VKFFT_ERROR_FAILED_SHADER_LINK:
		return "VKFFT_ERROR_FAILED_SHADER_LINK";
	case VKFFT_ERROR_FAILED_TO_CREATE_SHADER_MODULE:
		return "VKFFT_ERROR_FAILED_TO_CREATE_SHADER_MODULE";
	case VKFFT_ERROR_FAILED_TO_CREATE_PIPELINE:
		return "VKFFT_ERROR_FAILED_TO_CREATE_PIPELINE";
	case VKFFT_ERROR_FAILED_TO_ALLOCATE_MEMORY:
		return "VKFFT_ERROR_FAILED_TO_ALLOCATE_MEMORY";
	case VKFFT_ERROR_INVALID_PHYSICAL_DEVICE:
		return "VKFFT_ERROR_INVALID_PHYSICAL_DEVICE";
	case VKFFT_ERROR_UNSUPPORTED_FFT_LENGTH_R2C:
		return "VKFFT_ERROR_UNSUPPORTED_FFT_LENGTH_R2C";
	default:
		return "a VkFFT error (see VkFFTResult in vkFFT.h)";
	}
}
