package cli

import (
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vkstat/vkstat/formats"
)

// TestLatentPrecision: --precision auto keeps a bfloat16 file 16-bit
// ("computed as bfloat16"), f32 widens it, bf16 rounds a float32 file;
// the three agree with the float32 run on the same values; bad values and
// 16-bit precisions for other commands fail with clear errors.
func TestLatentPrecision(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "lat_bf16.npy")
	if code, _, stderr := run(t, "synth", "latent", "--shape", "2,5,4,12,10", "--dtype", "bf16", "--out", in); code != 0 {
		t.Fatalf("synth: %s", stderr)
	}
	x, err := formats.ReadNPY(in) // widened to float32, exactly
	if err != nil {
		t.Fatal(err)
	}
	in32 := writeNPY(t, dir, "lat_f32.npy", x)
	corrOf := func(name, in string, global ...string) []float64 {
		t.Helper()
		out := filepath.Join(dir, "out_"+name)
		for _, dev := range devicesUnderTest(t)[:1] {
			code, stdout, stderr := run(t, append(append([]string{"--device", dev}, global...), "latent", "--in", in, "--stat", "moments,corr", "--out-dir", out)...)
			if code != 0 {
				t.Fatalf("%s: exit %d: %s", name, code, stderr)
			}
			want := map[string]string{"auto": "computed as bfloat16", "f32": "computed as float32", "bf16": "computed as bfloat16"}[name]
			if !strings.Contains(stdout, want) {
				t.Errorf("%s: stdout lacks %q:\n%s", name, want, stdout)
			}
		}
		c, err := formats.ReadNPY(filepath.Join(out, "corr.npy"))
		if err != nil {
			t.Fatal(err)
		}
		return c.F64
	}
	auto := corrOf("auto", in)
	f32 := corrOf("f32", in, "--precision", "f32")
	bf16 := corrOf("bf16", in32, "--precision", "bf16")
	for i := range f32 {
		if !(math.Abs(auto[i]-f32[i]) <= 1e-5) || !(math.Abs(bf16[i]-f32[i]) <= 1e-5) {
			t.Fatalf("corr[%d]: auto %v, bf16 %v, f32 %v", i, auto[i], bf16[i], f32[i])
		}
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--precision", "f8", "latent", "--in", in, "--out-dir", filepath.Join(dir, "x")}, `--precision "f8": want auto, f16, bf16, f32 or f64`},
		{[]string{"--precision", "f16", "reduce", "--in", in32, "--axis", "0", "--stat", "mean", "--out-dir", filepath.Join(dir, "y")}, "16-bit storage is for `vkstat latent` only"},
	} {
		code, _, stderr := run(t, c.args...)
		if code == 0 || !strings.Contains(stderr, c.want) {
			t.Errorf("%v: exit %d, stderr %q; want an error with %q", c.args, code, stderr, c.want)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "x")); err == nil {
		t.Error("the output folder was created")
	}
}
