// vkfft.h: a small C interface to VkFFT (Debian's libvkfft-dev, header
// only) on a device that vkstat's engine opened. See vkfft.c.
#ifndef VKSTAT_VKFFT_H
#define VKSTAT_VKFFT_H
#include <stdint.h>

// vks_fft_handles are the engine's handles (engine.Handles).
typedef struct {
	void *gipa;      // PFN_vkGetInstanceProcAddr
	void *instance;  // VkInstance
	void *physical;  // VkPhysicalDevice
	void *device;    // VkDevice
	void *queue;     // VkQueue
	void *pool;      // VkCommandPool
	void *fence;     // VkFence
} vks_fft_handles;

typedef struct vks_fft_plan vks_fft_plan;

// vks_fft_plan_new plans an in-place batched forward FFT of dims (1 or 2)
// axes, sizes n0 (fastest) and n1, over batch transforms stored one after
// another in buf (float32, or float64 when dbl). Complex-to-complex (r2c
// 0): each transform is n1 rows of n0 interleaved (re, im) pairs.
// Real-to-complex (r2c 1, VkFFT's performR2C): each transform is n1 rows
// of n0/2+1 pairs; the real input fills the first n0 values of each row
// (2·(n0/2+1) values: one or two of padding), and the output is the
// n0/2+1 non-negative frequencies of the fastest axis, every frequency of
// the other. temp, when not NULL, is a scratch buffer of temp_bytes (at
// least as large as buf's transforms, more for Bluestein's axes: Go's
// ScratchBytes) that VkFFT uses instead of allocating one. On failure it
// returns NULL and *err is VkFFT's result code, -1 when the Vulkan entry
// points could not be loaded, or VKS_FFT_SCRATCH when VkFFT needed more
// scratch than temp_bytes (*need_bytes says how much).
//
// load, when not NULL, is the SPIR-V that vks_fft_binary gave for a plan of
// this very configuration on this device (VkFFT's loadApplicationString):
// nothing is compiled. Otherwise, with save, the plan keeps its SPIR-V for
// vks_fft_binary. VkFFT reads load without knowing its length: the caller
// must have checked it.
vks_fft_plan *vks_fft_plan_new(const vks_fft_handles *h, int dims, uint64_t n0, uint64_t n1, uint64_t batch,
	int dbl, int r2c, void *buf, uint64_t bytes, void *temp, uint64_t temp_bytes, const void *load, int save,
	int *err, uint64_t *need_bytes);
// vks_fft_binary is the compiled SPIR-V of a plan made with save (VkFFT's
// saveApplicationString, *size bytes; the plan owns it), or NULL.
const void *vks_fft_binary(vks_fft_plan *p, uint64_t *size);
#define VKS_FFT_SCRATCH (-2)
// VKS_FFT_R2C_UNSUPPORTED is VkFFT's result code for a real-to-complex
// length it cannot plan (1.2.26: an odd n0 too long for one upload).
#define VKS_FFT_R2C_UNSUPPORTED 3003
// vks_fft_record appends the forward transform of buf (with temp as its
// scratch: buffers of the sizes the plan was made with) to cmd (a
// VkCommandBuffer that is recording); it returns VkFFT's result code (0:
// success). Other buffers than the last launch's rewrite the plan's
// descriptor sets: no submission that recorded the plan may be pending.
int vks_fft_record(vks_fft_plan *p, void *cmd, void *buf, void *temp);
void vks_fft_plan_free(vks_fft_plan *p);
// vks_fft_version is VkFFTGetVersion(): 10226 for 1.2.26.
int vks_fft_version(void);
// vks_fft_error is VkFFT's text for a result code.
const char *vks_fft_error(int code);
#endif
