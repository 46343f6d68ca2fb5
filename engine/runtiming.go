package engine

import (
	"fmt"
	"io"
	"strings"
	"time"
	"unicode/utf8"
)

// RunTiming is a whole run's timing as a front end measures it around a
// library call: where it ran, its start-up, the reading and writing of its
// files and the device's close, beside the call's own Timing. WriteText
// is what `vkstat --time` prints, Report what --time-json writes.
type RunTiming struct {
	// Device names where the run was; Why says why --device auto chose
	// it (Set.Why).
	Device, Why string
	// OnDevice: the run was on a Vulkan device, whose start-up, pipelines,
	// close, copies and counts are printed; on the CPU path there are
	// none.
	OnDevice bool
	// Startup is the time to load Vulkan and open the device, StartupPhases
	// its parts; Pipelines the time the device spent creating pipelines
	// (Built of them), inside the run as each kernel is first used; Close
	// the device's close.
	Startup       time.Duration
	StartupPhases Startup
	Pipelines     time.Duration
	Built         int
	Close         time.Duration
	// Read and Write are the time the front end spent on its files.
	Read, Write time.Duration
	// Streamed: the file was read as it was uploaded (the upload counts
	// the read).
	Streamed bool
	// ReadBeside: Read is a reader goroutine's, beside the call, whose
	// phases hold the call's wait for it (read-wait): a figure, not a
	// phase of the wall.
	ReadBeside bool
	// OwnSteps: the front end printed the call's steps itself, not upload,
	// kernel and download.
	OwnSteps bool
	// Account: the call's phases are the run's whole account, from its
	// start (start-up, reads, writes and close among them): the run adds
	// none of its own.
	Account bool
	// Notes follow the phases of those names in the text's list.
	Notes map[string]string
	// Call is the library call's timing; Total the run's wall time.
	Call  Timing
	Total time.Duration
}

// RunReport is a RunTiming in milliseconds: the call's timing
// (TimingReport, as the C ABI's timing gives it) with the run's own phases
// (start-up, read, write, close) among its phases, and OtherMs what no
// phase names of the run's whole wall time, TotalMs.
type RunReport struct {
	Device  string  `json:"device"`
	TotalMs float64 `json:"total_ms"`
	TimingReport
}

// Report is r in milliseconds.
func (r RunTiming) Report() RunReport {
	t := r.Call
	rep := RunReport{Device: r.Device, TotalMs: Ms(r.Total), TimingReport: t.Report()}
	if r.Account {
		all := Timing{Phases: t.Phases, Wall: r.Total}
		rep.Phases, rep.OtherMs = all.Report().Phases, Ms(all.Other())
		return rep
	}
	var all Timing
	all.AddPhase("start-up", r.Startup)
	if r.Read > 0 && !r.ReadBeside {
		all.AddPhase("read", r.Read)
	}
	for _, p := range t.Phases {
		all.AddPhase(p.Name, p.Time)
	}
	if r.Write > 0 {
		all.AddPhase("write", r.Write)
	}
	all.AddPhase("close", r.Close)
	all.Wall = r.Total
	rep.Phases, rep.OtherMs = all.Report().Phases, Ms(all.Other())
	return rep
}

// WriteText writes where the time went: start-up (loading Vulkan, opening
// the device), reading inputs, the device's copies and kernels, writing
// outputs, and the wall time of the run; then the phases that split that
// wall time (Report's) and what the device counted (allocations,
// pipelines, submits, host bytes copied).
func (r RunTiming) WriteText(w io.Writer) {
	t := r.Call
	ms := func(d time.Duration) string { return fmt.Sprintf("%9.3f ms", float64(d.Nanoseconds())/1e6) }
	fmt.Fprintf(w, "device:   %s\n", strings.TrimSuffix(r.Device+"; "+r.Why, "; "))
	if r.OnDevice {
		fmt.Fprintf(w, "start-up: %s (%s)\npipelines:%s (%d created in the run)\nclose:    %s (device idle, pipeline cache saved, device destroyed)\n", ms(r.Startup), r.StartupPhases, ms(r.Pipelines), r.Built, ms(r.Close))
	}
	switch {
	case r.Streamed:
		fmt.Fprintf(w, "read:     (streamed: the file is read as it is uploaded)\n")
	case r.ReadBeside:
		fmt.Fprintf(w, "read:     %s (reader goroutine, beside the compute; the compute's wait for it is read-wait)\n", ms(r.Read))
	case r.Read > 0: // front ends that time their reads
		fmt.Fprintf(w, "read:     %s\n", ms(r.Read))
	}
	switch {
	case r.OwnSteps: // the front end printed the call's steps
	case !r.OnDevice:
		fmt.Fprintf(w, "compute:  %s (no copies on the CPU path)\n", ms(t.Kernel))
	default:
		kernel := ms(t.Kernel) + " (GPU timestamps)"
		if !t.GPUTimed {
			kernel = "n/a (device has no timestamps)"
		}
		up := ms(t.Upload) + " (" + SizeText(t.UpBytes) + ")"
		if r.Streamed {
			up += " (with the file read)"
		}
		down := ms(t.Download) + " (" + SizeText(t.DownBytes) + ")"
		fmt.Fprintf(w, "upload:   %s\nkernel:   %s\ndownload: %s\n", up, kernel, down)
	}
	if r.Write > 0 {
		fmt.Fprintf(w, "write:    %s\n", ms(r.Write))
	}
	rep := r.Report()
	fmt.Fprintf(w, "total:    %s (wall)\n", ms(r.Total))
	fmt.Fprintf(w, "phases of the total (%.1f%% named):\n", 100-100*rep.OtherMs/max(rep.TotalMs, 1e-9))
	width := 9 // the names' column, 10 wide at least
	for _, p := range rep.Phases {
		width = max(width, utf8.RuneCountInString(p.Name))
	}
	for _, p := range rep.Phases {
		fmt.Fprintf(w, "  %-*s%9.3f ms%s\n", width+1, p.Name, p.Ms, r.Notes[p.Name])
	}
	fmt.Fprintf(w, "  %-*s%9.3f ms (named by no phase)\n", width+1, "other", rep.OtherMs)
	if r.OnDevice {
		fmt.Fprintf(w, "counts:   %s\n", t.Counts)
	}
}

// String words what the device counted over a call.
func (c Counts) String() string {
	return fmt.Sprintf("%d allocations (%s), %d frees, %d imports (%s), %d pipelines, %d descriptor pools, %d sets, "+
		"%d command buffers (%d recorded, %d replayed), %d query pools, %d dispatches, %d submits (%d overlapped), %d fence waits; host bytes copied: %s in, %s out; %s moved by the device from or into imported memory",
		c.Allocs, SizeText(c.AllocBytes), c.Frees, c.Imports, SizeText(c.ImportBytes), c.Pipelines, c.DescriptorPools, c.DescriptorSets,
		c.CommandBuffers, c.Recordings, c.Replays, c.QueryPools, c.Dispatches, c.Submits, c.Overlapped, c.FenceWaits,
		SizeText(c.StagingIn+c.MappedIn), SizeText(c.StagingOut+c.MappedOut), SizeText(c.Imported))
}
