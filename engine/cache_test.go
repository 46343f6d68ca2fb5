package engine

import (
	"bytes"
	"encoding/binary"
	"encoding/hex"
	"os"
	"strings"
	"testing"

	"github.com/vkstat/vkstat/shaders"
)

// vkCacheData is driver cache data with a VkPipelineCacheHeaderVersionOne
// for info, followed by body.
func vkCacheData(info DeviceInfo, body string) []byte {
	le := binary.LittleEndian
	b := le.AppendUint32(nil, 32)
	b = le.AppendUint32(b, 1)
	b = le.AppendUint32(b, info.VendorID)
	b = le.AppendUint32(b, info.DeviceID)
	uuid, _ := hex.DecodeString(info.PipelineCacheUUID)
	return append(append(b, uuid...), body...)
}

// Issue 9, item 3: a torn, corrupt or foreign cache file never reaches the
// driver (undefined behaviour; lavapipe once crashed in
// vkCreateComputePipelines).
func TestUnwrapCache(t *testing.T) {
	info := DeviceInfo{VendorID: 0x10005, DeviceID: 0, PipelineCacheUUID: "00112233445566778899aabbccddeeff", driverRaw: 0x5800a0}
	good := vkCacheData(info, "entries")
	wrap := func(data []byte) []byte { return wrapCache(data, info) }
	if got, err := unwrapCache(wrap(good), info); err != nil || string(got) != string(good) {
		t.Fatalf("a good file: %q, %v", got, err)
	}
	foreign := info
	foreign.PipelineCacheUUID = "ffeeddccbbaa99887766554433221100"
	otherDevice := info
	otherDevice.DeviceID = 7
	badHeader := vkCacheData(info, "entries")
	binary.LittleEndian.PutUint32(badHeader, 4096) // header size past the end
	badVersion := vkCacheData(info, "entries")
	binary.LittleEndian.PutUint32(badVersion[4:], 2)
	otherDriver := info
	otherDriver.driverRaw++
	flipped := wrap(good)
	flipped[len(flipped)-3] ^= 0x40
	for name, file := range map[string][]byte{
		"empty":                 nil,
		"raw driver data":       good,
		"torn":                  wrap(good)[:len(wrap(good))-4],
		"longer than written":   append(wrap(good), 'x'),
		"a flipped bit":         flipped,
		"another UUID":          wrap(vkCacheData(foreign, "entries")),
		"another device":        wrap(vkCacheData(otherDevice, "entries")),
		"another driver":        wrapCache(good, otherDriver),
		"header size too large": wrap(badHeader),
		"header version 2":      wrap(badVersion),
		"no Vulkan header":      wrap([]byte("short")),
	} {
		if _, err := unwrapCache(file, info); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
}

// TestPipelineCacheFile saves a cache, checks it reads back, then opens the
// device over damaged files: each is ignored, pipelines still build, and the
// next save replaces it with a good one.
func TestPipelineCacheFile(t *testing.T) {
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	code, err := shaders.Code("map_f32")
	if err != nil {
		t.Fatal(err)
	}
	inst, err := NewInstance(Options{Validate: true})
	if err != nil {
		t.Skipf("no Vulkan: %v", err)
	}
	defer inst.Close()
	if len(inst.Devices()) == 0 {
		t.Skip("no Vulkan device")
	}
	build := func() *Device {
		d, err := inst.Open(0)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := d.Kernel(KernelSpec{Name: "map_f32", Code: code, Spec: []uint32{64}}); err != nil {
			t.Fatal(err)
		}
		return d
	}
	d := build()
	path := d.cachePath()
	if err := d.Close(); err != nil {
		t.Fatal(err)
	}
	file, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("no cache saved: %v", err)
	}
	data, err := unwrapCache(file, d.Info)
	if err != nil {
		t.Fatalf("the saved cache does not read back: %v", err)
	}
	foreign := d.Info
	foreign.PipelineCacheUUID = strings.Repeat("ab", 16)
	oldDriver := d.Info
	oldDriver.driverRaw--
	half := append([]byte(nil), data...)
	for i := len(half) / 2; i < len(half); i++ {
		half[i] ^= 0x5a
	}
	for name, bad := range map[string][]byte{
		"torn":        file[:len(file)/2],
		"garbage":     []byte(strings.Repeat("\xde\xad\xbe\xef", 1000)),
		"raw":         data,
		"scrambled":   append(file[:len(file)-len(data):len(file)-len(data)], half...),
		"foreign":     wrapCache(vkCacheData(foreign, string(data[32:])), d.Info),
		"another dev": wrapCache(vkCacheData(DeviceInfo{VendorID: 0x10de, DeviceID: 0x2330, PipelineCacheUUID: d.Info.PipelineCacheUUID}, string(data[32:])), d.Info),
		"old driver":  wrapCache(data, oldDriver),
	} {
		if err := os.WriteFile(path, bad, 0o644); err != nil {
			t.Fatal(err)
		}
		d := build()
		if err := d.Close(); err != nil {
			t.Errorf("%s: %v", name, err)
		}
		file, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := unwrapCache(file, d.Info); err != nil {
			t.Errorf("%s: the cache saved after it does not read back: %v", name, err)
		}
	}

	// A process whose pipelines all come from the file does not write it
	// again (issue 31: start-up from the cache costs no write at exit),
	// unless the driver's data changed: SwiftShader's grows by 32 bytes
	// each time a cache is fed back to it; lavapipe's stays the same.
	before, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	old, _ := os.ReadFile(path)
	d = build()
	if err := d.Close(); err != nil {
		t.Fatal(err)
	}
	after, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if now, _ := os.ReadFile(path); !os.SameFile(before, after) && (bytes.Equal(now, old) || d.Info.IsLavapipe()) {
		t.Errorf("%s: the cache file was rewritten although the driver's data did not change", d.Info.Name)
	}
}
