package tune

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/vkstat/vkstat/engine"
)

// A rates file reads back as written and wins over the built-in estimates;
// a malformed one is set aside, said so; StartupFloor is the least GPU
// start-up measured (lavapipe's does not count), never below the built-in
// floor.
func TestRatesFile(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("VKSTAT_TUNE_DIR", dir)
	gpu := engine.DeviceInfo{VendorID: 0x10de, DeviceID: 0x2330, DriverVersion: "580.159.4", Type: "discrete"}
	if r := RatesFor(&gpu, 16, nil); !strings.HasPrefix(r.Source, "built-in") {
		t.Fatalf("no file: %q", r.Source)
	}
	if StartupFloor() != engine.MinGPUStartup {
		t.Errorf("floor with no file: %v", StartupFloor())
	}
	want := engine.Rates{Source: "measured", GPU: true, StartupMs: 80, Ops: map[string]engine.OpRate{"map": {Flops: 1e11, FixedMs: 1}}}
	path, ok := RatesPath(&gpu, 16)
	if !ok {
		t.Fatal("no rates path")
	}
	if err := WriteRates(path, want); err != nil {
		t.Fatal(err)
	}
	if r := RatesFor(&gpu, 16, nil); r.Source != "measured" || r.Ops["map"] != want.Ops["map"] || r.StartupMs != 80 {
		t.Errorf("read back %+v", r)
	}
	lvp := want
	lvp.GPU, lvp.StartupMs = false, 30
	if err := WriteRates(filepath.Join(dir, "10005-0000-0.0.1"+ratesExt), lvp); err != nil {
		t.Fatal(err)
	}
	if got := StartupFloor(); got != 80*time.Millisecond {
		t.Errorf("floor: %v, want the GPU's 80 ms", got)
	}
	cpuPath, _ := RatesPath(nil, 16)
	if filepath.Base(cpuPath) != "cpu-16"+ratesExt {
		t.Errorf("the CPU path's file: %s", cpuPath)
	}
	for name, body := range map[string]string{
		"not JSON":      "{",
		"unknown field": `{"source": "x", "ops": {"map": {"flops_per_s": 1}}, "speed": 3}`,
		"no ops":        `{"source": "x"}`,
		"zero rate":     `{"source": "x", "ops": {"map": {"flops_per_s": 0}}}`,
	} {
		if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		if r := RatesFor(&gpu, 16, nil); !strings.HasPrefix(r.Source, "built-in") || !strings.Contains(r.Source, path) {
			t.Errorf("%s: %q; want the built-in estimate naming the bad file", name, r.Source)
		}
	}
}

// TestStoreRates: rates stored over a file keep the operations measured
// there before that the new ones lack; the default is reduce's where
// reduce was measured, else the first operation's by name.
func TestStoreRates(t *testing.T) {
	path := filepath.Join(t.TempDir(), "x"+ratesExt)
	cov, mapr, red := engine.OpRate{Flops: 2e9}, engine.OpRate{Flops: 3e9}, engine.OpRate{Flops: 4e9}
	if err := StoreRates(path, engine.Rates{Source: "a", Ops: map[string]engine.OpRate{"map": mapr, "cov": {Flops: 1e9}}}); err != nil {
		t.Fatal(err)
	}
	if r, err := ReadRates(path); err != nil || r.Default != (engine.OpRate{Flops: 1e9}) || len(r.Ops) != 2 {
		t.Errorf("first store: %+v %v; want cov's rate as the default", r, err)
	}
	if err := StoreRates(path, engine.Rates{Source: "b", Ops: map[string]engine.OpRate{"cov": cov, "reduce": red}}); err != nil {
		t.Fatal(err)
	}
	r, err := ReadRates(path)
	if err != nil || r.Source != "b" || r.Default != red || len(r.Ops) != 3 || r.Ops["map"] != mapr || r.Ops["cov"] != cov {
		t.Errorf("second store: %+v %v; want map kept, cov replaced, reduce's rate as the default", r, err)
	}
	if err := StoreRates(path, engine.Rates{}); err == nil {
		t.Error("no rates stored without an error")
	}
}

// TestAuto: a job the CPU path's rates finish below any GPU's start-up is
// the CPU path's without looking for Vulkan; with a CPU path of 1 flop/s
// the devices are listed, and the GPU among them (not a CPU-type device)
// wins by its rates file.
func TestAuto(t *testing.T) {
	t.Setenv("VKSTAT_TUNE_DIR", t.TempDir())
	job := engine.Job{Op: "map", Flops: 1e3}
	if ch, ok, choose := Auto(job, 4, nil); !ok || choose != nil || ch.Index != engine.CPUPath || !strings.Contains(ch.Why, "Vulkan not loaded") {
		t.Errorf("a tiny job: %+v %v; want the CPU path, Vulkan not loaded", ch, ok)
	}
	cpu, _ := RatesPath(nil, 4)
	gpu := engine.DeviceInfo{Index: 1, Name: "G", VendorID: 0x10de, DeviceID: 0x2330, DriverVersion: "580.159.4", Type: "discrete"}
	gpath, _ := RatesPath(&gpu, 4)
	slow, fast := engine.Rates{Source: "slow", Ops: map[string]engine.OpRate{"map": {Flops: 1}}}, engine.Rates{Source: "fast", GPU: true, Ops: map[string]engine.OpRate{"map": {Flops: 1e12}}}
	if WriteRates(cpu, slow) != nil || WriteRates(gpath, fast) != nil {
		t.Fatal("writing the rates")
	}
	_, ok, choose := Auto(job, 4, nil)
	if ok || choose == nil {
		t.Fatalf("a slow CPU path: ok %v; want the devices asked", ok)
	}
	lvp := engine.DeviceInfo{Index: 0, Name: "llvmpipe", Type: "cpu"}
	if ch := choose([]engine.DeviceInfo{lvp, gpu}); ch.Index != 1 || !strings.Contains(ch.Why, "G, about") || !strings.Contains(ch.Why, "(fast)") {
		t.Errorf("choice %+v; want the GPU by its rates", ch)
	}
}
