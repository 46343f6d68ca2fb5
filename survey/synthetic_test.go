package survey

import (
	"context"
	"errors"
	"math"
	"path/filepath"
	"testing"

	"github.com/vkstat/vkstat/formats"
	"github.com/vkstat/vkstat/pipelines/synth"
)

// TestAddSynthetic: two 32×32 targets of 6 frames read back as a manifest
// naming t01 and t02, each target's cube as generated for its seed (2, 3);
// a rotation of NaN is a *GenerateError.
func TestAddSynthetic(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "s")
	base := synth.Config{H: 32, W: 32, Frames: 6, RotationDeg: 60, FWHM: 2, Seed: 2}
	out := formats.Outputs{Ctx: context.Background()}
	out.CreateDir(dir)
	targets, err := AddSynthetic(context.Background(), &out, dir, base, 2, "v")
	if err != nil {
		t.Fatal(err)
	}
	if err := out.Commit(); err != nil {
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
	bad := formats.Outputs{Ctx: context.Background()}
	defer bad.Abort()
	var ge *GenerateError
	if _, err := AddSynthetic(context.Background(), &bad, t.TempDir(), base, 2, "v"); !errors.As(err, &ge) {
		t.Errorf("rotation NaN: %v, want a *GenerateError", err)
	}
}
