package shaderlab

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/vkstat/vkstat/engine"
	"github.com/vkstat/vkstat/internal/spirv"
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

// Run makes the plan (NewPlan) and runs it on dev (Plan.Run).
func Run(ctx context.Context, dev *engine.Device, sh *Shader, opt Options) (*Result, error) {
	p, err := NewPlan(sh, opt)
	if err != nil {
		return nil, err
	}
	return p.Run(ctx, dev)
}

// Run executes the plan Options.Repeat times on dev, uploading the inputs
// each time, and returns the buffers' contents after the last run. The
// shader's needs are checked against the device first.
func (p *Plan) Run(ctx context.Context, dev *engine.Device) (*Result, error) {
	if dev == nil {
		return nil, ErrNoDevice
	}
	if err := CheckFeatures(p.Shader.Module, dev.Info, p.Shared); err != nil {
		return nil, err
	}
	for d, g := range p.Groups {
		if lim := dev.Info.MaxWorkgroupCount[d]; lim > 0 && g > lim {
			return nil, fmt.Errorf("%d workgroups in dimension %d exceed the device limit of %d", g, d, lim)
		}
		if lim := dev.Info.MaxWorkgroupSize[d]; lim > 0 && p.Local[d] > lim {
			return nil, fmt.Errorf("local size %d in dimension %d exceeds the device limit of %d", p.Local[d], d, lim)
		}
	}
	if n := p.Local[0] * p.Local[1] * p.Local[2]; dev.Info.MaxWorkgroupInvocation > 0 && n > dev.Info.MaxWorkgroupInvocation {
		return nil, fmt.Errorf("local size %d×%d×%d = %d invocations exceeds the device limit of %d", p.Local[0], p.Local[1], p.Local[2], n, dev.Info.MaxWorkgroupInvocation)
	}
	// Before any memory is taken: a binding past the device's range was
	// refused only when dispatched, after seconds of allocating and
	// uploading zeros (3.2 GB for float32:20000x20000 on lavapipe).
	for i, a := range p.Inputs {
		if lim := int64(dev.Info.MaxStorageBufferRange); lim > 0 && int64(len(a.Data)) > lim {
			return nil, fmt.Errorf("binding %d holds %d bytes, more than the device binds (maxStorageBufferRange %d)", i, len(a.Data), lim)
		}
	}
	code := p.Shader.SPIRV
	if slices.ContainsFunc(p.Shader.Module.Bindings, func(b Binding) bool { return b.Kind == "uniform" }) {
		// The engine binds storage buffers; a uniform block read as one
		// reads the same bytes the same way.
		var err error
		if code, err = spirv.UniformsAsStorage(code); err != nil {
			return nil, err
		}
	}
	sum := sha256.Sum256(code)
	k, err := dev.Kernel(engine.KernelSpec{
		Name: filepath.Base(p.Shader.Path) + "@" + hex.EncodeToString(sum[:6]), Code: code, Spec: p.Spec,
	})
	if err != nil {
		return nil, err
	}
	// Each binding sits between guard bytes, guard before and after (a
	// multiple of the offset alignment), filled with a pattern and read
	// back after each run: a write outside the binding is an error. The
	// range bound takes in the guard after where the shader does not read
	// an array's length (which follows the range), so that drivers that
	// drop writes past the range (lavapipe) let them land in the guard.
	reach := int64(0)
	align := max(int64(dev.Info.MinStorageAlignment), 1)
	guard := (guardBytes + align - 1) / align * align
	if !spirv.UsesArrayLength(code) {
		reach = guard
	}
	pattern := make([]byte, guard)
	for i := range pattern {
		pattern[i] = byte(0xA5 ^ i*29)
	}
	sizes := make([]int64, len(p.Inputs))
	data := make([]int64, len(p.Inputs))
	for i, a := range p.Inputs {
		data[i] = max((int64(len(a.Data))+3)/4*4, 4)
		sizes[i] = data[i] + 2*guard
	}
	bufs, err := dev.Buffers(sizes...)
	if err != nil {
		return nil, err
	}
	defer engine.ReleaseAll(bufs)
	timeout := p.opt.Timeout
	if timeout <= 0 {
		timeout = 10 * time.Second
	}
	dev.SetTimeout(timeout)
	defer dev.SetTimeout(0)
	r := &Result{Device: dev.Info.Name, Subgroup: dev.Info.SubgroupSize}
	repeat := max(p.opt.Repeat, 1)
	t0 := time.Now()
	for it := 0; it < repeat; it++ {
		r.Outputs = make([]*Array, len(p.Inputs))
		before := make([][]byte, len(p.Inputs))
		after := make([][]byte, len(p.Inputs))
		tm, err := dev.Run(ctx, func(s *engine.Sequence) {
			binds := make([]engine.Binding, len(bufs))
			for i, a := range p.Inputs {
				bound := data[i] + reach
				if lim := int64(dev.Info.MaxStorageBufferRange); lim > 0 && bound > lim {
					bound = data[i]
				}
				binds[i] = engine.Binding{Buf: bufs[i], Offset: guard, Size: bound}
				s.Upload(bufs[i], 0, pattern)
				s.Upload(bufs[i], guard, a.Data) // zeros too: outputs never show stale memory
				s.Upload(bufs[i], guard+data[i], pattern)
			}
			s.Dispatch(k, p.Groups, p.Push, binds...)
			for i, a := range p.Inputs {
				out := &Array{Elem: a.Elem, Shape: a.Shape, Data: make([]byte, len(a.Data))}
				r.Outputs[i] = out
				before[i], after[i] = make([]byte, guard), make([]byte, guard)
				s.Download(bufs[i], 0, before[i])
				s.Download(bufs[i], guard, out.Data)
				s.Download(bufs[i], guard+data[i], after[i])
			}
		})
		if err != nil {
			return nil, err
		}
		for i := range p.Inputs {
			if err := p.checkGuards(i, pattern, before[i], after[i], data[i]); err != nil {
				return nil, err
			}
		}
		r.Kernel = append(r.Kernel, tm.Kernel)
		r.Timed = tm.GPUTimed
		if p.opt.Progress != nil {
			p.opt.Progress(it+1, repeat)
		}
	}
	r.Wall = time.Since(t0)
	return r, nil
}

// guardBytes is the least guard before and after each binding in a run.
const guardBytes = 256

// checkGuards says which guard bytes of binding i (size bytes between
// them) the run changed, and which elements of its runtime array they
// would be.
func (p *Plan) checkGuards(i int, pattern, before, after []byte, size int64) error {
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
	b := p.Shader.Module.Bindings[i]
	var where []string
	if f, l := changed(before); f >= 0 {
		where = append(where, fmt.Sprintf("bytes %d to %d before its start", len(before)-f, len(before)-l))
	}
	if f, l := changed(after); f >= 0 {
		at := size + int64(f)
		s := fmt.Sprintf("bytes %d to %d from its start, past its %d", at, size+int64(l), len(p.Inputs[i].Data))
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
	return fmt.Errorf("%s: the shader wrote outside the binding: %s (the guard bytes around it changed)", Describe(b), strings.Join(where, "; "))
}
