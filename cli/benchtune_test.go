package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
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
		{[]string{"bench", "--tune", "--device", "cpu"}, "no Vulkan device"},
	} {
		code, _, stderr := run(t, c.args...)
		if code == 0 || !strings.Contains(stderr, c.want) {
			t.Errorf("%v: exit %d, %s; want an error saying %s", c.args, code, stderr, c.want)
		}
	}
	devs := devicesUnderTest(t)
	if len(devs) < 2 {
		t.Skip("no Vulkan device")
	}
	code, stdout, stderr := run(t, "bench", "--tune", "--suite", "map", "--device", devs[1], "--repeat", "1")
	if code != 0 || !strings.Contains(stdout, "| mapx candidate |") || !strings.Contains(stdout, "(chosen)") {
		t.Fatalf("bench --tune: exit %d\n%s\n%s", code, stdout, stderr)
	}
	files, _ := filepath.Glob(filepath.Join(dir, "*.json"))
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
