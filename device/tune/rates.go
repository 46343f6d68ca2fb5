package tune

import (
	"bytes"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/vkstat/vkstat/engine"
	"github.com/vkstat/vkstat/internal/smallfile"
)

// Rates files hold what --device auto weighs (engine.Rates), measured by
// `vkstat bench --tune`, beside the tune cache: Dir()/<DeviceKey>.rates.json
// for a Vulkan device, Dir()/cpu-<threads>.rates.json for the CPU path on
// that many threads.
const ratesExt = ".rates.json"

// RatesPath is the rates file of a Vulkan device (info), or of the CPU path
// on threads threads (info nil); ok is false when the tune cache is off.
func RatesPath(info *engine.DeviceInfo, threads int) (string, bool) {
	d, ok := Dir()
	if !ok {
		return "", false
	}
	key := fmt.Sprintf("cpu-%d", threads)
	if info != nil {
		key = DeviceKey(*info)
	}
	return filepath.Join(d, key+ratesExt), true
}

// ReadRates reads a rates file; a missing file's error wraps
// os.ErrNotExist, a malformed one's names the file.
func ReadRates(path string) (engine.Rates, error) {
	var r engine.Rates
	b, err := smallfile.Read(path, 1<<20) // a few KB
	if err != nil {
		return r, err
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&r); err != nil {
		return r, fmt.Errorf("rates %s: %w: %w (delete it, or measure the rates again)", path, ErrBad, err)
	}
	bad := r.StartupMs < 0 || r.LinkGBs < 0
	for _, o := range r.Ops {
		bad = bad || o.Flops <= 0 || o.GBs < 0 || o.FixedMs < 0 || o.FirstMs < 0
	}
	if bad || len(r.Ops) == 0 {
		return r, fmt.Errorf("rates %s: %w: a rate missing, zero or negative (delete it, or measure the rates again)", path, ErrBad)
	}
	return r, nil
}

// WriteRates stores r at path, replacing it atomically.
func WriteRates(path string, r engine.Rates) error {
	if err := writeJSON(path, r); err != nil {
		return fmt.Errorf("rates: %w", err)
	}
	return nil
}

// StoreRates stores r, which has at least one operation's rate, at path
// (WriteRates) over the rates measured there before of the operations r
// lacks; the default rate, for operations
// measured nowhere, is reduce's, else that of the first operation by name.
func StoreRates(path string, r engine.Rates) error {
	if len(r.Ops) == 0 {
		return fmt.Errorf("rates: none measured")
	}
	r.Ops = maps.Clone(r.Ops)
	if old, err := ReadRates(path); err == nil {
		for k, v := range old.Ops {
			if _, ok := r.Ops[k]; !ok {
				r.Ops[k] = v
			}
		}
	}
	if d, ok := r.Ops["reduce"]; ok {
		r.Default = d
	} else {
		r.Default = r.Ops[slices.Sorted(maps.Keys(r.Ops))[0]]
	}
	return WriteRates(path, r)
}

// RatesFor is what --device auto knows of a path: its rates file when
// there is a good one, else engine.BuiltinRates of the workloads' own
// (ops: workloads.Rates). A malformed file is reported in the source and
// left aside.
func RatesFor(info *engine.DeviceInfo, threads int, ops map[string]engine.BuiltinRate) engine.Rates {
	path, ok := RatesPath(info, threads)
	if ok {
		r, err := ReadRates(path)
		if err == nil {
			return r
		}
		if !errors.Is(err, os.ErrNotExist) {
			b := engine.BuiltinRates(info, threads, ops)
			b.Source += fmt.Sprintf(" (%v)", err)
			return b
		}
	}
	return engine.BuiltinRates(info, threads, ops)
}

// Auto is --device auto's decision for job in a process of its own on
// threads threads, from each path's rates (RatesFor, ops the workloads'
// built-in ones): ok with the CPU path's choice when it wins without
// looking for Vulkan (engine.CPUOnly, StartupFloor); else choose picks
// among the devices listed, the CPU path and the GPUs (engine.Choose), as
// engine.OpenOptions.Auto takes it.
func Auto(job engine.Job, threads int, ops map[string]engine.BuiltinRate) (cpu engine.Choice, ok bool, choose func([]engine.DeviceInfo) engine.Choice) {
	job.Process = true
	path := engine.Candidate{Index: engine.CPUPath, Name: "the CPU path", Rates: RatesFor(nil, threads, ops)}
	if ch, ok := engine.CPUOnly(path.Rates, job, StartupFloor()); ok {
		return ch, true, nil
	}
	return engine.Choice{}, false, func(infos []engine.DeviceInfo) engine.Choice {
		cands := []engine.Candidate{path}
		for _, in := range infos {
			if in.IsGPU() {
				cands = append(cands, engine.Candidate{Index: in.Index, Name: in.Name, Rates: RatesFor(&in, threads, ops)})
			}
		}
		return engine.Choose(cands, job)
	}
}

// StartupFloor is the least start-up of any Vulkan device whose rates were
// measured here (a GPU's, not lavapipe's), else engine.MinGPUStartup: a job
// the CPU path does in less runs there without looking for Vulkan.
func StartupFloor() time.Duration {
	floor := engine.MinGPUStartup
	d, ok := Dir()
	if !ok {
		return floor
	}
	names, _ := filepath.Glob(filepath.Join(d, "*"+ratesExt))
	least := time.Duration(0)
	for _, n := range names {
		if strings.HasPrefix(filepath.Base(n), "cpu-") {
			continue
		}
		r, err := ReadRates(n)
		if err != nil || !r.GPU {
			continue
		}
		s := time.Duration(r.StartupMs * float64(time.Millisecond))
		if least == 0 || s < least {
			least = s
		}
	}
	return max(least, floor)
}

// Census is the GPUs a Vulkan instance listed on this machine, kept beside
// the tune cache (Dir()/census.json) by --device auto whenever it lists
// the devices, so that a later job the CPU path wins is decided without
// loading Vulkan at all. Fingerprint ties it to what decides which devices
// the loader lists: the driver manifests, the variables that select them,
// and the GPU device nodes; any change makes it stale.
type Census struct {
	Fingerprint string              `json:"fingerprint"`
	Written     string              `json:"written"`
	GPUs        []engine.DeviceInfo `json:"gpus"`
}

const censusFile = "census.json"

// ReadCensus is the machine's census when there is one and it is not
// stale.
func ReadCensus() (Census, bool) {
	var c Census
	d, ok := Dir()
	if !ok {
		return c, false
	}
	b, err := smallfile.Read(filepath.Join(d, censusFile), 1<<20)
	if err != nil || json.Unmarshal(b, &c) != nil || c.Fingerprint != fingerprint() {
		return Census{}, false
	}
	return c, true
}

// WriteCensus records the GPUs among infos (a failure to write is left
// silent: the census only saves time).
func WriteCensus(infos []engine.DeviceInfo) {
	d, ok := Dir()
	if !ok {
		return
	}
	c := Census{Fingerprint: fingerprint(), Written: time.Now().UTC().Format(time.RFC3339), GPUs: []engine.DeviceInfo{}}
	for _, in := range infos {
		if in.IsGPU() {
			c.GPUs = append(c.GPUs, in)
		}
	}
	writeJSON(filepath.Join(d, censusFile), c) // best effort: the census only saves time
}

// CensusFile is the census as engine.OpenOptions.Census reads and renews
// it: --device auto, and a Python session on "auto", decide from it
// without loading Vulkan on a machine whose census lists no GPU.
type CensusFile struct{}

// Read is ReadCensus's GPUs and when they were listed.
func (CensusFile) Read() ([]engine.DeviceInfo, string, bool) {
	c, ok := ReadCensus()
	return c.GPUs, c.Written, ok
}

// Write is WriteCensus.
func (CensusFile) Write(infos []engine.DeviceInfo) { WriteCensus(infos) }

// fingerprint names what decides the devices the loader lists: the
// variables that choose drivers, each driver manifest in the loader's
// search folders (name, size, time), and the GPU device nodes.
func fingerprint() string {
	var b strings.Builder
	for _, v := range []string{"VK_DRIVER_FILES", "VK_ICD_FILENAMES", "VK_ADD_DRIVER_FILES", "VK_LOADER_DRIVERS_SELECT",
		"VK_LOADER_DRIVERS_DISABLE", "VKSTAT_VULKAN_LIB", "XDG_CONFIG_DIRS", "XDG_DATA_DIRS", "XDG_DATA_HOME"} {
		fmt.Fprintf(&b, "%s=%s\n", v, os.Getenv(v))
	}
	home, _ := os.UserHomeDir()
	dirs := []string{"/etc/xdg/vulkan/icd.d", "/etc/vulkan/icd.d", "/usr/local/share/vulkan/icd.d", "/usr/share/vulkan/icd.d",
		filepath.Join(home, ".local/share/vulkan/icd.d"), filepath.Join(home, ".config/vulkan/icd.d"), "/usr/local/nvidia/share/vulkan/icd.d"}
	for _, x := range filepath.SplitList(os.Getenv("XDG_DATA_DIRS") + ":" + os.Getenv("XDG_CONFIG_DIRS")) {
		if x != "" {
			dirs = append(dirs, filepath.Join(x, "vulkan/icd.d"))
		}
	}
	for _, pattern := range append(dirs, "/dev/dri/render*", "/dev/nvidia[0-9]*") {
		names, _ := filepath.Glob(pattern)
		if !strings.ContainsAny(pattern, "*[") {
			names, _ = filepath.Glob(filepath.Join(pattern, "*"))
		}
		for _, n := range names {
			if st, err := os.Stat(n); err == nil {
				fmt.Fprintf(&b, "%s %d %d\n", n, st.Size(), st.ModTime().UnixNano())
			}
		}
	}
	return fmt.Sprintf("%x", sha256.Sum256([]byte(b.String())))
}
