package spirv

import (
	"encoding/binary"
	"fmt"
)

// UniformsAsStorage rewrites a compute module so that its uniform
// buffers are storage buffers, with the same layout (std140 is a valid
// storage-buffer layout) and the same reads: a host that binds storage
// buffers only runs it unchanged. Before SPIR-V 1.3 a storage buffer is
// a Uniform-class block decorated BufferBlock, so the uniform blocks'
// Block decoration becomes BufferBlock; from 1.3 (where BufferBlock is
// deprecated and, from 1.4, gone) every Uniform-class pointer and
// variable becomes StorageBuffer-class, and any BufferBlock Block. The
// module is returned in little-endian order.
func UniformsAsStorage(code []byte) ([]byte, error) {
	if len(code) < 20 || len(code)%4 != 0 {
		return nil, fmt.Errorf("%w (%d bytes)", ErrNotSPIRV, len(code))
	}
	order := binary.ByteOrder(binary.LittleEndian)
	if binary.LittleEndian.Uint32(code) != Magic {
		if binary.BigEndian.Uint32(code) != Magic {
			return nil, ErrNotSPIRV
		}
		order = binary.BigEndian
	}
	w := make([]uint32, len(code)/4)
	for i := range w {
		w[i] = order.Uint32(code[4*i:])
	}
	modern := w[1]>>16&0xff > 1 || w[1]>>8&0xff >= 3
	// The structs that Uniform-class pointers point at, through arrays.
	elem := map[uint32]uint32{} // array type → element type
	blocks := map[uint32]bool{}
	for i := 5; i < len(w); {
		n, op := int(w[i]>>16), w[i]&0xffff
		if n == 0 || i+n > len(w) {
			return nil, fmt.Errorf("%w: instruction at word %d runs past the end", ErrNotSPIRV, i)
		}
		switch {
		case (op == opTypeArray || op == opTypeRuntimeArray) && n >= 3:
			elem[w[i+1]] = w[i+2]
		case op == opTypePointer && n == 4 && w[i+2] == scUniform:
			t := w[i+3]
			for e, ok := elem[t]; ok; e, ok = elem[t] {
				t = e
			}
			blocks[t] = true
			if modern {
				w[i+2] = scStorageBuffer
			}
		case op == opVariable && n >= 4 && w[i+3] == scUniform && modern:
			w[i+3] = scStorageBuffer
		}
		i += n
	}
	for i := 5; i < len(w); {
		n, op := int(w[i]>>16), w[i]&0xffff
		if op == opDecorate && n == 3 && blocks[w[i+1]] {
			switch {
			case !modern && w[i+2] == decBlock:
				w[i+2] = decBufferBlock
			case modern && w[i+2] == decBufferBlock:
				w[i+2] = decBlock
			}
		}
		i += n
	}
	out := make([]byte, 4*len(w))
	for i, x := range w {
		binary.LittleEndian.PutUint32(out[4*i:], x)
	}
	return out, nil
}

// opArrayLength is OpArrayLength: a runtime array's length, from the
// range bound.
const opArrayLength = 68

// UsesArrayLength reports whether the module reads a runtime array's
// length (.length() in GLSL), which follows the range each binding is
// given; false for bytes that are not SPIR-V.
func UsesArrayLength(code []byte) bool {
	if len(code) < 20 || len(code)%4 != 0 {
		return false
	}
	order := binary.ByteOrder(binary.LittleEndian)
	if binary.LittleEndian.Uint32(code) != Magic {
		order = binary.BigEndian
	}
	for i := 20; i+4 <= len(code); {
		w := order.Uint32(code[i:])
		if w&0xffff == opArrayLength {
			return true
		}
		n := int(w >> 16)
		if n == 0 {
			return false
		}
		i += 4 * n
	}
	return false
}
