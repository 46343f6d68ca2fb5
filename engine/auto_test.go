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

// The built-in rates are the workloads' own (their Spec.Auto: the real
// table's choices are held in package workloads): the CPU path's scaled
// by its threads, a discrete GPU's as given, an integrated one's a fifth
// with no copies, lavapipe's a thousandth; an operation with no rate of
// its own, or a zero one, takes the path's Default.
func TestBuiltinRatesScale(t *testing.T) {
	ops := map[string]BuiltinRate{"x": {CPU: OpRate{Flops: 1e9}, GPU: OpRate{Flops: 1e12, FixedMs: 2}}, "y": {}}
	cpu := BuiltinRates(nil, 4, ops)
	if cpu.Ops["x"].Flops != 4e9 || cpu.Default.Flops != 4e9 || cpu.GPU || !strings.Contains(cpu.Source, "4 threads") {
		t.Errorf("CPU path: %+v", cpu)
	}
	if _, ok := cpu.Ops["y"]; ok {
		t.Error("a zero rate is the CPU path's own")
	}
	for _, c := range []struct {
		typ   string
		flops float64
		link  float64
		gpu   bool
	}{{"discrete", 1e12, 25, true}, {"integrated", 2e11, 0, true}, {"cpu", 1e9, 0, false}} {
		r := BuiltinRates(&DeviceInfo{Type: c.typ}, 4, ops)
		if r.Ops["x"].Flops != c.flops || r.Ops["x"].FixedMs != 2 || r.LinkGBs != c.link || r.GPU != c.gpu {
			t.Errorf("%s: %+v", c.typ, r)
		}
		if _, ok := r.Ops["y"]; ok {
			t.Errorf("%s: a zero rate is the device's own", c.typ)
		}
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
