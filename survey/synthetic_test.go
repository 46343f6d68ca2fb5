package survey

import (
	"bytes"
	"context"
	"errors"
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/vkstat/vkstat/formats"
	"github.com/vkstat/vkstat/pipelines/synth"
	"github.com/vkstat/vkstat/tensor"
)

// TestWriteSynthetic: two 32×32 targets of 6 frames read back as a manifest
// naming t01 and t02, each target's cube as generated for its seed (2, 3);
// a rotation of NaN is a *GenerateError, and nothing is written.
func TestWriteSynthetic(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "s")
	base := synth.Config{H: 32, W: 32, Frames: 6, RotationDeg: 60, FWHM: 2, Seed: 2}
	targets, err := WriteSynthetic(context.Background(), dir, base, 2, "v")
	if err != nil {
		t.Fatal(err)
	}
	m, err := ReadManifest(filepath.Join(dir, "manifest.csv"), Defaults{"fwhm": "2"})
	if err != nil {
		t.Fatal(err)
	}
	if len(targets) != 2 || len(m.Targets) != 2 || m.Targets[1].Name != "t02" || targets[1].Name != "t02" {
		t.Fatalf("targets %+v, manifest %d", targets, len(m.Targets))
	}
	want, err := synth.Generate(synth.SurveyTarget(base, 1))
	if err != nil {
		t.Fatal(err)
	}
	cube, err := formats.ReadArray(m.Targets[1].Cube)
	if err != nil {
		t.Fatal(err)
	}
	if string(cube.Raw()) != string(want.Cube.Raw()) || want.Config.Seed != 3 || targets[1].Companion != want.Config.Companions[0] {
		t.Errorf("t02 differs from target 1 of the survey (seed %d)", want.Config.Seed)
	}
	base.RotationDeg = math.NaN()
	bad := filepath.Join(t.TempDir(), "bad")
	var ge *GenerateError
	if _, err := WriteSynthetic(context.Background(), bad, base, 2, "v"); !errors.As(err, &ge) {
		t.Errorf("rotation NaN: %v, want a *GenerateError", err)
	}
	if _, err := os.Stat(bad); !os.IsNotExist(err) {
		t.Errorf("rotation NaN: %s was made (%v)", bad, err)
	}
}

// TestPrintSynthetic: two targets from seed 5 (seeds 5..6), by hand; a
// companion at θ 90° is PA 0.
func TestPrintSynthetic(t *testing.T) {
	base := synth.Config{H: 24, W: 32, Frames: 8, RotationDeg: 90, FWHM: 3, Seed: 5, DType: tensor.F64}
	targets := []SyntheticTarget{{Name: "t1", Companion: synth.Companion{SepPx: 6, ThetaDeg: 90, Flux: 150}},
		{Name: "t2", Companion: synth.Companion{SepPx: 7.5, ThetaDeg: 180, Flux: 200}}}
	var b bytes.Buffer
	PrintSynthetic(&b, "d", base, targets)
	want := "wrote d: 2 targets (8 frames of 24×32 float64, rotation 90°, FWHM 3 px, seeds 5..6), manifest.csv, manifest.json\n" +
		"t1: companion sep 6 px, PA 0° east of north, flux 150\n" +
		"t2: companion sep 7.5 px, PA 90° east of north, flux 200\n"
	if b.String() != want {
		t.Errorf("got\n%s\nwant\n%s", b.String(), want)
	}
}
