package cli

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vkstat/vkstat/device/testdev"
	"github.com/vkstat/vkstat/formats"
	"github.com/vkstat/vkstat/tensor"
)

func TestMain(m *testing.M) { testdev.Main(m) }

// run runs vkstat with args and returns the exit code, stdout and stderr.
func run(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	code := Main(context.Background(), append([]string{"vkstat"}, args...), &out, &errb)
	return code, out.String(), errb.String()
}

func writeNPY(t *testing.T, dir, name string, tt *tensor.Tensor) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := formats.WriteNPY(p, tt); err != nil {
		t.Fatal(err)
	}
	return p
}

func ramp(n int) []float64 {
	v := make([]float64, n)
	for i := range v {
		v[i] = float64(i%17) - 3.5
	}
	return v
}

// devicesUnderTest are the --device values commands are checked with: the
// CPU path, and a Vulkan device when one is present: lavapipe where the
// loader may use it, else the first device (a GPU machine without Mesa,
// or one told to use SwiftShader only).
func devicesUnderTest(t *testing.T) []string {
	devs := []string{"cpu"}
	if os.Getenv("CI") == "true" || os.Getenv("VKSTAT_TEST_VULKAN") != "" {
		testdev.Devices(t) // fails under CI without a Vulkan device
		return append(devs, vulkanName())
	}
	if lavapipeUsable() {
		devs = append(devs, "lavapipe")
	}
	return devs
}

// float64DevicesUnderTest is devicesUnderTest less a Vulkan device
// without float64 (SwiftShader, where it is the only driver): for the
// tests that run float64 data end to end.
func float64DevicesUnderTest(t *testing.T) []string {
	devs := devicesUnderTest(t)
	if len(devs) > 1 && devs[1] == "0" {
		for _, d := range testdev.Devices(t) {
			if d.Info.Index == 0 && !d.Info.Float64 {
				return devs[:1]
			}
		}
	}
	return devs
}

// vulkanUnderTest names a Vulkan device for a test that needs one, any
// one. Without a Vulkan device the test is skipped, or fails under CI.
func vulkanUnderTest(t *testing.T) string {
	t.Helper()
	testdev.Devices(t)
	return vulkanName()
}

// vulkanName is lavapipe where the loader may use it, else the first
// Vulkan device.
func vulkanName() string {
	if lavapipeUsable() {
		return "lavapipe"
	}
	return "0"
}

// lavapipeUsable reports whether lavapipe's driver is installed and the
// loader is not told to use other drivers only (VK_DRIVER_FILES or
// VK_ICD_FILENAMES naming NVIDIA's or SwiftShader's alone, as
// scripts/gpu-run.sh and CI's packed-test job do).
func lavapipeUsable() bool {
	if _, err := os.Stat("/usr/share/vulkan/icd.d/lvp_icd.x86_64.json"); err != nil {
		return false
	}
	for _, v := range []string{"VK_DRIVER_FILES", "VK_ICD_FILENAMES"} {
		if f := os.Getenv(v); f != "" && !strings.Contains(f, "lvp") {
			return false
		}
	}
	return true
}

func TestMapCommand(t *testing.T) {
	dir := t.TempDir()
	x := writeNPY(t, dir, "x.npy", tensor.FromF64(ramp(1000), 10, 100))
	y := writeNPY(t, dir, "y.npy", tensor.FromF64(ramp(1000), 10, 100))
	for _, d := range float64DevicesUnderTest(t) {
		out := filepath.Join(dir, "z-"+d+".npy")
		code, _, stderr := run(t, "--device", d, "--validate="+boolStr(d != "cpu"), "--time", "map", "--x", x, "--y", y, "--a", "3.5", "--b", "2.8", "--c", "10", "--out", out)
		if code != 0 {
			t.Fatalf("%s: exit %d: %s", d, code, stderr)
		}
		if !strings.Contains(stderr, "total:") {
			t.Errorf("%s: --time printed no total: %q", d, stderr)
		}
		z, err := formats.ReadNPY(out)
		if err != nil {
			t.Fatal(err)
		}
		xs := ramp(1000)
		for i, v := range z.F64 {
			want := 3.5*xs[i]*xs[i] + 2.8*xs[i] + 10
			if math.Abs(v-want) > 1e-12*math.Abs(want) {
				t.Fatalf("%s: z[%d] = %g, want %g", d, i, v, want)
			}
		}
	}
}

func boolStr(b bool) string {
	if b {
		return "true"
	}
	return "false"
}

func TestReduceCommand(t *testing.T) {
	dir := t.TempDir()
	in := writeNPY(t, dir, "in.npy", tensor.FromF64(ramp(4*5*6), 4, 5, 6))
	for _, d := range float64DevicesUnderTest(t) {
		outDir := filepath.Join(dir, "out-"+d)
		code, stdout, stderr := run(t, "--device", d, "reduce", "--in", in, "--axis", "-2", "--stat", "all", "--ddof", "1", "--out-dir", outDir)
		if code != 0 {
			t.Fatalf("%s: exit %d: %s", d, code, stderr)
		}
		if !strings.Contains(stdout, "mean.npy") {
			t.Errorf("%s: summary lacks mean.npy: %q", d, stdout)
		}
		for _, s := range []string{"sum", "mean", "var", "std", "min", "max"} {
			r, err := formats.ReadNPY(filepath.Join(outDir, s+".npy"))
			if err != nil {
				t.Fatal(err)
			}
			if !tensor.SameShape(r.Shape, []int{4, 6}) {
				t.Fatalf("%s: %s has shape %v", d, s, r.Shape)
			}
		}
	}
}

// TestMapReduceReadFITS: map and reduce read FITS (also gzipped) as well
// as NPY, as the README says, and their help says so.
func TestMapReduceReadFITS(t *testing.T) {
	dir := t.TempDir()
	x := filepath.Join(dir, "x.fits")
	if err := formats.WriteFITS(x, tensor.FromF64(ramp(12), 3, 4), nil); err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := formats.EncodeFITS(&buf, tensor.FromF32([]float32{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12}, 3, 4), nil); err != nil {
		t.Fatal(err)
	}
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write(buf.Bytes())
	zw.Close()
	y := filepath.Join(dir, "y.fits.gz")
	if err := os.WriteFile(y, gz.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "z.npy")
	if code, _, stderr := run(t, "--device", "cpu", "map", "--x", x, "--y", y, "--a", "2", "--b", "1", "--c", "0.5", "--out", out); code != 0 {
		t.Fatalf("map of FITS files: exit %d: %s", code, stderr)
	}
	z, err := formats.ReadNPY(out)
	if err != nil {
		t.Fatal(err)
	}
	xs := ramp(12)
	for i, v := range z.F64 {
		if want := 2*xs[i]*xs[i] + float64(i+1) + 0.5; math.Abs(v-want) > 1e-12*math.Abs(want) {
			t.Fatalf("z[%d] = %g, want %g", i, v, want)
		}
	}
	outDir := filepath.Join(dir, "stats")
	if code, _, stderr := run(t, "--device", "cpu", "reduce", "--in", y, "--axis", "0", "--stat", "sum", "--out-dir", outDir); code != 0 {
		t.Fatalf("reduce of a FITS file: exit %d: %s", code, stderr)
	}
	sum, err := formats.ReadNPY(filepath.Join(outDir, "sum.npy"))
	if err != nil || fmt.Sprint(sum.Shape, sum.Float64s()) != "[4] [15 18 21 24]" {
		t.Errorf("reduce sum: %v %v", sum, err)
	}
	for _, cmd := range [][]string{{"map", "--help"}, {"reduce", "--help"}, {"--help"}} {
		_, stdout, _ := run(t, cmd...)
		if !strings.Contains(stdout, "FITS") || strings.Contains(stdout, "input x (.npy)") ||
			strings.Contains(stdout, "input array (.npy)") || strings.Contains(stdout, "read and written as NumPy") {
			t.Errorf("vkstat %s does not say FITS files are read:\n%s", strings.Join(cmd, " "), stdout)
		}
	}
}

// TestBadInput: each mistake gives a clear message, a non-zero exit and no
// output file.
func TestBadInput(t *testing.T) {
	dir := t.TempDir()
	x := writeNPY(t, dir, "x.npy", tensor.FromF64(ramp(12), 3, 4))
	y43 := writeNPY(t, dir, "y43.npy", tensor.FromF64(ramp(12), 4, 3))
	complexFile := filepath.Join(dir, "c.npy")
	hdr := "{'descr': '<c16', 'fortran_order': False, 'shape': (2,), }"
	hdr += strings.Repeat(" ", 64-(10+len(hdr)+1)%64) + "\n"
	raw := append([]byte("\x93NUMPY\x01\x00"), byte(len(hdr)), byte(len(hdr)>>8))
	raw = append(append(raw, hdr...), make([]byte, 32)...)
	if err := os.WriteFile(complexFile, raw, 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "out.npy")
	outDir := filepath.Join(dir, "outdir")
	cases := []struct {
		name string
		env  map[string]string
		args []string
		want string
		code int
	}{
		{"missing file", nil, []string{"--device", "cpu", "map", "--x", filepath.Join(dir, "nope.npy"), "--y", x, "--out", out}, "no such file", 1},
		{"wrong dtype", nil, []string{"--device", "cpu", "reduce", "--in", complexFile, "--out-dir", outDir}, "unsupported dtype", 1},
		{"shape mismatch", nil, []string{"--device", "cpu", "map", "--x", x, "--y", y43, "--out", out}, "shape mismatch", 1},
		{"axis out of range", nil, []string{"--device", "cpu", "reduce", "--in", x, "--axis", "2", "--out-dir", outDir}, "axis 2 is out of range", 1},
		{"unknown stat", nil, []string{"--device", "cpu", "reduce", "--in", x, "--stat", "median", "--out-dir", outDir}, "unknown statistic", 2},
		{"missing flag", nil, []string{"map", "--x", x}, "missing required flag --y", 2},
		{"no loader", map[string]string{"VKSTAT_VULKAN_LIB": filepath.Join(dir, "libvulkan-missing.so")},
			[]string{"--device", "lavapipe", "map", "--x", x, "--y", x, "--out", out}, "install the Vulkan loader", 1},
		{"unknown device", nil, []string{"--device", "no-such-gpu", "map", "--x", x, "--y", x, "--out", out}, "unknown device", 2},
		{"bad flag value", nil, []string{"--device", "cpu", "reduce", "--in", x, "--axis", "abc", "--out-dir", outDir}, "want an axis", 2},
		{"bad precision", nil, []string{"--device", "cpu", "--precision", "f16", "map", "--x", x, "--y", x, "--out", out}, "unknown precision", 2},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if c.name == "unknown device" {
				devicesUnderTest(t)
				if _, err := os.Stat("/usr/share/vulkan/icd.d/lvp_icd.x86_64.json"); err != nil {
					t.Skip("needs a Vulkan loader")
				}
			}
			for k, v := range c.env {
				t.Setenv(k, v)
			}
			code, _, stderr := run(t, c.args...)
			if code != c.code {
				t.Errorf("exit %d, want %d; stderr: %s", code, c.code, stderr)
			}
			if !strings.Contains(stderr, c.want) {
				t.Errorf("stderr %q does not mention %q", stderr, c.want)
			}
			if _, err := os.Stat(out); err == nil {
				t.Errorf("%s was written", out)
			}
			if _, err := os.Stat(outDir); err == nil {
				t.Errorf("%s was created", outDir)
			}
			t.Logf("%s", strings.TrimSpace(stderr))
		})
	}
}

// TestDevicesCommand: the table lists the CPU path and, where Vulkan is
// installed (always under CI), lavapipe; --json carries the full report.
func TestDevicesCommand(t *testing.T) {
	code, stdout, stderr := run(t, "devices")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if !strings.Contains(stdout, "native Go CPU path") {
		t.Errorf("no CPU path row:\n%s", stdout)
	}
	code, js, stderr := run(t, "devices", "--json")
	if code != 0 {
		t.Fatalf("--json: exit %d: %s", code, stderr)
	}
	var rep struct {
		Vulkan []struct {
			Name                  string `json:"name"`
			APIVersion            string `json:"api_version"`
			MaxStorageBufferRange uint32 `json:"max_storage_buffer_range"`
			SubgroupSize          uint32 `json:"subgroup_size"`
		} `json:"vulkan"`
		CPU map[string]any `json:"cpu"`
	}
	if err := json.Unmarshal([]byte(js), &rep); err != nil {
		t.Fatalf("--json is not JSON: %v\n%s", err, js)
	}
	if rep.CPU == nil {
		t.Error("--json lacks the CPU path")
	}
	if len(devicesUnderTest(t)) > 1 {
		found := false
		for _, d := range rep.Vulkan {
			if (strings.Contains(d.Name, "llvmpipe") || !lavapipeUsable()) && d.APIVersion != "" && d.MaxStorageBufferRange > 0 && d.SubgroupSize > 0 {
				found = true
			}
		}
		if !found || lavapipeUsable() && !strings.Contains(stdout, "llvmpipe") {
			t.Errorf("lavapipe (or, where it is not to be used, a Vulkan device) missing or incomplete in the report:\n%s\n%s", stdout, js)
		}
	}
}
