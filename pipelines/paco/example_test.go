package paco_test

import (
	"context"
	"fmt"
	"log"

	"github.com/vkstat/vkstat/pipelines/paco"
	"github.com/vkstat/vkstat/pipelines/synth"
)

// PACO on a small synthetic ADI sequence held in memory, on the CPU path
// (a nil device; one opened with package engine runs it there): one
// companion of flux 150 injected 10 px from the star at position angle
// 300°, found again. On 24 frames the companion's own light inflates the
// background Algorithm 2 learns, which keeps a third of its flux;
// Algorithm 3 gets it back.
func Example() {
	ds, err := synth.Generate(synth.Config{H: 40, W: 40, Frames: 24, RotationDeg: 90, FWHM: 3, Seed: 1,
		Companions: []synth.Companion{{SepPx: 10, ThetaDeg: synth.PAToTheta(300), Flux: 150}}})
	if err != nil {
		log.Fatal(err)
	}
	opt := paco.DefaultOptions()
	opt.FWHM = 3 // the Gaussian PSF synth injects; or opt.PSF = a stamp
	opt.Radius = 3
	opt.Unbiased = true // Algorithm 3: the flux with the companion kept out of its own background
	res, err := paco.Run(context.Background(), nil, paco.ADI{Cube: ds.Cube, Angles: ds.Angles}, opt)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("centre (%d, %d), %s\n", res.Center.Used[0], res.Center.Used[1], res.Center.Source)
	for _, d := range res.Detections {
		fmt.Printf("detection at (%d, %d): separation %.1f px, PA %.0f°, SNR %.1f, flux %.0f, Algorithm 3's %.0f\n",
			d.Y, d.X, d.Sep, d.PAEastOfNorth, d.SNR, d.Flux, d.FluxUnbiased)
	}
	// Output:
	// centre (20, 20), geometric
	// detection at (25, 29): separation 10.3 px, PA 299°, SNR 7.8, flux 50, Algorithm 3's 153
}
