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

// vks_alloc gives the memory of one output of a call: nbytes bytes for the
// output named name (name_len bytes, not NUL-terminated), of dtype (NumPy's
// name, dtype_len bytes) and shape (ndim sizes), stored in *out; NULL
// refuses it. A callback that stores nothing (a Python callback that
// raised, Ctrl-C landing in it) interrupts the call: status 3. ctx is the
// caller's, passed to vks_call.
typedef void (*vks_alloc)(uintptr_t ctx, const char *name, int64_t name_len, const char *dtype, int64_t dtype_len,
                          int ndim, const int64_t *shape, int64_t nbytes, void **out);

static char vks_unanswered;

static void *vks_call_alloc(vks_alloc f, uintptr_t ctx, const char *name, int64_t name_len, const char *dtype,
                            int64_t dtype_len, int ndim, const int64_t *shape, int64_t nbytes, int *interrupted) {
	void *p = &vks_unanswered;
	f(ctx, name, name_len, dtype, dtype_len, ndim, shape, nbytes, &p);
	if (p == &vks_unanswered) {
		*interrupted = 1;
		return NULL;
	}
	return p;
}
*/
import "C"

import (
	"fmt"
	"runtime/debug"
	"strings"
	"unsafe"

	"github.com/vkstat/vkstat/capi"
)

func main() {}

// maxMessage bounds the messages returned: an error quoting what the
// caller gave (a 50 MB statistic name) keeps its start and end.
const maxMessage = 4096

// setErr stores err's message in *out, when out is given.
func setErr(out **C.char, err error) {
	if out != nil && err != nil {
		*out = C.CString(shorten(err.Error()))
	}
}

// shorten keeps the first and last parts of a message longer than
// maxMessage, saying how much it left out.
func shorten(msg string) string {
	if len(msg) <= maxMessage {
		return msg
	}
	head, tail := msg[:maxMessage/2], msg[len(msg)-maxMessage/4:]
	return strings.ToValidUTF8(fmt.Sprintf("%s … (%d bytes left out) … %s", head, len(msg)-len(head)-len(tail), tail), "")
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

//export vks_defaults
func vks_defaults(out **C.char, errOut **C.char) (status C.int) {
	defer guard(&status, errOut)
	return jsonOut(out, errOut, capi.DefaultsJSON)
}

//export vks_params
func vks_params(out **C.char, errOut **C.char) (status C.int) {
	defer guard(&status, errOut)
	return jsonOut(out, errOut, capi.ParamsJSON)
}

// jsonOut sets *out to the JSON doc makes (vks_defaults, vks_params), or
// *errOut to its error.
func jsonOut(out, errOut **C.char, doc func() ([]byte, error)) C.int {
	b, err := doc()
	if err != nil {
		setErr(errOut, err)
		return capi.StatusError
	}
	*out = C.CString(string(b))
	return 0
}

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
func vks_open(req *C.char, handle *C.int64_t, info **C.char, errOut **C.char) (status C.int) {
	defer guard(&status, errOut)
	h, b, st, err := capi.OpenHandle(C.GoString(req))
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
func vks_token_new() C.int64_t {
	return C.int64_t(capi.NewToken())
}

//export vks_token_cancel
func vks_token_cancel(t C.int64_t) {
	capi.CancelToken(int64(t))
}

//export vks_token_end
func vks_token_end(t C.int64_t) {
	capi.EndToken(int64(t))
}

//export vks_call
func vks_call(h, token C.int64_t, op, req *C.char, ptrs *unsafe.Pointer, nptrs C.int, alloc C.vks_alloc, allocCtx C.uintptr_t,
	desc **C.char, errOut **C.char) (status C.int) {
	defer guard(&status, errOut)
	switch {
	case alloc == nil:
		setErr(errOut, fmt.Errorf("vks_call: the allocation callback is NULL; give a function that returns each output's memory"))
		return capi.StatusValue
	case desc == nil:
		setErr(errOut, fmt.Errorf("vks_call: desc is NULL; give where to store the result's description"))
		return capi.StatusValue
	}
	var ps []unsafe.Pointer
	if nptrs > 0 {
		ps = unsafe.Slice(ptrs, int(nptrs))
	}
	var interrupted C.int
	give := func(name, dtype string, shape []int, nbytes int64) unsafe.Pointer {
		sh := make([]C.int64_t, len(shape)+1)
		for i, n := range shape {
			sh[i] = C.int64_t(n)
		}
		return C.vks_call_alloc(alloc, allocCtx, (*C.char)(unsafe.Pointer(unsafe.StringData(name))), C.int64_t(len(name)),
			(*C.char)(unsafe.Pointer(unsafe.StringData(dtype))), C.int64_t(len(dtype)), C.int(len(shape)), &sh[0], C.int64_t(nbytes),
			&interrupted)
	}
	b, st, err := capi.CallHandle(int64(h), int64(token), C.GoString(op), []byte(C.GoString(req)), ps, give)
	if err != nil && interrupted != 0 {
		setErr(errOut, fmt.Errorf("interrupted: the output callback raised"))
		return capi.StatusCancelled
	}
	if err != nil {
		setErr(errOut, err)
		return C.int(st)
	}
	*desc = C.CString(string(b))
	return 0
}

// vks_run repeats the prepared call id (see capi.CallPrepared): its
// arrays' pointers (nptrs), its outputs' memory (nouts, in the order the
// prepared call asked for them) and, in *wall_ms, the library's wall time.
//
//export vks_run
func vks_run(h, token, id C.int64_t, ptrs *unsafe.Pointer, nptrs C.int, outs *unsafe.Pointer, nouts C.int,
	wallMs *C.double, errOut **C.char) (status C.int) {
	defer guard(&status, errOut)
	var ps, given []unsafe.Pointer
	if nptrs > 0 {
		ps = unsafe.Slice(ptrs, int(nptrs))
	}
	if nouts > 0 {
		given = unsafe.Slice(outs, int(nouts))
	}
	ms, st, err := capi.CallPrepared(int64(h), int64(token), int64(id), ps, given)
	if err != nil {
		setErr(errOut, err)
		return C.int(st)
	}
	if wallMs != nil {
		*wallMs = C.double(ms)
	}
	return 0
}

//export vks_forget
func vks_forget(h, id C.int64_t) {
	capi.Forget(int64(h), int64(id))
}

//export vks_last_timing
func vks_last_timing(h C.int64_t, out **C.char, errOut **C.char) (status C.int) {
	defer guard(&status, errOut)
	b, st, err := capi.LastTimingJSON(int64(h))
	if err != nil {
		setErr(errOut, err)
		return C.int(st)
	}
	*out = C.CString(string(b))
	return 0
}

//export vks_json_codings
func vks_json_codings() C.int64_t { return C.int64_t(capi.JSONCodings()) }

//export vks_live
func vks_live(sessions, tokens *C.int64_t) {
	s, t := capi.Live()
	*sessions, *tokens = C.int64_t(s), C.int64_t(t)
}
