package engine

import (
	"strings"
	"testing"
	"time"
)

// The arithmetic of an estimate, by hand: start-up 100 ms, first call 5,
// fixed 2, 10⁹ flops at 10⁹/s (1000 ms), 10⁸ bytes at 10 GB/s (10 ms).
func TestEstimate(t *testing.T) {
	r := Rates{StartupMs: 100, LinkGBs: 10, Ops: map[string]OpRate{"x": {Flops: 1e9, FixedMs: 2, FirstMs: 5}}}
	j := Job{Op: "x", Flops: 1e9, Bytes: 1e8, Process: true}
	if got := r.Estimate(j); got != 1117*time.Millisecond {
		t.Errorf("process: %v, want 1117 ms", got)
	}
	j.Process = false
	if got := r.Estimate(j); got != 1012*time.Millisecond {
		t.Errorf("session: %v, want 1012 ms", got)
	}
	// An operation's own byte rate (measured) wins over the link's; an
	// unknown operation takes Default's rates.
	r.Ops["x"] = OpRate{Flops: 1e9, GBs: 1}
	if got := r.Estimate(j); got != 1100*time.Millisecond {
		t.Errorf("own byte rate: %v, want 1100 ms", got)
	}
	r.Default = OpRate{Flops: 2e9}
	if got := r.Estimate(Job{Op: "y", Flops: 1e9}); got != 500*time.Millisecond {
		t.Errorf("default: %v, want 500 ms", got)
	}
}

// Issue 31 item 6, on the built-in estimates (no rates measured): a
// 1,000-element map and a 100×100×252 PACO run on a 16-thread CPU path, a
// 1024×1024×256 PACO on a discrete GPU. The jobs' flops and bytes are
// worked out by hand from bench's counts (suite.Op.Work): a map does 5
// flops an element and moves 3 values; PACO with radius 4 (49-pixel
// patches, 99 displacements) does 2·n·99·T + n·(49³/3 + 2·49²) + 2·n·T·49
// flops over n = H·W locations and moves (T + 3)·n float32 values.
func TestChooseByJobSize(t *testing.T) {
	cpu := Candidate{Index: CPUPath, Name: "the CPU path", Rates: BuiltinRates(nil, 16)}
	gpu := Candidate{Index: 0, Name: "H100", Rates: BuiltinRates(&DeviceInfo{Type: "discrete"}, 0)}
	pacoJob := func(t, h, w float64) Job {
		n := h * w
		return Job{Op: "paco", Flops: 2*n*99*t + n*(39216+4802) + 2*n*t*49, Bytes: (t + 3) * n * 4, Process: true}
	}
	for _, c := range []struct {
		name string
		job  Job
		want int
	}{
		{"map of 1,000 float64", Job{Op: "map", Flops: 5000, Bytes: 24000, Process: true}, CPUPath},
		{"PACO 100×100×252", pacoJob(252, 100, 100), CPUPath},
		{"PACO 1024×1024×256", pacoJob(256, 1024, 1024), 0},
	} {
		ch := Choose([]Candidate{cpu, gpu}, c.job)
		if ch.Index != c.want {
			t.Errorf("%s: chose %d (%s), want %d", c.name, ch.Index, ch.Why, c.want)
		}
		if !strings.Contains(ch.Why, "H100") || !strings.Contains(ch.Why, "the CPU path") || !strings.Contains(ch.Why, "built-in estimate") {
			t.Errorf("%s: the reason names neither both paths nor where the rates come from: %s", c.name, ch.Why)
		}
	}
	// The tiny map never looks for Vulkan; the small PACO (about 90 ms on
	// 16 threads) must ask which devices there are.
	// Issue 39 item 4: neither says a figure that nothing weighs (the
	// built-in CPU rates were 1.6-77× off the wall on a 2-core VM).
	if ch, ok := CPUOnly(cpu.Rates, Job{Op: "map", Flops: 5000, Bytes: 24000, Process: true}, MinGPUStartup); !ok || ch.Index != CPUPath || !strings.Contains(ch.Why, "Vulkan not loaded") || strings.Contains(ch.Why, "about") {
		t.Errorf("tiny map: %v %+v; want the CPU path without Vulkan", ok, ch)
	}
	if _, ok := CPUOnly(cpu.Rates, pacoJob(252, 100, 100), MinGPUStartup); ok {
		t.Error("PACO 100×100×252 decided without looking for a GPU")
	}
	if _, ok := CPUOnly(cpu.Rates, Job{Op: "map", Flops: 5000}, MinGPUStartup); ok {
		t.Error("a library call (no process start-up) decided without looking for a GPU")
	}

	// The PACO (16384, 64, 49) covariance: the CPU path as a process
	// (a GPU's start-up outweighs it), the GPU in a session that has
	// paid it. n·T·(2P + P(P+1)) flops; (n·T·P + n·(P + P² + 1))·4 bytes.
	cov := Job{Op: "cov", Flops: 16384 * 64 * (98 + 49*50), Bytes: (16384*64*49 + 16384*(49+2401+1)) * 4, Process: true}
	if ch := Choose([]Candidate{cpu, gpu}, cov); ch.Index != CPUPath {
		t.Errorf("cov as a process: %s", ch.Why)
	}
	cov.Process = false
	if ch := Choose([]Candidate{cpu, gpu}, cov); ch.Index != 0 {
		t.Errorf("cov in a session: %s", ch.Why)
	}

	// Measured rates win over the built-in ones: a GPU whose PACO calls
	// cost 20 s each loses the big PACO to the CPU path.
	slow := gpu
	slow.Rates = Rates{Source: "measured", StartupMs: 100, Ops: map[string]OpRate{"paco": {Flops: 1e12, FixedMs: 20000}}}
	if ch := Choose([]Candidate{cpu, slow}, pacoJob(256, 1024, 1024)); ch.Index != CPUPath || !strings.Contains(ch.Why, "measured") {
		t.Errorf("slow GPU: %s", ch.Why)
	}
	if ch := Choose([]Candidate{cpu}, pacoJob(256, 1024, 1024)); ch.Index != CPUPath || !strings.Contains(ch.Why, "no GPU") || strings.Contains(ch.Why, "about") {
		t.Errorf("CPU path alone: %s", ch.Why)
	}
}

// Auto's chooser decides among the listed devices, and says why; without
// one, or under validation, auto is the best GPU else the CPU path, with
// that reason.
func TestOpenAllAuto(t *testing.T) {
	inst, err := NewInstance(Options{})
	if err != nil {
		t.Skipf("no Vulkan loader and driver: %v", err)
	}
	inst.Close()
	var listed int
	pick := func(infos []DeviceInfo) Choice {
		listed = len(infos)
		return Choice{Index: infos[0].Index, Why: "auto: the test's pick"}
	}
	set, err := OpenAll("auto", OpenOptions{Auto: pick})
	if err != nil {
		t.Fatal(err)
	}
	if listed == 0 || len(set.Devices) != 1 || set.Devices[0] == nil || set.Why != "auto: the test's pick" {
		t.Errorf("chooser: %d listed, devices %v, why %q", listed, set.Devices, set.Why)
	}
	if err := set.Close(); err != nil {
		t.Fatal(err)
	}
	listed = 0
	set, err = OpenAll("auto", OpenOptions{Auto: pick, Validate: true})
	if err != nil {
		t.Fatal(err)
	}
	defer set.Close()
	if listed != 0 || !strings.HasPrefix(set.Why, "auto: ") || set.Why == "auto: the test's pick" {
		t.Errorf("under validation the chooser ran (%d listed) or no reason was given: %q", listed, set.Why)
	}
	if s, err := Open("cpu", OpenOptions{Auto: pick}); err != nil || s.Why != "" || listed != 0 {
		t.Errorf("cpu: %v, why %q, chooser ran: %v", err, s.Why, listed != 0)
	}
}
