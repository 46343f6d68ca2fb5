// Command libvkstat is vkstat's C ABI, built as a shared library for the
// Python package (python/vkstat):
//
//	go build -buildmode=c-shared -o python/vkstat/libvkstat.so ./cmd/libvkstat
//
// Each function converts C types and calls package capi, which holds the
// logic; see capi's documentation for sessions, requests, results and
// tokens. Every function returns a capi status code (0 on success) and, on
// failure, a message in *err. Strings the library returns are malloc'd:
// free them with vks_free. A Go panic becomes status 4 and a message, never
// a crash of the caller.
package main

/*
#include <stdint.h>
#include <stdlib.h>
*/
import "C"

import (
	"fmt"
	"runtime/debug"
	"unsafe"

	"github.com/vkstat/vkstat/capi"
)

func main() {}

// setErr stores err's message in *out, when out is given.
func setErr(out **C.char, err error) {
	if out != nil && err != nil {
		*out = C.CString(err.Error())
	}
}

// guard turns a panic into status 4 and a message.
func guard(status *C.int, errOut **C.char) {
	if r := recover(); r != nil {
		*status = capi.StatusError
		setErr(errOut, fmt.Errorf("vkstat: internal error: %v\n%s", r, debug.Stack()))
	}
}

//export vks_version
func vks_version() *C.char { return C.CString(capi.Version) }

//export vks_free
func vks_free(p *C.char) { C.free(unsafe.Pointer(p)) }

//export vks_devices
func vks_devices(opts *C.char, out **C.char, errOut **C.char) (status C.int) {
	defer guard(&status, errOut)
	b, st, err := capi.DevicesJSON(C.GoString(opts))
	if err != nil {
		setErr(errOut, err)
		return C.int(st)
	}
	*out = C.CString(string(b))
	return 0
}

//export vks_open
func vks_open(spec, opts *C.char, handle *C.int64_t, info **C.char, errOut **C.char) (status C.int) {
	defer guard(&status, errOut)
	h, b, st, err := capi.OpenHandle(C.GoString(spec), C.GoString(opts))
	if err != nil {
		setErr(errOut, err)
		return C.int(st)
	}
	*handle = C.int64_t(h)
	*info = C.CString(string(b))
	return 0
}

//export vks_close
func vks_close(h C.int64_t, errOut **C.char) (status C.int) {
	defer guard(&status, errOut)
	st, err := capi.CloseHandle(int64(h))
	setErr(errOut, err)
	return C.int(st)
}

//export vks_token_new
func vks_token_new() C.int64_t { return C.int64_t(capi.NewToken()) }

//export vks_token_cancel
func vks_token_cancel(t C.int64_t) { capi.CancelToken(int64(t)) }

//export vks_token_end
func vks_token_end(t C.int64_t) { capi.EndToken(int64(t)) }

//export vks_call
func vks_call(h, token C.int64_t, op, req *C.char, ptrs *unsafe.Pointer, nptrs C.int,
	res *C.int64_t, desc **C.char, errOut **C.char) (status C.int) {
	defer guard(&status, errOut)
	var ps []unsafe.Pointer
	if nptrs > 0 {
		ps = unsafe.Slice(ptrs, int(nptrs))
	}
	id, b, st, err := capi.CallHandle(int64(h), int64(token), C.GoString(op), []byte(C.GoString(req)), ps)
	if err != nil {
		setErr(errOut, err)
		return C.int(st)
	}
	*res = C.int64_t(id)
	*desc = C.CString(string(b))
	return 0
}

//export vks_result_copy
func vks_result_copy(res C.int64_t, i C.int, dst unsafe.Pointer, nbytes C.int64_t, errOut **C.char) (status C.int) {
	defer guard(&status, errOut)
	var d []byte
	if nbytes > 0 {
		d = unsafe.Slice((*byte)(dst), int(nbytes))
	}
	if err := capi.CopyResult(int64(res), int(i), d); err != nil {
		setErr(errOut, err)
		return capi.StatusError
	}
	return 0
}

//export vks_result_free
func vks_result_free(res C.int64_t) { capi.FreeResult(int64(res)) }

//export vks_live
func vks_live(sessions, results, tokens *C.int64_t) {
	s, r, t := capi.Live()
	*sessions, *results, *tokens = C.int64_t(s), C.int64_t(r), C.int64_t(t)
}
