package glsl

/*
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <shaderc/shaderc.h>
*/
import "C"

import (
	"runtime/cgo"
	"unsafe"
)

// vksInclude is libshaderc's include callback (see vks_resolve in
// shaderc.go): it resolves the #include with the compilation's includer,
// whose cgo.Handle is h, and returns the result in C memory that
// vks_release frees. A failure is a result with an empty name and the
// message as its content, as libshaderc wants.
//
//export vksInclude
func vksInclude(h C.uintptr_t, requested *C.char, typ C.int, requesting *C.char, depth C.size_t) *C.shaderc_include_result {
	in := cgo.Handle(h).Value().(*includer)
	name, content, err := in.resolve(C.GoString(requested), typ == C.shaderc_include_type_relative, C.GoString(requesting), int(depth))
	if err != nil {
		name, content = "", []byte(err.Error())
	}
	r := (*C.shaderc_include_result)(C.calloc(1, C.sizeof_shaderc_include_result))
	r.source_name = cbytes([]byte(name))
	r.source_name_length = C.size_t(len(name))
	r.content = cbytes(content)
	r.content_length = C.size_t(len(content))
	return r
}

// cbytes copies b to C memory, with a NUL after it (so never a NULL
// pointer, even for nothing).
func cbytes(b []byte) *C.char {
	p := C.malloc(C.size_t(len(b) + 1))
	if len(b) > 0 {
		C.memcpy(p, unsafe.Pointer(&b[0]), C.size_t(len(b)))
	}
	*(*byte)(unsafe.Add(p, len(b))) = 0
	return (*C.char)(p)
}
