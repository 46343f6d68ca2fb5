package survey_test

import (
	"context"
	"fmt"
	"log"
	"os"
	"path/filepath"

	"github.com/vkstat/vkstat/formats"
	"github.com/vkstat/vkstat/pipelines/synth"
	"github.com/vkstat/vkstat/survey"
	"github.com/vkstat/vkstat/tensor"
)

// A survey of two synthetic targets, each with one companion, on the CPU
// path (a nil device): their files and a manifest in a temporary folder,
// the manifest read with a default for every target (a radius of 3), the
// targets run, and the table's rows printed.
func Example() {
	dir, err := os.MkdirTemp("", "survey-example")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	for i, c := range []synth.Companion{{SepPx: 9, ThetaDeg: 30, Flux: 150}, {SepPx: 11, ThetaDeg: 200, Flux: 150}} {
		ds, err := synth.Generate(synth.Config{H: 40, W: 40, Frames: 24, RotationDeg: 90, FWHM: 3, Seed: uint64(i + 1), Companions: []synth.Companion{c}})
		if err != nil {
			log.Fatal(err)
		}
		name := fmt.Sprintf("t%d", i+1)
		if err := os.Mkdir(filepath.Join(dir, name), 0o755); err != nil {
			log.Fatal(err)
		}
		if err := formats.WriteNPY(filepath.Join(dir, name, "cube.npy"), ds.Cube); err != nil {
			log.Fatal(err)
		}
		if err := formats.WriteNPY(filepath.Join(dir, name, "angles.npy"), tensor.FromF64(ds.Angles, len(ds.Angles))); err != nil {
			log.Fatal(err)
		}
	}
	manifest := filepath.Join(dir, "manifest.csv")
	csv := "name,cube,angles,fwhm\nt1,t1/cube.npy,t1/angles.npy,3\nt2,t2/cube.npy,t2/angles.npy,3\n"
	if err := os.WriteFile(manifest, []byte(csv), 0o644); err != nil {
		log.Fatal(err)
	}
	man, err := survey.ReadManifest(manifest, survey.Defaults{"radius": "3"})
	if err != nil {
		log.Fatal(err)
	}
	table, err := survey.Run(context.Background(), nil, man, survey.RunOptions{})
	if err != nil {
		log.Fatal(err)
	}
	for _, r := range table.Rows {
		b := r.Best
		fmt.Printf("%s %s: %d detection, best at (%d, %d), separation %.1f px, PA %.0f°\n", r.Name, r.Status, *r.Detections, b.Y, b.X, b.SepPx, b.PA)
	}
	// Output:
	// t1 ok: 1 detection, best at (24, 28), separation 8.9 px, PA 297°
	// t2 ok: 1 detection, best at (16, 10), separation 10.8 px, PA 112°
}
