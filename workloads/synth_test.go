package workloads

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/vkstat/vkstat/formats"
	"github.com/vkstat/vkstat/pipelines/latent"
	"github.com/vkstat/vkstat/pipelines/synth"
)

// TestWriteSynthStack: two ENVI dates of a 16×12 stack are written with
// the reflectivity map and dates.txt listing the dates; a folder where a
// date goes fails the stack, leaving the dates unwritten.
func TestWriteSynthStack(t *testing.T) {
	s := synth.Stack{H: 16, W: 12, Dates: 2, Change: 1, Seed: 3}
	f, err := s.SetFormat("envi", "cfloat32")
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), "stack")
	if err := WriteSynthStack(context.Background(), dir, s, f, nil); err != nil {
		t.Fatal(err)
	}
	list, err := os.ReadFile(filepath.Join(dir, "dates.txt"))
	if err != nil {
		t.Fatal(err)
	}
	if want := "# vkstat synth stack: one date per line\ndate_001.bin\ndate_002.bin\n"; string(list) != want {
		t.Errorf("dates.txt %q, want %q", list, want)
	}
	m := "reflectivity.tif"
	if !formats.HaveGDAL {
		m = "reflectivity.bin" // ENVI, written in Go
	}
	for _, name := range []string{"date_001.bin", "date_002.hdr", m} {
		if _, err := os.Stat(filepath.Join(dir, name)); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
	bad := filepath.Join(t.TempDir(), "bad")
	if err := os.MkdirAll(filepath.Join(bad, "date_002.bin"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := WriteSynthStack(context.Background(), bad, s, f, nil); err == nil {
		t.Error("a folder where a date goes: no error")
	}
	if _, err := os.Stat(filepath.Join(bad, "date_001.bin")); !os.IsNotExist(err) {
		t.Errorf("a failed stack left date_001.bin (%v)", err)
	}
}

// TestWriteSynthLatent: a bf16 latent and its truth are written, the
// latent of the shape asked; a name neither .npy nor .safetensors is
// refused and writes nothing.
func TestWriteSynthLatent(t *testing.T) {
	cfg := latent.SynthConfig{N: 1, C: 3, F: 2, H: 8, W: 8, Rho: 0.5, TimeRho: 0.5, Slope: 2, Seed: 1}
	dir := t.TempDir()
	path, truth := filepath.Join(dir, "l.safetensors"), filepath.Join(dir, "truth.json")
	if err := WriteSynthLatent(context.Background(), cfg, "bf16", "1,3,2,8,8", path, "latent", truth); err != nil {
		t.Fatal(err)
	}
	x, _, err := formats.ReadTensor16(path, "latent")
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(x.Shape, []int{1, 3, 2, 8, 8}) {
		t.Errorf("shape %v", x.Shape)
	}
	if _, err := os.Stat(truth); err != nil {
		t.Errorf("truth: %v", err)
	}
	other := filepath.Join(dir, "l.bin")
	if err := WriteSynthLatent(context.Background(), cfg, "f32", "1,3,2,8,8", other, "latent", ""); err == nil {
		t.Error("a .bin name: no error")
	}
	if _, err := os.Stat(other); !os.IsNotExist(err) {
		t.Errorf("a refused name was written (%v)", err)
	}
}
