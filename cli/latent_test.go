package cli

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/vkstat/vkstat/formats"
	"github.com/vkstat/vkstat/pipelines/latent"
	"github.com/vkstat/vkstat/tensor"
)

// TestLatentCommand writes synthetic latents in every storage type (NPY and
// safetensors), runs vkstat latent on every device under test, and checks
// that corr.npy recovers the known channel correlation within the storage
// type's tolerance, that lagcorr is near a^l, and what the summary says.
func TestLatentCommand(t *testing.T) {
	dir := t.TempDir()
	cfg := latent.DefaultSynth()
	cfg.N, cfg.C, cfg.F, cfg.H, cfg.W = 2, 5, 4, 12, 10
	want := cfg.ChannelCorr()
	tol := map[string]float64{"f16": 2e-3, "bf16": 1.5e-2, "f32": 1e-5, "f64": 1e-10}
	for _, dev := range devicesUnderTest(t) {
		for i, dt := range []string{"f16", "bf16", "f32", "f64"} {
			in := filepath.Join(dir, "lat_"+dt+".npy")
			if i%2 == 1 {
				in = filepath.Join(dir, "lat_"+dt+".safetensors")
			}
			if _, err := os.Stat(in); err != nil {
				code, _, stderr := run(t, "synth", "latent", "--shape", "2,5,4,12,10", "--dtype", dt, "--out", in, "--truth", in+".json")
				if code != 0 {
					t.Fatalf("synth latent %s: %s", dt, stderr)
				}
			}
			out := filepath.Join(dir, "out_"+dev+"_"+dt)
			args := []string{"--device", dev, "--validate=" + boolStr(dev != "cpu"), "latent", "--in", in, "--stat", "all", "--axes", "0,3,4", "--lags", "2", "--out-dir", out}
			if dev != "cpu" && dt == "f64" {
				args = append([]string{"--precision", "f32"}, args...) // the device may lack float64
			}
			code, stdout, stderr := run(t, args...)
			if code != 0 {
				t.Fatalf("%s %s: exit %d: %s", dev, dt, code, stderr)
			}
			corr, err := formats.ReadNPY(filepath.Join(out, "corr.npy"))
			if err != nil {
				t.Fatal(err)
			}
			if !tensor.SameShape(corr.Shape, []int{2, 5, 5}) {
				t.Fatalf("corr shape %v", corr.Shape)
			}
			worst := 0.0
			for n := 0; n < 2; n++ {
				for k, w := range want {
					worst = math.Max(worst, math.Abs(corr.F64[n*25+k]-w))
				}
			}
			limit := tol[dt]
			if dev != "cpu" && dt == "f64" {
				limit = tol["f32"] // computed as float32 (--precision f32)
			}
			if !(worst <= limit) {
				t.Errorf("%s %s: max |corr − R| = %.3g, want ≤ %.3g", dev, dt, worst, limit)
			}
			mean, err := formats.ReadNPY(filepath.Join(out, "mean.npy"))
			if err != nil || !tensor.SameShape(mean.Shape, []int{5, 4}) {
				t.Fatalf("mean.npy: %v %v", mean, err)
			}
			var sum map[string]any
			b, err := os.ReadFile(filepath.Join(out, "summary.json"))
			if err != nil || json.Unmarshal(b, &sum) != nil {
				t.Fatalf("summary.json: %v %s", err, b)
			}
			lag := sum["lagcorr"].(map[string]any)["mean_by_lag"].([]any)
			if len(lag) != 2 || math.Abs(lag[0].(float64)-cfg.LagCorr(1)) > 0.15 {
				t.Errorf("%s %s: lagcorr by lag %v, want about %v", dev, dt, lag, cfg.LagCorr(1))
			}
			wantDT := map[string]string{"f16": "float16", "bf16": "bfloat16", "f32": "float32", "f64": "float64"}[dt]
			if sum["input"].(map[string]any)["dtype"] != wantDT || !strings.Contains(stdout, wantDT) || !strings.Contains(stdout, "lagcorr lag 2") {
				t.Errorf("%s %s: input %v; stdout:\n%s", dev, dt, sum["input"], stdout)
			}
			for _, f := range []string{"corr.png", "summary.txt", "corr_frames.npy", "frame_corr.npy", "lagcorr.npy", "kurt.npy"} {
				if _, err := os.Stat(filepath.Join(out, f)); err != nil {
					t.Errorf("%s %s: %v", dev, dt, err)
				}
			}
		}
	}
}

// TestLatentBadInput: NaN and constant channels give notes and NaN, not
// failures; an unknown tensor name, a truncated file and impossible
// requests fail with clear errors and leave no output folder.
func TestLatentBadInput(t *testing.T) {
	dir := t.TempDir()
	x := tensor.New(tensor.F32, 1, 3, 2, 4, 4)
	for i := range x.F32 {
		x.F32[i] = float32(math.Sin(float64(i) * 0.7))
	}
	for p := 0; p < 32; p++ {
		x.F32[2*32+p] = 1.5 // channel 2 constant
	}
	x.F32[5] = float32(math.NaN())
	in := writeNPY(t, dir, "nan.npy", x)
	for _, policy := range []string{"propagate", "skip"} {
		out := filepath.Join(dir, "out_"+policy)
		code, stdout, stderr := run(t, "latent", "--in", in, "--stat", "moments,corr", "--nan", policy, "--out-dir", out)
		if code != 0 {
			t.Fatalf("%s: exit %d: %s", policy, code, stderr)
		}
		if !strings.Contains(stdout, "1 NaN") || !strings.Contains(stdout, "sample 0 channel 2") {
			t.Errorf("%s: stdout lacks the NaN count or the constant channel:\n%s", policy, stdout)
		}
		corr, err := formats.ReadNPY(filepath.Join(out, "corr.npy"))
		if err != nil {
			t.Fatal(err)
		}
		c01 := corr.F64[1]
		if math.IsNaN(c01) != (policy == "propagate") || !math.IsNaN(corr.F64[2]) || !math.IsNaN(corr.F64[5]) {
			t.Errorf("%s: corr %v", policy, corr.F64)
		}
	}

	st := filepath.Join("..", "testdata", "safetensors", "latents.safetensors")
	trunc := filepath.Join(dir, "trunc.safetensors")
	b, _ := os.ReadFile(st)
	os.WriteFile(trunc, b[:len(b)-30], 0o644)
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"--in", st, "--tensor", "nope"}, `no tensor "nope" in the file; it holds "ids" I64 (3,), "latent_bf16" BF16 (2, 3, 4)`},
		{[]string{"--in", st}, "the file holds 6 tensors: name one"},
		{[]string{"--in", trunc, "--tensor", "latent_f64"}, "truncated safetensors file"},
		{[]string{"--in", st, "--tensor", "latent_f32", "--stats", "lagcorr"}, "want a 5-d (N, C, F, H, W) or 4-d"},
		{[]string{"--in", in, "--stats", "lagcorr", "--lags", "2"}, "lags must be 1..F−1 = 1"},
		{[]string{"--in", in, "--axes", "7"}, "axis 7 is out of range"},
		{[]string{"--in", in, "--stats", "moments,tsne"}, `unknown "tsne"`},
		{[]string{"--in", in, "--nan", "ignore"}, "unknown NaN policy"},
		{[]string{"--in", in, "--tensor", "x"}, "--tensor is for safetensors files"},
	}
	for _, c := range cases {
		out := filepath.Join(dir, "none")
		code, _, stderr := run(t, append(append([]string{"latent"}, c.args...), "--out-dir", out)...)
		if code == 0 || !strings.Contains(stderr, c.want) {
			t.Errorf("%v: exit %d, stderr %q; want an error with %q", c.args, code, stderr, c.want)
		}
		if _, err := os.Stat(out); err == nil {
			t.Errorf("%v: the output folder was created", c.args)
		}
	}
}

func TestLatentHelp(t *testing.T) {
	for _, cmd := range [][]string{{"latent", "--help"}, {"synth", "latent", "--help"}} {
		code, stdout, _ := run(t, cmd...)
		if code != 0 || !strings.Contains(stdout, "Examples:") || !strings.Contains(stdout, "vkstat latent --in") {
			t.Errorf("%v: exit %d:\n%s", cmd, code, stdout)
		}
	}
}

// TestLatentWarningsWording: latent's warnings (values: latent.Warning)
// read on stderr as the command has always worded them, flags and all:
// the ddof that leaves var and std NaN, on the CPU path, and a --batch
// more than the samples estimated to fit a small --device-memory, on
// lavapipe.
func TestLatentWarningsWording(t *testing.T) {
	dir := t.TempDir()
	in := writeNPY(t, dir, "x.npy", tensor.FromF64(ramp(64*4*2*8*8), 64, 4, 2, 8, 8))
	_, _, stderr := run(t, "--device", "cpu", "latent", "--in", in, "--stat", "moments", "--axes", "3,4", "--ddof", "64", "--out-dir", filepath.Join(dir, "ddof"))
	if want := "vkstat: warning: --ddof 64 with 64 value(s) over axes 3,4: var and std are NaN (they divide by n − ddof)\n"; !strings.Contains(stderr, want) {
		t.Errorf("stderr %q, want the line %q", stderr, want)
	}
	if !slices.Contains(devicesUnderTest(t), "lavapipe") {
		t.Skip("no lavapipe: the batch warning's figures are lavapipe's")
	}
	in = writeNPY(t, dir, "y.npy", tensor.FromF32(make([]float32, 64*4*2*32*32), 64, 4, 2, 32, 32))
	_, _, stderr = run(t, "--device", "lavapipe", "--device-memory", "5MiB", "latent", "--in", in, "--stat", "moments,corr", "--batch", "64", "--out-dir", filepath.Join(dir, "batch"))
	if want := "warning: --batch 64 is more than the 12 samples estimated to fit (0.0 GiB (--device-memory or VKSTAT_DEVICE_MEMORY)); it may run out of memory\n"; !strings.Contains(stderr, want) {
		t.Errorf("stderr %q, want the line %q", stderr, want)
	}
}
