package engine

import (
	"cmp"
	"fmt"
	"runtime"
	"time"
)

// Job is one call as --device auto weighs it: which operation, the
// floating-point work it does and the bytes that cross to a device and
// back (suite.Work's Flops and Bytes of the same call).
type Job struct {
	// Op is the operation's rate key: map, reduce, cov, chol, paco, stack,
	// latent.
	Op    string
	Flops float64
	Bytes float64
	// Process says the job runs in a process of its own (a command), so
	// that a Vulkan device's start-up and its first pipelines count; a
	// library session pays them once, at open.
	Process bool
}

// OpRate is what one operation costs on one path: Time(f) = Fixed + f/Flops,
// and First more on a process's first call (its pipelines).
type OpRate struct {
	// Flops is the operation's rate in floating-point operations per
	// second of its own time (GPU timestamps on a device, the whole call
	// on the CPU path).
	Flops float64 `json:"flops_per_s"`
	// GBs, where measured, is what the call's bytes (Job.Bytes) cost
	// besides the kernel, in 10⁹ bytes/s: the copies and whatever else
	// grows with them. 0: the path's LinkGBs.
	GBs float64 `json:"gb_per_s,omitempty"`
	// FixedMs is what each call costs besides the work and the copies:
	// submission, waiting, allocation, host-side steps.
	FixedMs float64 `json:"fixed_ms"`
	// FirstMs is the extra cost of the first call in a process: its
	// pipelines created.
	FirstMs float64 `json:"first_ms"`
}

// Rates are what --device auto knows of a path: measured by `vkstat bench
// --tune` and kept beside the tune cache (tune.ReadRates), or the built-in
// estimates of BuiltinRates.
type Rates struct {
	// Source says where the figures come from.
	Source string `json:"source"`
	// GPU says the path is a GPU (discrete, integrated or virtual): what
	// auto weighs against the CPU path.
	GPU bool `json:"gpu"`
	// StartupMs is a device's start-up in a process: the Vulkan loader,
	// the instance, the device and its pipeline cache (0 for the CPU path).
	StartupMs float64 `json:"startup_ms"`
	// LinkGBs is host↔device bandwidth in 10⁹ bytes/s; 0: no copies (the
	// CPU path, or a device whose buffers are host memory).
	LinkGBs float64 `json:"link_gb_per_s"`
	// Ops are the operations' rates by Job.Op; an operation missing here
	// takes Default's.
	Ops     map[string]OpRate `json:"ops"`
	Default OpRate            `json:"default"`
}

// Estimate is how long j takes on the path r describes.
func (r Rates) Estimate(j Job) time.Duration {
	op, ok := r.Ops[j.Op]
	if !ok {
		op = r.Default
	}
	ms := op.FixedMs
	if j.Process {
		ms += r.StartupMs + op.FirstMs
	}
	if op.Flops > 0 {
		ms += j.Flops / op.Flops * 1e3
	}
	if link := cmp.Or(op.GBs, r.LinkGBs); link > 0 {
		ms += j.Bytes / (link * 1e9) * 1e3
	}
	return time.Duration(ms * float64(time.Millisecond))
}

// MinGPUStartup is the least start-up in a process that a GPU is expected
// to have when no rates were measured: a job whose CPU-path estimate is
// below it runs on the CPU path without looking for Vulkan at all. The
// H100 took 134 ms (2026-11-28); 25 ms leaves room for faster machines.
const MinGPUStartup = 25 * time.Millisecond

// The built-in rates other than each workload's own (engine.Spec.Auto,
// from the 2026-11-28 H100 run, docs/benchmarks/gpu/2026-11-28-h100, and
// the 2-core VM): an estimate per kind of path, for jobs on a device never
// measured.
var discrete = Rates{
	Source:    "built-in estimate for a discrete GPU",
	GPU:       true,
	StartupMs: 130, // H100: loader, instance, device 134 ms
	LinkGBs:   25,  // PCIe as the staging ring ran it: 32-38 GB/s on the H100
	Default:   OpRate{Flops: 5e11, FixedMs: 5, FirstMs: 40},
}

// BuiltinRates are the estimates for a path never measured: the CPU path
// (info nil) with threads threads, or a Vulkan device by its type, from
// the workloads' own (ops, by Job.Op: workloads.Rates). An
// integrated GPU shares host memory (no copies) and is taken as a fifth
// of a discrete one; CPU-type Vulkan devices (lavapipe, SwiftShader) as
// slower than the CPU path they run on.
func BuiltinRates(info *DeviceInfo, threads int, ops map[string]BuiltinRate) Rates {
	if info == nil {
		r := Rates{Source: fmt.Sprintf("built-in estimate for the CPU path on %d threads", threads), Ops: map[string]OpRate{}}
		for k, b := range ops {
			if v := b.CPU; v != (OpRate{}) {
				v.Flops *= float64(threads)
				r.Ops[k] = v
			}
		}
		r.Default = OpRate{Flops: 1e9 * float64(threads)}
		return r
	}
	r := Rates{Source: "built-in estimate for a " + info.Type + " device", StartupMs: discrete.StartupMs, LinkGBs: discrete.LinkGBs,
		Ops: map[string]OpRate{}, Default: discrete.Default, GPU: info.IsGPU()}
	scale := 1.0
	switch info.Type {
	case "discrete":
		r.Source = discrete.Source
	case "integrated":
		scale, r.LinkGBs = 0.2, 0
	case "virtual":
		scale = 0.2
	default: // cpu: lavapipe, SwiftShader
		scale, r.LinkGBs, r.StartupMs = 1e-3, 0, 300
	}
	for k, b := range ops {
		if v := b.GPU; v != (OpRate{}) {
			v.Flops *= scale
			r.Ops[k] = v
		}
	}
	r.Default.Flops *= scale
	return r
}

// Candidate is a path --device auto may choose: a Vulkan device (Index)
// or the CPU path (Index CPUPath), with its rates.
type Candidate struct {
	Index int
	Name  string
	Rates Rates
}

// Choice is --device auto's decision: the index chosen (CPUPath for the
// CPU path) and why, in a line.
type Choice struct {
	Index int
	Why   string
}

// Choose picks, among cands, the path whose estimate for j is least, and
// says why: the estimates of the chosen path and of the best other, and
// where their rates come from (no estimate when there is no other). Ties go to the earlier candidate (put the
// CPU path first: it needs no device).
func Choose(cands []Candidate, j Job) Choice {
	if len(cands) == 0 {
		return Choice{Index: CPUPath, Why: "auto: no path to choose from; the CPU path"}
	}
	best, second := 0, -1
	est := make([]time.Duration, len(cands))
	for i, c := range cands {
		est[i] = c.Rates.Estimate(j)
		if est[i] < est[best] {
			best = i
		}
	}
	for i := range cands {
		if i != best && (second < 0 || est[i] < est[second]) {
			second = i
		}
	}
	b := cands[best]
	if second < 0 {
		// Nothing weighed: no estimate to print (the built-in ones are
		// far from the wall on machines unlike the one they came from).
		return Choice{Index: b.Index, Why: fmt.Sprintf("auto: %s; no GPU to weigh it against", b.Name)}
	}
	s := cands[second]
	why := fmt.Sprintf("auto: %s, about %s for this %s (%s), against %s on %s (%s)", b.Name, roundMs(est[best]), j.Op, b.Rates.Source,
		roundMs(est[second]), s.Name, s.Rates.Source)
	return Choice{Index: b.Index, Why: why}
}

// CPUOnly is --device auto's decision without looking for Vulkan: ok when
// j's estimate on the CPU path is below floor, the least start-up any GPU
// has (MinGPUStartup, or the least measured), so that no device can win.
// The reason gives the floor, not the estimate: the built-in CPU rates
// came from a 16-thread host and were 1.6-77× off the wall on a 2-core one
// (docs/benchmarks/startup.md).
func CPUOnly(cpu Rates, j Job, floor time.Duration) (Choice, bool) {
	e := cpu.Estimate(j)
	if !j.Process || e >= floor {
		return Choice{}, false
	}
	return Choice{Index: CPUPath, Why: fmt.Sprintf("auto: the CPU path: this %s takes less than any GPU's start-up (%s) by the %s; Vulkan not loaded",
		j.Op, roundMs(floor), cpu.Source)}, true
}

// IsGPU reports whether the device is a GPU: discrete, integrated or
// virtual, not a CPU-type Vulkan device (lavapipe, SwiftShader).
func (d DeviceInfo) IsGPU() bool {
	return d.Type == "discrete" || d.Type == "integrated" || d.Type == "virtual"
}

// CPUThreads is the CPU path's thread count, what its rates scale with.
func CPUThreads() int { return runtime.GOMAXPROCS(0) }

func roundMs(d time.Duration) string {
	ms := float64(d) / float64(time.Millisecond)
	switch {
	case ms < 1:
		return fmt.Sprintf("%.2f ms", ms)
	case ms < 100:
		return fmt.Sprintf("%.1f ms", ms)
	}
	return fmt.Sprintf("%.0f ms", ms)
}
