package engine

import (
	"sync/atomic"
	"time"
)

// Phase labels a recorded step for timing.
type Phase int

// The phases a Timing splits a run into.
const (
	PhaseUpload Phase = iota
	PhaseKernel
	PhaseDownload
)

// Timing splits the cost of running sequences. Upload and Download include
// the host copies into and out of staging memory; Kernel is GPU time from
// timestamp queries when the device has them, else zero. Wall is the host
// time of the whole library call (Begin to End) where the call is measured,
// else from the first recorded step to the end of the last Run.
type Timing struct {
	Upload, Kernel, Download, Wall time.Duration
	// UpBytes and DownBytes count the bytes copied to and from the device.
	UpBytes, DownBytes int64
	// GPUTimed reports whether Kernel comes from timestamps.
	GPUTimed bool
	// Steps is the GPU time of every recorded step, in order, when the
	// device has timestamps: uploads, each kernel by name, downloads.
	Steps []Step
	// Phases split Wall into named parts of host time, in the order they
	// were first recorded: the engine's (Time* names: allocation, copies,
	// submits, waits, ...) and those callers add (AddPhase: reading a
	// file, the host's share of an analysis). Other is what they leave.
	Phases []PhaseTime
	// Counts are what the call did that costs time on a GPU (allocations,
	// pipelines, submits, host copies ...): the device's counters over the
	// call (Device.Counts). Calls running at once on one device each count
	// the other's work too.
	Counts Counts
}

// PhaseTime is the host time spent in one named phase of a call.
type PhaseTime struct {
	Name string
	Time time.Duration
}

// The phases the engine records, in the order Timing lists them.
const (
	// TimeAlloc: device and staging memory allocated and freed
	// (vkAllocateMemory, vkMapMemory, vkFreeMemory) and buffers made,
	// bound and destroyed.
	TimeAlloc = "alloc"
	// TimeImport: host memory imported (VK_EXT_external_memory_host) and
	// released.
	TimeImport = "import"
	// TimePipeline: compute pipelines created.
	TimePipeline = "pipeline"
	// TimeRecord: command buffers, descriptor sets and queries taken,
	// written and recorded; timestamps read back.
	TimeRecord = "record"
	// TimeCopyIn: host copies into staging or host-visible device memory.
	TimeCopyIn = "copy-in"
	// TimeSubmit: vkQueueSubmit, with the copy commands of the staging
	// ring recorded for it.
	TimeSubmit = "submit"
	// TimeWait: waiting for the device (fences). The GPU's own time is
	// Kernel (timestamps), beside it.
	TimeWait = "wait"
	// TimeCopyOut: host copies out of staging or host-visible memory
	// into the caller's results.
	TimeCopyOut = "copy-out"
	// TimeCompute: the CPU path's computation (TimeCPU).
	TimeCompute = "compute"
	// TimeConvert: the host's work on downloaded results (merging
	// partials, converting types), which pipelines add.
	TimeConvert = "convert"
	// TimeResults: allocating the host arrays results are written into
	// (a fresh 256 MiB array is zeroed or faulted in page by page), which
	// pipelines add; none where the caller lends them (mapx.Input.Z, the
	// C ABI's out=).
	TimeResults = "results"
)

// enginePhases are the phases a Device accumulates, indexed by the ph*
// constants.
var enginePhases = [numPhases]string{TimeAlloc, TimeImport, TimePipeline, TimeRecord, TimeCopyIn, TimeSubmit, TimeWait, TimeCopyOut}

const (
	phAlloc = iota
	phImport
	phPipeline
	phRecord
	phCopyIn
	phSubmit
	phWait
	phCopyOut
	numPhases
)

// Counts are what a device did that costs time on a GPU but hardly any
// on a CPU driver such as lavapipe, so that tests hold the costs where no
// GPU is. Device.Counts gives the running totals, Timing.Counts a call's.
type Counts struct {
	// Allocs and Frees count vkAllocateMemory and vkFreeMemory calls for
	// device and staging memory (imports apart), with their bytes.
	Allocs     int64 `json:"allocs"`
	AllocBytes int64 `json:"alloc_bytes"`
	Frees      int64 `json:"frees"`
	FreeBytes  int64 `json:"free_bytes"`
	// Imports counts host ranges imported (VK_EXT_external_memory_host),
	// ImportBytes their page-rounded size.
	Imports     int64 `json:"imports"`
	ImportBytes int64 `json:"import_bytes"`
	// Buffers counts vkCreateBuffer calls.
	Buffers int64 `json:"buffers"`
	// Pipelines counts compute pipelines created, ShaderModules the
	// modules made for them.
	Pipelines     int64 `json:"pipelines"`
	ShaderModules int64 `json:"shader_modules"`
	// DescriptorPools, CommandBuffers, QueryPools and Fences count the
	// objects created (or allocated); DescriptorSets the sets allocated.
	DescriptorPools int64 `json:"descriptor_pools"`
	DescriptorSets  int64 `json:"descriptor_sets"`
	CommandBuffers  int64 `json:"command_buffers"`
	QueryPools      int64 `json:"query_pools"`
	// Recordings counts command buffers recorded (vkBeginCommandBuffer):
	// a sequence's, unless replayed, and the staging ring's copies.
	// DescriptorWrites counts descriptors written (vkUpdateDescriptorSets);
	// Replays the sequences submitted as recorded before (replay.go).
	Recordings       int64 `json:"recordings"`
	DescriptorWrites int64 `json:"descriptor_writes"`
	Replays          int64 `json:"replays"`
	Fences           int64 `json:"fences"`
	Semaphores       int64 `json:"semaphores"`
	// Dispatches, Submits (vkQueueSubmit) and FenceWaits (waits for a
	// submission to end).
	Dispatches int64 `json:"dispatches"`
	Submits    int64 `json:"submits"`
	FenceWaits int64 `json:"fence_waits"`
	// Overlapped counts the sequences submitted by overlap work
	// (WithOverlap) while the sequence of the Run that ran it was in
	// flight: the next batch's upload submitted while this batch's
	// kernels run, say.
	Overlapped int64 `json:"overlapped"`
	// Host bytes copied by vkstat: into and out of staging memory, and
	// into and out of host-visible device buffers directly (UMA devices).
	StagingIn  int64 `json:"staging_in"`
	StagingOut int64 `json:"staging_out"`
	MappedIn   int64 `json:"mapped_in"`
	MappedOut  int64 `json:"mapped_out"`
	// Imported counts the bytes the device copied straight from or into
	// imported host memory: no host copy.
	Imported int64 `json:"imported"`
}

const (
	cAllocs = iota
	cAllocBytes
	cFrees
	cFreeBytes
	cImports
	cImportBytes
	cBuffers
	cPipelines
	cShaderModules
	cDescriptorPools
	cDescriptorSets
	cCommandBuffers
	cQueryPools
	cRecordings
	cDescriptorWrites
	cReplays
	cFences
	cSemaphores
	cDispatches
	cSubmits
	cFenceWaits
	cOverlapped
	cStagingIn
	cStagingOut
	cMappedIn
	cMappedOut
	cImported
	numCounts
)

// fields lists c's fields in the order of the c* constants.
func (c *Counts) fields() [numCounts]*int64 {
	return [numCounts]*int64{&c.Allocs, &c.AllocBytes, &c.Frees, &c.FreeBytes, &c.Imports, &c.ImportBytes,
		&c.Buffers, &c.Pipelines, &c.ShaderModules, &c.DescriptorPools, &c.DescriptorSets, &c.CommandBuffers,
		&c.QueryPools, &c.Recordings, &c.DescriptorWrites, &c.Replays, &c.Fences, &c.Semaphores, &c.Dispatches, &c.Submits, &c.FenceWaits, &c.Overlapped,
		&c.StagingIn, &c.StagingOut, &c.MappedIn, &c.MappedOut, &c.Imported}
}

// HostCopied is the host bytes vkstat copied, in and out.
func (c Counts) HostCopied() int64 { return c.StagingIn + c.StagingOut + c.MappedIn + c.MappedOut }

// Created counts the Vulkan objects made: buffers, pipelines, shader
// modules, descriptor pools and sets, command buffers, query pools, fences
// and semaphores.
func (c Counts) Created() int64 {
	return c.Buffers + c.Pipelines + c.ShaderModules + c.DescriptorPools + c.DescriptorSets + c.CommandBuffers + c.QueryPools + c.Fences + c.Semaphores
}

// Add adds o to c.
func (c *Counts) Add(o Counts) {
	a, b := c.fields(), o.fields()
	for i := range a {
		*a[i] += *b[i]
	}
}

// Sub is c − o.
func (c Counts) Sub(o Counts) Counts {
	a, b := c.fields(), o.fields()
	for i := range a {
		*a[i] -= *b[i]
	}
	return c
}

// meter holds a device's running counts and phase times.
type meter struct {
	n  [numCounts]atomic.Int64
	ns [numPhases]atomic.Int64
}

func (d *Device) count(i int, v int64) { d.meter.n[i].Add(v) }

// since adds the time since t0 to phase ph.
func (d *Device) since(ph int, t0 time.Time) { d.meter.ns[ph].Add(int64(time.Since(t0))) }

// Counts are the device's running totals since it was opened; none for
// the CPU path (a nil d).
func (d *Device) Counts() Counts {
	var c Counts
	if d == nil {
		return c
	}
	for i, p := range c.fields() {
		*p = d.meter.n[i].Load()
	}
	return c
}

func (d *Device) phaseTimes() (p [numPhases]int64) {
	for i := range p {
		p[i] = d.meter.ns[i].Load()
	}
	return p
}

// Mark is the start of a measured library call: see Begin.
type Mark struct {
	dev *Device
	t0  time.Time
	c   Counts
	ph  [numPhases]int64
}

// Begin starts measuring a library call on d (nil: the CPU path); End
// fills its Timing:
//
//	func Op(ctx context.Context, dev *engine.Device, ...) (tm engine.Timing, err error) {
//		defer engine.Begin(dev).End(&tm)
func Begin(d *Device) Mark {
	m := Mark{dev: d, t0: time.Now()}
	if d != nil {
		m.c, m.ph = d.Counts(), d.phaseTimes()
	}
	return m
}

// End sets t's Wall to the call's whole time and, on a device, its Counts
// and engine phases to what the device counted since Begin, replacing
// what timings of the steps within added up; the phases callers added
// (AddPhase) stay.
func (m Mark) End(t *Timing) {
	t.Wall = time.Since(m.t0)
	if m.dev == nil {
		return
	}
	t.Counts = m.dev.Counts().Sub(m.c)
	t.setEngine(m.dev.phaseTimes(), m.ph)
}

// setEngine replaces t's engine phases by now − then.
func (t *Timing) setEngine(now, then [numPhases]int64) {
	var ps []PhaseTime
	for i, name := range enginePhases {
		if d := time.Duration(now[i] - then[i]); d > 0 {
			ps = append(ps, PhaseTime{name, d})
		}
	}
	for _, p := range t.Phases {
		if !isEngine(p.Name) {
			ps = append(ps, p)
		}
	}
	t.Phases = ps
}

// IsEnginePhase reports whether name is one of the phases the engine
// records (the Time* names but TimeCompute, TimeConvert and TimeResults,
// which pipelines add).
func IsEnginePhase(name string) bool { return isEngine(name) }

func isEngine(name string) bool {
	for _, n := range enginePhases {
		if n == name {
			return true
		}
	}
	return false
}

// AddPhase adds d to the phase named name, appending it when new.
func (t *Timing) AddPhase(name string, d time.Duration) {
	for i := range t.Phases {
		if t.Phases[i].Name == name {
			t.Phases[i].Time += d
			return
		}
	}
	t.Phases = append(t.Phases, PhaseTime{name, d})
}

// A Clock times consecutive steps of a call into a Timing's phases, in
// wall-clock time: each Lap adds the time since the last Lap (or Include,
// or the start) as a phase (AddPhase), so that the phases add up to the
// wall time of what they time.
type Clock struct {
	t  *Timing
	t0 time.Time
}

// Clock starts timing steps into t's phases, from now.
func (t *Timing) Clock() *Clock { return &Clock{t, time.Now()} }

// Lap adds the time since the last Lap (or Include, or the start) as the
// phase name.
func (c *Clock) Lap(name string) {
	now := time.Now()
	c.t.AddPhase(name, now.Sub(c.t0))
	c.t0 = now
}

// Include adds phases, the steps of a part that timed itself, and moves
// the clock on by their total: what they leave out is in the next Lap.
func (c *Clock) Include(phases []PhaseTime) {
	for _, p := range phases {
		c.t.AddPhase(p.Name, p.Time)
		c.t0 = c.t0.Add(p.Time)
	}
}

// Phase is the time of the phase named name (0 when absent).
func (t *Timing) Phase(name string) time.Duration {
	for _, p := range t.Phases {
		if p.Name == name {
			return p.Time
		}
	}
	return 0
}

// Named is the sum of the phases.
func (t *Timing) Named() time.Duration {
	var s time.Duration
	for _, p := range t.Phases {
		s += p.Time
	}
	return s
}

// Other is the part of Wall that no phase names: Wall − the phases. It is
// negative where phases overlap (host copies running beside the kernel on
// another thread, say).
func (t *Timing) Other() time.Duration { return t.Wall - t.Named() }

// TimeCPU runs cpu, an operation's CPU path (the path taken when there is
// no device), and times it as the CPU path is timed: the whole call is
// kernel time, wall time and the compute phase, there being no copies.
func TimeCPU[T any](cpu func() (T, error)) (T, Timing, error) {
	t0 := time.Now()
	v, err := cpu()
	el := time.Since(t0)
	return v, Timing{Kernel: el, Wall: el, Phases: []PhaseTime{{TimeCompute, el}}}, err
}

// Step is the GPU time of one recorded command.
type Step struct {
	Name  string
	Phase Phase
	Time  time.Duration
}

// SetDevice sets the device's part of t, a command's own account of a
// run: the uploads, kernels and downloads of dev (the device's timing of
// it), what the device counted over it (counts, the bytes copied in and
// out among them) and its wall time.
func (t *Timing) SetDevice(dev Timing, counts Counts, wall time.Duration) {
	t.Upload, t.Kernel, t.Download, t.GPUTimed = dev.Upload, dev.Kernel, dev.Download, dev.GPUTimed
	t.Wall, t.Counts = wall, counts
	t.UpBytes, t.DownBytes = counts.StagingIn+counts.MappedIn, counts.StagingOut+counts.MappedOut
}

// Add accumulates o into t: times, bytes, steps, phases and counts.
func (t *Timing) Add(o Timing) {
	t.Upload += o.Upload
	t.UpBytes += o.UpBytes
	t.DownBytes += o.DownBytes
	t.Kernel += o.Kernel
	t.Download += o.Download
	t.Wall += o.Wall
	t.GPUTimed = t.GPUTimed || o.GPUTimed
	t.Steps = append(t.Steps, o.Steps...)
	for _, p := range o.Phases {
		t.AddPhase(p.Name, p.Time)
	}
	t.Counts.Add(o.Counts)
}

// PhaseMs is a phase in milliseconds, as reports write it.
type PhaseMs struct {
	Name string  `json:"name"`
	Ms   float64 `json:"ms"`
}

// TimingReport is a Timing in milliseconds, as `vkstat --time-json` and
// the C ABI (Session.last_timing in Python) write it.
type TimingReport struct {
	UploadMs   float64   `json:"upload_ms"`
	KernelMs   float64   `json:"kernel_ms"`
	DownloadMs float64   `json:"download_ms"`
	WallMs     float64   `json:"wall_ms"`
	UpBytes    int64     `json:"up_bytes"`
	DownBytes  int64     `json:"down_bytes"`
	GPUTimed   bool      `json:"gpu_timed"`
	Phases     []PhaseMs `json:"phases"`
	// OtherMs is the part of the wall time no phase names.
	OtherMs float64 `json:"other_ms"`
	Counts  Counts  `json:"counts"`
}

// Ms is d in milliseconds.
func Ms(d time.Duration) float64 { return float64(d.Nanoseconds()) / 1e6 }

// Report is t in milliseconds.
func (t Timing) Report() TimingReport {
	r := TimingReport{UploadMs: Ms(t.Upload), KernelMs: Ms(t.Kernel), DownloadMs: Ms(t.Download), WallMs: Ms(t.Wall),
		UpBytes: t.UpBytes, DownBytes: t.DownBytes, GPUTimed: t.GPUTimed, Phases: []PhaseMs{}, OtherMs: Ms(t.Other()), Counts: t.Counts}
	for _, p := range t.Phases {
		r.Phases = append(r.Phases, PhaseMs{p.Name, Ms(p.Time)})
	}
	return r
}
