// Package engine is vkstat's Vulkan runtime: it loads the Vulkan loader,
// enumerates and opens devices, allocates buffers, builds compute pipelines
// and records and submits command sequences. It knows nothing about
// statistics; the pipelines/ packages build on it. FieldError is the
// option error the engine's options (DeviceOptionsWith) and every
// pipeline's Options.Check return, naming the parameter at fault for the
// front ends to word.
//
// The way in is Open (one device, or the CPU path) or OpenAll (several):
// each pipeline's Run(ctx, dev, input, Options) takes the Session's
// Device, nil meaning the CPU path, and returns its Result with the call's
// Timing; a Progress in the context (WithProgress) hears how far it is.
// A kernel is built from its name and constants (KernelSpec without
// Code): the device takes the SPIR-V from its shader source
// (DeviceOptions.Shaders: the binary's, or a folder being edited), and
// Device.Variant says which variant of it a data type takes there (_f32,
// _f64, _f16, _bf16, summing in float64, or their acc32 forms, summing in
// float where the device has no shaderFloat64).
//
// A call costs no more on its second run than the work: buffers come from a
// cache of device and staging memory (memory.go: freed blocks are kept,
// within the budget, for the next buffers of their size), command buffers,
// descriptor pools and query pools are the device's and reused, and
// pipelines are built once. Host arrays cross by the cheapest way the
// device offers (Sequence.Upload, Download): a plain copy where its memory
// is host-visible, the device's own copy from or into the caller's pages
// where it imports host memory (import.go), else a ring of staging chunks
// (stream.go). Every call is measured: Begin/End give its Timing the phases
// that split its wall time and the device's counts over it (allocations,
// pipelines, submits, host bytes copied; timing.go), which tests hold.
package engine

/*
#cgo LDFLAGS: -ldl
#include <stdlib.h>
#include "native.h"
*/
import "C"

import (
	"errors"
	"fmt"
	"os"
	"runtime"
	"strings"
	"sync"
	"time"
	"unsafe"

	vk "github.com/vulkan-go/vulkan"
)

// ErrNoLoader reports that the Vulkan loader library could not be loaded.
var ErrNoLoader = errors.New("vulkan loader not found")

// ErrNoDriver reports that the Vulkan loader is present but could not load
// any driver (ICD): vkCreateInstance failed with VK_ERROR_INCOMPATIBLE_DRIVER.
var ErrNoDriver = errors.New("no usable Vulkan driver")

// ErrNoDevice reports that the Vulkan instance works but lists no physical
// device, or none of the kind asked for.
var ErrNoDevice = errors.New("no Vulkan device")

// ErrNoValidation reports that validation was asked for but the validation
// layer (or the loader's VK_EXT_debug_utils) is not installed.
var ErrNoValidation = errors.New("the Vulkan validation layer is not available")

// ErrValidation wraps messages from the Vulkan validation layer.
var ErrValidation = errors.New("vulkan validation")

// Options configure an Instance.
type Options struct {
	// Validate enables VK_LAYER_KHRONOS_validation with synchronization
	// validation; every message it reports becomes an error.
	Validate bool
	// LibPath is the loader to dlopen. Empty means $VKSTAT_VULKAN_LIB, then
	// libvulkan.so.1, then libvulkan.so.
	LibPath string
}

// ValidateFromEnv reports whether VKSTAT_VALIDATE asks for validation.
func ValidateFromEnv() bool {
	v := os.Getenv("VKSTAT_VALIDATE")
	return v != "" && v != "0" && v != "false"
}

// Instance is a VkInstance and the physical devices it sees.
type Instance struct {
	handle    vk.Instance
	gipa      unsafe.Pointer
	validate  bool
	api       uint32 // the version the instance was created for (instanceAPI)
	messenger C.VkDebugUtilsMessengerEXT
	devices   []vk.PhysicalDevice
	infos     []DeviceInfo
	mu        sync.Mutex
	open      int
	startup   Startup // Loader, Instance and Devices
}

var loadOnce struct {
	sync.Mutex
	gipa unsafe.Pointer
	path string
}

func loadLoader(path string) (unsafe.Pointer, error) {
	loadOnce.Lock()
	defer loadOnce.Unlock()
	candidates := []string{path}
	if path == "" {
		if env := os.Getenv("VKSTAT_VULKAN_LIB"); env != "" {
			candidates = []string{env}
		} else {
			candidates = defaultLoaders()
		}
	}
	if loadOnce.gipa != nil {
		if candidates[0] == loadOnce.path || (path == "" && os.Getenv("VKSTAT_VULKAN_LIB") == "") {
			return loadOnce.gipa, nil
		}
	}
	var msgs []string
	for _, c := range candidates {
		cs := C.CString(c)
		var buf [512]C.char
		p := C.vks_load(cs, &buf[0], C.int(len(buf)))
		C.free(unsafe.Pointer(cs))
		if p != nil {
			vk.SetGetInstanceProcAddr(p)
			if err := vk.Init(); err != nil {
				return nil, fmt.Errorf("%w: %s: %v", ErrNoLoader, c, err)
			}
			loadOnce.gipa, loadOnce.path = p, c
			return p, nil
		}
		msgs = append(msgs, C.GoString(&buf[0]))
	}
	return nil, fmt.Errorf("%w (%s); install the Vulkan loader (Debian/Ubuntu: apt-get install libvulkan1 mesa-vulkan-drivers) or set VKSTAT_VULKAN_LIB to its path",
		ErrNoLoader, strings.Join(msgs, "; "))
}

// defaultLoaders are the library names tried in order.
func defaultLoaders() []string {
	if runtime.GOOS == "darwin" {
		return []string{"libvulkan.1.dylib", "libvulkan.dylib", "libMoltenVK.dylib"}
	}
	return []string{"libvulkan.so.1", "libvulkan.so"}
}

// enumerate is what vks_enumerate lists, copied into Go memory.
func enumerate[T any](gipa unsafe.Pointer, inst vk.Instance, pd vk.PhysicalDevice, kind C.int) []T {
	var n C.uint32_t
	p := C.vks_enumerate(gipa, C.VkInstance(unsafe.Pointer(inst)), C.VkPhysicalDevice(unsafe.Pointer(pd)), kind, &n)
	if p == nil {
		return nil
	}
	defer C.free(p)
	return append([]T(nil), unsafe.Slice((*T)(p), int(n))...)
}

// extensionNames are the names in an enumeration of extensions.
func extensionNames(props []C.VkExtensionProperties) map[string]bool {
	out := make(map[string]bool, len(props))
	for i := range props {
		out[C.GoString(&props[i].extensionName[0])] = true
	}
	return out
}

func layerPresent(gipa unsafe.Pointer, name string) bool {
	props := enumerate[C.VkLayerProperties](gipa, nil, nil, C.VKS_INSTANCE_LAYERS)
	for i := range props {
		if C.GoString(&props[i].layerName[0]) == name {
			return true
		}
	}
	return false
}

func instanceExtensions(gipa unsafe.Pointer) map[string]bool {
	return extensionNames(enumerate[C.VkExtensionProperties](gipa, nil, nil, C.VKS_INSTANCE_EXTENSIONS))
}

// instanceAPI is the Vulkan version the instance is created for: the
// highest the loader offers (vkEnumerateInstanceVersion), at least 1.1.
// Each device then runs at the lower of it and its own version, so that
// shaders built for Vulkan 1.2 or 1.3 (SPIR-V 1.5, 1.6) run, and pass the
// validation layer, on devices that support those versions. vkstat itself
// uses 1.1's API only.
func instanceAPI(gipa unsafe.Pointer) uint32 {
	v := uint32(C.vks_instance_version(gipa))
	v &^= 0xfff // the patch number is not the application's to claim
	return max(v, vk.MakeVersion(1, 1, 0))
}

// NewInstance loads the Vulkan loader and creates an instance. It fails with
// an error wrapping ErrNoLoader when no loader is installed.
func NewInstance(opt Options) (*Instance, error) {
	t0 := time.Now()
	gipa, err := loadLoader(opt.LibPath)
	if err != nil {
		return nil, err
	}
	in := &Instance{gipa: gipa, validate: opt.Validate, api: instanceAPI(gipa)}
	in.startup.Loader = time.Since(t0)
	t0 = time.Now()
	if opt.Validate {
		const layer = "VK_LAYER_KHRONOS_validation"
		if !layerPresent(gipa, layer) {
			return nil, fmt.Errorf("%w: %s is not installed (Debian/Ubuntu: apt-get install vulkan-validationlayers)", ErrNoValidation, layer)
		}
		if !instanceExtensions(gipa)["VK_EXT_debug_utils"] {
			return nil, fmt.Errorf("%w: the Vulkan loader lacks VK_EXT_debug_utils", ErrNoValidation)
		}
	}
	var ch C.VkInstance
	if r := vk.Result(C.vks_create_instance(gipa, C.uint32_t(in.api), boolInt(opt.Validate), &ch)); r != vk.Success {
		err := check(r, "vkCreateInstance")
		switch r {
		case vk.ErrorIncompatibleDriver:
			return nil, fmt.Errorf("%w: %w%s", err, ErrNoDriver, driverFilesNote())
		case vk.ErrorOutOfHostMemory, vk.ErrorInitializationFailed:
			// What the loader says of a driver manifest (.json) it cannot
			// parse, before any driver is asked.
			return nil, fmt.Errorf("%w: %w (the Vulkan loader says this too when a driver manifest .json is malformed)%s", err, ErrNoDriver, driverFilesNote())
		}
		return nil, err
	}
	h := vk.Instance(unsafe.Pointer(ch))
	in.handle = h
	if err := vk.InitInstance(h); err != nil {
		vk.DestroyInstance(h, nil)
		return nil, fmt.Errorf("loading instance functions: %w", err)
	}
	if opt.Validate {
		var m C.VkDebugUtilsMessengerEXT
		if r := C.vks_create_messenger(gipa, C.VkInstance(unsafe.Pointer(h)), &m); r != 0 {
			vk.DestroyInstance(h, nil)
			return nil, fmt.Errorf("vkCreateDebugUtilsMessengerEXT: %s", resultName(vk.Result(r)))
		}
		in.messenger = m
	}
	in.startup.Instance = time.Since(t0)
	t0 = time.Now()
	if err := in.enumerate(); err != nil {
		in.Close()
		return nil, err
	}
	in.startup.Devices = time.Since(t0)
	return in, in.takeValidation()
}

func (in *Instance) enumerate() error {
	var n uint32
	switch r := vk.EnumeratePhysicalDevices(in.handle, &n, nil); r {
	case vk.Success:
	case vk.ErrorInitializationFailed:
		// What the loader says when no driver it loaded lists a device
		// (VK_LOADER_DRIVERS_DISABLE leaving only drivers without
		// hardware, say).
		return fmt.Errorf("%w: the Vulkan drivers list none (vkEnumeratePhysicalDevices: %s)", ErrNoDevice, resultName(r))
	default:
		return check(r, "vkEnumeratePhysicalDevices")
	}
	devs := make([]vk.PhysicalDevice, n)
	if n > 0 {
		if err := check(vk.EnumeratePhysicalDevices(in.handle, &n, devs), "vkEnumeratePhysicalDevices"); err != nil {
			return err
		}
	}
	in.devices = devs[:n]
	for i, pd := range in.devices {
		in.infos = append(in.infos, in.describe(i, pd))
	}
	return nil
}

// Devices reports every physical device the loader sees.
func (in *Instance) Devices() []DeviceInfo { return in.infos }

// Validating reports whether the validation layer is on.
func (in *Instance) Validating() bool { return in.validate }

// takeValidation returns the validation messages gathered so far as an error
// wrapping ErrValidation, or nil.
func (in *Instance) takeValidation() error {
	if !in.validate {
		return nil
	}
	p := C.vks_take_messages()
	if p == nil {
		return nil
	}
	msg := C.GoString(p)
	C.free(unsafe.Pointer(p))
	return fmt.Errorf("%w: %s", ErrValidation, strings.TrimSpace(msg))
}

// Close destroys the instance. Devices opened from it must be closed first;
// validation messages raised on the way (leaked objects, say) are returned.
func (in *Instance) Close() error {
	if in.handle == nil {
		return nil
	}
	in.mu.Lock()
	open := in.open
	in.mu.Unlock()
	if open > 0 {
		return fmt.Errorf("engine: closing an instance with %d device(s) still open", open)
	}
	if in.messenger != nil {
		C.vks_destroy_messenger(in.gipa, C.VkInstance(unsafe.Pointer(in.handle)), in.messenger)
		in.messenger = nil
	}
	vk.DestroyInstance(in.handle, nil)
	in.handle = nil
	return in.takeValidation()
}

// driverFilesNote says, when VK_DRIVER_FILES or VK_ICD_FILENAMES choose the
// drivers, which of the files they name do not exist: the usual reason the
// loader finds no driver although one is installed.
func driverFilesNote() string {
	for _, name := range []string{"VK_DRIVER_FILES", "VK_ICD_FILENAMES"} {
		v := os.Getenv(name)
		if v == "" {
			continue
		}
		var missing []string
		n := 0
		for _, f := range strings.Split(v, string(os.PathListSeparator)) {
			if f == "" {
				continue
			}
			n++
			if _, err := os.Stat(f); err != nil {
				missing = append(missing, f)
			}
		}
		switch {
		case n == 0:
			return fmt.Sprintf("; %s is set but names no file", name)
		case len(missing) == n:
			return fmt.Sprintf("; %s=%s points nowhere: no file it names exists", name, v)
		case len(missing) > 0:
			return fmt.Sprintf("; %s=%s names files that do not exist: %s", name, v, strings.Join(missing, ", "))
		default:
			return fmt.Sprintf("; %s=%s selects the drivers, and none of them loaded", name, v)
		}
	}
	return ""
}

func check(r vk.Result, op string) error {
	if r == vk.Success {
		return nil
	}
	return fmt.Errorf("%s: %s", op, resultName(r))
}

func resultName(r vk.Result) string {
	names := map[vk.Result]string{
		vk.NotReady: "VK_NOT_READY", vk.Timeout: "VK_TIMEOUT", vk.Incomplete: "VK_INCOMPLETE",
		vk.ErrorOutOfHostMemory:      "VK_ERROR_OUT_OF_HOST_MEMORY",
		vk.ErrorOutOfDeviceMemory:    "VK_ERROR_OUT_OF_DEVICE_MEMORY",
		vk.ErrorInitializationFailed: "VK_ERROR_INITIALIZATION_FAILED",
		vk.ErrorDeviceLost:           "VK_ERROR_DEVICE_LOST",
		vk.ErrorMemoryMapFailed:      "VK_ERROR_MEMORY_MAP_FAILED",
		vk.ErrorLayerNotPresent:      "VK_ERROR_LAYER_NOT_PRESENT",
		vk.ErrorExtensionNotPresent:  "VK_ERROR_EXTENSION_NOT_PRESENT",
		vk.ErrorFeatureNotPresent:    "VK_ERROR_FEATURE_NOT_PRESENT",
		vk.ErrorIncompatibleDriver:   "VK_ERROR_INCOMPATIBLE_DRIVER",
		vk.ErrorTooManyObjects:       "VK_ERROR_TOO_MANY_OBJECTS",
		vk.ErrorFormatNotSupported:   "VK_ERROR_FORMAT_NOT_SUPPORTED",
		vk.ErrorFragmentedPool:       "VK_ERROR_FRAGMENTED_POOL",
		vk.ErrorOutOfPoolMemory:      "VK_ERROR_OUT_OF_POOL_MEMORY",
	}
	if s, ok := names[r]; ok {
		return s
	}
	return fmt.Sprintf("VkResult(%d)", int32(r))
}
