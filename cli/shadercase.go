package cli

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"text/tabwriter"

	ucli "github.com/urfave/cli/v2"

	"github.com/vkstat/vkstat/engine"
	"github.com/vkstat/vkstat/shaderlab"
)

// shader sweep takes its case file as its argument.
func init() { takesArgs["sweep"] = true }

func shaderSweepCommand() *ucli.Command {
	flags := slices.DeleteFunc(append(compileFlags(), runFlags()...), func(f ucli.Flag) bool {
		return f.Names()[0] == "out" || f.Names()[0] == "out-dir" // a sweep writes its table only (sweepWritesNone)
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
			variants := sc.Sweep
			if len(variants) == 0 {
				variants = []shaderlab.Case{{Name: sc.Name}}
			}
			own, err := flagCase(c)
			if err != nil {
				return err
			}
			opt := runOptions(c)
			if !c.IsSet("warmup") {
				opt.Warmup = 1
			}
			var rows [][]string
			var errs []string // the ERROR rows' messages, under the table
			failed := 0
			err = onShaderDevices(c, func(devs []*engine.Device) error {
				for i, v := range variants {
					vc := sc.Merged(v)
					name := vc.Name
					if name == "" {
						name = fmt.Sprintf("#%d", i+1)
					}
					row := func(dev, verdict string, rest ...string) {
						rows = append(rows, append([]string{name, dev, verdict}, rest...))
					}
					fail := func(dev string, err error) {
						failed++
						errs = append(errs, fmt.Sprintf("[%d] %s on %s: %s", len(errs)+1, name, dev, oneLine(err)))
						row(dev, "ERROR", fmt.Sprintf("[%d]", len(errs)), "-", "-", "-", "-", "-", "-")
					}
					// The variant's settings, then the command line's (its
					// values win, its lists add).
					vc = own.Over(vc.In(filepath.Dir(file)))
					var j *shaderJob
					path, err := shaderFile(vc.Shader)
					if vc.Shader == "" {
						err = usagef("the case names no shader")
					}
					if err == nil {
						j, err = prepare(c, path, vc, opt)
					}
					var want map[int]*shaderlab.Array
					var tol func(int) shaderlab.Tolerance
					if err == nil {
						want, tol, err = expected(c, vc, j)
					}
					if err != nil {
						fail("-", err)
						continue
					}
					for _, d := range devs {
						r, err := j.Run(c.Context, d)
						if err != nil {
							fail(d.Info.Name, err)
							continue
						}
						verdict, beyond, rel, nmse := "RAN", "-", "-", "-"
						if len(want) > 0 {
							sum := shaderlab.Summarize(j.Check(r, want, tol))
							if verdict = "PASS"; !sum.Pass {
								verdict = "FAIL"
								failed++
							}
							beyond, rel, nmse = fmt.Sprint(sum.Beyond), fmt.Sprintf("%.3g", sum.MaxRel), fmt.Sprintf("%.3g", sum.NMSE)
						}
						gpu, rate, flops := "n/a", "n/a", "-"
						if r.Timed {
							k := r.Median()
							gpu = shaderlab.Ms(k)
							if k > 0 {
								rate = shaderlab.RateText(float64(j.BytesMoved()) / k.Seconds())
								if vc.Flops > 0 {
									flops = fmt.Sprintf("%.3g", vc.Flops/k.Seconds()/1e9)
								}
							}
						}
						row(d.Info.Name, verdict, beyond, rel, nmse, gpu, rate, flops, shaderlab.Ms(r.First))
					}
				}
				return nil
			})
			if err != nil {
				return err
			}
			tw := tabwriter.NewWriter(c.App.Writer, 0, 0, 2, ' ', 0)
			fmt.Fprintln(tw, "CASE\tDEVICE\tRESULT\tBEYOND\tMAX REL ERR\tNMSE\tGPU TIME\tRATE\tGFLOP/S\tFIRST RUN")
			for _, r := range rows {
				fmt.Fprintln(tw, strings.Join(r, "\t"))
			}
			tw.Flush()
			for _, e := range errs {
				fmt.Fprintln(c.App.Writer, e)
			}
			if failed > 0 {
				return fmt.Errorf("shader sweep: %d of %d rows failed", failed, len(rows))
			}
			fmt.Fprintf(c.App.Writer, "shader sweep: %d rows passed\n", len(rows))
			return nil
		},
	}
}

// oneLine is err's message on one line (a compile error's first two).
func oneLine(err error) string {
	lines := strings.Split(err.Error(), "\n")
	return strings.Join(slices.DeleteFunc(lines[:min(len(lines), 2)], func(l string) bool { return l == "" }), " ")
}
