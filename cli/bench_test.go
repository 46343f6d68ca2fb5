package cli

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vkstat/vkstat/suite"
)

// TestBench runs every suite once on the CPU path and lavapipe and checks
// the table, the JSON and the PNG. Timings are not asserted.
func TestBench(t *testing.T) {
	devs := devicesUnderTest(t)
	dir := t.TempDir()
	js, png := filepath.Join(dir, "bench.json"), filepath.Join(dir, "bench.png")
	code, stdout, stderr := run(t, "bench", "--suite", "all", "--device", strings.Join(devs, ","), "--repeat", "1", "--warmup", "0",
		"--json", js, "--png", png)
	if code != 0 {
		t.Fatalf("exit %d: %s\n%s", code, stderr, stdout)
	}
	for _, want := range []string{"| operation |", "| map |", "| reduce |", "copy bandwidth", "| latent-moments |", ") lagcorr |", ") pca |", "| latent-spectra |"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("table lacks %q:\n%s", want, stdout)
		}
	}
	var rep suite.BenchReport
	b, err := os.ReadFile(js)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &rep); err != nil {
		t.Fatal(err)
	}
	if len(rep.Devices) != len(devs) || rep.Size != "small" || rep.Repeat != 1 || !strings.Contains(rep.Command, "bench --suite") {
		t.Fatalf("report header: %+v", rep)
	}
	for _, d := range rep.Devices {
		if d.Copy.GBs <= 0 {
			t.Errorf("%s: no copy bandwidth: %+v", d.Device.Label, d.Copy)
		}
		if len(d.Results) == 0 {
			t.Errorf("%s: no results", d.Device.Label)
		}
		for _, r := range d.Results {
			if r.Status != "ok" && r.Status != "skip" {
				t.Errorf("%s: %s %s %s: %s %s", d.Device.Label, r.Op, r.Case, r.Precision, r.Status, r.Detail)
				continue
			}
			if r.Status == "ok" && (r.WallMs <= 0 || r.ThroughputWall <= 0 || r.Work.Bytes <= 0 || r.Unit == "") {
				t.Errorf("%s: %s %s %s: incomplete: %+v", d.Device.Label, r.Op, r.Case, r.Precision, r)
			}
			if r.GPUTimed && r.CopyFraction <= 0 {
				t.Errorf("%s: %s %s: no fraction of copy bandwidth", d.Device.Label, r.Op, r.Case)
			}
			if r.Op == "map" && (r.Peer == nil || r.Peer.Script != "map") {
				t.Errorf("%s: map has no peer workload", d.Device.Label)
			}
		}
	}
	img, err := os.ReadFile(png)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.HasPrefix(img, []byte("\x89PNG\r\n\x1a\n")) || len(img) < 1000 {
		t.Errorf("%s is not a PNG (%d bytes)", png, len(img))
	}
}

func TestBenchUsage(t *testing.T) {
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"bench", "--suite", "nope"}, "unknown suite"},
		{[]string{"bench", "--size", "huge"}, "unknown size"},
		{[]string{"bench", "--repeat", "0"}, "--repeat"},
		{[]string{"bench", "--device", "no-such-gpu"}, "unknown device"},
	}
	for _, c := range cases {
		if c.want == "unknown device" {
			devicesUnderTest(t)
			if _, err := os.Stat("/usr/share/vulkan/icd.d/lvp_icd.x86_64.json"); err != nil {
				continue
			}
		}
		code, _, stderr := run(t, c.args...)
		if code != ExitUsage || !strings.Contains(stderr, c.want) {
			t.Errorf("%v: exit %d, stderr %q (want %q)", c.args, code, stderr, c.want)
		}
	}
}
