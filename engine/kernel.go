package engine

/*
#include <stdlib.h>
#include <string.h>
*/
import "C"

import (
	"encoding/binary"
	"fmt"
	"strings"
	"unsafe"

	vk "github.com/vulkan-go/vulkan"
)

// KernelSpec describes a compute pipeline: a SPIR-V module whose entry point
// is main, its storage-buffer bindings (0..Bindings-1 in set 0), the size of
// its push-constant block, and the values of its specialization constants
// (constant_id 0, 1, ... as 32-bit words).
type KernelSpec struct {
	Name     string
	Code     []byte
	Bindings int
	PushSize int
	Spec     []uint32
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
	setLayout vk.DescriptorSetLayout
	layout    vk.PipelineLayout
	pipeline  vk.Pipeline
}

// Kernel returns the pipeline for spec, building it on first use.
func (d *Device) Kernel(spec KernelSpec) (*Kernel, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if k, ok := d.kernels[spec.key()]; ok {
		return k, nil
	}
	k, err := d.build(spec)
	if err != nil {
		return nil, fmt.Errorf("building kernel %s: %w", spec.Name, err)
	}
	if err := d.inst.takeValidation(); err != nil {
		k.destroy(d.handle)
		return nil, fmt.Errorf("building kernel %s: %w", spec.Name, err)
	}
	d.kernels[spec.key()] = k
	return k, nil
}

func (d *Device) build(spec KernelSpec) (*Kernel, error) {
	if len(spec.Code) == 0 || len(spec.Code)%4 != 0 || binary.LittleEndian.Uint32(spec.Code) != 0x07230203 {
		return nil, fmt.Errorf("not a SPIR-V module (%d bytes)", len(spec.Code))
	}
	if spec.PushSize > int(d.Info.MaxPushConstants) {
		return nil, fmt.Errorf("push constants of %d bytes exceed the device limit of %d", spec.PushSize, d.Info.MaxPushConstants)
	}
	k := &Kernel{Spec: spec}
	words := make([]uint32, len(spec.Code)/4)
	for i := range words {
		words[i] = binary.LittleEndian.Uint32(spec.Code[4*i:])
	}
	var module vk.ShaderModule
	if err := check(vk.CreateShaderModule(d.handle, &vk.ShaderModuleCreateInfo{
		SType:    vk.StructureTypeShaderModuleCreateInfo,
		CodeSize: uint(len(spec.Code)),
		PCode:    words,
	}, nil, &module), "vkCreateShaderModule"); err != nil {
		return nil, err
	}
	defer vk.DestroyShaderModule(d.handle, module, nil)

	bindings := make([]vk.DescriptorSetLayoutBinding, spec.Bindings)
	for i := range bindings {
		bindings[i] = vk.DescriptorSetLayoutBinding{
			Binding:         uint32(i),
			DescriptorType:  vk.DescriptorTypeStorageBuffer,
			DescriptorCount: 1,
			StageFlags:      vk.ShaderStageFlags(vk.ShaderStageComputeBit),
		}
	}
	var setLayout vk.DescriptorSetLayout
	if err := check(vk.CreateDescriptorSetLayout(d.handle, &vk.DescriptorSetLayoutCreateInfo{
		SType:        vk.StructureTypeDescriptorSetLayoutCreateInfo,
		BindingCount: uint32(len(bindings)),
		PBindings:    bindings,
	}, nil, &setLayout), "vkCreateDescriptorSetLayout"); err != nil {
		return nil, err
	}
	k.setLayout = setLayout
	plci := vk.PipelineLayoutCreateInfo{
		SType:          vk.StructureTypePipelineLayoutCreateInfo,
		SetLayoutCount: 1,
		PSetLayouts:    []vk.DescriptorSetLayout{setLayout},
	}
	if spec.PushSize > 0 {
		plci.PushConstantRangeCount = 1
		plci.PPushConstantRanges = []vk.PushConstantRange{{
			StageFlags: vk.ShaderStageFlags(vk.ShaderStageComputeBit),
			Size:       uint32(spec.PushSize),
		}}
	}
	var layout vk.PipelineLayout
	if err := check(vk.CreatePipelineLayout(d.handle, &plci, nil, &layout), "vkCreatePipelineLayout"); err != nil {
		k.destroy(d.handle)
		return nil, err
	}
	k.layout = layout

	stage := vk.PipelineShaderStageCreateInfo{
		SType:  vk.StructureTypePipelineShaderStageCreateInfo,
		Stage:  vk.ShaderStageComputeBit,
		Module: module,
		PName:  cstr("main"),
	}
	if n := len(spec.Spec); n > 0 {
		// The constants live in C memory: cgo forbids handing C a Go
		// pointer stored inside another Go-allocated structure.
		data := C.malloc(C.size_t(4 * n))
		defer C.free(data)
		entries := make([]vk.SpecializationMapEntry, n)
		for i, v := range spec.Spec {
			*(*uint32)(unsafe.Add(data, 4*i)) = v
			entries[i] = vk.SpecializationMapEntry{ConstantID: uint32(i), Offset: uint32(4 * i), Size: 4}
		}
		stage.PSpecializationInfo = []vk.SpecializationInfo{{
			MapEntryCount: uint32(n),
			PMapEntries:   entries,
			DataSize:      uint(4 * n),
			PData:         data,
		}}
	}
	pipes := make([]vk.Pipeline, 1)
	if err := check(vk.CreateComputePipelines(d.handle, d.cache, 1, []vk.ComputePipelineCreateInfo{{
		SType:  vk.StructureTypeComputePipelineCreateInfo,
		Stage:  stage,
		Layout: k.layout,
	}}, nil, pipes), "vkCreateComputePipelines"); err != nil {
		k.destroy(d.handle)
		return nil, err
	}
	k.pipeline = pipes[0]
	return k, nil
}

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
