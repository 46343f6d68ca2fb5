package engine

import (
	"fmt"
	"strings"
	"time"
)

// Startup is where opening Vulkan went, phase by phase: what --time prints
// as start-up, and what gpu-run's library-call table sets beside
// `vkstat devices` (issue 31: process start to first kernel within 30 ms
// of it).
type Startup struct {
	// Loader is dlopen of the Vulkan loader and vkEnumerateInstanceVersion.
	Loader time.Duration
	// Instance is vkCreateInstance: the loader reads the driver and layer
	// manifests and loads each driver (lavapipe loads LLVM here).
	Instance time.Duration
	// Devices is vkEnumeratePhysicalDevices and each device's properties.
	Devices time.Duration
	// Device is vkCreateDevice with its queues, command pools and memory
	// types, for every device opened.
	Device time.Duration
	// Cache is reading the pipeline cache file and vkCreatePipelineCache.
	Cache time.Duration
}

// Total is the whole start-up.
func (s Startup) Total() time.Duration {
	return s.Loader + s.Instance + s.Devices + s.Device + s.Cache
}

// String lists the phases in milliseconds, e.g. "loader 1.2, instance
// 80.3, devices 2.0, device 40.1, pipeline cache 0.4 ms".
func (s Startup) String() string {
	var parts []string
	for _, p := range []struct {
		name string
		d    time.Duration
	}{{"loader", s.Loader}, {"instance", s.Instance}, {"devices", s.Devices}, {"device", s.Device}, {"pipeline cache", s.Cache}} {
		parts = append(parts, fmt.Sprintf("%s %.1f", p.name, float64(p.d.Microseconds())/1e3))
	}
	return strings.Join(parts, ", ") + " ms"
}

// Startup is the set's start-up: its instance's, and each device's
// opening.
func (s *Set) Startup() Startup {
	var st Startup
	if s.Instance != nil {
		st = s.Instance.startup
	}
	for _, d := range s.Devices {
		if d != nil {
			st.Device += d.opened - d.cacheLoad
			st.Cache += d.cacheLoad
		}
	}
	return st
}

// Pipelines is the time d has spent creating pipelines (shader modules,
// layouts, vkCreateComputePipelines) and how many it created: start-up
// that happens inside the first calls, as each kernel is first used.
func (d *Device) Pipelines() (time.Duration, int) {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.buildTime, d.built
}

// Again opens another logical device on d's physical device with d's
// options, and says what opening it took with the instance's share:
// what a new process would open, for measuring its start-up and first
// calls (bench --tune's rates) apart from d's built pipelines.
func (d *Device) Again() (*Device, Startup, error) {
	nd, err := d.inst.OpenWith(d.Info.Index, d.opt)
	if err != nil {
		return nil, Startup{}, err
	}
	st := d.inst.startup
	st.Device, st.Cache = nd.opened-nd.cacheLoad, nd.cacheLoad
	return nd, st, nil
}
