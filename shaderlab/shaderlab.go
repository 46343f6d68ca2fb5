// Package shaderlab is vkstat's shader development loop as a library:
// compile a GLSL compute shader (or take SPIR-V) and reflect what it binds
// and needs; plan a dispatch, with the data, push constants and
// specialization constants checked against that reflection before any
// device work; run it on a Vulkan device; and compare its outputs with
// expected arrays, another shader's or another device's. Watch calls back
// whenever the shader's files change.
//
// Shaders run on Vulkan devices only: open one with the engine package
// (lavapipe runs them on the CPU). A run, in short:
//
//	sh, err := shaderlab.Load("saxpy.comp", shaderlab.CompileOptions{})
//	...
//	p, err := shaderlab.NewPlan(sh, shaderlab.Options{
//		Bind:   []shaderlab.Bind{{Name: "x", Data: x}, {Name: "y", Data: y}},
//		Push:   []shaderlab.Setting{{Name: "a", Value: "2.5"}, {Name: "n", Value: "1000"}},
//		Global: [3]uint64{1000},
//	})
//	...
//	inst, err := engine.NewInstance(engine.Options{})
//	...
//	dev, err := inst.Open(inst.Devices()[0].Index)
//	...
//	r, err := p.Run(ctx, dev)
//	...
//	d, err := shaderlab.Compare(r.Outputs[1], want) // binding 1, y
//
// vkstat shader info, run, check and watch are this package behind flags.
package shaderlab

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/vkstat/vkstat/formats"
	"github.com/vkstat/vkstat/internal/glsl"
	"github.com/vkstat/vkstat/internal/spirv"
)

// The reflection and compiler types, named here for users of the package.
type (
	// Module is what a SPIR-V module binds and needs.
	Module = spirv.Module
	// Binding is one descriptor binding.
	Binding = spirv.Binding
	// Block is a buffer or push-constant block.
	Block = spirv.Block
	// Member is one member of a block.
	Member = spirv.Member
	// SpecConstant is one specialization constant.
	SpecConstant = spirv.SpecConstant
	// CompileOptions shape a GLSL compilation: include folders, macros,
	// target environment (vulkan1.1 by default), optimisation.
	CompileOptions = glsl.Options
	// Diagnostic is one compiler message, with file, line and column.
	Diagnostic = glsl.Diagnostic
	// CompileError is a shader that does not compile, with its diagnostics.
	CompileError = glsl.CompileError
)

// Shader is a compiled shader and its reflection.
type Shader struct {
	Path     string       // names the shader in messages
	SPIRV    []byte       // the module
	Module   *Module      // what it binds and needs
	Warnings []Diagnostic // the compiler's warnings (GLSL only)
}

// MaxSourceBytes is the most Load reads of a shader file: GLSL sources
// and SPIR-V modules are kilobytes.
const MaxSourceBytes = 16 << 20

// Load reads a shader file, GLSL or SPIR-V (told by its magic number, not
// its name), and compiles and reflects it as Compile does.
func Load(path string, opt CompileOptions) (*Shader, error) {
	src, err := formats.ReadFileLimit(path, MaxSourceBytes, "a shader (GLSL or SPIR-V)")
	if err != nil {
		return nil, err
	}
	return Compile(path, src, opt)
}

// isSPIRV says whether src starts with the SPIR-V magic number, in either
// byte order.
func isSPIRV(src []byte) bool {
	return len(src) >= 4 && (binary.LittleEndian.Uint32(src) == spirv.Magic || binary.BigEndian.Uint32(src) == spirv.Magic)
}

// Compile compiles src, GLSL source or a SPIR-V module (taken as it is),
// and reflects it. path names it in messages; relative #includes are
// searched for next to it, then in opt.Includes, then in vkstat's own
// shaders/include (so #include "include/common.glsl" works anywhere).
// A path ending in .spv must hold SPIR-V.
func Compile(path string, src []byte, opt CompileOptions) (*Shader, error) {
	sh := &Shader{Path: path, SPIRV: src}
	spv := isSPIRV(src)
	if !spv && strings.EqualFold(filepath.Ext(path), ".spv") {
		return nil, fmt.Errorf("%s: not a SPIR-V module: it starts with % x, not the magic number %#08x", path, src[:min(len(src), 4)], spirv.Magic)
	}
	if i := bytes.IndexByte(src, 0); !spv && i >= 0 {
		return nil, fmt.Errorf("%s: neither GLSL (it holds binary data: a NUL byte at byte %d) nor SPIR-V (no magic number %#08x)", path, i, spirv.Magic)
	}
	if !spv {
		r, err := glsl.Compile(src, path, opt)
		if err != nil {
			return nil, err
		}
		sh.SPIRV, sh.Warnings = r.SPIRV, r.Warnings
	}
	mod, err := spirv.Reflect(sh.SPIRV)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	sh.Module = mod
	return sh, nil
}
