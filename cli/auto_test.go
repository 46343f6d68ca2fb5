package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vkstat/vkstat/device/tune"
	"github.com/vkstat/vkstat/engine"
	"github.com/vkstat/vkstat/tensor"
)

// slowCPURates writes, in a tune folder of t's own, rates saying the CPU
// path does 1 flop/s: every job is then worth asking Vulkan which devices
// there are (auto's shortcut to the CPU path is off).
func slowCPURates(t *testing.T) {
	t.Helper()
	t.Setenv("VKSTAT_TUNE_DIR", t.TempDir())
	path, _ := tune.RatesPath(nil, engine.CPUThreads())
	r := engine.Rates{Source: "a test's slow CPU path", Ops: map[string]engine.OpRate{"map": {Flops: 1}, "reduce": {Flops: 1}}, Default: engine.OpRate{Flops: 1}}
	if err := tune.WriteRates(path, r); err != nil {
		t.Fatal(err)
	}
}

// Issue 31 item 6: --device auto weighs the job before opening anything.
// A 1,000-element map runs on the CPU path without loading Vulkan (a
// missing loader goes unnoticed), and --time says so; when the rates say
// the CPU path is slow, the same map asks Vulkan, and on a machine whose
// only Vulkan devices are CPU-type (lavapipe, SwiftShader) runs on the CPU
// path all the same, saying there is no GPU to weigh it against.
func TestAutoWeighsTheJob(t *testing.T) {
	dir := t.TempDir()
	x := writeNPY(t, dir, "x.npy", tensor.FromF64(ramp(1000), 1000))
	t.Setenv("VKSTAT_VALIDATE", "")
	t.Setenv("VKSTAT_TUNE_DIR", t.TempDir())
	mapArgs := func(out string) []string {
		return []string{"--time", "map", "--x", x, "--y", x, "--out", filepath.Join(dir, out)}
	}
	t.Run("no Vulkan loaded", func(t *testing.T) {
		t.Setenv("VKSTAT_VULKAN_LIB", "/nonexistent/libvulkan.so.1")
		code, _, stderr := run(t, mapArgs("z.npy")...)
		if code != 0 || !strings.Contains(stderr, "CPU path (native Go") || !strings.Contains(stderr, "Vulkan not loaded") || strings.Contains(stderr, "no usable Vulkan") {
			t.Errorf("tiny map: exit %d, stderr %q; want the CPU path, Vulkan not loaded", code, stderr)
		}
	})
	t.Run("slow CPU path", func(t *testing.T) {
		slowCPURates(t)
		t.Setenv("VKSTAT_VULKAN_LIB", "/nonexistent/libvulkan.so.1")
		code, _, stderr := run(t, mapArgs("z2.npy")...)
		if code != 0 || !strings.Contains(stderr, "no usable Vulkan device (no Vulkan loader)") {
			t.Errorf("tiny map, slow CPU path: exit %d, stderr %q; want Vulkan asked, and the fallback note", code, stderr)
		}
	})
	t.Run("lavapipe only", func(t *testing.T) {
		requireVulkan(t)
		inst, _ := engine.NewInstance(engine.Options{})
		for _, d := range inst.Devices() {
			if d.IsGPU() {
				inst.Close()
				t.Skipf("a GPU is present (%s)", d.Name)
			}
		}
		inst.Close()
		slowCPURates(t)
		code, _, stderr := run(t, mapArgs("z3.npy")...)
		if code != 0 || !strings.Contains(stderr, "auto: the CPU path") || !strings.Contains(stderr, "no GPU to weigh it against") || strings.Contains(stderr, "start-up:") {
			t.Errorf("tiny map, slow CPU path, no GPU: exit %d, stderr %q", code, stderr)
		}
		// That listing is the machine's census: the next job the CPU path
		// wins does not load Vulkan; a new driver manifest makes it stale.
		code, _, stderr = run(t, mapArgs("z4.npy")...)
		if code != 0 || !strings.Contains(stderr, "Vulkan not loaded (the GPUs as listed") {
			t.Errorf("second tiny map: exit %d, stderr %q; want the census's decision", code, stderr)
		}
		manifest := filepath.Join(t.TempDir(), "extra_icd.json")
		if err := os.WriteFile(manifest, []byte(`{"file_format_version": "1.0.0", "ICD": {"library_path": "/nonexistent.so", "api_version": "1.3.0"}}`), 0o644); err != nil {
			t.Fatal(err)
		}
		t.Setenv("VK_ADD_DRIVER_FILES", strings.Trim(os.Getenv("VK_ADD_DRIVER_FILES")+":"+manifest, ":"))
		code, _, stderr = run(t, mapArgs("z5.npy")...)
		if code != 0 || strings.Contains(stderr, "as listed") || !strings.Contains(stderr, "no GPU to weigh it against") {
			t.Errorf("tiny map after a new driver manifest: exit %d, stderr %q; want the devices listed again", code, stderr)
		}
	})
	if _, err := os.Stat(filepath.Join(dir, "z.npy")); err != nil {
		t.Error(err)
	}
}
