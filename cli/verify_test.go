package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/vkstat/vkstat/suite"
)

// TestVerify: `vkstat verify --device all` passes on the CPU path and every
// Vulkan device (lavapipe in CI, with the validation layer on), and the
// report records what a cross-machine comparison needs.
func TestVerify(t *testing.T) {
	devs := devicesUnderTest(t)
	report := filepath.Join(t.TempDir(), "report.json")
	args := []string{"verify", "--device", "all", "--json", report}
	if len(devs) > 1 {
		args = append([]string{"--validate"}, args...)
	}
	code, stdout, stderr := run(t, args...)
	if code != 0 {
		t.Fatalf("exit %d: %s\n%s", code, stderr, stdout)
	}
	if !strings.Contains(stdout, "verify: all passed") || strings.Contains(stdout, "FAIL") {
		t.Errorf("no clean verdict:\n%s", stdout)
	}
	var rep suite.VerifyReport
	b, err := os.ReadFile(report)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &rep); err != nil {
		t.Fatal(err)
	}
	if rep.Kind != suite.VerifyKind || rep.VkstatVersion == "" || rep.Date == "" || rep.Failed != 0 || rep.Passed == 0 {
		t.Errorf("report header: %+v", rep)
	}
	seen := map[string]bool{}
	for _, d := range rep.Devices {
		seen["cpu"] = seen["cpu"] || d.Device.Path == "cpu"
		seen["lavapipe"] = seen["lavapipe"] || strings.Contains(d.Device.Name, "llvmpipe")
		seen["0"] = seen["0"] || d.Device.Path == "vulkan"
	}
	for _, d := range devs {
		if !seen[d] {
			t.Errorf("--device all did not cover %s: %+v", d, rep.Devices)
		}
	}
	for _, d := range rep.Devices {
		if d.Device.Path == "vulkan" && (d.Device.APIVersion == "" || d.Device.Name == "" || d.Device.Driver+d.Device.DriverVersion == "") {
			t.Errorf("device record lacks driver or API version: %+v", d.Device)
		}
		ops := map[string]bool{}
		for _, r := range d.Results {
			ops[r.Op] = true
		}
		for _, want := range []string{"map", "reduce", "reduce_nan"} {
			if !ops[want] {
				t.Errorf("%s: no %s rows", d.Device.Label, want)
			}
		}
	}

	// The same report compared with itself: no differences, exit 0.
	code, stdout, stderr = run(t, "verify", "--compare", report, report)
	if code != 0 || !strings.Contains(stdout, "0 of ") {
		t.Errorf("self-compare: exit %d: %s\n%s", code, stderr, stdout)
	}
}

// TestVerifyPlantedError: one operation's outputs perturbed by one element
// make verify fail with rows that say which output, where, and by how much,
// and exit 1; --compare against a clean report shows those rows.
func TestVerifyPlantedError(t *testing.T) {
	devs := strings.Join(devicesUnderTest(t), ",")
	dir := t.TempDir()
	good, bad := filepath.Join(dir, "good.json"), filepath.Join(dir, "bad.json")
	if code, _, stderr := run(t, "verify", "--device", devs, "--op", "map,reduce", "--json", good); code != 0 {
		t.Fatalf("clean run: exit %d: %s", code, stderr)
	}
	// Perturb reduce's Vulkan kernels when a Vulkan device is there, so the
	// CPU path's rows must pass; else the CPU path's.
	where, vulkan := "cpu", strings.Contains(devs, ",")
	if vulkan {
		where = "vulkan"
	}
	code, stdout, stderr := run(t, "verify", "--device", devs, "--op", "map,reduce", "--plant-error", "reduce:"+where, "--json", bad)
	if code != ExitError {
		t.Fatalf("planted error: exit %d, want %d: %s\n%s", code, ExitError, stderr, stdout)
	}
	if !strings.Contains(stderr, "checks failed") {
		t.Errorf("stderr does not say checks failed: %q", stderr)
	}
	row := regexp.MustCompile(`(?m)^reduce +\(1000003,\) axis 0 +float32 .* FAIL +max err [0-9.e+-]+ > 1e-05.*; worst [a-z]+\[0\]: got [-0-9.e+]+ want [-0-9.e+]+`)
	if !row.MatchString(stdout) {
		t.Errorf("no clear FAIL row for reduce (1000003,):\n%s", stdout)
	}
	// Per device: every reduce row of the perturbed device fails, and
	// nothing else.
	for _, table := range strings.Split(stdout, "== ")[1:] {
		perturbed := strings.HasPrefix(table, "cpu:") != vulkan
		for _, line := range strings.Split(table, "\n") {
			fail := strings.Contains(line, "FAIL")
			skip := strings.Contains(line, " skip ") // a float64 row on a device without float64
			switch {
			case strings.HasPrefix(line, "map ") && fail:
				t.Errorf("map was not perturbed but failed: %s", line)
			case strings.HasPrefix(line, "reduce ") && !perturbed && fail:
				t.Errorf("reduce was not perturbed on this device but failed: %s", line)
			case strings.HasPrefix(line, "reduce ") && perturbed && !fail && !skip:
				t.Errorf("perturbed reduce passed: %s", line)
			}
		}
	}
	t.Logf("\n%s", stdout)

	code, stdout, _ = run(t, "verify", "--compare", good, bad)
	if code != ExitError || !strings.Contains(stdout, "FAIL") || !strings.Contains(stdout, "rows differ") {
		t.Errorf("compare: exit %d:\n%s", code, stdout)
	}
}

func TestVerifyUsage(t *testing.T) {
	dir := t.TempDir()
	notReport := filepath.Join(dir, "x.json")
	if err := os.WriteFile(notReport, []byte(`{"kind": "something else"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		args []string
		code int
		want string
	}{
		{[]string{"verify", "--compare", notReport}, ExitUsage, "two or more report files"},
		{[]string{"verify", "--compare", notReport, notReport}, ExitError, "not a verify report"},
		{[]string{"verify", "--device", "cpu", "--op", "nope"}, ExitUsage, `no operation or suite "nope"`},
		{[]string{"verify", "--device", "cpu", "--op", "map", "--plant-error", "reduce"}, ExitUsage, "--plant-error"},
		{[]string{"verify", "--device", "cpu", "--precision", "f8"}, ExitUsage, "unknown precision"},
		{[]string{"verify", "--device", "cpu", "--op", "cov", "--precision", "f16"}, ExitUsage, "none of the operations selected keeps float16"},
	}
	for _, c := range cases {
		code, _, stderr := run(t, c.args...)
		if code != c.code || !strings.Contains(stderr, c.want) {
			t.Errorf("%v: exit %d (want %d), stderr %q (want %q)", c.args, code, c.code, stderr, c.want)
		}
	}
}

// TestVerifyWithoutFloat64 runs verify on lavapipe with float64 switched
// off (the kernels devices without it take), and compares three reports:
// the float64 rows skipped there are not differences, the rest agree.
func TestVerifyWithoutFloat64(t *testing.T) {
	if !slices.Contains(devicesUnderTest(t), "lavapipe") {
		t.Skip("no lavapipe")
	}
	dir := t.TempDir()
	full, nof64 := filepath.Join(dir, "full.json"), filepath.Join(dir, "nofp64.json")
	for _, c := range [][]string{
		{"--validate", "verify", "--device", "cpu,lavapipe", "--op", "reduce,paco", "--json", full},
		{"--validate", "--disable", "float64", "verify", "--device", "lavapipe", "--op", "reduce,paco", "--json", nof64},
	} {
		if code, stdout, stderr := run(t, c...); code != 0 {
			t.Fatalf("%v: exit %d: %s\n%s", c, code, stderr, stdout)
		}
	}
	b, err := os.ReadFile(nof64)
	if err != nil {
		t.Fatal(err)
	}
	var rep suite.VerifyReport
	if err := json.Unmarshal(b, &rep); err != nil {
		t.Fatal(err)
	}
	if len(rep.Devices) != 1 || !strings.Contains(rep.Devices[0].Device.Name, "[without float64]") || rep.Skipped == 0 {
		t.Errorf("report of lavapipe without float64: %d device(s), skipped %d: %+v", len(rep.Devices), rep.Skipped, rep.Devices)
	}
	code, stdout, stderr := run(t, "verify", "--compare", full, nof64, full)
	if code != 0 || !strings.Contains(stdout, "0 of ") || !strings.Contains(stdout, "skipped on some device") {
		t.Errorf("compare of three reports: exit %d: %s\n%s", code, stderr, stdout)
	}
	if code, _, stderr := run(t, "--disable", "float128", "verify", "--device", "cpu"); code != 2 || !strings.Contains(stderr, "float128") {
		t.Errorf("--disable float128: exit %d: %s", code, stderr)
	}
}

// Issue 25, messages: --all without --compare, and a run's flags with
// --compare, are usage errors instead of being ignored.
func TestVerifyFlagMismatch(t *testing.T) {
	for _, args := range [][]string{
		{"verify", "--all"},
		{"verify", "--compare", "--op", "map", "a.json", "b.json"},
		{"verify", "--compare", "--json", "x.json", "a.json", "b.json"},
	} {
		code, _, stderr := run(t, args...)
		if code != ExitUsage || !strings.Contains(stderr, "--") {
			t.Errorf("%v: exit %d, stderr %q; want %d", args, code, stderr, ExitUsage)
		}
	}
}
