package cli

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	ucli "github.com/urfave/cli/v2"

	"github.com/vkstat/vkstat/engine"
	"github.com/vkstat/vkstat/internal/glsl"
)

func shaderWatchCommand() *ucli.Command {
	flags := append(compileFlags(), runFlags()...)
	flags = append(flags,
		&ucli.StringSliceFlag{Name: "expect", Aliases: []string{"e"}, Usage: "compare a binding after each run with an NPY file: NAME=FILE.npy (repeatable)"},
		&ucli.Float64Flag{Name: "tol", Value: 1e-5, Usage: "largest accepted max |error| as a fraction of max |expected|"},
		&ucli.DurationFlag{Name: "interval", Value: 250 * time.Millisecond, Usage: "how often to look for changes"},
		&ucli.IntFlag{Name: "max-runs", Hidden: true, Usage: "stop after N runs (tests)"},
	)
	return &ucli.Command{
		Name:      "watch",
		Usage:     "recompile and re-run a shader on every save",
		UsageText: "vkstat shader watch FILE.comp [run flags] [--expect NAME=WANT.npy]",
		Description: `Watches the shader, the .glsl/.comp files beside it and in the --include
folders, and the NPY files it reads. On every change it recompiles
(printing errors as file:line:column), re-runs on the device, and prints
the validation messages, the change of each written binding against the
previous run, the --expect verdicts, and the GPU time with its trend. A
broken edit prints its errors and waits for the next save; stop with
Ctrl-C.

Examples:
   vkstat shader watch examples/shaders/saxpy.comp -b x=examples/shaders/saxpy_x.npy \
       -b y=examples/shaders/saxpy_y.npy --push a=2.5 --push n=1000 --global 1000 \
       -e y=examples/shaders/saxpy_expected.npy
   vkstat --validate shader watch my.comp -b 0=in.npy -b 1=float32:1024 --global 1024`,
		Flags: flags,
		Action: func(c *ucli.Context) error {
			path, err := shaderArg(c)
			if err != nil {
				return err
			}
			if c.Int("repeat") < 1 || c.Duration("timeout") <= 0 || c.Duration("interval") <= 0 {
				return usagef("--repeat, --timeout and --interval must be positive")
			}
			inst, devs, err := openShaderDevices(c)
			if err != nil {
				return err
			}
			werr := watch(c, path, devs)
			if cerr := closeShaderDevices(inst, devs); werr == nil {
				werr = cerr
			}
			return werr
		},
	}
}

// watchedFiles are the files whose change triggers a run.
func watchedFiles(c *ucli.Context, path string) []string {
	files := []string{path}
	dirs := append([]string{filepath.Dir(path)}, c.StringSlice("include")...)
	for _, d := range dirs {
		for _, pat := range []string{"*.glsl", "*.comp"} {
			m, _ := filepath.Glob(filepath.Join(d, pat))
			files = append(files, m...)
		}
	}
	for _, flag := range []string{"bind", "expect"} {
		for _, s := range c.StringSlice(flag) {
			if _, v, ok := strings.Cut(s, "="); ok && strings.HasSuffix(v, ".npy") {
				files = append(files, v)
			}
		}
	}
	return files
}

// stamp is what a change of the watched files changes.
func stamp(files []string) string {
	var b strings.Builder
	for _, f := range files {
		if st, err := os.Stat(f); err == nil {
			fmt.Fprintf(&b, "%s %d %d\n", f, st.Size(), st.ModTime().UnixNano())
		} else {
			fmt.Fprintf(&b, "%s missing\n", f)
		}
	}
	return b.String()
}

// watch runs the loop until the context ends (or --max-runs).
func watch(c *ucli.Context, path string, devs []*engine.Device) error {
	w := c.App.Writer
	last := ""
	runs := 0
	prev := make([]*shaderRun, len(devs))       // per device, the last successful run
	times := make([][]time.Duration, len(devs)) // per device, the GPU times so far
	tick := time.NewTicker(c.Duration("interval"))
	defer tick.Stop()
	fmt.Fprintf(w, "watching %s (Ctrl-C to stop)\n", path)
	for {
		if s := stamp(watchedFiles(c, path)); s != last {
			last = s
			runs++
			fmt.Fprintf(w, "── run %d at %s\n", runs, time.Now().Format("15:04:05"))
			watchOnce(c, w, path, devs, prev, times)
			if m := c.Int("max-runs"); m > 0 && runs >= m {
				return nil
			}
		}
		select {
		case <-c.Context.Done():
			return c.Context.Err() // Ctrl-C: exit 130, as every command
		case <-tick.C:
		}
	}
}

// watchOnce compiles and runs once, printing what went wrong rather than
// stopping.
func watchOnce(c *ucli.Context, w io.Writer, path string, devs []*engine.Device, prev []*shaderRun, times [][]time.Duration) {
	sh, err := loadShader(path, compileOptions(c))
	var ce *glsl.CompileError
	switch {
	case errors.As(err, &ce):
		fmt.Fprintf(w, "compile error:\n")
		if len(ce.Diagnostics) == 0 {
			fmt.Fprintf(w, "  %s\n", strings.TrimSpace(ce.Log))
		}
		for _, d := range ce.Diagnostics {
			fmt.Fprintf(w, "  %s\n", d)
		}
		return
	case err != nil:
		fmt.Fprintf(w, "error: %v\n", err)
		return
	}
	for _, d := range sh.warnings {
		fmt.Fprintf(w, "  %s\n", d)
	}
	p, err := makePlan(c, sh)
	if err != nil {
		fmt.Fprintf(w, "error: %v\n", err)
		return
	}
	want, err := expectations(c, p)
	if err != nil {
		fmt.Fprintf(w, "error: %v\n", err)
		return
	}
	for i, d := range devs {
		r, err := p.run(c.Context, d, c.Int("repeat"))
		if err != nil {
			fmt.Fprintf(w, "error on %s: %v\n", d.Info.Name, err)
			if a := advice(err); a != "" {
				fmt.Fprintf(w, "  %s\n", a)
			}
			continue
		}
		printRun(w, p, r, c.Int("repeat"))
		if r.timed {
			k := r.median()
			trend := ""
			if ts := times[i]; len(ts) > 0 {
				old := ts[len(ts)-1]
				trend = fmt.Sprintf(" (previous %s, %+.1f%%)", fmtDur(old), 100*(k.Seconds()-old.Seconds())/max(old.Seconds(), 1e-12))
				var hist []string
				for _, t := range ts[max(0, len(ts)-4):] {
					hist = append(hist, fmt.Sprintf("%.3f", float64(t.Nanoseconds())/1e6))
				}
				trend += " trend ms: " + strings.Join(hist, " → ") + fmt.Sprintf(" → %.3f", float64(k.Nanoseconds())/1e6)
			}
			if trend != "" {
				fmt.Fprintf(w, "  time %s%s\n", fmtDur(k), trend)
			}
			times[i] = append(times[i], k)
		}
		if old := prev[i]; old != nil && len(old.outputs) == len(r.outputs) {
			for j, bb := range p.buffers {
				if bb.b.ReadOnly {
					continue
				}
				if d, err := diffArrays(r.outputs[j], old.outputs[j]); err == nil {
					if d.MaxAbs == 0 && d.NaNs == 0 {
						fmt.Fprintf(w, "  change vs previous run, %s: none\n", bindName(bb.b))
					} else {
						fmt.Fprintf(w, "  change vs previous run, %s: %s\n", bindName(bb.b), d)
					}
				}
			}
		}
		prev[i] = r
		if len(want) > 0 {
			checkRun(w, p, r, want, c.Float64("tol"))
		}
	}
	if r := prev[0]; r != nil && len(r.outputs) == len(p.buffers) {
		if err := writeOutputs(c, p, r); err != nil {
			fmt.Fprintf(w, "error: %v\n", err)
		}
	}
}
