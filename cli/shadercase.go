package cli

import (
	"fmt"
	"path/filepath"
	"slices"

	ucli "github.com/urfave/cli/v2"

	"github.com/vkstat/vkstat/engine"
	"github.com/vkstat/vkstat/shaderlab"
)

func shaderSweepCommand() *ucli.Command {
	flags := slices.DeleteFunc(append(compileFlags(), runFlags()...), func(f ucli.Flag) bool {
		// A sweep writes its table only (sweepWritesNone); its argument
		// is the case.
		return slices.Contains([]string{"out", "out-dir", "case"}, f.Names()[0])
	})
	flags = append(flags,
		&ucli.StringSliceFlag{Name: "expect", Aliases: []string{"e"}, Usage: "compare a binding with an NPY file: NAME=FILE.npy (repeatable)"},
	)
	flags = append(flags, toleranceFlags()...)
	return &ucli.Command{
		Name:      "sweep",
		Usage:     "run one case file over its variants (shapes, types, defines) and print a table of results",
		UsageText: "vkstat shader sweep CASE.json [flags for every variant]",
		Description: `A case file is JSON: the flags of one shader check, paths relative to the
file, and "sweep", a list of variants that each change some of them:

   {"shader": "scale.comp", "push": {"a": 2.5}, "tol": 1e-6,
    "sweep": [
      {"name": "f32 n=1000", "define": {"T": "float"}, "bind": {"x": "x1000.npy", "y": "float32:1000"},
       "push": {"n": 1000}, "global": 1000, "expect": {"y": "want1000.npy"}},
      {"name": "f16 n=1000", "define": {"T": "float16_t"}, ...}]}

Keys: shader, include, define, target_env, bind, push, uniform, spec,
groups or global, expect, reference (NAME: a NumPy expression or
MODULE:FUNCTION, as --reference), seed (of random:TYPE:SHAPE bindings),
tol, atol and rtol (NAME or "*" for all), name, flops (of one dispatch,
for the GFLOP/s column). With a reference and random inputs, the variants
need no expected files:

   {"shader": "scale.comp", "push": {"a": 2.5}, "seed": 45,
    "reference": {"y": "a * x.astype(np.float64)"},
    "sweep": [{"name": "f32 n=1000", "define": {"T": "float"},
               "bind": {"x": "random:float32:1000", "y": "float32:1000"},
               "push": {"n": 1000}, "global": 1000}, ...]}

Each variant runs on every device --device names, --warmup times untimed
(1 unless given) then --repeat times, and the table gives its verdict,
the elements beyond the tolerance, the largest error as a fraction of max
|expected|, the NMSE, the median GPU time of the timed runs (timestamps:
building the pipeline is not in it), the bytes moved per second, where
the case gives flops GFLOP/s, and apart the first run's wall time with
the pipeline's lazy compile (FIRST RUN). A variant the device
cannot run (a feature it lacks) is an ERROR row, its reason under the
table. Exit status 1 when any variant fails.
vkstat shader run, check and watch take one case with --case; run and
check also take a case of "buffers" (NAME: FILE.npy or TYPE:SHAPE) and
"steps" (each a shader with bind naming buffers, its constants, dispatch
and "times"; "times" at the top runs the steps in turn so many times),
whose buffers stay on the device between dispatches: see docs/shader.md.`,
		Flags: flags,
		Action: func(c *ucli.Context) error {
			if c.NArg() != 1 {
				return usagef("shader sweep: want one case file (JSON), got %d arguments", c.NArg())
			}
			file := c.Args().First()
			if err := checkRuns(c); err != nil {
				return err
			}
			if err := fileExists("case", file); err != nil {
				return err
			}
			sc, err := shaderlab.ReadCase(file)
			if err != nil {
				return err
			}
			if len(sc.Steps) > 0 {
				return usagef("shader sweep %s: the case has steps: run it with vkstat shader run or check --case %s", file, file)
			}
			own, err := flagCase(c)
			if err != nil {
				return err
			}
			opt := runOptions(c)
			if !c.IsSet("warmup") {
				opt.Warmup = 1
			}
			var table shaderlab.SweepTable
			err = onShaderDevices(c, func(devs []*engine.Device) error {
				for _, vc := range sc.Variants(filepath.Dir(file), own) {
					var p *shaderlab.Plan
					path, err := shaderFile(vc.Shader)
					if vc.Shader == "" {
						err = usagef("the case names no shader")
					}
					if err == nil {
						p, _, err = load(c, path, vc, opt, c.App.ErrWriter, "")
					}
					var want map[int]*shaderlab.Array
					var tol func(int) shaderlab.Tolerance
					if err == nil {
						want, tol, err = expected(c, vc, p)
					}
					if err != nil {
						table.Fail(vc.Name, "-", err)
						continue
					}
					table.Run(c.Context, vc.Name, p, devs, want, tol, vc.Flops)
				}
				return nil
			})
			if err != nil {
				return err
			}
			table.Write(c.App.Writer)
			if table.Failed > 0 {
				return fmt.Errorf("shader sweep: %d of %d rows failed", table.Failed, table.Len())
			}
			fmt.Fprintf(c.App.Writer, "shader sweep: %d rows passed\n", table.Len())
			return nil
		},
	}
}
