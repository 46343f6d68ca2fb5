package engine

import (
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
)

// Transfer says where host↔device copies are submitted.
type Transfer int

// The transfer modes.
const (
	// TransferAuto uses a transfer-only queue on discrete GPUs that have
	// one, else the compute queue.
	TransferAuto Transfer = iota
	// TransferMain submits copies on the compute queue.
	TransferMain
	// TransferQueue submits copies on a queue of their own: a
	// transfer-only family where there is one, else a second queue of the
	// compute family, else the compute queue itself, always synchronised
	// with semaphores and with buffers shared concurrently, so that the
	// code path a discrete GPU takes runs on any device.
	TransferQueue
)

// DeviceOptions tune how a device moves data. The zero value is the
// default: the device's own memory model, copies where they are fastest,
// and a budget of most of the device's memory.
type DeviceOptions struct {
	// Budget caps the device memory vkstat allocates, in bytes; 0 means
	// 90 % of the device-local heaps. Operations split their work to stay
	// under it.
	Budget int64
	// Discrete treats the device as a discrete GPU even when its memory is
	// host-visible (lavapipe, integrated GPUs): buffers are never mapped
	// and every copy goes through the staging ring.
	Discrete bool
	// Transfer picks the queue copies are submitted on.
	Transfer Transfer
	// StagingChunk caps the size of one staging chunk, in bytes; 0 means
	// 32 MiB. Tests lower it to run many chunks through the ring.
	StagingChunk int64
	// Disable makes the device behave as if it lacked these features: it
	// reports them absent, does not enable them, and the pipelines take
	// the variants written for devices without them.
	Disable Features
	// NoImport keeps the data path from importing the caller's memory
	// (VK_EXT_external_memory_host): every copy goes through staging.
	NoImport bool
	// NoCache frees device and staging memory as soon as no buffer uses
	// it, rather than keeping it for the next buffers (memory.go), as
	// PYTORCH_NO_CUDA_MEMORY_CACHING=1 does for PyTorch: for measuring
	// what the cache saves, and for tools that watch allocations.
	NoCache bool
	// NoReplay records every sequence's command buffer anew, rather than
	// replaying one recorded before for the same commands (replay.go):
	// for measuring what replay saves.
	NoReplay bool
	// Shaders gives the SPIR-V of a shader variant by name (see
	// shaders/variants.txt) for the kernels asked for without Code
	// (KernelSpec): a folder being edited, the shader development loop's
	// (--shader-dir). nil: the set built into the binary (shaders.Code).
	Shaders func(name string) ([]byte, error)
}

// Features is a set of optional device features.
type Features uint32

// The features that can be disabled.
const (
	// Float64 is shaderFloat64: float64 arithmetic in shaders.
	Float64 Features = 1 << iota
	// Float16 is shaderFloat16: float16 arithmetic in shaders.
	Float16
	// Subgroup is subgroup operations beyond the basic ones in compute
	// shaders (vote, arithmetic, ballot, shuffle, ...).
	Subgroup
)

var featureNames = []struct {
	f    Features
	name string
}{{Float64, "float64"}, {Float16, "float16"}, {Subgroup, "subgroup"}}

// String lists the features, comma-separated, e.g. "float64,subgroup".
func (f Features) String() string {
	var names []string
	for _, n := range featureNames {
		if f&n.f != 0 {
			names = append(names, n.name)
		}
	}
	return strings.Join(names, ",")
}

// ParseFeatures parses a comma-separated list of float64, float16 and
// subgroup; the empty string is the empty set.
func ParseFeatures(s string) (Features, error) {
	var f Features
	for _, w := range strings.Split(s, ",") {
		w = strings.ToLower(strings.TrimSpace(w))
		if w == "" || w == "none" {
			continue
		}
		found := false
		for _, n := range featureNames {
			if w == n.name || w == "fp"+strings.TrimPrefix(n.name, "float") {
				f, found = f|n.f, true
			}
		}
		if !found {
			return 0, fmt.Errorf("%q: %w (want float64, float16 or subgroup, comma-separated)", w, ErrBadOption)
		}
	}
	return f, nil
}

// ErrBadOption reports an engine option that cannot be parsed.
var ErrBadOption = errors.New("bad engine option")

// DeviceOptionsFromEnv reads the options from the environment:
//
//	VKSTAT_DEVICE_MEMORY  budget, e.g. 512MiB, 2GiB, 32M, or a number of bytes
//	VKSTAT_DISCRETE       1: treat every device as discrete (staging copies)
//	VKSTAT_TRANSFER       auto, main or queue
//	VKSTAT_STAGING_CHUNK  the largest staging chunk, as a size
//	VKSTAT_DISABLE        features to treat as absent: float64, float16, subgroup
//	VKSTAT_IMPORT         0: never import host memory (copies go through staging)
//	VKSTAT_NO_CACHE       1: free device memory when no buffer uses it (no cache)
//	VKSTAT_NO_REPLAY      1: record every command buffer anew (no replay)
func DeviceOptionsFromEnv() (DeviceOptions, error) {
	var o DeviceOptions
	var err error
	if v := os.Getenv("VKSTAT_DEVICE_MEMORY"); v != "" {
		if o.Budget, err = ParseSize(v); err != nil {
			return o, fmt.Errorf("VKSTAT_DEVICE_MEMORY: %w", err)
		}
	}
	if v := os.Getenv("VKSTAT_STAGING_CHUNK"); v != "" {
		if o.StagingChunk, err = ParseSize(v); err != nil {
			return o, fmt.Errorf("VKSTAT_STAGING_CHUNK: %w", err)
		}
	}
	if o.Discrete, err = envFlag("VKSTAT_DISCRETE", false); err != nil {
		return o, err
	}
	if o.NoCache, err = envFlag("VKSTAT_NO_CACHE", false); err != nil {
		return o, err
	}
	if o.NoReplay, err = envFlag("VKSTAT_NO_REPLAY", false); err != nil {
		return o, err
	}
	imports, err := envFlag("VKSTAT_IMPORT", true)
	if err != nil {
		return o, err
	}
	o.NoImport = !imports
	if o.Transfer, err = ParseTransfer(os.Getenv("VKSTAT_TRANSFER")); err != nil {
		return o, fmt.Errorf("VKSTAT_TRANSFER: %w", err)
	}
	if o.Disable, err = ParseFeatures(os.Getenv("VKSTAT_DISABLE")); err != nil {
		return o, fmt.Errorf("VKSTAT_DISABLE: %w", err)
	}
	return o, nil
}

// DeviceOptionsWith is DeviceOptionsFromEnv with what a caller asks
// for over the environment: memory, the budget as a size (ParseSize), and
// disable, features to treat as absent (ParseFeatures); "" leaves the
// environment's. A bad value is a *FieldError for "device_memory" or
// "disable".
func DeviceOptionsWith(memory, disable string) (DeviceOptions, error) {
	opt, err := DeviceOptionsFromEnv()
	if err != nil {
		return opt, err
	}
	if memory != "" {
		if opt.Budget, err = ParseSize(memory); err != nil {
			return opt, &FieldError{Field: "device_memory", Msg: ": " + err.Error()}
		}
	}
	if disable != "" {
		if opt.Disable, err = ParseFeatures(disable); err != nil {
			return opt, &FieldError{Field: "disable", Msg: ": " + err.Error()}
		}
	}
	return opt, nil
}

// envFlag reads the 0-or-1 variable name (true, yes, false and no too),
// def when it is unset or empty.
func envFlag(name string, def bool) (bool, error) {
	switch v := strings.ToLower(os.Getenv(name)); v {
	case "":
		return def, nil
	case "1", "true", "yes":
		return true, nil
	case "0", "false", "no":
		return false, nil
	default:
		return def, fmt.Errorf("%s=%q: %w (want 0 or 1)", name, v, ErrBadOption)
	}
}

// ParseTransfer parses auto, main or queue.
func ParseTransfer(s string) (Transfer, error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "", "auto":
		return TransferAuto, nil
	case "main":
		return TransferMain, nil
	case "queue":
		return TransferQueue, nil
	}
	return 0, fmt.Errorf("%q: %w (want auto, main or queue)", s, ErrBadOption)
}

// ParseSize parses a byte count: a number with an optional unit, K/M/G/T
// (powers of 1024, with or without "iB" or "B"), e.g. "512MiB", "2G",
// "1048576".
func ParseSize(s string) (int64, error) {
	t := strings.TrimSpace(s)
	u := strings.ToUpper(t)
	mult := int64(1)
	for _, suf := range []struct {
		s string
		m int64
	}{{"TIB", 1 << 40}, {"GIB", 1 << 30}, {"MIB", 1 << 20}, {"KIB", 1 << 10},
		{"TB", 1 << 40}, {"GB", 1 << 30}, {"MB", 1 << 20}, {"KB", 1 << 10},
		{"T", 1 << 40}, {"G", 1 << 30}, {"M", 1 << 20}, {"K", 1 << 10}, {"B", 1}} {
		if strings.HasSuffix(u, suf.s) {
			mult, u = suf.m, strings.TrimSpace(strings.TrimSuffix(u, suf.s))
			break
		}
	}
	v, err := strconv.ParseFloat(u, 64)
	if err != nil || !(v > 0) || v*float64(mult) >= 1<<62 {
		return 0, fmt.Errorf("%q: %w (want a positive size such as 512MiB, 2GiB or 1048576)", s, ErrBadOption)
	}
	return int64(v * float64(mult)), nil
}
