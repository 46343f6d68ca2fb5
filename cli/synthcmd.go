package cli

import (
	"fmt"
	"io"

	"github.com/vkstat/vkstat/formats"

	ucli "github.com/urfave/cli/v2"

	"github.com/vkstat/vkstat/pipelines/synth"
	"github.com/vkstat/vkstat/tensor"
)

func synthCommand() *ucli.Command {
	return &ucli.Command{
		Name:  "synth",
		Usage: "generate synthetic inputs, deterministic for a seed",
		Subcommands: []*ucli.Command{{
			Name:      "random",
			Usage:     "an array of uniform or normal random numbers",
			UsageText: "vkstat synth random --shape 64,1024,1024 [--dtype f32] [--dist normal] [--loc 0] [--scale 1] [--seed 1] --out A.npy",
			Description: `uniform draws from [loc, loc+scale); normal from N(loc, scale²).

Examples:
   vkstat synth random --shape 5000000 --dtype f64 --out x.npy
   vkstat synth random --shape 64,512,512 --dist normal --loc 1000 --scale 10 --out stack.npy`,
			Flags: []ucli.Flag{
				&ucli.StringFlag{Name: "shape", Usage: "comma-separated shape, e.g. 64,512,512"},
				&ucli.StringFlag{Name: "dtype", Value: "f32", Usage: "f32 or f64"},
				&ucli.StringFlag{Name: "dist", Value: "uniform", Usage: "uniform or normal"},
				&ucli.Float64Flag{Name: "loc", Value: 0, Usage: "offset (uniform) or mean (normal)"},
				&ucli.Float64Flag{Name: "scale", Value: 1, Usage: "width (uniform) or standard deviation (normal)"},
				&ucli.Uint64Flag{Name: "seed", Value: 1, Usage: "random seed"},
				&ucli.StringFlag{Name: "out", Aliases: []string{"o"}, Usage: "output (.npy, or FITS for .fits)"},
			},
			Action: func(c *ucli.Context) error {
				if err := requireFlag(c, "shape", "out"); err != nil {
					return err
				}
				encode, err := arrayEncoder("out", c.String("out"))
				if err != nil {
					return err
				}
				shape, err := tensor.ParseShape(c.String("shape"))
				if err != nil {
					return usageError{fmt.Errorf("--shape: %w", err)}
				}
				dt, err := parseFloatDType(c.String("dtype"))
				if err != nil {
					return usageError{fmt.Errorf("--dtype: %w", err)}
				}
				r := synth.Random{Loc: c.Float64("loc"), Scale: c.Float64("scale"), Seed: c.Uint64("seed")}
				if err := r.SetDist(c.String("dist")); err != nil {
					return fieldError(err)
				}
				if err := r.Check(); err != nil {
					return fieldError(err)
				}
				n := tensor.NumElements(shape)
				if err := checkMemory(fmt.Sprintf("synth random: shape %s of %s", tensor.ShapeString(shape), dt), uint64(n)*uint64(dt.Size())); err != nil {
					return err
				}
				bar := newProgress(c.App.ErrWriter)
				defer bar.done()
				r.Progress = func(done, total int) { bar.update("generating", float64(done)/float64(total)) }
				t, err := r.Draw(c.Context, dt, shape...)
				if err != nil {
					return err
				}
				return formats.AtomicWriteContext(c.Context, c.String("out"), func(w io.Writer) error { return encode(w, t) })
			},
		}, synthPacoCommand(), synthStackCommand(), synthLatentCommand(), synthSurveyCommand()},
	}
}
