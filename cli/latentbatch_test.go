package cli

import (
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/vkstat/vkstat/engine"
	"github.com/vkstat/vkstat/formats"
	"github.com/vkstat/vkstat/pipelines/latent"
	"github.com/vkstat/vkstat/tensor"
)

// compareLatentOutputs holds the .npy files and notes of got to those of
// want: identical, or for the moments when merged, within 1e-12 of the
// slice's scale (|mean| + std; its square for var), 1e-9 for skew and
// kurtosis.
func compareLatentOutputs(t *testing.T, what, want, got string, merged bool) {
	t.Helper()
	const rel, shape = 1e-12, 1e-9
	files, _ := filepath.Glob(filepath.Join(want, "*.npy"))
	if len(files) == 0 {
		t.Fatalf("%s: no outputs in %s", what, want)
	}
	read := func(p string) *tensor.Tensor {
		x, err := formats.ReadNPY(p)
		if err != nil {
			t.Fatal(err)
		}
		return x
	}
	mean, std := read(filepath.Join(want, "mean.npy")), read(filepath.Join(want, "std.npy"))
	for _, f := range files {
		name := strings.TrimSuffix(filepath.Base(f), ".npy")
		w, g := read(f), read(filepath.Join(got, filepath.Base(f)))
		if !tensor.SameShape(w.Shape, g.Shape) {
			t.Errorf("%s: %s shape %v, want %v", what, name, g.Shape, w.Shape)
			continue
		}
		moment := slices.Contains([]string{"mean", "var", "std", "min", "max", "skew", "kurt"}, name)
		bad := 0
		for i, wv := range w.F64 {
			gv := g.F64[i]
			same := gv == wv || math.IsNaN(gv) && math.IsNaN(wv)
			if moment && merged && !same {
				scale := math.Abs(mean.F64[i]) + std.F64[i]
				tol := map[string]float64{"var": rel * scale * scale, "skew": shape, "kurt": shape}[name]
				if tol == 0 {
					tol = rel * scale
				}
				same = !math.IsNaN(gv) && !math.IsNaN(wv) && math.Abs(gv-wv) <= tol
			}
			if !same {
				if bad < 3 {
					t.Errorf("%s: %s[%d] = %v, want %v", what, name, i, gv, wv)
				}
				bad++
			}
		}
	}
	notes := func(dir string) []any {
		var s map[string]any
		b, err := os.ReadFile(filepath.Join(dir, "summary.json"))
		if err != nil || json.Unmarshal(b, &s) != nil {
			t.Fatalf("%s: summary.json: %v", what, err)
		}
		n, _ := s["notes"].([]any)
		return n
	}
	if wn, gn := notes(want), notes(got); fmt.Sprint(wn) != fmt.Sprint(gn) {
		t.Errorf("%s: notes\n%v\nwant\n%v", what, gn, wn)
	}
}

// TestLatentBatchPlan: --batch must be 0 or more; a --batch past N takes
// every sample in one batch; under a small host budget the batches are
// sized by it (and give the same outputs); a budget that cannot hold one
// sample is refused with an error that says so.
func TestLatentBatchPlan(t *testing.T) {
	dir := t.TempDir()
	x := tensor.New(tensor.F64, 5, 3, 4, 6, 5)
	for i := range x.F64 {
		x.F64[i] = math.Sin(float64(i)*0.37) + float64(i%7)*0.1
	}
	in := writeNPY(t, dir, "x.npy", x)
	code, _, stderr := run(t, "latent", "--in", in, "--batch", "-1", "--out-dir", filepath.Join(dir, "neg"))
	if code == 0 || !strings.Contains(stderr, "--batch must be 0") {
		t.Errorf("--batch -1: exit %d: %s", code, stderr)
	}
	code, _, stderr = run(t, "latent", "--in", in, "--batch", "two", "--out-dir", filepath.Join(dir, "word"))
	if code == 0 || !strings.Contains(stderr, "batch") {
		t.Errorf("--batch two: exit %d: %s", code, stderr)
	}
	batches := func(out string) map[string]any {
		var s map[string]any
		b, err := os.ReadFile(filepath.Join(out, "summary.json"))
		if err != nil || json.Unmarshal(b, &s) != nil {
			t.Fatalf("summary.json: %v", err)
		}
		return s["batches"].(map[string]any)
	}
	args := func(out string, more ...string) []string {
		return append([]string{"latent", "--in", in, "--stat", "moments,corr,pca", "--axes", "0,2", "--out-dir", out}, more...)
	}
	big := filepath.Join(dir, "big")
	if code, _, stderr := run(t, args(big, "--batch", "99")...); code != 0 {
		t.Fatalf("--batch 99: exit %d: %s", code, stderr)
	}
	if b := batches(big); b["batch"] != 5.0 || b["batches"] != 1.0 || b["auto"] != false {
		t.Errorf("--batch 99 of 5 samples: %v", b)
	}

	// One sample: 360 float64 values; its host footprint is a few KiB.
	plan, err := latent.PlanBatches(nil, latent.Source{Shape: []int{5, 3, 4, 6, 5}, DType: tensor.F64}, latent.Options{Moments: true, Corr: true, Axes: []int{0, 2}, PCA: true})
	if err != nil {
		t.Fatal(err)
	}
	foot := plan.Footprint
	saved := availableMemory
	defer func() { availableMemory = saved }()
	availableMemory = func() uint64 {
		return uint64(float64(2*foot.Host+foot.Host/2) / engine.HostMemoryFraction / latent.BatchMargin)
	} // 2.5 samples
	auto := filepath.Join(dir, "auto")
	if code, _, stderr := run(t, args(auto)...); code != 0 {
		t.Fatalf("auto under a small budget: exit %d: %s", code, stderr)
	}
	if b := batches(auto); b["batch"] != 2.0 || b["batches"] != 3.0 || b["auto"] != true {
		t.Errorf("auto batches under a budget of 2.5 samples: %v", b)
	}
	compareLatentOutputs(t, "auto batches of 2", big, auto, true)

	availableMemory = func() uint64 { return uint64(float64(foot.Host/2) / engine.HostMemoryFraction / latent.BatchMargin) }
	code, _, stderr = run(t, args(filepath.Join(dir, "none"))...)
	if code != ExitError || !strings.Contains(stderr, "one sample needs") || !strings.Contains(stderr, "host memory for these statistics (--stat)") {
		t.Errorf("a budget of half a sample: exit %d: %s", code, stderr)
	}
}

// TestLatentBatchDevice: on lavapipe under --device-memory, the batches are
// sized by the device's budget (and give what one batch gives), and a
// budget that cannot hold one sample is refused.
func TestLatentBatchDevice(t *testing.T) {
	if !slices.Contains(devicesUnderTest(t), "lavapipe") {
		t.Skip("no lavapipe")
	}
	dir := t.TempDir()
	x := tensor.New(tensor.F32, 4, 4, 8, 64, 64) // 512 KiB a sample
	rng := rand.New(rand.NewPCG(1, 2))
	for i := range x.F32 {
		x.F32[i] = float32(rng.NormFloat64())
	}
	in := writeNPY(t, dir, "x.npy", x)
	args := func(out, mem string, more ...string) []string {
		return append([]string{"--device", "lavapipe", "--validate", "--device-memory", mem, "latent", "--in", in, "--stat", "moments,corr", "--out-dir", out}, more...)
	}
	whole := filepath.Join(dir, "whole")
	if code, _, stderr := run(t, args(whole, "64MiB", "--batch", "4")...); code != 0 {
		t.Fatalf("--batch 4: exit %d: %s", code, stderr)
	}
	// Per sample: 1 MiB on the device (moments: input and partials), so
	// 0.8·(7 − 4) MiB holds 2.
	auto := filepath.Join(dir, "auto")
	code, stdout, stderr := run(t, args(auto, "7MiB")...)
	if code != 0 {
		t.Fatalf("auto under 7 MiB: exit %d: %s", code, stderr)
	}
	if !strings.Contains(stdout, "batches: 2 of up to 2 samples (auto") || !strings.Contains(stdout, "--device-memory") {
		t.Errorf("auto under 7 MiB:\n%s", stdout)
	}
	compareLatentOutputs(t, "device batches of 2", whole, auto, false)
	code, _, stderr = run(t, args(filepath.Join(dir, "none"), "5MiB")...)
	if code == 0 || !strings.Contains(stderr, "one sample needs about 1.0 MiB of device memory") {
		t.Errorf("5 MiB: exit %d: %s", code, stderr)
	}
}
