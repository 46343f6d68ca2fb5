package cli

import (
	"errors"
	"fmt"
	"path/filepath"
	"time"

	ucli "github.com/urfave/cli/v2"

	"github.com/vkstat/vkstat/engine"
	"github.com/vkstat/vkstat/outputs"
	"github.com/vkstat/vkstat/pipelines/quantile"
)

func quantileCommand() *ucli.Command {
	return &ucli.Command{
		Name:      "quantile",
		Usage:     "quantiles (the median) along an axis of an array, as NumPy's np.quantile",
		UsageText: "vkstat [global options] quantile --in A.{fits,npy} [--axis N] [--quantiles 0.5,0.9] [--skip-nan] --out-dir DIR",
		Description: `Reads a FITS or NPY array (as float32 or float64) and writes DIR/q.npy: the
quantiles --quantiles of each slice along --axis (NumPy numbering,
negative from the end), of shape (len(q),) + the input's shape without the
axis, in the input's dtype, as np.quantile(a, q, axis) with its default
("linear") method. The median is q 0.5, the default. A NaN makes its
slice's quantiles NaN unless --skip-nan leaves NaNs out, as np.nanquantile.
Slices longer than the device's shared memory holds are taken on the CPU,
with a note saying so (docs/quantile.md).

Examples:
   vkstat quantile --in stack.npy --axis 0 --out-dir med/                          # the temporal median
   vkstat quantile --in stack.npy --axis 0 --quantiles 0.1,0.5,0.9 --out-dir out/  # out/q.npy: (3, H, W)
   vkstat quantile --in rows.npy --axis -1 --quantiles 0.05,0.95 --skip-nan --out-dir out/
   vkstat --device gpu --time quantile --in cube.fits --axis 0 --out-dir med/`,
		Flags: append([]ucli.Flag{
			&ucli.StringFlag{Name: "in", Aliases: []string{"i"}, Usage: "input array (FITS or .npy)"},
			&ucli.StringFlag{Name: "out-dir", Aliases: []string{"out", "o"}, Usage: "folder for q.npy (created if missing)"},
			jsonFlag(),
		}, paramFlags(quantile.Params())...),
		Action: func(c *ucli.Context) error {
			start := time.Now()
			if err := requireFlag(c, "in", "out-dir"); err != nil {
				return err
			}
			opt := quantile.DefaultOptions()
			if err := setParams(c, quantile.Params(), &opt); err != nil {
				return err
			}
			if err := opt.Check(); err != nil {
				return fieldError(err)
			}
			tr := time.Now()
			in, err := readInputAs(c, "in")
			if err != nil {
				return err
			}
			r, s, err := runOn(c, priced(quantile.Spec)(quantile.Work(in.Shape, in.DType, opt)), time.Since(tr),
				func(dev *engine.Device) (*quantile.Result, error) { return quantile.Run(c.Context, dev, in, opt) })
			if s == nil { // the device did not open
				return err
			}
			var fe *engine.FieldError
			if errors.As(err, &fe) { // --axis out of range: worded with the flag
				return fieldError(err)
			}
			if err != nil {
				return fmt.Errorf("--in %s: %w", c.String("in"), err)
			}
			if r.Fallback != "" {
				fmt.Fprintf(c.App.ErrWriter, "vkstat: note: %s\n", r.Fallback)
			}
			tw := time.Now()
			sum := newSummary(c)
			sum.set("input", c.String("in"))
			sum.set("axis", opt.Axis)
			sum.set("q", opt.Q)
			sum.set("device", s.name())
			dir := c.String("out-dir")
			if err := writeOutputs(c, dir, "quantile", []outputs.File{outputs.Array(filepath.Join(dir, "q.npy"), r.Q, nil)}, sum); err != nil {
				return err
			}
			return s.finish(c, sum, r.Timing, tw, start)
		},
	}
}
