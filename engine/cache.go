package engine

/*
#include <stdlib.h>
*/
import "C"

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"os"
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

// The pipeline cache file is the driver's cache data behind a header of
// ours: magic, format version, the driver version, payload length and
// SHA-256. The driver's own
// data carries no checksum, and a torn or interleaved file (two processes
// saving at once) handed to vkCreatePipelineCache is undefined behaviour:
// lavapipe deserialises the shaders it holds when a pipeline is created.
const (
	cacheMagic   = "vkstatpc"
	cacheVersion = 2
	cacheHdrSize = 8 + 4 + 4 + 8 + sha256.Size
)

// cachePath is the cache file for d: the driver's pipelineCacheUUID, the
// vendor and device IDs and the driver version name it (a driver that
// keeps its pipelineCacheUUID across versions gets a fresh cache too).
// VKSTAT_PIPELINE_CACHE=off turns the file off (start-up measurements).
func (d *Device) cachePath() string {
	if os.Getenv("VKSTAT_PIPELINE_CACHE") == "off" {
		return ""
	}
	dir, err := os.UserCacheDir()
	if err != nil {
		return ""
	}
	return filepath.Join(dir, "vkstat", fmt.Sprintf("pipelines-%s-%04x-%04x-%08x.v%d.bin",
		d.Info.PipelineCacheUUID, d.Info.VendorID, d.Info.DeviceID, d.Info.driverRaw, cacheVersion))
}

// wrapCache puts our header in front of the driver's cache data, made by
// driver version driver.
func wrapCache(data []byte, driver uint32) []byte {
	out := make([]byte, 0, cacheHdrSize+len(data))
	out = append(out, cacheMagic...)
	out = binary.LittleEndian.AppendUint32(out, cacheVersion)
	out = binary.LittleEndian.AppendUint32(out, driver)
	out = binary.LittleEndian.AppendUint64(out, uint64(len(data)))
	sum := sha256.Sum256(data)
	out = append(out, sum[:]...)
	return append(out, data...)
}

// unwrapCache checks a cache file and returns the driver's data in it, or
// why it must not be given to the driver: not ours, torn, corrupt, or made
// by another driver, driver version or device. Vulkan's header
// (VkPipelineCacheHeaderVersionOne) is checked against info: header size
// and version, vendor and device ID, pipelineCacheUUID.
func unwrapCache(file []byte, info DeviceInfo) ([]byte, error) {
	if len(file) < cacheHdrSize || string(file[:8]) != cacheMagic {
		return nil, errors.New("not a vkstat pipeline cache file")
	}
	le := binary.LittleEndian
	if v := le.Uint32(file[8:]); v != cacheVersion {
		return nil, fmt.Errorf("cache format %d, want %d", v, cacheVersion)
	}
	if v := le.Uint32(file[12:]); v != info.driverRaw {
		return nil, fmt.Errorf("made by driver version %#x, not %#x", v, info.driverRaw)
	}
	data := file[cacheHdrSize:]
	if n := le.Uint64(file[16:]); n != uint64(len(data)) {
		return nil, fmt.Errorf("torn file: %d bytes of data, the header says %d", len(data), n)
	}
	if sum := sha256.Sum256(data); !bytes.Equal(sum[:], file[24:cacheHdrSize]) {
		return nil, errors.New("checksum mismatch")
	}
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
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return
	}
	// A temporary file of its own, renamed over the cache: test binaries
	// and parallel runs save the same cache at once, and a reader sees one
	// whole file or another. The checksum catches anything else.
	f, err := os.CreateTemp(filepath.Dir(p), ".pipelines-*.tmp")
	if err != nil {
		return
	}
	_, werr := f.Write(wrapCache(data, d.Info.driverRaw))
	if cerr := f.Close(); werr != nil || cerr != nil {
		os.Remove(f.Name())
		return
	}
	if err := os.Rename(f.Name(), p); err != nil {
		os.Remove(f.Name())
		slog.Debug("saving pipeline cache", "err", err)
	}
}
