package engine

/*
#include <stdlib.h>
*/
import "C"

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"log/slog"
	"path/filepath"
	"sync"
	"time"
	"unsafe"

	"github.com/vkstat/vkstat/internal/smallfile"
	vk "github.com/vulkan-go/vulkan"
)

// pipelineMu serialises, across every instance and device of the process,
// the driver calls that (de)serialise pipelines (vkCreatePipelineCache,
// vkGetPipelineCacheData) and lavapipe's that compile them
// (vkCreateShaderModule, vkCreateComputePipelines): lavapipe compiles with
// LLVM, whose JIT has process-wide state, and tests and commands open
// several instances and devices in one process. Other drivers compile in
// parallel (Device.Kernels), as Vulkan allows.
var pipelineMu sync.Mutex

// The pipeline cache file is the driver's cache data sealed
// (smallfile.Seal) with its key, cacheKey: the driver's own data carries
// no checksum, and a torn or interleaved file (two processes saving at
// once) handed to vkCreatePipelineCache is undefined behaviour: lavapipe
// deserialises the shaders it holds when a pipeline is created.
const (
	cacheMagic   = "vkstatpc"
	cacheVersion = 3
)

// cacheKey names what the driver's cache data are for: the driver's
// pipelineCacheUUID, the vendor and device IDs and the driver version (a
// driver that keeps its pipelineCacheUUID across versions gets a fresh
// cache too). It is the cache file's name too.
func cacheKey(info DeviceInfo) string {
	return fmt.Sprintf("pipelines-%s-%04x-%04x-%08x", info.PipelineCacheUUID, info.VendorID, info.DeviceID, info.driverRaw)
}

// cachePath is the cache file for d, under the user cache directory's
// vkstat folder, or $VKSTAT_PIPELINE_CACHE; "" when that is off (start-up
// measurements).
func (d *Device) cachePath() string {
	dir := smallfile.CacheDir("VKSTAT_PIPELINE_CACHE", "")
	if dir == "" {
		return ""
	}
	return filepath.Join(dir, fmt.Sprintf("%s.v%d.bin", cacheKey(d.Info), cacheVersion))
}

// wrapCache seals the driver's cache data for info.
func wrapCache(data []byte, info DeviceInfo) []byte {
	return smallfile.Seal(cacheMagic, cacheVersion, cacheKey(info), data)
}

// unwrapCache checks a cache file and returns the driver's data in it, or
// why it must not be given to the driver: not ours, torn, corrupt, or made
// by another driver, driver version or device (smallfile.Unseal). Vulkan's
// header (VkPipelineCacheHeaderVersionOne) is checked against info too:
// header size and version, vendor and device ID, pipelineCacheUUID.
func unwrapCache(file []byte, info DeviceInfo) ([]byte, error) {
	data, err := smallfile.Unseal(file, cacheMagic, cacheVersion, cacheKey(info))
	if err != nil {
		return nil, err
	}
	le := binary.LittleEndian
	const vkHdr = 16 + vk.UuidSize
	if len(data) < vkHdr {
		return nil, fmt.Errorf("driver data of %d bytes has no Vulkan cache header", len(data))
	}
	size, version := le.Uint32(data[0:]), le.Uint32(data[4:])
	vendor, device := le.Uint32(data[8:]), le.Uint32(data[12:])
	uuid := hex.EncodeToString(data[16:vkHdr])
	switch {
	case size < vkHdr || uint64(size) > uint64(len(data)):
		return nil, fmt.Errorf("the Vulkan cache header gives a size of %d", size)
	case version != uint32(vk.PipelineCacheHeaderVersionOne):
		return nil, fmt.Errorf("the Vulkan cache header has version %d", version)
	case vendor != info.VendorID || device != info.DeviceID:
		return nil, fmt.Errorf("made for vendor %#x device %#x, not %#x %#x", vendor, device, info.VendorID, info.DeviceID)
	case uuid != info.PipelineCacheUUID:
		return nil, fmt.Errorf("made for pipelineCacheUUID %s, not %s", uuid, info.PipelineCacheUUID)
	}
	return data, nil
}

// maxPipelineCache bounds the pipeline cache file read: far above any
// driver's (lavapipe's holds every kernel's machine code, a few MB).
const maxPipelineCache = 256 << 20

func (d *Device) loadPipelineCache() {
	t0 := time.Now()
	defer func() { d.cacheLoad = time.Since(t0) }()
	var data []byte
	if p := d.cachePath(); p != "" {
		if file, err := smallfile.Read(p, maxPipelineCache); err == nil {
			if data, err = unwrapCache(file, d.Info); err != nil {
				slog.Debug("ignoring the pipeline cache file", "path", p, "err", err)
				data = nil
			}
			d.cacheSum = sha256.Sum256(data)
		}
	}
	info := vk.PipelineCacheCreateInfo{SType: vk.StructureTypePipelineCacheCreateInfo}
	if len(data) > 0 {
		cdata := C.CBytes(data)
		defer C.free(cdata)
		info.InitialDataSize = uint(len(data))
		info.PInitialData = cdata
	}
	pipelineMu.Lock()
	defer pipelineMu.Unlock()
	var cache vk.PipelineCache
	if vk.CreatePipelineCache(d.handle, &info, nil, &cache) != vk.Success {
		// Data the driver refuses is not fatal: start empty.
		info.InitialDataSize, info.PInitialData = 0, nil
		if vk.CreatePipelineCache(d.handle, &info, nil, &cache) != vk.Success {
			cache = vk.NullPipelineCache
		}
	}
	d.cache = cache
}

// cacheData is the driver's serialised cache.
func (d *Device) cacheData() []byte {
	pipelineMu.Lock()
	defer pipelineMu.Unlock()
	var n uint
	if vk.GetPipelineCacheData(d.handle, d.cache, &n, nil) != vk.Success || n == 0 {
		return nil
	}
	buf := C.malloc(C.size_t(n))
	defer C.free(buf)
	if vk.GetPipelineCacheData(d.handle, d.cache, &n, buf) != vk.Success {
		return nil
	}
	return C.GoBytes(unsafe.Pointer(buf), C.int(n))
}

// savePipelineCache writes the driver's cache to the file when the device
// built a pipeline and the driver's data differ from what was loaded: a
// process whose pipelines all came from the file writes nothing.
func (d *Device) savePipelineCache() {
	p := d.cachePath()
	if p == "" || d.cache == vk.NullPipelineCache || d.built == 0 {
		return
	}
	data := d.cacheData()
	if len(data) == 0 || sha256.Sum256(data) == d.cacheSum {
		return
	}
	// Test binaries and parallel runs save the same cache at once: each
	// replaces the file whole (smallfile.Write), and the checksum catches
	// anything else.
	if err := smallfile.Write(p, wrapCache(data, d.Info)); err != nil {
		slog.Debug("saving pipeline cache", "err", err)
	}
}
