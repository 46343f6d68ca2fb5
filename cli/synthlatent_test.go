package cli

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vkstat/vkstat/formats"
)

// TestSynthLatentSlopeSign: synth latent's --slope, its truth.json and
// vkstat latent's spatial_slope are one number with one sign, the power
// spectrum's log-log slope (negative for a red spectrum): a field made with
// --slope -2 is fitted within 0.1 of the truth file's value. A positive
// --slope (the old β convention) is refused, naming the negative value.
func TestSynthLatentSlopeSign(t *testing.T) {
	dir := t.TempDir()
	in, truthPath := filepath.Join(dir, "lat.npy"), filepath.Join(dir, "truth.json")
	if code, _, stderr := run(t, "synth", "latent", "--shape", "2,2,4,32,32", "--time-rho", "0", "--slope", "-2", "--out", in, "--truth", truthPath); code != 0 {
		t.Fatalf("synth latent: exit %d: %s", code, stderr)
	}
	raw, err := os.ReadFile(truthPath)
	if err != nil {
		t.Fatal(err)
	}
	var truth map[string]any
	if err := json.Unmarshal(raw, &truth); err != nil {
		t.Fatal(err)
	}
	want, ok := truth["spatial_slope"].(float64)
	if !ok || want != -2 {
		t.Fatalf("truth.json spatial_slope = %v, want -2 (the log-log slope):\n%s", truth["spatial_slope"], raw)
	}
	out := filepath.Join(dir, "out")
	if code, _, stderr := run(t, "--device", "cpu", "latent", "--in", in, "--stat", "spectra", "--out-dir", out); code != 0 {
		t.Fatalf("latent: exit %d: %s", code, stderr)
	}
	got, err := formats.ReadNPY(filepath.Join(out, "spatial_slope.npy"))
	if err != nil {
		t.Fatal(err)
	}
	for c, s := range got.F64 {
		if math.Abs(s-want) > 0.1 {
			t.Errorf("channel %d: latent's spatial_slope %.3f, truth.json's %g", c, s, want)
		}
	}
	code, _, stderr := run(t, "synth", "latent", "--shape", "1,2,2,8,8", "--slope", "2", "--out", filepath.Join(dir, "pos.npy"))
	if code != ExitUsage || !strings.Contains(stderr, "--slope -2") {
		t.Errorf("--slope 2: exit %d, stderr %q; want a usage error naming --slope -2", code, stderr)
	}
}
