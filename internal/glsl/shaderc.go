package glsl

/*
#cgo CXXFLAGS: -O2 -std=c++17
// libstdc++ links statically: no process loads the C++ runtime as a
// shared library (vkstat --version 1 ms, the Python library's load 2-4 ms).
#cgo LDFLAGS: -Wl,--start-group -l:libshaderc_combined.a -lglslang -lMachineIndependent -lGenericCodeGen -lOSDependent -lOGLCompiler -lHLSL -lSPIRV -lglslang-default-resource-limits -lSPIRV-Tools-opt -lSPIRV-Tools -Wl,--end-group -static-libstdc++ -static-libgcc -lm -lpthread
#include <stdlib.h>
#include <string.h>
#include <shaderc/shaderc.h>

// vks_optimize (optimize.cpp) runs SPIRV-Tools' performance passes.
int vks_optimize(const uint32_t *in, size_t words, int env, uint32_t **out, size_t *out_words);

// The libshaderc entry points.
typedef struct {
	shaderc_compiler_t (*compiler_initialize)(void);
	shaderc_compile_options_t (*options_initialize)(void);
	void (*options_release)(shaderc_compile_options_t);
	void (*add_macro)(shaderc_compile_options_t, const char *, size_t, const char *, size_t);
	void (*set_optimization)(shaderc_compile_options_t, shaderc_optimization_level);
	void (*set_target_env)(shaderc_compile_options_t, shaderc_target_env, uint32_t);
	void (*set_include_callbacks)(shaderc_compile_options_t, shaderc_include_resolve_fn, shaderc_include_result_release_fn, void *);
	void (*set_debug_info)(shaderc_compile_options_t);
	shaderc_compilation_result_t (*compile)(const shaderc_compiler_t, const char *, size_t, shaderc_shader_kind,
		const char *, const char *, const shaderc_compile_options_t);
	shaderc_compilation_result_t (*preprocess)(const shaderc_compiler_t, const char *, size_t, shaderc_shader_kind,
		const char *, const char *, const shaderc_compile_options_t);
	void (*result_release)(shaderc_compilation_result_t);
	size_t (*result_length)(const shaderc_compilation_result_t);
	const char *(*result_bytes)(const shaderc_compilation_result_t);
	const char *(*result_error)(const shaderc_compilation_result_t);
	shaderc_compilation_status (*result_status)(const shaderc_compilation_result_t);
	size_t (*result_warnings)(const shaderc_compilation_result_t);
} vks_shaderc;

static vks_shaderc sc;

// vks_shaderc_load fills the table. Debian's libshaderc.so.1 leaves
// glslang's and SPIRV-Tools' symbols to the executable (glslc carries
// them), so vkstat links shaderc and both statically instead.
static const char *vks_shaderc_load(void) {
	sc.compiler_initialize = shaderc_compiler_initialize;
	sc.options_initialize = shaderc_compile_options_initialize;
	sc.options_release = shaderc_compile_options_release;
	sc.add_macro = shaderc_compile_options_add_macro_definition;
	sc.set_optimization = shaderc_compile_options_set_optimization_level;
	sc.set_target_env = shaderc_compile_options_set_target_env;
	sc.set_include_callbacks = shaderc_compile_options_set_include_callbacks;
	sc.set_debug_info = shaderc_compile_options_set_generate_debug_info;
	sc.compile = shaderc_compile_into_spv;
	sc.preprocess = shaderc_compile_into_preprocessed_text;
	sc.result_release = shaderc_result_release;
	sc.result_length = shaderc_result_get_length;
	sc.result_bytes = shaderc_result_get_bytes;
	sc.result_error = shaderc_result_get_error_message;
	sc.result_status = shaderc_result_get_compilation_status;
	sc.result_warnings = shaderc_result_get_num_warnings;
	return NULL;
}

// vksInclude (callback.go) resolves an #include in Go.
extern shaderc_include_result *vksInclude(uintptr_t, char *, int, char *, size_t);

static shaderc_include_result *vks_resolve(void *user, const char *requested, int type, const char *requesting, size_t depth) {
	return vksInclude(*(uintptr_t *)user, (char *)requested, type, (char *)requesting, depth);
}

static void vks_release(void *user, shaderc_include_result *r) {
	(void)user;
	free((void *)r->source_name);
	free((void *)r->content);
	free(r);
}

typedef struct {
	char *spv;
	size_t spv_len;
	char *log;
	int status;
} vks_compiled;

// vks_compiler is the process's one compiler, made on first use and kept:
// glslang builds its tables of built-ins when the first compiler is made
// and drops them when the last is released, which made every compilation
// pay for them (70 ms). Compiling with it takes it as const, which shaderc
// allows from several threads at once.
static shaderc_compiler_t vks_compiler;

static int vks_compiler_init(void) {
	vks_compiler = sc.compiler_initialize();
	return vks_compiler != NULL;
}

static void vks_compile(const char *src, size_t len, const char *file, uintptr_t includer,
		char **macros, int nmacros, uint32_t env, int optimize, int preprocess_only, vks_compiled *out) {
	memset(out, 0, sizeof *out);
	shaderc_compiler_t c = vks_compiler;
	shaderc_compile_options_t o = sc.options_initialize();
	if (!o) {
		out->status = -1;
		return;
	}
	sc.set_include_callbacks(o, vks_resolve, vks_release, &includer);
	for (int i = 0; i < nmacros; i++) {
		const char *eq = strchr(macros[i], '=');
		if (eq)
			sc.add_macro(o, macros[i], eq - macros[i], eq + 1, strlen(eq + 1));
		else
			sc.add_macro(o, macros[i], strlen(macros[i]), "1", 1);
	}
	sc.set_target_env(o, shaderc_target_env_vulkan, env);
	// Optimised code comes from vks_optimize, after: libshaderc's own
	// optimisation strips the names.
	(void)optimize;
	sc.set_optimization(o, shaderc_optimization_level_zero);
	shaderc_compilation_result_t r = (preprocess_only ? sc.preprocess : sc.compile)(c, src, len, shaderc_glsl_compute_shader, file, "main", o);
	out->status = sc.result_status(r);
	const char *msg = sc.result_error(r);
	if (msg && msg[0])
		out->log = strdup(msg);
	if (out->status == shaderc_compilation_status_success) {
		out->spv_len = sc.result_length(r);
		out->spv = malloc(out->spv_len);
		memcpy(out->spv, sc.result_bytes(r), out->spv_len);
	}
	sc.result_release(r);
	sc.options_release(o);
}
*/
import "C"

import (
	"fmt"
	"runtime/cgo"
	"sync"
	"unsafe"
)

var (
	loadOnce sync.Once
	loadErr  error
)

func load() error {
	loadOnce.Do(func() {
		if missing := C.vks_shaderc_load(); missing != nil {
			loadErr = fmt.Errorf("%w: %s not found (Debian/Ubuntu: apt-get install libshaderc1; or compile with glslc and pass the .spv)", ErrNoCompiler, C.GoString(missing))
			return
		}
		if C.vks_compiler_init() == 0 {
			loadErr = fmt.Errorf("%w: libshaderc could not start a compiler", ErrNoCompiler)
		}
	})
	return loadErr
}

func cstrings(ss []string) (**C.char, func()) {
	if len(ss) == 0 {
		return nil, func() {}
	}
	arr := (**C.char)(C.malloc(C.size_t(len(ss)) * C.size_t(unsafe.Sizeof((*C.char)(nil)))))
	view := unsafe.Slice(arr, len(ss))
	for i, s := range ss {
		view[i] = C.CString(s)
	}
	return arr, func() {
		for _, p := range view {
			C.free(unsafe.Pointer(p))
		}
		C.free(unsafe.Pointer(arr))
	}
}

// compile runs libshaderc, resolving #includes with inc; log is its
// message text (errors and warnings). With preprocessOnly, out is the
// preprocessed text instead of SPIR-V.
func compile(src []byte, file string, inc *includer, macros []string, env uint32, optimize, preprocessOnly bool) (out []byte, log string, ok bool, err error) {
	if err := load(); err != nil {
		return nil, "", false, err
	}
	csrc := C.CBytes(src)
	defer C.free(csrc)
	cfile := C.CString(file)
	defer C.free(unsafe.Pointer(cfile))
	h := cgo.NewHandle(inc)
	defer h.Delete()
	cmacros, freeMacros := cstrings(macros)
	defer freeMacros()
	opt := C.int(0)
	if optimize {
		opt = 1
	}
	pre := C.int(0)
	if preprocessOnly {
		pre = 1
	}
	var res C.vks_compiled
	C.vks_compile((*C.char)(csrc), C.size_t(len(src)), cfile, C.uintptr_t(h), cmacros, C.int(len(macros)), C.uint32_t(env), opt, pre, &res)
	if res.log != nil {
		log = C.GoString(res.log)
		C.free(unsafe.Pointer(res.log))
	}
	if res.status < 0 {
		return nil, log, false, fmt.Errorf("libshaderc could not start a compiler")
	}
	if res.spv != nil {
		out = C.GoBytes(unsafe.Pointer(res.spv), C.int(res.spv_len))
		C.free(unsafe.Pointer(res.spv))
	}
	ok = res.status == C.shaderc_compilation_status_success
	if ok && optimize && !preprocessOnly {
		if out, err = optimizeSPIRV(out, env); err != nil {
			return nil, log, false, err
		}
	}
	return out, log, ok, nil
}

// optimizeSPIRV runs the performance passes over code, as spirv-opt -O
// does after glslc -O0 in make shaders: the code glslc -O makes, with the
// names of blocks and members kept (the engine writes push constants by
// name).
func optimizeSPIRV(code []byte, env uint32) ([]byte, error) {
	in := C.CBytes(code)
	defer C.free(in)
	var out *C.uint32_t
	var n C.size_t
	if C.vks_optimize((*C.uint32_t)(in), C.size_t(len(code)/4), C.int(env>>12&0x3ff), &out, &n) == 0 {
		return nil, fmt.Errorf("the SPIR-V optimiser failed on the compiled shader")
	}
	defer C.free(unsafe.Pointer(out))
	return C.GoBytes(unsafe.Pointer(out), C.int(4*n)), nil
}
