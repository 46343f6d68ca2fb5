package shaderlab

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/vkstat/vkstat/engine"
)

// The subgroup operation (engine.DeviceInfo.SubgroupOps) each SPIR-V
// capability needs.
var subgroupOps = map[string]string{
	"GroupNonUniform": "basic", "GroupNonUniformVote": "vote", "GroupNonUniformArithmetic": "arithmetic",
	"GroupNonUniformBallot": "ballot", "GroupNonUniformShuffle": "shuffle", "GroupNonUniformShuffleRelative": "shuffle_relative",
	"GroupNonUniformClustered": "clustered", "GroupNonUniformQuad": "quad",
}

// The device feature (engine.DeviceInfo.ShaderFeatures) each SPIR-V
// capability needs.
var capabilityFeature = map[string]string{
	"Float16": "shaderFloat16", "Int8": "shaderInt8", "Int16": "shaderInt16",
	"StorageBuffer16BitAccess": "storageBuffer16BitAccess", "UniformAndStorageBuffer16BitAccess": "uniformAndStorageBuffer16BitAccess",
	"StoragePushConstant16": "storagePushConstant16", "StorageBuffer8BitAccess": "storageBuffer8BitAccess",
	"UniformAndStorageBuffer8BitAccess": "uniformAndStorageBuffer8BitAccess", "StoragePushConstant8": "storagePushConstant8",
	"VulkanMemoryModel": "vulkanMemoryModel", "VulkanMemoryModelDeviceScope": "vulkanMemoryModelDeviceScope",
	"DotProduct": "shaderIntegerDotProduct", "DotProductInputAll": "shaderIntegerDotProduct",
	"DotProductInput4x8Bit": "shaderIntegerDotProduct", "DotProductInput4x8BitPacked": "shaderIntegerDotProduct",
}

// Supports says whether a device, as vkstat opens it, runs shaders needing
// capability: "yes" or "no (why)", the why naming the Vulkan feature. vkstat
// enables shaderFloat64 and shaderInt64, the subgroup operations Vulkan 1.1
// gives, and the 16- and 8-bit storage and arithmetic, memory model,
// subgroup extended types and integer dot product features
// (engine.DeviceInfo.ShaderFeatures) the device offers at the Vulkan
// version it runs at; every other capability (buffer_reference's
// PhysicalStorageBufferAddresses, variable pointers, atomics on floats,
// ...) needs something the device was not created with, and a pipeline
// using it is undefined behaviour (a crash on lavapipe), so it is refused.
func Supports(info engine.DeviceInfo, capability string) string {
	switch capability {
	case "Shader", "Matrix", "StorageImageExtendedFormats":
		return "yes"
	case "Float64":
		if info.Float64 {
			return "yes"
		}
		return "no (shaderFloat64)"
	case "Int64":
		if info.Int64 {
			return "yes"
		}
		return "no (shaderInt64)"
	case "PhysicalStorageBufferAddresses":
		return "no (buffer_reference needs bufferDeviceAddress, which vkstat does not enable)"
	case "VariablePointers", "VariablePointersStorageBuffer":
		return "no (variable pointers, which vkstat does not enable)"
	}
	if f, ok := capabilityFeature[capability]; ok {
		if info.HasShaderFeature(f) {
			return "yes"
		}
		if api, at := engine.ShaderFeatureAPI(f), info.RunsAt(); at != "" && api > at {
			return "no (" + f + ": a Vulkan " + api + " feature; the device runs at Vulkan " + info.RunsAt() + ")"
		}
		return "no (" + f + ": the device does not offer it)"
	}
	if op, ok := subgroupOps[capability]; ok {
		if slices.Contains(info.SubgroupOps, op) {
			return "yes"
		}
		return "no (" + op + " subgroup operations in compute shaders)"
	}
	return "no (vkstat does not enable the feature or extension it needs)"
}

// CheckFeatures refuses a shader needing what the device lacks, naming it;
// shared is the shared memory it uses with the constants it runs with.
func CheckFeatures(mod *Module, info engine.DeviceInfo, shared int) error {
	var missing []string
	for _, capability := range mod.Capabilities {
		if s := Supports(info, capability); strings.HasPrefix(s, "no") {
			missing = append(missing, capability+" "+strings.TrimPrefix(s, "no "))
		}
	}
	if shared > int(info.MaxSharedMemory) && info.MaxSharedMemory > 0 {
		missing = append(missing, fmt.Sprintf("%d bytes of shared memory (the device has %d)", shared, info.MaxSharedMemory))
	}
	if len(missing) > 0 {
		return fmt.Errorf("the shader needs what %s lacks: %s", info.Name, strings.Join(missing, "; "))
	}
	return nil
}

// Result is a plan run on one device.
type Result struct {
	Device  string          // the device's name
	Outputs []*Array        // per binding number, its contents after the last run
	Kernel  []time.Duration // per run, the GPU time from timestamps (when Timed)
	Timed   bool            // whether the device gave timestamps
	Wall    time.Duration   // all the runs, uploads and downloads included
	// Build is the time taken building the pipelines (the shaders' lazy
	// compile on the device: none where the device had them already),
	// and First the first run's wall time, Build included; neither is in
	// Kernel.
	Build, First time.Duration
	// Subgroup is the device's subgroup size (0 where it does not say).
	Subgroup uint32
}

// UsesSubgroups reports whether the module uses subgroup operations,
// whose results can depend on the device's subgroup size.
func UsesSubgroups(mod *Module) bool {
	return slices.ContainsFunc(mod.Capabilities, func(c string) bool {
		return strings.HasPrefix(c, "GroupNonUniform") || strings.HasPrefix(c, "Subgroup")
	})
}

// SubgroupNote says, for a shader using subgroup operations, how the
// device splits a workgroup of local invocations into subgroups; "" for
// a shader without them or a device that does not say.
func SubgroupNote(mod *Module, local [3]uint32, device string, size uint32) string {
	if !UsesSubgroups(mod) || size == 0 {
		return ""
	}
	n := local[0] * max(local[1], 1) * max(local[2], 1)
	s := fmt.Sprintf("the shader uses subgroup operations: on %s a subgroup is %d invocations, so a workgroup of %d is %d subgroup", device, size, n, (n+size-1)/size)
	if (n+size-1)/size != 1 {
		s += "s"
	}
	if n%size != 0 {
		s += ", the last partly filled"
	}
	return s + "; code that assumes another subgroup size (16, 32, 64) computes something else here"
}

// Median is the middle of the GPU times.
func (r *Result) Median() time.Duration {
	if len(r.Kernel) == 0 {
		return 0
	}
	k := slices.Clone(r.Kernel)
	slices.Sort(k)
	return k[len(k)/2]
}

// ErrNoDevice is a run without a Vulkan device: shaders do not run on the
// CPU path (lavapipe runs them on the CPU).
var ErrNoDevice = errors.New("shaders run on Vulkan devices, not on the CPU path (lavapipe runs them on the CPU)")

// Run executes the plan Options.Warmup times untimed then Options.Repeat
// times on dev, uploading the inputs each time, and returns the buffers' contents after the last run. The
// shader's needs are checked against the device first.
func (p *Plan) Run(ctx context.Context, dev *engine.Device) (*Result, error) {
	s := &Sequence{Names: make([]string, len(p.Inputs)), Buffers: p.Inputs, opt: p.opt}
	s.Steps = []SequenceStep{{Plan: p, Times: 1, buffers: make([]int, len(p.Inputs))}}
	for i := range p.Inputs {
		s.Steps[0].buffers[i] = i
	}
	return s.Run(ctx, dev)
}

// guardBytes is the least guard before and after each binding in a run.
const guardBytes = 256

// checkGuards says which guard bytes of a buffer (size bytes between
// them, n of them its data; b the binding that names its elements) the
// run changed, and which elements of its runtime array they would be.
func checkGuards(what string, b Binding, n int, pattern, before, after []byte, size int64) error {
	changed := func(g []byte) (first, last int) {
		first, last = -1, -1
		for j := range g {
			if g[j] != pattern[j] {
				if first < 0 {
					first = j
				}
				last = j
			}
		}
		return first, last
	}
	var where []string
	if f, l := changed(before); f >= 0 {
		where = append(where, fmt.Sprintf("bytes %d to %d before its start", len(before)-f, len(before)-l))
	}
	if f, l := changed(after); f >= 0 {
		at := size + int64(f)
		s := fmt.Sprintf("bytes %d to %d from its start, past its %d", at, size+int64(l), n)
		if bl := b.Block; bl != nil && len(bl.Members) > 0 {
			if m := bl.Members[len(bl.Members)-1]; m.Runtime && m.Stride > 0 {
				s += fmt.Sprintf(" (%s[%d] to %s[%d])", m.Name, (at-int64(m.Offset))/int64(m.Stride), m.Name, (size+int64(l)-int64(m.Offset))/int64(m.Stride))
			}
		}
		where = append(where, s)
	}
	if len(where) == 0 {
		return nil
	}
	return fmt.Errorf("%s: the shader wrote outside the binding: %s (the guard bytes around it changed)", what, strings.Join(where, "; "))
}

// Report is a shader's reflection and, per device, whether it supports
// each capability the module declares (Supports): what vkstat shader info
// --json prints.
type Report struct {
	File     string          `json:"file"`
	Module   *Module         `json:"module"`
	Warnings []Diagnostic    `json:"warnings,omitempty"`
	Devices  []DeviceSupport `json:"devices"`
}

// DeviceSupport is one device's answer per capability.
type DeviceSupport struct {
	Name    string            `json:"name"`
	Support map[string]string `json:"support"`
}

// NewReport reports sh, loaded from path, against the devices infos.
func NewReport(path string, sh *Shader, infos []engine.DeviceInfo) Report {
	rep := Report{File: path, Module: sh.Module, Warnings: sh.Warnings, Devices: []DeviceSupport{}}
	for _, in := range infos {
		d := DeviceSupport{Name: in.Name, Support: map[string]string{}}
		for _, cp := range sh.Module.Capabilities {
			d.Support[cp] = Supports(in, cp)
		}
		rep.Devices = append(rep.Devices, d)
	}
	return rep
}
