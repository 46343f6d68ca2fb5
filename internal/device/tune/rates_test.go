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
