package cli

// vkstat synth paco: a synthetic ADI sequence with known companions, for
// trying PACO and for its tests (see pipelines/synth).

import (
	"fmt"
	"strings"

	ucli "github.com/urfave/cli/v2"

	"github.com/vkstat/vkstat/engine"
	"github.com/vkstat/vkstat/pipelines/paco"
	"github.com/vkstat/vkstat/pipelines/synth"
	"github.com/vkstat/vkstat/survey"
	"github.com/vkstat/vkstat/tensor"
)

// sequenceFlags reads what synth paco and synth survey share: --out-dir
// (checked by checkFiles), and into cfg the frames' --size, --frames (at
// least 2) and --seed and the cube's --dtype.
func sequenceFlags(c *ucli.Context, cfg *synth.Config) (dir string, err error) {
	if err = requireFlag(c, "out-dir"); err != nil {
		return "", err
	}
	dir = c.String("out-dir")
	if cfg.H, cfg.W, err = parseSize(c.String("size")); err != nil {
		return "", usagef("--size: %v", err)
	}
	if cfg.DType, err = parseFloatDType(c.String("dtype")); err != nil {
		return "", usagef("--dtype: %v", err)
	}
	if cfg.Frames = c.Int("frames"); cfg.Frames < 2 {
		return "", usagef("--frames %d: an ADI sequence needs at least 2 frames", cfg.Frames)
	}
	cfg.Seed = c.Uint64("seed")
	return dir, nil
}

// parseSize reads "N" (N×N) or "H,W" (also "HxW"): a shape
// (tensor.ParseShape) of one or two sides.
func parseSize(s string) (h, w int, err error) {
	shape, err := tensor.ParseShape(strings.Join(strings.FieldsFunc(strings.ToLower(s), func(r rune) bool { return r == ',' || r == 'x' }), ","))
	if err != nil || len(shape) > 2 {
		return 0, 0, fmt.Errorf("%q: want N or H,W in pixels, e.g. 100 or 96,128", s)
	}
	return shape[0], shape[len(shape)-1], nil
}

func synthPacoCommand() *ucli.Command {
	def := synth.Default()
	return &ucli.Command{
		Name:  "paco",
		Usage: "an ADI sequence (cube, angles, PSF) with companions at known positions, for PACO",
		UsageText: "vkstat synth paco --out-dir DIR [--size 100] [--frames 252] [--rotation 60] [--fwhm 4] " +
			"[--companion sep=20,pa=45,flux=30 ...] [--seed 1] [--format fits|npy|both]",
		Description: `Writes to --out-dir: cube (T, H, W), angles (T parallactic angles in degrees,
linear from --start-angle over --rotation), psf (the unit-sum PSF stamp), as
FITS and/or NPY, and truth.json: the configuration and every companion's
separation, position angle, flux and sky position (y, x). All files appear
together or not at all.

The background is stationary in time at every pixel (PACO's model): a static
stellar halo and quasi-static speckles fixed in the frame, plus smoothed noise
and white noise drawn afresh for every frame, with amplitudes falling with
radius (--halo, --speckle, --temporal, --white, --noise-scale).

A companion at (sep, pa) is a Gaussian PSF of --fwhm, its flux the total
flux. pa is the position angle east of north, as paco reports it, with north
up (+y) and east left (-x) in the derotated frame: pa=0 lands north of the
star (+y), pa=90 east (-x). Its map angle, from +x towards +y, is
theta = pa + 90 (give theta= instead of pa= to set it: theta=0 lands on +x).
In frame l it is placed, with sub-pixel accuracy, at map angle
theta - angle[l], so that PACO's detection map shows it at its sky position.
With the defaults, flux 20 at sep 20 gives a PACO SNR of about 8.

Examples:
   vkstat synth paco --companion sep=20,pa=45,flux=20 --out-dir adi/
   vkstat synth paco --size 128 --frames 100 --rotation 90 --fwhm 5 \
       --companion sep=15,pa=0,flux=40 --companion sep=35,pa=200,flux=15 \
       --seed 7 --format both --out-dir adi2/`,
		Flags: append(append(append([]ucli.Flag{
			&ucli.StringFlag{Name: "out-dir", Aliases: []string{"out", "o"}, Usage: "output directory (created if needed)"},
			&ucli.StringFlag{Name: "size", Value: "100", Usage: "frame size: N (N×N) or H,W pixels"},
		}, paramFlags(engine.Describe(def))...),
			// No alias: urfave/cli copies a flag's value to its aliases by
			// calling Set again with String(), which would add every
			// companion twice. (A StringSliceFlag would split the value at
			// its commas.)
			&ucli.GenericFlag{Name: "companion", Value: &synth.Companions{},
				Usage: `a companion "sep=PIXELS,pa=DEGREES,flux=FLUX", pa east of north as paco reports it (or theta=DEGREES from +x towards +y); repeat for more`},
			&ucli.Uint64Flag{Name: "seed", Value: def.Seed, Usage: "random seed"},
			&ucli.StringFlag{Name: "dtype", Value: "f32", Usage: "cube type: f32 or f64"},
			&ucli.StringFlag{Name: "format", Value: "fits", Usage: "file formats, comma-separated: fits, npy (both: fits,npy)"},
			&ucli.StringFlag{Name: "star", Usage: "the star's centre y,x in pixels, 0-based and sub-pixel (default H/2,W/2 by integer division): halo, speckles and the companions' rotation centre"},
		), paramFlags(engine.Describe(synth.DefaultNoise()))...),
		// Flag errors (a malformed --companion, say) are usage errors: exit 2.
		OnUsageError: func(c *ucli.Context, err error, isSub bool) error { return usageError{err} },
		Action:       synthPacoAction,
	}
}

func synthPacoAction(c *ucli.Context) error {
	cfg := synth.Default()
	dir, err := sequenceFlags(c, &cfg)
	if err != nil {
		return err
	}
	format, err := mapFormats("format", c.String("format"))
	if err != nil {
		return err
	}
	if cf, ok := c.Generic("companion").(*synth.Companions); ok && cf != nil {
		cfg.Companions = *cf
	}
	if err := setParams(c, engine.Describe(cfg), &cfg); err != nil {
		return err
	}
	if err := setParams(c, engine.Describe(*cfg.Noise), cfg.Noise); err != nil {
		return err
	}
	if st := c.String("star"); st != "" {
		how, yx, err := paco.ParseCenter(st) // y,x as paco's --center takes it
		if err != nil || how != paco.CenterGiven {
			return usagef("--star: want y,x in pixels, got %q", st)
		}
		cfg.Star = &yx
	}
	if err := checkMemory(fmt.Sprintf("synth paco: a cube of %d×%d×%d %s", cfg.Frames, cfg.H, cfg.W, cfg.DType), cfg.CubeBytes()); err != nil {
		return err
	}
	ds, err := synth.Generate(cfg)
	if err != nil {
		return usageError{err} // every input came from the command line
	}
	if err := survey.WriteDataset(c.Context, dir, ds, survey.FormatExts(format), Version); err != nil {
		return err
	}
	ds.WriteSummary(c.App.Writer, dir)
	return nil
}
