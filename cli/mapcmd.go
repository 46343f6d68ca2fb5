package cli

import (
	"fmt"
	"time"

	ucli "github.com/urfave/cli/v2"

	"github.com/vkstat/vkstat/engine"
	"github.com/vkstat/vkstat/formats"
	"github.com/vkstat/vkstat/outputs"
	"github.com/vkstat/vkstat/pipelines/mapx"
	"github.com/vkstat/vkstat/tensor"
)

func mapCommand() *ucli.Command {
	return &ucli.Command{
		Name:      "map",
		Usage:     "evaluate z = a·x² + b·y + c elementwise",
		UsageText: "vkstat [global options] map --x X.{fits,npy} --y Y.{fits,npy} [--a A] [--b B] [--c C] --out Z.npy",
		Description: `x and y (FITS or NPY files) must have the same shape; z gets it too.
With --time, vkstat prints the cost of the host↔device copies next to the
kernel's own time, so the price of moving data is plain to see.

Examples:
   vkstat map --x x.npy --y y.npy --a 3.5 --b 2.8 --c 10 --out z.npy
   vkstat --device cpu --time map --x x.npy --y y.npy --out z.npy`,
		Flags: append([]ucli.Flag{
			&ucli.StringFlag{Name: "x", Usage: "input x (FITS or .npy)"},
			&ucli.StringFlag{Name: "y", Usage: "input y (FITS or .npy), same shape as x"},
			&ucli.StringFlag{Name: "out", Aliases: []string{"o"}, Usage: "output z (.npy, or FITS for .fits/.fit/.fts)"},
		}, paramFlags(mapx.Params())...),
		Action: func(c *ucli.Context) error {
			start := time.Now()
			if err := requireFlag(c, "x", "y", "out"); err != nil {
				return err
			}
			opt := mapx.DefaultOptions()
			if err := setParams(c, mapx.Params(), &opt); err != nil {
				return err
			}
			encoders, err := outputEncoders(c, "out")
			if err != nil {
				return err
			}
			tr := time.Now()
			x, err := readInput(c, "x")
			if err != nil {
				return err
			}
			y, err := readInput(c, "y")
			if err != nil {
				return err
			}
			if !tensor.SameShape(x.Shape, y.Shape) {
				return fmt.Errorf("shape mismatch: x %s is %s but y %s is %s", c.String("x"), tensor.ShapeString(x.Shape), c.String("y"), tensor.ShapeString(y.Shape))
			}
			dt, err := precision(c, x.DType)
			if err != nil {
				return err
			}
			x, y = x.As(dt), y.As(dt)
			// x is not needed after: on the CPU path z takes its memory.
			r, s, err := runOn(c, priced(mapx.Spec)(mapx.Work(x.Shape, dt, mapx.Options{})), time.Since(tr),
				func(dev *engine.Device) (*mapx.Result, error) {
					return mapx.Run(c.Context, dev, mapx.Input{X: x, Y: y, Over: true}, opt)
				})
			if err != nil {
				return err
			}
			tw := time.Now()
			if err := writeOutputs(c, "", "", []outputs.File{outputs.Array(c.String("out"), r.Z, encoders["out"])}, nil); err != nil {
				return err
			}
			return s.finish(c, nil, r.Timing, tw, start)
		},
	}
}

// readInput reads the array (FITS or NPY; see ReadArray) in the file named
// by flag.
func readInput(c *ucli.Context, flag string) (*tensor.Tensor, error) {
	path := c.String(flag)
	if err := fileExists(flag, path); err != nil {
		return nil, err
	}
	t, err := formats.ReadArray(path)
	if err != nil {
		return nil, fmt.Errorf("--%s: %w", flag, err)
	}
	return t, nil
}

// readInputAs reads the array flag names, in the type --precision asks
// for (its own type by default).
func readInputAs(c *ucli.Context, flag string) (*tensor.Tensor, error) {
	t, err := readInput(c, flag)
	if err != nil {
		return nil, err
	}
	dt, err := precision(c, t.DType)
	if err != nil {
		return nil, err
	}
	return t.As(dt), nil
}
