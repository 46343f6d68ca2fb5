package engine

import (
	"strings"
	"testing"
	"time"
)

// The text and the report of a run on a device, every figure chosen by
// hand: the phases are start-up 10, read 2, the call's wait 4, write 3 and
// close 1 ms of a 25 ms wall, so 5 ms are named by none and 80% are named.
func TestRunTimingOnDevice(t *testing.T) {
	ms := time.Millisecond
	r := RunTiming{
		Device: "GPU (Vulkan 1.3, discrete)", Why: "the faster", OnDevice: true,
		Startup: 10 * ms, StartupPhases: Startup{Loader: ms, Instance: 2 * ms, Devices: 3 * ms, Device: 4 * ms},
		Pipelines: 5 * ms, Built: 2, Close: ms, Read: 2 * ms, Write: 3 * ms, Notes: map[string]string{"wait": " (the GPU)"},
		Call: Timing{Upload: ms, Kernel: 2 * ms, Download: ms / 2, UpBytes: 2048, DownBytes: 100, GPUTimed: true,
			Phases: []PhaseTime{{TimeWait, 4 * ms}}, Counts: Counts{Allocs: 3, AllocBytes: 3 << 20, Frees: 1, Pipelines: 2, Dispatches: 7, Submits: 4, StagingIn: 2048, MappedOut: 100}},
		Total: 25 * ms,
	}
	want := `device:   GPU (Vulkan 1.3, discrete); the faster
start-up:    10.000 ms (loader 1.0, instance 2.0, devices 3.0, device 4.0, pipeline cache 0.0 ms)
pipelines:    5.000 ms (2 created in the run)
close:        1.000 ms (device idle, pipeline cache saved, device destroyed)
read:         2.000 ms
upload:       1.000 ms (2.0 KiB)
kernel:       2.000 ms (GPU timestamps)
download:     0.500 ms (100 bytes)
write:        3.000 ms
total:       25.000 ms (wall)
phases of the total (80.0% named):
  start-up     10.000 ms
  read          2.000 ms
  wait          4.000 ms (the GPU)
  write         3.000 ms
  close         1.000 ms
  other         5.000 ms (named by no phase)
counts:   3 allocations (3.0 MiB), 1 frees, 0 imports (0 bytes), 2 pipelines, 0 descriptor pools, 0 sets, 0 command buffers (0 recorded, 0 replayed), 0 query pools, 7 dispatches, 4 submits (0 overlapped), 0 fence waits; host bytes copied: 2.0 KiB in, 100 bytes out; 0 bytes moved by the device from or into imported memory
`
	var b strings.Builder
	r.WriteText(&b)
	if b.String() != want {
		t.Errorf("text:\n%s\nwant:\n%s", b.String(), want)
	}
	rep := r.Report()
	if rep.Device != r.Device || rep.TotalMs != 25 || rep.OtherMs != 5 || rep.UploadMs != 1 || rep.DownloadMs != 0.5 || rep.WallMs != 0 {
		t.Errorf("report %+v", rep)
	}
	wantPhases := []PhaseMs{{"start-up", 10}, {"read", 2}, {"wait", 4}, {"write", 3}, {"close", 1}}
	if len(rep.Phases) != len(wantPhases) {
		t.Fatalf("phases %v, want %v", rep.Phases, wantPhases)
	}
	for i, p := range wantPhases {
		if rep.Phases[i] != p {
			t.Errorf("phase %d: %v, want %v", i, rep.Phases[i], p)
		}
	}
}

// On the CPU path the call is the compute, with no copies, start-up,
// close or counts printed; a read beside the call is a figure, not a
// phase; an account run's phases are the call's alone.
func TestRunTimingCPU(t *testing.T) {
	ms := time.Millisecond
	r := RunTiming{Device: "CPU path (native Go, 4 threads)", Read: 7 * ms, ReadBeside: true,
		Call:  Timing{Kernel: 6 * ms, Phases: []PhaseTime{{TimeCompute, 6 * ms}}},
		Total: 8 * ms}
	want := `device:   CPU path (native Go, 4 threads)
read:         7.000 ms (reader goroutine, beside the compute; the compute's wait for it is read-wait)
compute:      6.000 ms (no copies on the CPU path)
total:        8.000 ms (wall)
phases of the total (75.0% named):
  start-up      0.000 ms
  compute       6.000 ms
  close         0.000 ms
  other         2.000 ms (named by no phase)
`
	var b strings.Builder
	r.WriteText(&b)
	if b.String() != want {
		t.Errorf("text:\n%s\nwant:\n%s", b.String(), want)
	}
	r.Account = true
	r.Call.Phases = []PhaseTime{{"start-up", ms}, {TimeCompute, 6 * ms}}
	rep := r.Report()
	if len(rep.Phases) != 2 || rep.Phases[0] != (PhaseMs{"start-up", 1}) || rep.OtherMs != 1 {
		t.Errorf("account report: %+v", rep)
	}
}

// TestNilDeviceCounts: the CPU path (a nil device) counts nothing, so a
// run's counts there are zero, as Sub of two zero totals.
func TestNilDeviceCounts(t *testing.T) {
	var d *Device
	if c := d.Counts(); c != (Counts{}) || d.Counts().Sub(c) != (Counts{}) {
		t.Errorf("the CPU path counted %+v", c)
	}
}

// TestSetDevice: the device's times come from its timing, the wall and
// counts as given, the bytes in (staging 100 + mapped 20) and out
// (staging 7 + mapped 3) from the counts; the command's phases stay.
func TestSetDevice(t *testing.T) {
	acct := Timing{Phases: []PhaseTime{{Name: "read", Time: time.Millisecond}}}
	dev := Timing{Upload: 2 * time.Millisecond, Kernel: 5 * time.Millisecond, Download: time.Millisecond, GPUTimed: true, Wall: time.Hour}
	counts := Counts{StagingIn: 100, MappedIn: 20, StagingOut: 7, MappedOut: 3}
	acct.SetDevice(dev, counts, 9*time.Millisecond)
	if acct.Upload != 2*time.Millisecond || acct.Kernel != 5*time.Millisecond || acct.Download != time.Millisecond || !acct.GPUTimed ||
		acct.Wall != 9*time.Millisecond || acct.Counts != counts || acct.UpBytes != 120 || acct.DownBytes != 10 || len(acct.Phases) != 1 {
		t.Errorf("%+v", acct)
	}
}
