package cli

import (
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"time"

	ucli "github.com/urfave/cli/v2"

	"github.com/vkstat/vkstat/pipelines/reduce"
	"github.com/vkstat/vkstat/tensor"
)

func reduceCommand() *ucli.Command {
	return &ucli.Command{
		Name:      "reduce",
		Usage:     "sum, mean, var, std, min, max along one axis of an array",
		UsageText: "vkstat [global options] reduce --in A.npy --axis N --stat mean,std --out-dir DIR",
		Description: `Writes DIR/<stat>.npy for each statistic: the input's shape without the
reduced axis. Accumulation is in float64 (float32 data too, on devices with
shaderFloat64), merged pairwise, so long axes keep their accuracy. A NaN makes
every statistic of its slice NaN unless --skip-nan ignores NaNs as NumPy's
nanmean, nanstd, ... do.

Examples:
   vkstat reduce --in stack.npy --axis 0 --stat mean,std --out-dir stats/
   vkstat reduce --in latents.npy --axis -1 --stat var --ddof 1 --out-dir out/
   vkstat --device cpu reduce --in cube.npy --axis 0 --stat all --skip-nan --out-dir out/`,
		Flags: []ucli.Flag{
			&ucli.StringFlag{Name: "in", Aliases: []string{"i"}, Usage: "input array (.npy)"},
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
			in, err := readInput(c, "in")
			if err != nil {
				return err
			}
			opt := reduce.Options{Axis: c.Int("axis"), DDof: c.Int("ddof"), SkipNaN: c.Bool("skip-nan")}
			if _, err := reduce.Plan(in.Shape, opt.Axis); err != nil {
				return fmt.Errorf("--axis: %s has shape %s: %w", c.String("in"), tensor.ShapeString(in.Shape), err)
			}
			if g, _ := reduce.Plan(in.Shape, opt.Axis); opt.DDof >= g.N && slices.ContainsFunc(stats, func(s reduce.Stat) bool { return s == reduce.Var || s == reduce.Std }) {
				fmt.Fprintf(c.App.ErrWriter, "vkstat: warning: --ddof %d with %d value(s) along axis %d: var and std are NaN (they divide by n − ddof)\n", opt.DDof, g.N, opt.Axis)
			}
			dt, err := precision(c, in.DType)
			if err != nil {
				return err
			}
			in = in.As(dt)
			s, err := openSession(c)
			if err != nil {
				return err
			}
			out, tm, err := reduce.Run(c.Context, s.dev, in, opt, stats)
			if cerr := s.Close(); err == nil {
				err = cerr
			}
			if err != nil {
				return err
			}
			outs := Outputs{Ctx: c.Context}
			defer outs.Abort()
			outs.CreateDir(dir)
			for _, st := range stats {
				t := out[st]
				outs.Add(filepath.Join(dir, st.String()+".npy"), func(w io.Writer) error { return EncodeNPY(w, t) })
			}
			if err := outs.Commit(); err != nil {
				return err
			}
			for _, st := range stats {
				fmt.Fprintf(c.App.Writer, "%s\t%s %s\n", filepath.Join(dir, st.String()+".npy"), out[st].DType, tensor.ShapeString(out[st].Shape))
			}
			reportTime(c, s, tm, time.Since(start))
			return nil
		},
	}
}
