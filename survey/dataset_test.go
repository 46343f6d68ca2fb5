package survey

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/vkstat/vkstat/formats"
	"github.com/vkstat/vkstat/pipelines/synth"
)

// TestAddDataset: a 2-frame 8×10 sequence written as FITS and NPY reads back
// as generated, the FITS with the header cards (seed 4, 1 companion), and
// truth.json names the files of each array.
func TestAddDataset(t *testing.T) {
	ds, err := synth.Generate(synth.Config{H: 8, W: 10, Frames: 2, RotationDeg: 20, FWHM: 2, Seed: 4,
		Companions: []synth.Companion{{SepPx: 3, ThetaDeg: 0, Flux: 5}}})
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	out := formats.Outputs{Ctx: context.Background()}
	if err := AddDataset(&out, dir, ds, []string{".fits", ".npy"}, "gen", "v1"); err != nil {
		t.Fatal(err)
	}
	if err := out.Commit(); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"cube.fits", "cube.npy"} {
		c, err := formats.ReadArray(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(c.Raw(), ds.Cube.Raw()) {
			t.Errorf("%s differs from the generated cube", name)
		}
	}
	_, hdr, err := formats.ReadFITSHeader(filepath.Join(dir, "psf.fits"))
	if err != nil {
		t.Fatal(err)
	}
	cards := map[string]any{}
	for _, c := range hdr {
		cards[c.Key] = c.Value
	}
	if cards["SEED"] != 4 || cards["NCOMP"] != 1 || cards["ORIGIN"] != "gen" || cards["C1SEP"] != 3.0 {
		t.Errorf("psf.fits header: %v", cards)
	}
	b, err := os.ReadFile(filepath.Join(dir, "truth.json"))
	if err != nil {
		t.Fatal(err)
	}
	var truth synth.TruthFile
	if err := json.Unmarshal(b, &truth); err != nil {
		t.Fatal(err)
	}
	want := map[string][]string{"cube": {"cube.fits", "cube.npy"}, "angles": {"angles.fits", "angles.npy"}, "psf": {"psf.fits", "psf.npy"}}
	if !reflect.DeepEqual(truth.Files, want) || truth.Version != "v1" || len(truth.Companions) != 1 {
		t.Errorf("truth.json: files %v, version %q, %d companions", truth.Files, truth.Version, len(truth.Companions))
	}
}
