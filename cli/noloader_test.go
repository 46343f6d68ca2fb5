package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vkstat/vkstat/device/tune"
	"github.com/vkstat/vkstat/tensor"
)

// childArgs carries, to TestAutoChild in a process of its own, the
// arguments of the vkstat command it runs.
const childArgs = "VKSTAT_TEST_CHILD_ARGS"

// TestAutoChild is not a test of its own: run by runChild in a fresh
// process of the test binary, it runs one vkstat command, then says on
// standard output whether the Vulkan loader is mapped into the process
// (/proc/self/maps), and exits with the command's code.
func TestAutoChild(t *testing.T) {
	enc := os.Getenv(childArgs)
	if enc == "" {
		t.Skip("run by TestAutoNeverLoadsVulkan in a process of its own")
	}
	var args []string
	if err := json.Unmarshal([]byte(enc), &args); err != nil {
		t.Fatal(err)
	}
	code := Main(context.Background(), append([]string{"vkstat"}, args...), os.Stdout, os.Stderr)
	maps, err := os.ReadFile("/proc/self/maps")
	if err != nil {
		t.Fatal(err)
	}
	fmt.Printf("\nloader mapped: %v\n", bytes.Contains(maps, []byte("libvulkan")))
	os.Exit(code)
}

// runChild runs vkstat args in a process of its own (TestAutoChild) and
// says whether it mapped the Vulkan loader, with its standard error.
func runChild(t *testing.T, args ...string) (bool, string) {
	t.Helper()
	enc, _ := json.Marshal(args)
	cmd := exec.Command(os.Args[0], "-test.run=^TestAutoChild$", "-test.count=1")
	cmd.Env = append(os.Environ(), childArgs+"="+string(enc))
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("vkstat %s: %v\n%s%s", strings.Join(args, " "), err, stdout.String(), stderr.String())
	}
	switch {
	case strings.Contains(stdout.String(), "loader mapped: true"):
		return true, stderr.String()
	case strings.Contains(stdout.String(), "loader mapped: false"):
		return false, stderr.String()
	}
	t.Fatalf("vkstat %s: the child said nothing of the loader:\n%s", strings.Join(args, " "), stdout.String())
	return false, ""
}

// Issue 39 item 4: on a machine whose census lists no GPU (lavapipe and
// SwiftShader are CPU-type devices, not GPUs), no command run with
// --device auto maps the Vulkan loader into its process: not the jobs the
// CPU path wins by their size, nor latent and survey, which open a device
// without sizing a job, nor paco from FITS, whose job is not sized from
// its header. The CPU path's rates are a test's slow ones, so that no job
// is small enough to skip the census. The first run takes the census and
// maps the loader (the check sees it); every later one decides from it.
func TestAutoNeverLoadsVulkan(t *testing.T) {
	requireVulkan(t)
	t.Setenv("VKSTAT_VALIDATE", "")
	t.Setenv("VKSTAT_VULKAN_LIB", "")
	slowCPURates(t)
	dir, out := t.TempDir(), t.TempDir()
	j := func(p ...string) string { return filepath.Join(append([]string{dir}, p...)...) }
	x := writeNPY(t, dir, "x.npy", tensor.FromF64(ramp(1000), 1000))
	cube := writeNPY(t, dir, "cube.npy", tensor.FromF64(ramp(4*8*8), 4, 8, 8))
	spd := make([]float64, 3*4*4)
	for m := 0; m < 3; m++ {
		for i := 0; i < 4; i++ {
			for k := 0; k < 4; k++ {
				spd[(m*4+i)*4+k] = 1 / float64(1+i+k) // Hilbert, positive definite
			}
			spd[(m*4+i)*4+i] += float64(m + 1)
		}
	}
	a := writeNPY(t, dir, "a.npy", tensor.FromF64(spd, 3, 4, 4))
	for _, s := range [][]string{
		{"synth", "paco", "--size", "24", "--frames", "8", "--format", "both", "--out-dir", j("adi")},
		{"synth", "stack", "--dates", "2", "--shape", "32,32", "--type", "cfloat32", "--format", "envi", "--out-dir", j("slc")},
		{"synth", "latent", "--shape", "1,4,4,8,8", "--out", j("lat.npy")},
		{"synth", "survey", "--targets", "2", "--size", "24", "--frames", "8", "--out-dir", j("survey")},
	} {
		if code, _, stderr := run(t, s...); code != 0 {
			t.Fatalf("%v: exit %d: %s", s, code, stderr)
		}
	}
	paco := func(ext string) []string {
		return []string{"--time", "paco", "--cube", j("adi", "cube"+ext), "--angles", j("adi", "angles"+ext), "--psf", j("adi", "psf"+ext),
			"--center", "12,12", "--radius", "2", "--format", "npy", "--out-dir", filepath.Join(out, "paco"+ext)}
	}
	// The first run on this machine lists the devices, and keeps the
	// listing (tune.Census).
	if mapped, stderr := runChild(t, "--time", "latent", "--in", j("lat.npy"), "--out-dir", filepath.Join(out, "latent0")); !mapped {
		t.Fatalf("the first run mapped no Vulkan loader (the check cannot see it?):\n%s", stderr)
	}
	census, ok := tune.ReadCensus()
	if !ok {
		t.Fatal("the first run left no census")
	}
	if len(census.GPUs) > 0 {
		t.Skipf("this machine has a GPU (%s): auto may load Vulkan", census.GPUs[0].Name)
	}
	for _, args := range [][]string{
		{"--time", "map", "--x", x, "--y", x, "--out", filepath.Join(out, "z.npy")},
		{"--time", "reduce", "--in", cube, "--axis", "0", "--stat", "mean,std", "--out-dir", filepath.Join(out, "reduce")},
		{"--time", "cov", "--in", cube, "--out-cov", filepath.Join(out, "cov.npy")},
		{"--time", "chol", "--in", a, "--out-logdet", filepath.Join(out, "logdet.npy")},
		{"--time", "stack", "--looks", "2x2", "--format", "npy", "--out-dir", filepath.Join(out, "stack"), j("slc", "date_001.bin"), j("slc", "date_002.bin")},
		{"--time", "latent", "--in", j("lat.npy"), "--out-dir", filepath.Join(out, "latent")},
		paco(".npy"),
		paco(".fits"),
		{"--time", "survey", "run", j("survey", "manifest.csv"), "--radius", "2", "--out-dir", filepath.Join(out, "survey")},
	} {
		mapped, stderr := runChild(t, args...)
		said := strings.Contains(stderr, "Vulkan not loaded") || args[1] == "survey" // survey prints no reason
		if mapped || !said || strings.Contains(stderr, "no usable Vulkan") {
			t.Errorf("vkstat %s: loader mapped %v; want the CPU path without it, saying so:\n%s", args[1], mapped, stderr)
		}
	}
}
