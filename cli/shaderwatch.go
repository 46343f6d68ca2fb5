package cli

import (
	"fmt"
	"time"

	ucli "github.com/urfave/cli/v2"

	"github.com/vkstat/vkstat/engine"
	"github.com/vkstat/vkstat/shaderlab"
)

func shaderWatchCommand() *ucli.Command {
	flags := append(compileFlags(), runFlags()...)
	flags = append(flags,
		&ucli.StringSliceFlag{Name: "expect", Aliases: []string{"e"}, Usage: "compare a binding after each run with an NPY file: NAME=FILE.npy (repeatable)"},
		&ucli.DurationFlag{Name: "interval", Value: 250 * time.Millisecond, Usage: "how often to look for changes"},
		&ucli.IntFlag{Name: "max-runs", Hidden: true, Usage: "stop after N runs (tests)"},
	)
	flags = append(flags, toleranceFlags()...)
	return &ucli.Command{
		Name:      "watch",
		Usage:     "recompile and re-run a shader on every save",
		UsageText: "vkstat shader watch FILE.comp [run flags] [--expect NAME=WANT.npy]",
		Description: `Watches the shader, the .glsl/.comp files beside it and in the --include
folders, and the NPY files it reads. On every change it recompiles
(printing errors as file:line:column), re-runs on the device, and prints
the validation messages, the change of each written binding against the
previous run, the --expect verdicts, and the GPU time with its trend,
and writes the --out and --out-dir files afresh (all or none). A broken
edit prints its errors and waits for the next save; stop with Ctrl-C.

Examples:
   vkstat shader watch examples/shaders/saxpy.comp -b x=examples/shaders/saxpy_x.npy \
       -b y=examples/shaders/saxpy_y.npy --push a=2.5 --push n=1000 --global 1000 \
       -e y=examples/shaders/saxpy_expected.npy
   vkstat --validate shader watch my.comp -b 0=in.npy -b 1=float32:1024 --global 1024`,
		Flags: flags,
		Action: func(c *ucli.Context) error {
			sc, file, err := shaderCase(c)
			if err == nil && file != nil && len(file.Steps) > 0 {
				err = usagef("--case %s: the case has steps: run it with vkstat shader run or check --case %s", c.String("case"), c.String("case"))
			}
			if err != nil {
				return err
			}
			path, err := shaderPath(c, sc)
			if err != nil {
				return err
			}
			if c.Int("repeat") < 1 || c.Duration("timeout") <= 0 || c.Duration("interval") <= 0 {
				return usagef("--repeat, --timeout and --interval must be positive")
			}
			return onShaderDevices(c, func(devs []*engine.Device) error { return watch(c, path, sc, devs) })
		},
	}
}

// watch runs the loop until the context ends (or --max-runs): each round
// compiles and runs afresh (shaderlab.WatchRound), printing what went
// wrong rather than stopping.
func watch(c *ucli.Context, path string, sc shaderlab.Case, devs []*engine.Device) error {
	w, n := c.App.Writer, 0
	runs := make([]shaderlab.Runs, len(devs)) // per device
	fmt.Fprintf(w, "watching %s (Ctrl-C to stop)\n", path)
	// Ctrl-C: exit 130, as every command.
	return shaderlab.Watch(c.Context, func() []string { return sc.WatchFiles(path) }, c.Duration("interval"), func() bool {
		n++
		fmt.Fprintf(w, "── run %d at %s\n", n, time.Now().Format("15:04:05"))
		newRound(c) // each run writes its outputs afresh
		p, outs, err := load(c, path, sc, runOptions(c), w, "  ")
		var want map[int]*shaderlab.Array
		var tol func(int) shaderlab.Tolerance
		if err == nil {
			want, tol, err = expected(c, sc, p)
		}
		if err == nil {
			shaderlab.WatchRound(c.Context, w, p, devs, runs, want, tol, advice)
			if r := runs[0].Last; r != nil && len(r.Outputs) == len(p.Inputs) {
				err = shaderlab.WriteOutputs(c.Context, w, p, r, outs, c.String("out-dir"))
			}
		}
		if err != nil {
			shaderlab.WriteError(w, err)
		}
		m := c.Int("max-runs")
		return m <= 0 || n < m
	})
}
