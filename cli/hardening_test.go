package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vkstat/vkstat/engine"
	"github.com/vkstat/vkstat/tensor"
)

// Issue 9, item 2: a loader with no working driver must not stop the
// default device; an explicit Vulkan choice fails naming the real cause.
func TestNoDriverFallsBackOnAuto(t *testing.T) {
	requireVulkan(t)
	dir := t.TempDir()
	in := writeNPY(t, dir, "a.npy", tensor.FromF64(ramp(60), 6, 10))
	t.Setenv("VK_DRIVER_FILES", "/nonexistent.json")
	t.Setenv("VKSTAT_VALIDATE", "")

	code, _, stderr := run(t, "reduce", "--in", in, "--axis", "0", "--out-dir", filepath.Join(dir, "auto"))
	if code != 0 {
		t.Fatalf("--device auto without a driver: exit %d, want 0 (the CPU path): %s", code, stderr)
	}
	if n := strings.Count(strings.TrimSpace(stderr), "\n"); n != 0 || !strings.Contains(stderr, "CPU path") {
		t.Errorf("--device auto: want a one-line note naming the CPU path on stderr, got %q", stderr)
	}
	if _, err := os.Stat(filepath.Join(dir, "auto", "mean.npy")); err != nil {
		t.Errorf("--device auto wrote no output: %v", err)
	}

	for _, dev := range []string{"gpu", "lavapipe"} {
		code, _, stderr = run(t, "--device", dev, "reduce", "--in", in, "--axis", "0", "--out-dir", filepath.Join(dir, dev))
		if code != ExitError {
			t.Errorf("--device %s without a driver: exit %d, want %d", dev, code, ExitError)
		}
		for _, want := range []string{"no usable Vulkan driver", "VK_DRIVER_FILES=/nonexistent.json points nowhere", "--device cpu"} {
			if !strings.Contains(stderr, want) {
				t.Errorf("--device %s: stderr %q does not say %q", dev, stderr, want)
			}
		}
	}
}

// Issue 9, item 2: a Vulkan instance that lists no device is the same case.
func TestNoDeviceFallsBackOnAuto(t *testing.T) {
	requireVulkan(t)
	old := listDevices
	listDevices = func(*engine.Instance) []engine.DeviceInfo { return nil }
	t.Cleanup(func() { listDevices = old })
	t.Setenv("VKSTAT_VALIDATE", "")
	dir := t.TempDir()
	in := writeNPY(t, dir, "a.npy", tensor.FromF64(ramp(60), 6, 10))

	code, _, stderr := run(t, "reduce", "--in", in, "--axis", "0", "--out-dir", filepath.Join(dir, "auto"))
	if code != 0 || !strings.Contains(stderr, "CPU path") {
		t.Fatalf("--device auto with no device: exit %d, stderr %q; want 0 and a note", code, stderr)
	}
	code, _, stderr = run(t, "--device", "gpu", "reduce", "--in", in, "--axis", "0", "--out-dir", filepath.Join(dir, "gpu"))
	if code != ExitError || !strings.Contains(stderr, "no Vulkan device") {
		t.Errorf("--device gpu with no device: exit %d, stderr %q; want %d naming no Vulkan device", code, stderr, ExitError)
	}
}

// requireVulkan skips a test that needs a working Vulkan loader and driver.
func requireVulkan(t *testing.T) {
	t.Helper()
	inst, err := engine.NewInstance(engine.Options{})
	if err != nil {
		t.Skipf("no Vulkan loader and driver to start from: %v", err)
	}
	inst.Close()
}

// Issue 9, item 3: an array larger than the memory is refused before it is
// allocated, naming its size, instead of "fatal error: out of memory".
func TestSynthRandomTooLarge(t *testing.T) {
	out := filepath.Join(t.TempDir(), "big.npy")
	code, _, stderr := run(t, "synth", "random", "--shape", "1000000,1000000", "--dtype", "f64", "--out", out)
	if code != ExitError || !strings.Contains(stderr, "7450.6 GiB") || !strings.Contains(stderr, "available") {
		t.Errorf("exit %d, stderr %q; want %d and the size in GiB against the available memory", code, stderr, ExitError)
	}
	old := availableMemory
	availableMemory = func() uint64 { return 0 } // no /proc/meminfo
	defer func() { availableMemory = old }()
	code, _, stderr = run(t, "synth", "random", "--shape", "1000000,1000000", "--dtype", "f64", "--out", out)
	if code != ExitError || !strings.Contains(stderr, "GiB") {
		t.Errorf("without meminfo: exit %d, stderr %q; want %d and the size in GiB", code, stderr, ExitError)
	}
	if _, err := os.Stat(out); err == nil {
		t.Errorf("%s was written", out)
	}
}
