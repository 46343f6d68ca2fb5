package cli

import (
	"errors"
	"fmt"
	"time"

	ucli "github.com/urfave/cli/v2"

	"github.com/vkstat/vkstat/engine"
	"github.com/vkstat/vkstat/formats"
	"github.com/vkstat/vkstat/outputs"
	"github.com/vkstat/vkstat/partials"
	"github.com/vkstat/vkstat/pipelines/reduce"
	"github.com/vkstat/vkstat/tensor"
)

func reduceCommand() *ucli.Command {
	return &ucli.Command{
		Name:      "reduce",
		Usage:     "sum, mean, var, std, min, max along an axis (or axes) of an array",
		UsageText: "vkstat [global options] reduce --in A.{fits,npy} --axis N[,M...]|all --stat mean,std --out-dir DIR",
		Description: `Reads a FITS or NPY array and writes DIR/<stat>.npy for each statistic: the
input's shape without the reduced axes. --axis takes one axis (NumPy
numbering, negative from the end), several as NumPy's axis=(1, 2)
(--axis 1,2: the pixels of each frame of a cube; axes that are not
adjacent, 0,2, are reduced from a transposed copy in memory), or all (NumPy's
axis=None: one value per statistic). Accumulation is in float64 (float32
data too, on devices with shaderFloat64), merged pairwise, so long axes
keep their accuracy. A NaN makes every statistic of its slice NaN unless
--skip-nan ignores NaNs as NumPy's nanmean, nanstd, ... do.

Examples:
   vkstat reduce --in stack.npy --axis 0 --stat mean,std --out-dir stats/
   vkstat reduce --in cube.fits --axis 1,2 --stat mean,max --out-dir per-frame/
   vkstat reduce --in latents.npy --axis -1 --stat var --ddof 1 --out-dir out/
   vkstat --device cpu reduce --in cube.npy --axis 0 --stat all --skip-nan --out-dir out/

Shards: with --partial, reduce writes instead the partial of its input (a
shard of an array cut along the reduced axis): DIR/partial.json, which
says how it was made, and float64 count, sum, m2, min and max arrays,
computed on the CPU; vkstat merge makes from the partials of all the shards
the outputs one run over the whole array gives (docs/scale.md):
   vkstat reduce --in part-1.npy --axis 0 --stat mean,std --partial --out-dir p1/
   vkstat merge --out-dir stats/ p1/ p2/ p3/`,
		Flags: append([]ucli.Flag{
			&ucli.StringFlag{Name: "in", Aliases: []string{"i"}, Usage: "input array (FITS or .npy)"},
			&ucli.BoolFlag{Name: "partial", Usage: "write the input's mergeable partial (partial.json and float64 arrays) for vkstat merge instead of the statistics"},
			&ucli.StringFlag{Name: "out-dir", Aliases: []string{"out", "o"}, Usage: "folder for the <stat>.npy outputs (created if missing)"},
			jsonFlag(),
		}, paramFlags(reduce.Params())...),
		Action: func(c *ucli.Context) error {
			start := time.Now()
			if err := requireFlag(c, "in", "out-dir"); err != nil {
				return err
			}
			opt := reduce.DefaultOptions()
			if err := setParams(c, reduce.Params(), &opt); err != nil {
				return err
			}
			if err := opt.Check(); err != nil {
				return fieldError(err)
			}
			if c.Bool("partial") {
				return reducePartial(c, opt)
			}
			out, tm, s, err := runReduce(c, opt)
			if err != nil {
				return err
			}
			tw := time.Now()
			sum := newSummary(c)
			sum.set("input", c.String("in"))
			sum.set("axis", c.String("axis"))
			sum.set("device", s.name())
			if err := writeReduce(c, c.String("out-dir"), opt.Stats, out, sum); err != nil {
				return err
			}
			return s.finish(c, nil, tm, tw, start) // the files and the summary
		},
	}
}

// runReduce reads --in and reduces it over opt.Axes on the session's
// device (reduce.Run, RunSource). On a Vulkan device, an NPY file stored
// as computed (little-endian float32/float64, C order) streams from disk
// through the device and is never held whole in host memory, unless the
// axes are not adjacent (reduced from a transposed copy); anything else
// is read whole first.
func runReduce(c *ucli.Context, opt reduce.Options) (out map[reduce.Stat]*tensor.Tensor, tm engine.Timing, s *session, err error) {
	path := c.String("in")
	if err := fileExists("in", path); err != nil {
		return nil, tm, nil, err
	}
	t0 := time.Now()
	src, in, file, err := formats.OpenArray(path) // once: a FIFO gives its bytes to the first open only
	if err != nil {
		return nil, tm, nil, fmt.Errorf("--in: %w", err)
	}
	if file != nil {
		defer file.Close()
	}
	var read time.Duration
	shape, dtype := src.Shape, src.DType
	if in != nil {
		read, shape, dtype = time.Since(t0), in.Shape, in.DType
	}
	g, err := reduceGeometry(c, shape, opt)
	empty := errors.Is(err, reduce.ErrEmptyAxis) // as NumPy: sum 0, mean, var and std NaN, no min or max
	if err != nil && !empty {
		return nil, tm, nil, err
	}
	if empty && g.Outputs() > 0 {
		fmt.Fprintf(c.App.ErrWriter, "vkstat: warning: --axis %s of %s (shape %s) has length 0: sum 0, mean, var and std NaN (as NumPy)\n", c.String("axis"), path, tensor.ShapeString(shape))
	}
	if g.Perm != nil && in == nil { // axes that are not adjacent: reduced from a transposed copy
		t0 := time.Now()
		if in, err = src.Load(); err != nil {
			return nil, tm, nil, err
		}
		read = time.Since(t0)
	}
	if !empty {
		for _, w := range opt.Warnings(g.N, c.String("axis")) {
			fmt.Fprintf(c.App.ErrWriter, "vkstat: warning: %s\n", w.Words(flagSetting))
		}
	}
	dt, err := precision(c, dtype)
	if err != nil {
		return nil, tm, nil, err
	}
	priceAs := opt // priced as the mean and std, whatever the statistics
	priceAs.Stats = []reduce.Stat{reduce.Mean, reduce.Std}
	if s, err = openSessionFor(c, priced(reduce.Spec)(reduce.Work(shape, dt, priceAs))); err != nil {
		return nil, tm, nil, err
	}
	defer func() {
		if cerr := s.Close(); err == nil && cerr != nil {
			out, err = nil, cerr
		}
	}()
	var res *reduce.Result
	if in == nil && s.dev != nil && dt == src.DType {
		s.Streamed = true
		if res, err = reduce.RunSource(c.Context, s.dev, src, opt); err != nil {
			return nil, tm, s, err
		}
		return res.Stats, res.Timing, s, nil
	}
	if in == nil {
		t0 := time.Now()
		if in, err = src.Load(); err != nil {
			return nil, tm, nil, err
		}
		read = time.Since(t0)
	}
	s.Read = read
	if res, err = reduce.Run(c.Context, s.dev, in.As(dt), opt); err != nil {
		return nil, tm, s, err
	}
	return res.Stats, res.Timing, s, nil
}

// reduceGeometry is the reduction of --in, of shape, over opt.Axes
// (reduce.Options.Geometry), its error worded with --axis and the file.
func reduceGeometry(c *ucli.Context, shape []int, opt reduce.Options) (reduce.Geometry, error) {
	g, err := opt.Geometry(shape)
	if err != nil && !errors.Is(err, reduce.ErrEmptyAxis) {
		err = fmt.Errorf("--axis %s: %s has shape %s: %w", c.String("axis"), c.String("in"), tensor.ShapeString(shape), err)
	}
	return g, err
}

// writeReduce writes DIR/<stat>.npy for each statistic, all or none, and
// the summary sum with them.
func writeReduce(c *ucli.Context, dir string, stats []reduce.Stat, out map[reduce.Stat]*tensor.Tensor, sum *summary) error {
	if err := writeOutputs(c, dir, "reduce", outputs.Reduce(dir, stats, out), sum); err != nil {
		return err
	}
	return sum.print(c)
}

// reducePartial is reduce --partial: the partial of --in over opt.Axes
// (reduce.CPUPartial), written to --out-dir with the settings its merge
// needs.
func reducePartial(c *ucli.Context, opt reduce.Options) error {
	path, dir := c.String("in"), c.String("out-dir")
	in, err := readInputAs(c, "in")
	if err != nil {
		return err
	}
	if _, err := reduceGeometry(c, in.Shape, opt); err != nil && !errors.Is(err, reduce.ErrEmptyAxis) {
		return err
	}
	p, err := reduce.CPUPartial(in, opt)
	if err != nil {
		return err
	}
	h, arrays := partials.Reduce(p, opt)
	h.Settings["axis"] = c.String("axis")
	h.Part["input"], h.Part["input-shape"] = path, in.Shape
	return writePartial(c, dir, "reduce", h, arrays, map[string]any{"input": path, "axis": c.String("axis"), "rows": p.Rows},
		fmt.Sprintf("partial of %s: %d rows along the axis, outputs %s", path, p.Rows, tensor.ShapeString(p.OutShape)))
}
