// Package vkpush packs push-constant blocks with std430 layout rules, the
// way GLSL's `layout(push_constant) uniform` lays them out.
package vkpush

import (
	"encoding/binary"
	"math"
)

// Block accumulates push constants.
type Block struct{ b []byte }

func (p *Block) align(n int) {
	for len(p.b)%n != 0 {
		p.b = append(p.b, 0)
	}
}

// U32 appends a uint.
func (p *Block) U32(v uint32) *Block {
	p.align(4)
	p.b = binary.LittleEndian.AppendUint32(p.b, v)
	return p
}

// F32 appends a float.
func (p *Block) F32(v float32) *Block {
	p.align(4)
	p.b = binary.LittleEndian.AppendUint32(p.b, math.Float32bits(v))
	return p
}

// F64 appends a double (8-byte aligned).
func (p *Block) F64(v float64) *Block {
	p.align(8)
	p.b = binary.LittleEndian.AppendUint64(p.b, math.Float64bits(v))
	return p
}

// Float appends v as a double when double is true, else as a float.
func (p *Block) Float(v float64, double bool) *Block {
	if double {
		return p.F64(v)
	}
	return p.F32(float32(v))
}

// Bytes returns the packed block.
func (p *Block) Bytes() []byte { return p.b }
