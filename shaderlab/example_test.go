package shaderlab_test

import (
	"encoding/binary"
	"fmt"
	"log"
	"math"

	"github.com/vkstat/vkstat/shaderlab"
)

// saxpy is y = a·x + y over n elements.
const saxpy = `#version 450
layout(local_size_x = 64) in;
layout(std430, binding = 0) readonly buffer X { float x[]; };
layout(std430, binding = 1) buffer Y { float y[]; };
layout(push_constant) uniform P { float a; uint n; } p;
void main() {
    uint i = gl_GlobalInvocationID.x;
    if (i < p.n) y[i] = p.a * x[i] + y[i];
}
`

// float32s is v as an Array the shader can bind.
func float32s(v ...float32) *shaderlab.Array {
	a := &shaderlab.Array{Elem: "float32", Shape: []int{len(v)}, Data: make([]byte, 4*len(v))}
	for i, x := range v {
		binary.LittleEndian.PutUint32(a.Data[4*i:], math.Float32bits(x))
	}
	return a
}

// Compile a shader from source in memory, see what it binds, and plan a
// dispatch on arrays in memory: all checked without a device. p.Run(ctx,
// dev) would then run it on a Vulkan device opened with the engine
// package, and shaderlab.Compare measure its outputs.
func Example() {
	sh, err := shaderlab.Compile("saxpy.comp", []byte(saxpy), shaderlab.CompileOptions{})
	if err != nil {
		log.Fatal(err) // a *shaderlab.CompileError lists file:line:column diagnostics
	}
	m := sh.Module
	fmt.Println("local size:", m.LocalSize)
	for _, b := range m.Bindings {
		fmt.Printf("%s: %s, readonly %v\n", shaderlab.Describe(b), b.Block.Members[0].Type, b.ReadOnly)
	}
	for _, mem := range m.Push.Members {
		fmt.Printf("push constant %s: %s at byte %d\n", mem.Name, mem.Type, mem.Offset)
	}

	x, y := float32s(1, 2, 3), float32s(10, 20, 30)
	p, err := shaderlab.NewPlan(sh, shaderlab.Options{
		Bind:   []shaderlab.Bind{{Name: "x", Data: x}, {Name: "y", Data: y}},
		Push:   []shaderlab.Setting{{Name: "a", Value: "2.5"}, {Name: "n", Value: "3"}},
		Global: [3]uint64{3},
	})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("dispatch: %v workgroups of %v, %d bytes moved\n", p.Groups, p.Local, p.BytesMoved())

	_, err = shaderlab.NewPlan(sh, shaderlab.Options{Bind: []shaderlab.Bind{{Name: "x", Data: x}}, Global: [3]uint64{3}})
	fmt.Println(err)
	// Output:
	// local size: [64 1 1]
	// binding 0 (x): float32[], readonly true
	// binding 1 (y): float32[], readonly false
	// push constant a: float32 at byte 0
	// push constant n: uint32 at byte 4
	// dispatch: [1 1 1] workgroups of [64 1 1], 36 bytes moved
	// binding 1 (y) has no data
}
