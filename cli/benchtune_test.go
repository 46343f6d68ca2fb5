package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vkstat/vkstat/device/tune"
	"github.com/vkstat/vkstat/engine"
)

// TestBenchTune: bench --tune times the map's candidates on lavapipe, stores
// the winner in the tune cache, and devices --tune then says the value
// comes from that file; a malformed cache file is named; misuse is a usage
// error.
func TestBenchTune(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("VKSTAT_TUNE_DIR", dir)
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"bench", "--tune", "--suite", "paco", "--device", "cpu"}, `suite "paco" has nothing to tune`},
		{[]string{"bench", "--no-save", "--suite", "map"}, "--no-save goes with --tune"},
		{[]string{"bench", "--tune", "--png", filepath.Join(dir, "x.png")}, "--png does not go with --tune"},
	} {
		code, _, stderr := run(t, c.args...)
		if code == 0 || !strings.Contains(stderr, c.want) {
			t.Errorf("%v: exit %d, %s; want an error saying %s", c.args, code, stderr, c.want)
		}
	}
	// The CPU path has nothing to tune, but rates for --device auto.
	code, stdout, stderr := run(t, "bench", "--tune", "--suite", "map", "--device", "cpu", "--repeat", "1")
	if cpu, _ := tune.RatesPath(nil, engine.CPUThreads()); code != 0 || !strings.Contains(stdout, "rates stored in "+cpu) {
		t.Errorf("bench --tune --device cpu: exit %d\n%s\n%s", code, stdout, stderr)
	} else if r, err := tune.ReadRates(cpu); err != nil || r.Ops["map"].Flops <= 0 || len(r.Ops) != 1 {
		t.Errorf("the CPU path's rates: %+v, %v; want the map's only", r, err)
	}
	devs := devicesUnderTest(t)
	if len(devs) < 2 {
		t.Skip("no Vulkan device")
	}
	code, stdout, stderr = run(t, "bench", "--tune", "--suite", "map", "--device", devs[1], "--repeat", "1")
	if code != 0 || !strings.Contains(stdout, "| mapx candidate |") || !strings.Contains(stdout, "(chosen)") {
		t.Fatalf("bench --tune: exit %d\n%s\n%s", code, stdout, stderr)
	}
	if !strings.Contains(stderr, "skipped (a CPU-type device") {
		t.Errorf("bench --tune measured lavapipe's rates, which auto does not weigh: %s", stderr)
	}
	files, _ := filepath.Glob(filepath.Join(dir, "*[0-9].json")) // not *.rates.json
	if len(files) != 1 {
		t.Fatalf("tune cache files: %v", files)
	}
	code, stdout, stderr = run(t, "devices", "--tune")
	if code != 0 || !strings.Contains(stdout, "workgroup") || !strings.Contains(stdout, "cache "+files[0]) {
		t.Errorf("devices --tune after bench --tune: exit %d\n%s\n%s", code, stdout, stderr)
	}
	if err := os.WriteFile(files[0], []byte(`{"pipelines": {"mapx": {"workgroup": 100}}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	code, stdout, _ = run(t, "devices", "--tune")
	if code != 0 || !strings.Contains(stdout, files[0]+": bad tuning: mapx.workgroup = 100: want a power of two") {
		t.Errorf("devices --tune with a malformed cache: exit %d\n%s", code, stdout)
	}
}
