package cli

import (
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"time"

	"github.com/vkstat/vkstat/formats"

	ucli "github.com/urfave/cli/v2"

	"github.com/vkstat/vkstat/engine"
	"github.com/vkstat/vkstat/pipelines/reduce"
	"github.com/vkstat/vkstat/tensor"
)

func reduceCommand() *ucli.Command {
	return &ucli.Command{
		Name:      "reduce",
		Usage:     "sum, mean, var, std, min, max along one axis of an array",
		UsageText: "vkstat [global options] reduce --in A.{fits,npy} --axis N --stat mean,std --out-dir DIR",
		Description: `Reads a FITS or NPY array and writes DIR/<stat>.npy for each statistic: the
input's shape without the reduced axis. Accumulation is in float64 (float32 data too, on devices with
shaderFloat64), merged pairwise, so long axes keep their accuracy. A NaN makes
every statistic of its slice NaN unless --skip-nan ignores NaNs as NumPy's
nanmean, nanstd, ... do.

Examples:
   vkstat reduce --in stack.npy --axis 0 --stat mean,std --out-dir stats/
   vkstat reduce --in latents.npy --axis -1 --stat var --ddof 1 --out-dir out/
   vkstat --device cpu reduce --in cube.npy --axis 0 --stat all --skip-nan --out-dir out/`,
		Flags: []ucli.Flag{
			&ucli.StringFlag{Name: "in", Aliases: []string{"i"}, Usage: "input array (FITS or .npy)"},
			&ucli.IntFlag{Name: "axis", Value: 0, Usage: "axis to reduce; negative counts from the end"},
			&ucli.StringFlag{Name: "stat", Value: "mean,std", Usage: "comma-separated statistics: sum, mean, var, std, min, max, or all"},
			&ucli.IntFlag{Name: "ddof", Value: 0, Usage: "delta degrees of freedom of var and std (0: population, 1: sample)"},
			&ucli.BoolFlag{Name: "skip-nan", Usage: "ignore NaNs instead of propagating them"},
			&ucli.StringFlag{Name: "out-dir", Aliases: []string{"o"}, Usage: "folder for the <stat>.npy outputs (created if missing)"},
		},
		Action: func(c *ucli.Context) error {
			start := time.Now()
			if err := requireFlag(c, "in", "out-dir"); err != nil {
				return err
			}
			statText := c.String("stat")
			if statText == "all" {
				statText = "sum,mean,var,std,min,max"
			}
			stats, err := reduce.ParseStats(statText)
			if err != nil {
				return usageError{fmt.Errorf("--stat: %w", err)}
			}
			if d := c.Int("ddof"); d < 0 {
				return usagef("--ddof must be 0 or more, got %d", d)
			}
			dir := c.String("out-dir")
			if err := checkOutputDir("out-dir", dir); err != nil {
				return err
			}
			opt := reduce.Options{Axis: c.Int("axis"), DDof: c.Int("ddof"), SkipNaN: c.Bool("skip-nan")}
			out, tm, s, err := runReduce(c, opt, stats)
			if err != nil {
				return err
			}
			tw := time.Now()
			outs := formats.Outputs{Ctx: c.Context}
			defer outs.Abort()
			outs.OwnDir(dir)
			for _, st := range stats {
				t := out[st]
				outs.Add(filepath.Join(dir, st.String()+".npy"), func(w io.Writer) error { return formats.EncodeNPY(w, t) })
			}
			if err := outs.Commit(); err != nil {
				return err
			}
			s.write = time.Since(tw)
			for _, st := range stats {
				fmt.Fprintf(c.App.Writer, "%s\t%s %s\n", filepath.Join(dir, st.String()+".npy"), out[st].DType, tensor.ShapeString(out[st].Shape))
			}
			reportTime(c, s, tm, time.Since(start))
			return nil
		},
	}
}

// runReduce reads --in and reduces it on the session's device. On a Vulkan
// device, an NPY file stored as computed (little-endian float32/float64, C
// order) streams from disk through the device and is never held whole in
// host memory; anything else is read whole first.
func runReduce(c *ucli.Context, opt reduce.Options, stats []reduce.Stat) (out map[reduce.Stat]*tensor.Tensor, tm engine.Timing, s *session, err error) {
	path := c.String("in")
	if err := fileExists("in", path); err != nil {
		return nil, tm, nil, err
	}
	src, file, err := formats.OpenSource(path)
	switch {
	case err == nil:
		defer file.Close()
	case errors.Is(err, formats.ErrNotStreamable):
	default:
		return nil, tm, nil, fmt.Errorf("--in: %w", err)
	}
	streamable := err == nil
	shape := src.Shape
	var in *tensor.Tensor
	var read time.Duration
	if !streamable {
		t0 := time.Now()
		if in, err = readInput(c, "in"); err != nil {
			return nil, tm, nil, err
		}
		read, shape = time.Since(t0), in.Shape
	}
	g, err := reduce.Plan(shape, opt.Axis)
	if err != nil {
		return nil, tm, nil, fmt.Errorf("--axis: %s has shape %s: %w", path, tensor.ShapeString(shape), err)
	}
	if opt.DDof >= g.N && slices.ContainsFunc(stats, func(s reduce.Stat) bool { return s == reduce.Var || s == reduce.Std }) {
		fmt.Fprintf(c.App.ErrWriter, "vkstat: warning: --ddof %d with %d value(s) along axis %d: var and std are NaN (they divide by n − ddof)\n", opt.DDof, g.N, opt.Axis)
	}
	dtype := src.DType
	if in != nil {
		dtype = in.DType
	}
	dt, err := precision(c, dtype)
	if err != nil {
		return nil, tm, nil, err
	}
	if s, err = openSessionFor(c, autoJob("reduce", shape, dt, opt.Axis)); err != nil {
		return nil, tm, nil, err
	}
	defer func() {
		if cerr := s.Close(); err == nil && cerr != nil {
			out, err = nil, cerr
		}
	}()
	if streamable && s.dev != nil && dt == src.DType {
		s.streamed = true
		out, tm, err = reduce.VulkanSource(c.Context, s.dev, src, opt, stats)
		return out, tm, s, err
	}
	if in == nil {
		t0 := time.Now()
		if in, err = src.Load(); err != nil {
			return nil, tm, nil, err
		}
		read = time.Since(t0)
	}
	s.read = read
	out, tm, err = reduce.Run(c.Context, s.dev, in.As(dt), opt, stats)
	return out, tm, s, err
}
