package engine

/*
#include <stdlib.h>
#include <string.h>
#include "native.h"

typedef struct {
	VkDescriptorSetLayout set_layout;
	VkPipelineLayout layout;
	VkPipeline pipeline;
	const char *failed; // the call that failed
} vks_kernel;

// vks_create_module makes a shader module of code.
static VkResult vks_create_module(void *gipa, VkInstance inst, VkDevice dev, const uint32_t *code, size_t code_size,
		VkShaderModule *out) {
	PFN_vkGetDeviceProcAddr gdpa = (PFN_vkGetDeviceProcAddr)((PFN_vkGetInstanceProcAddr)gipa)(inst, "vkGetDeviceProcAddr");
	PFN_vkCreateShaderModule createModule = gdpa ? (PFN_vkCreateShaderModule)gdpa(dev, "vkCreateShaderModule") : NULL;
	if (!createModule) {
		return VK_ERROR_INITIALIZATION_FAILED;
	}
	VkShaderModuleCreateInfo mci = {VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO};
	mci.codeSize = code_size;
	mci.pCode = code;
	return createModule(dev, &mci, NULL, out);
}

// vks_build_kernel builds a compute pipeline of module with every
// create-info in C memory that lives through the calls (see Device.build).
static VkResult vks_build_kernel(void *gipa, VkInstance inst, VkDevice dev, VkPipelineCache cache,
		VkShaderModule module, uint32_t bindings, uint32_t push_size,
		const uint32_t *spec, uint32_t nspec, vks_kernel *out) {
	memset(out, 0, sizeof *out);
	PFN_vkGetDeviceProcAddr gdpa = (PFN_vkGetDeviceProcAddr)((PFN_vkGetInstanceProcAddr)gipa)(inst, "vkGetDeviceProcAddr");
	if (!gdpa) {
		out->failed = "vkGetDeviceProcAddr";
		return VK_ERROR_INITIALIZATION_FAILED;
	}
	PFN_vkCreateDescriptorSetLayout createSetLayout = (PFN_vkCreateDescriptorSetLayout)gdpa(dev, "vkCreateDescriptorSetLayout");
	PFN_vkCreatePipelineLayout createLayout = (PFN_vkCreatePipelineLayout)gdpa(dev, "vkCreatePipelineLayout");
	PFN_vkCreateComputePipelines createPipelines = (PFN_vkCreateComputePipelines)gdpa(dev, "vkCreateComputePipelines");
	if (!createSetLayout || !createLayout || !createPipelines) {
		out->failed = "vkGetDeviceProcAddr";
		return VK_ERROR_INITIALIZATION_FAILED;
	}
	VkResult r;

	VkDescriptorSetLayoutBinding *b = calloc(bindings ? bindings : 1, sizeof *b);
	VkSpecializationMapEntry *entries = calloc(nspec ? nspec : 1, sizeof *entries);
	if (!b || !entries) {
		free(b);
		free(entries);
		out->failed = "malloc";
		return VK_ERROR_OUT_OF_HOST_MEMORY;
	}
	for (uint32_t i = 0; i < bindings; i++) {
		b[i].binding = i;
		b[i].descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER;
		b[i].descriptorCount = 1;
		b[i].stageFlags = VK_SHADER_STAGE_COMPUTE_BIT;
	}
	VkDescriptorSetLayoutCreateInfo sci = {VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO};
	sci.bindingCount = bindings;
	sci.pBindings = b;
	r = createSetLayout(dev, &sci, NULL, &out->set_layout);
	if (r != VK_SUCCESS) {
		out->failed = "vkCreateDescriptorSetLayout";
		goto done;
	}
	VkPushConstantRange range = {VK_SHADER_STAGE_COMPUTE_BIT, 0, push_size};
	VkPipelineLayoutCreateInfo lci = {VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO};
	lci.setLayoutCount = 1;
	lci.pSetLayouts = &out->set_layout;
	if (push_size > 0) {
		lci.pushConstantRangeCount = 1;
		lci.pPushConstantRanges = &range;
	}
	r = createLayout(dev, &lci, NULL, &out->layout);
	if (r != VK_SUCCESS) {
		out->failed = "vkCreatePipelineLayout";
		goto done;
	}
	for (uint32_t i = 0; i < nspec; i++) {
		entries[i].constantID = i;
		entries[i].offset = 4 * i;
		entries[i].size = 4;
	}
	VkSpecializationInfo si = {nspec, entries, 4 * (size_t)nspec, spec};
	VkComputePipelineCreateInfo pci = {VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO};
	pci.stage.sType = VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO;
	pci.stage.stage = VK_SHADER_STAGE_COMPUTE_BIT;
	pci.stage.module = module;
	pci.stage.pName = "main";
	pci.stage.pSpecializationInfo = nspec > 0 ? &si : NULL;
	pci.layout = out->layout;
	r = createPipelines(dev, cache, 1, &pci, NULL, &out->pipeline);
	if (r != VK_SUCCESS) {
		out->failed = "vkCreateComputePipelines";
	}
done:
	free(b);
	free(entries);
	return r;
}
*/
import "C"

import (
	"encoding/binary"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"sync"
	"time"
	"unsafe"

	vk "github.com/vulkan-go/vulkan"

	"github.com/vkstat/vkstat/shaders"
)

// KernelSpec describes a compute pipeline: a SPIR-V module whose entry point
// is main, and the values of its specialization constants (constant_id 0,
// 1, ... as 32-bit words). Its storage-buffer bindings (set 0, numbered
// from 0) and its push-constant block come from the module's own
// reflection when the kernel is built.
type KernelSpec struct {
	Name string
	// Code is the SPIR-V; nil: the device's shader of that Name
	// (DeviceOptions.Shaders), so that a kernel is one call from its name
	// and constants.
	Code []byte
	Spec []uint32
	// Push is a value of the struct the kernel's dispatches give their
	// push constants in (its zero value will do). Each field is a member
	// of the shader's push-constant block, matched by name with case and
	// underscores ignored (maxSweeps is max_sweeps); integer and bool
	// fields fill int32 and uint32 members, float fields float32 and
	// float64 members, whichever the variant declares. A field without a
	// member, a member without a field or a type that does not fit fails
	// the build of the kernel. nil: dispatches give raw bytes (or nothing,
	// for a shader without push constants).
	Push any
}

func (s KernelSpec) key() string {
	var b strings.Builder
	b.WriteString(s.Name)
	for _, v := range s.Spec {
		fmt.Fprintf(&b, ":%d", v)
	}
	return b.String()
}

// Kernel is a compute pipeline, built once per (shader, constants) and cached
// by the device.
type Kernel struct {
	Spec      KernelSpec
	io        *layout // bindings and push constants, from the SPIR-V
	setLayout vk.DescriptorSetLayout
	layout    vk.PipelineLayout
	pipeline  vk.Pipeline
	id        uint64 // never reused on the device: recordings name it (replay.go)
}

// Kernel returns the pipeline for spec, building it on first use.
func (d *Device) Kernel(spec KernelSpec) (*Kernel, error) {
	ks, err := d.Kernels(spec)
	if err != nil {
		return nil, err
	}
	return ks[0], nil
}

// Kernels returns the pipelines for specs, building those not built yet
// at the same time, on a goroutine each, where the driver allows it: every
// driver but lavapipe, whose LLVM builds one pipeline at a time in a
// process (pipelineMu). A pipeline that needs several kernels asks for
// them at once so that their compilation overlaps. Each SPIR-V module
// becomes a shader module once per device, shared by every variant
// (specialization constants) built from it.
func (d *Device) Kernels(specs ...KernelSpec) ([]*Kernel, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	out := make([]*Kernel, len(specs))
	var todo []int // indexes into specs of the kernels to build, each key once
	for i, spec := range specs {
		if k, ok := d.kernels[spec.key()]; ok {
			if reflect.TypeOf(spec.Push) != k.io.typ {
				return nil, fmt.Errorf("kernel %s is built for push constants as %v, not %T", spec.Name, k.io.typ, spec.Push)
			}
			out[i] = k
		} else if !slices.ContainsFunc(todo, func(j int) bool { return specs[j].key() == spec.key() }) {
			todo = append(todo, i)
		}
	}
	if len(todo) == 0 {
		return out, nil
	}
	specs = slices.Clone(specs)
	for _, i := range todo {
		if specs[i].Code != nil {
			continue
		}
		code, err := d.shader(specs[i].Name)
		if err != nil {
			return nil, err
		}
		specs[i].Code = code
	}
	t0 := time.Now()
	built := make([]*Kernel, len(todo))
	errs := make([]error, len(todo))
	var wg sync.WaitGroup
	for n, i := range todo {
		module, err := d.module(specs[i])
		if err != nil {
			errs[n] = err
			continue
		}
		if len(todo) == 1 {
			built[n], errs[n] = d.build(specs[i], module)
			continue
		}
		wg.Go(func() { built[n], errs[n] = d.build(specs[i], module) })
	}
	wg.Wait()
	d.buildTime += time.Since(t0)
	d.since(phPipeline, t0)
	err := d.inst.takeValidation()
	for n, i := range todo {
		if errs[n] == nil && err != nil {
			errs[n] = err
		}
		if errs[n] != nil {
			if built[n] != nil {
				built[n].destroy(d.handle)
			}
			err = errors.Join(err, fmt.Errorf("building kernel %s: %w", specs[i].Name, errs[n]))
			continue
		}
		d.kernels[specs[i].key()] = built[n]
		d.built++
		d.count(cPipelines, 1)
	}
	if err != nil {
		return nil, err
	}
	for i, spec := range specs {
		out[i] = d.kernels[spec.key()]
	}
	return out, nil
}

// serialBuilds reports whether d's pipelines must be built one at a time
// in the process (pipelineMu): lavapipe's are.
func (d *Device) serialBuilds() bool { return d.Info.IsLavapipe() }

// module is the shader module of spec's code, made on first use; d.mu is
// held.
func (d *Device) module(spec KernelSpec) (vk.ShaderModule, error) {
	if len(spec.Code) == 0 || len(spec.Code)%4 != 0 || binary.LittleEndian.Uint32(spec.Code) != 0x07230203 {
		return vk.NullShaderModule, fmt.Errorf("building kernel %s: not a SPIR-V module (%d bytes)", spec.Name, len(spec.Code))
	}
	if m, ok := d.modules[string(spec.Code)]; ok {
		return m, nil
	}
	code := C.CBytes(spec.Code)
	defer C.free(code)
	var m C.VkShaderModule
	if d.serialBuilds() {
		pipelineMu.Lock()
		defer pipelineMu.Unlock()
	}
	if r := C.vks_create_module(d.inst.gipa, *(*C.VkInstance)(unsafe.Pointer(&d.inst.handle)), *(*C.VkDevice)(unsafe.Pointer(&d.handle)),
		(*C.uint32_t)(code), C.size_t(len(spec.Code)), &m); r != C.VK_SUCCESS {
		return vk.NullShaderModule, fmt.Errorf("building kernel %s: %w", spec.Name, check(vk.Result(r), "vkCreateShaderModule"))
	}
	if d.modules == nil {
		d.modules = map[string]vk.ShaderModule{}
	}
	d.modules[string(spec.Code)] = *(*vk.ShaderModule)(unsafe.Pointer(&m))
	d.count(cShaderModules, 1)
	return d.modules[string(spec.Code)], nil
}

// destroyKernels destroys every pipeline and shader module d made.
func (d *Device) destroyKernels() {
	for _, k := range d.kernels {
		k.destroy(d.handle)
	}
	for _, m := range d.modules {
		vk.DestroyShaderModule(d.handle, m, nil)
	}
	d.kernels, d.modules = nil, nil
}

// Modules is the number of shader modules d holds: one per SPIR-V module
// it built a kernel of, however many variants.
func (d *Device) Modules() int {
	d.mu.Lock()
	defer d.mu.Unlock()
	return len(d.modules)
}

func (d *Device) build(spec KernelSpec, module vk.ShaderModule) (*Kernel, error) {
	io, err := reflectLayout(spec.Code, spec.Push)
	if err != nil {
		return nil, err
	}
	if io.pushSize > int(d.Info.MaxPushConstants) {
		return nil, fmt.Errorf("push constants of %d bytes exceed the device limit of %d", io.pushSize, d.Info.MaxPushConstants)
	}
	if io.bindings > maxBindings {
		return nil, fmt.Errorf("%d bindings, more than %d", io.bindings, maxBindings)
	}
	k := &Kernel{Spec: spec, io: io, id: d.nextID()}
	// Every create-info lives in C memory of ours. vulkan-go's wrappers
	// convert slices inside create-infos (bindings, set layouts,
	// specialization entries, the create-info array of
	// vkCreateComputePipelines) into C memory freed by a finalizer set on a
	// variable that is dead once the conversion returns: a garbage
	// collection finishing during the call frees what the validation layer
	// and the driver are still reading. That was the rare SIGSEGV inside
	// vkCreateComputePipelines under -race (issue 9).
	var specData unsafe.Pointer
	if n := len(spec.Spec); n > 0 {
		specData = C.malloc(C.size_t(4 * n))
		defer C.free(specData)
		for i, v := range spec.Spec {
			*(*uint32)(unsafe.Add(specData, 4*i)) = v
		}
	}
	var out C.vks_kernel
	if d.serialBuilds() {
		pipelineMu.Lock() // see pipelineMu: one compilation at a time per process
	}
	r := C.vks_build_kernel(d.inst.gipa, *(*C.VkInstance)(unsafe.Pointer(&d.inst.handle)), *(*C.VkDevice)(unsafe.Pointer(&d.handle)),
		*(*C.VkPipelineCache)(unsafe.Pointer(&d.cache)), *(*C.VkShaderModule)(unsafe.Pointer(&module)),
		C.uint32_t(io.bindings), C.uint32_t(io.pushSize), (*C.uint32_t)(specData), C.uint32_t(len(spec.Spec)), &out)
	if d.serialBuilds() {
		pipelineMu.Unlock()
	}
	k.setLayout = *(*vk.DescriptorSetLayout)(unsafe.Pointer(&out.set_layout))
	k.layout = *(*vk.PipelineLayout)(unsafe.Pointer(&out.layout))
	k.pipeline = *(*vk.Pipeline)(unsafe.Pointer(&out.pipeline))
	if r != C.VK_SUCCESS {
		k.destroy(d.handle)
		return nil, check(vk.Result(r), C.GoString(out.failed))
	}
	return k, nil
}

// Bindings is the number of storage buffers a dispatch of k binds: the
// shader's bindings 0 … Bindings()−1 of set 0.
func (k *Kernel) Bindings() int { return k.io.bindings }

func (k *Kernel) destroy(dev vk.Device) {
	if k.pipeline != vk.NullPipeline {
		vk.DestroyPipeline(dev, k.pipeline, nil)
	}
	if k.layout != vk.NullPipelineLayout {
		vk.DestroyPipelineLayout(dev, k.layout, nil)
	}
	if k.setLayout != vk.NullDescriptorSetLayout {
		vk.DestroyDescriptorSetLayout(dev, k.setLayout, nil)
	}
}

// Groups folds a count of workgroups over the x and y dimensions of a
// dispatch so that neither exceeds the device limit; shaders recover the flat
// index as gl_WorkGroupID.x + gl_WorkGroupID.y * gl_NumWorkGroups.x and
// ignore indices past the count.
func (d *Device) Groups(n int) [3]uint32 {
	maxX := int(d.Info.MaxWorkgroupCount[0])
	if maxX <= 0 || maxX > 65535 {
		maxX = 65535
	}
	if n <= maxX {
		return [3]uint32{uint32(max(n, 1)), 1, 1}
	}
	y := (n + maxX - 1) / maxX
	x := (n + y - 1) / y
	return [3]uint32{uint32(x), uint32(y), 1}
}

// shader is the SPIR-V of the named variant from the device's shader
// source: DeviceOptions.Shaders, or the set built into the binary.
func (d *Device) shader(name string) ([]byte, error) {
	if d.opt.Shaders != nil {
		return d.opt.Shaders(name)
	}
	return shaders.Code(name)
}
