package cli

// vkstat synth survey: many small synthetic ADI targets and their manifest,
// for trying vkstat survey and for its tests.

import (
	"errors"
	"fmt"

	ucli "github.com/urfave/cli/v2"

	"github.com/vkstat/vkstat/pipelines/synth"
	"github.com/vkstat/vkstat/survey"
)

func synthSurveyCommand() *ucli.Command {
	return &ucli.Command{
		Name:      "survey",
		Usage:     "many small synthetic ADI targets (one companion each) and their manifest, for vkstat survey",
		UsageText: "vkstat synth survey --targets 20 --out-dir DIR [--size 64] [--frames 48] [--rotation 90] [--fwhm 3] [--seed 1]",
		Description: `Writes DIR/tNN/ (cube, angles, psf and truth.json, as vkstat synth paco
does) for each target, and DIR/manifest.csv and DIR/manifest.json listing
them (name, cube, angles, psf, truth; paths relative to DIR). Target k
(from 0) has seed --seed + k and one companion whose separation, position
angle and flux vary with k. Deterministic: the same flags give the same
files. All files appear together or not at all.

Examples:
   vkstat synth survey --targets 20 --out-dir data
   vkstat --device cpu survey run data/manifest.csv --out-dir results`,
		Flags: []ucli.Flag{
			&ucli.StringFlag{Name: "out-dir", Aliases: []string{"out", "o"}, Usage: "folder for the targets and manifest.csv (created if missing)"},
			&ucli.IntFlag{Name: "targets", Value: 20, Usage: "number of targets"},
			&ucli.StringFlag{Name: "size", Value: "64", Usage: "frame size: N (N×N) or H,W pixels"},
			&ucli.IntFlag{Name: "frames", Value: 48, Usage: "frames per target (at least 2)"},
			&ucli.Float64Flag{Name: "rotation", Value: 90, Usage: "field rotation over each sequence, degrees"},
			&ucli.Float64Flag{Name: "fwhm", Value: 3, Usage: "PSF FWHM, pixels"},
			&ucli.Uint64Flag{Name: "seed", Value: 1, Usage: "seed of the first target (target k has seed+k)"},
			&ucli.StringFlag{Name: "dtype", Value: "f32", Usage: "cube type: f32 or f64"},
		},
		Action: synthSurveyAction,
	}
}

func synthSurveyAction(c *ucli.Context) error {
	base := synth.Config{RotationDeg: c.Float64("rotation")} // Noise nil: synth.DefaultNoise
	dir, err := sequenceFlags(c, &base)
	if err != nil {
		return err
	}
	n := c.Int("targets")
	if n < 1 || n > 10000 {
		return usagef("--targets: want 1 to 10000, got %d", n)
	}
	if base.FWHM = c.Float64("fwhm"); !(base.FWHM > 0) || base.FWHM > 100 {
		return usagef("--fwhm: want a FWHM in pixels between 0 and 100, got %g", base.FWHM)
	}
	if err := checkMemory(fmt.Sprintf("synth survey: %d cubes of %d×%d×%d %s", n, base.Frames, base.H, base.W, base.DType), uint64(n)*base.CubeBytes()); err != nil {
		return err
	}
	targets, err := survey.WriteSynthetic(c.Context, dir, base, n, Version)
	var ge *survey.GenerateError
	if errors.As(err, &ge) {
		return usageError{ge.Err}
	}
	if err != nil {
		return err
	}
	survey.PrintSynthetic(c.App.Writer, dir, base, targets)
	return nil
}
