package cli

import (
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	ucli "github.com/urfave/cli/v2"

	"github.com/vkstat/vkstat/engine"
	"github.com/vkstat/vkstat/formats"
	"github.com/vkstat/vkstat/shaderlab"
)

func shaderCommand() *ucli.Command {
	return &ucli.Command{
		Name:  "shader",
		Usage: "compile, inspect, run, check and watch your own compute shaders",
		Description: `The shader development loop: write a GLSL compute shader (.comp) or bring
SPIR-V (.spv), see what it binds, run it on NPY data on any Vulkan device,
check it against expected outputs, and re-run it on every save.

GLSL is compiled in vkstat itself (libshaderc): #include is resolved next
to the including file, then in the --include folders, then in vkstat's own
shaders/include (so #include "include/common.glsl" gives flat_index() and
WG_SIZE); an #include cycle, or a chain over 32 files deep, is an error
naming the chain; -D defines macros. Bindings must be storage or uniform
buffers in set 0, numbered 0, 1, 2, ...; flags may come before or after
the FILE.

Examples:
   vkstat shader info examples/shaders/saxpy.comp
   vkstat shader run examples/shaders/saxpy.comp --bind x=examples/shaders/saxpy_x.npy \
       --bind y=examples/shaders/saxpy_y.npy --push a=2.5 --push n=1000 --global 1000 --out y=y.npy
   vkstat shader check examples/shaders/saxpy.comp ... --expect y=examples/shaders/saxpy_expected.npy
   vkstat shader check examples/shaders/saxpy.comp -b x=random:float32:1000 -b y=random:float32:1000 \
       --push a=2.5 --push n=1000 --global 1000 --reference 'y=a * x + y'
   vkstat shader watch examples/shaders/saxpy.comp ... --expect y=examples/shaders/saxpy_expected.npy
   vkstat shader sweep examples/shaders/scale_reference_sweep.json
   vkstat shader check --case examples/shaders/logreg.json`,
		Subcommands: []*ucli.Command{shaderInfoCommand(), shaderRunCommand(), shaderCheckCommand(), shaderWatchCommand(), shaderSweepCommand()},
	}
}

func compileFlags() []ucli.Flag {
	return []ucli.Flag{
		&ucli.StringSliceFlag{Name: "include", Aliases: []string{"I"}, Usage: "search this folder for #include files (repeatable)", Category: "COMPILE"},
		&ucli.StringSliceFlag{Name: "define", Aliases: []string{"D"}, Usage: "define a macro, NAME or NAME=VALUE (repeatable)", Category: "COMPILE"},
		&ucli.StringFlag{Name: "target-env", Value: "vulkan1.1", Usage: "vulkan1.0, vulkan1.1, vulkan1.2 or vulkan1.3 (1.2 and 1.3 run on devices of that version or later)", Category: "COMPILE"},
		&ucli.BoolFlag{Name: "optimize", Aliases: []string{"O"}, Usage: "optimise for performance (strips the names --bind, --push and --spec use)", Category: "COMPILE"},
	}
}

func runFlags() []ucli.Flag {
	return []ucli.Flag{
		&ucli.StringSliceFlag{Name: "bind", Aliases: []string{"b"}, Usage: "NAME=FILE.npy, or NAME=TYPE:SHAPE for zeros (float32:1024, uint32:16x16), or NAME=random:TYPE:SHAPE (see --seed); NAME is the binding number, instance or block name (repeatable)", Category: "RUN"},
		&ucli.StringSliceFlag{Name: "push", Usage: "set a push constant: NAME=VALUE (repeatable; unset members are 0)", Category: "RUN"},
		&ucli.StringSliceFlag{Name: "spec", Usage: "set a specialization constant: NAME=VALUE or ID=VALUE (repeatable)", Category: "RUN"},
		&ucli.StringSliceFlag{Name: "uniform", Aliases: []string{"u"}, Usage: "set a member of a uniform block: MEMBER=VALUE or BINDING.MEMBER=VALUE (repeatable; unset members are 0; or bind the block's bytes with --bind)", Category: "RUN"},
		&ucli.StringFlag{Name: "groups", Usage: "dispatch X[,Y[,Z]] workgroups", Category: "RUN"},
		&ucli.StringFlag{Name: "global", Usage: "dispatch X[,Y[,Z]] invocations: workgroups = ceil(global / local size)", Category: "RUN"},
		&ucli.StringSliceFlag{Name: "out", Aliases: []string{"o"}, Usage: "write a binding after the run: NAME=FILE.npy (repeatable)", Category: "RUN"},
		&ucli.StringFlag{Name: "out-dir", Usage: "write every binding that is not readonly to DIR/NAME.npy", Category: "RUN"},
		&ucli.DurationFlag{Name: "timeout", Value: 10 * time.Second, Usage: "give up on a dispatch that runs longer (a runaway shader)", Category: "RUN"},
		&ucli.IntFlag{Name: "repeat", Aliases: []string{"n"}, Value: 1, Usage: "run N times; the median GPU time is reported", Category: "RUN"},
		&ucli.IntFlag{Name: "warmup", Usage: "untimed runs before the --repeat timed ones (shader sweep: 1 unless given)", Category: "RUN"},
		&ucli.Int64Flag{Name: "seed", Usage: "seed of the random:TYPE:SHAPE bindings (floats uniform in [-1, 1), as ggml's test-backend-ops)", Category: "RUN"},
		&ucli.StringFlag{Name: "case", Usage: "take the flags (and the shader) from a case file (JSON; see vkstat shader sweep --help); the command line's flags win", Category: "RUN"},
		&ucli.BoolFlag{Name: "no-bounds-check", Usage: "no warning where the static bounds check finds no guard on gl_GlobalInvocationID.x (writes outside a binding are caught after the run all the same)", Category: "RUN"},
	}
}

func shaderInfoCommand() *ucli.Command {
	return &ucli.Command{
		Name:      "info",
		Usage:     "compile a shader if needed and show what it binds and needs",
		UsageText: "vkstat shader info [-I DIR] [-D NAME=VALUE] [--json] FILE.comp|FILE.spv",
		Description: `Prints the local size (and which dimensions are specialization constants),
every descriptor binding (set, binding, storage or uniform, readonly or
writeonly, the block's members with types and offsets), the push-constant
block, the specialization constants (id, name, type, default), and the
capabilities and extensions the module needs, with whether the selected
device (--device; all for every one) supports each. --json for tools.

Examples:
   vkstat shader info examples/shaders/saxpy.comp
   vkstat shader info --device all --json examples/shaders/subgroup_sum.comp
   vkstat shader info shaders/spv/cov_f32.spv`,
		Flags: append(compileFlags(), &ucli.BoolFlag{Name: "json", Usage: "print the reflection as JSON"}),
		Action: func(c *ucli.Context) error {
			path, err := shaderArg(c)
			if err != nil {
				return err
			}
			sc, err := flagCase(c)
			if err != nil {
				return err
			}
			sh, err := shaderlab.Load(path, compileOptions(c, sc))
			if err != nil {
				return err
			}
			infos, devErr := engine.ListAll(c.String("device"))
			if c.Bool("json") {
				return formats.JSON(shaderlab.NewReport(path, sh, infos))(c.App.Writer)
			}
			sh.WriteInfo(c.App.Writer, infos)
			if devErr != nil {
				fmt.Fprintf(c.App.ErrWriter, "vkstat: device support not shown: %v\n", devErr)
			}
			return nil
		},
	}
}

// onShaderDevices runs f on the devices --device names: all for every
// Vulkan device, else the ones named; the CPU path has no shader runtime.
func onShaderDevices(c *ucli.Context, f func(devs []*engine.Device) error) error {
	if c.String("device") == "cpu" {
		return usagef("--device cpu: shaders run on Vulkan devices (lavapipe runs them on the CPU: --device lavapipe)")
	}
	return onDevices(c, "auto", true, f)
}

// load compiles the shader and makes its plan (makePlan) and the files
// of its arrays (outFiles), writing the compiler's and the bounds check's
// warnings to w, each after indent.
func load(c *ucli.Context, path string, sc shaderlab.Case, opt shaderlab.Options, w io.Writer, indent string) (*shaderlab.Plan, []string, error) {
	sh, err := shaderlab.Load(path, compileOptions(c, sc))
	if err != nil {
		return nil, nil, err
	}
	for _, d := range sh.Warnings {
		fmt.Fprintf(w, "%s%s\n", indent, d)
	}
	p, err := makePlan(sc, sh, opt)
	var outs []string
	if err == nil {
		outs, err = outFiles(c, p)
	}
	if err != nil {
		return nil, nil, err
	}
	for _, x := range p.Warnings {
		fmt.Fprintf(w, "%swarning: %s\n", indent, x)
	}
	return p, outs, nil
}

// job is what run and check run: one shader's plan or the sequence of a
// --case file with steps, and the files its arrays go to (per array, its
// --out or --out-dir file, or "").
type job struct {
	target shaderlab.Target
	outs   []string
}

// caseJob is the job of a run or check and its case: the command line's
// over its --case file's, its shader compiled and its run flags checked,
// all before any device work (checkFiles has checked its output files).
func caseJob(c *ucli.Context) (job, shaderlab.Case, error) {
	sc, file, err := shaderCase(c)
	if err != nil {
		return job{}, sc, err
	}
	if file != nil && len(file.Steps) > 0 {
		j, err := sequenceJob(c, sc, file)
		return j, sc, err
	}
	j, err := planJob(c, sc)
	return j, sc, err
}

// planJob is the job of the command line's shader, else the case's.
func planJob(c *ucli.Context, sc shaderlab.Case) (job, error) {
	path, err := shaderPath(c, sc)
	if err == nil {
		err = checkRuns(c)
	}
	if err != nil {
		return job{}, err
	}
	p, outs, err := load(c, path, sc, runOptions(c), c.App.ErrWriter, "")
	return job{p, outs}, err
}

// sequenceJob is the job of --case's file, fc, which has steps; sc is the
// command line's case over it (its expect, tolerances and seed).
func sequenceJob(c *ucli.Context, sc shaderlab.Case, fc *shaderlab.Case) (job, error) {
	file := c.String("case")
	if c.NArg() > 0 {
		return job{}, usagef("--case %s has steps, each naming its shader: give no shader file (got %s)", file, strings.Join(c.Args().Slice(), " "))
	}
	for _, f := range []string{"bind", "push", "spec", "uniform", "groups", "global", "define", "include", "target-env", "optimize"} {
		if c.IsSet(f) {
			return job{}, usagef("--%s: the case %s has steps: set it per step in the case file", f, file)
		}
	}
	if err := checkRuns(c); err != nil {
		return job{}, err
	}
	fc.Seed = sc.Seed // the command line's, else the file's
	seq, err := fc.Sequence(file, runOptions(c))
	var ce *shaderlab.CaseError
	if errors.As(err, &ce) {
		return job{}, usagef("--case %s: %v", file, err)
	}
	if err != nil {
		return job{}, fmt.Errorf("--case %s: %w", file, err)
	}
	for _, w := range seq.Warnings() {
		fmt.Fprintln(c.App.ErrWriter, "warning: "+w)
	}
	outs, err := outFiles(c, seq)
	return job{seq, outs}, err
}

// checkRuns bounds --repeat and --warmup.
func checkRuns(c *ucli.Context) error {
	if c.Int("repeat") < 1 || c.Int("repeat") > maxBenchRuns {
		return usagef("--repeat must be from 1 to %d", maxBenchRuns)
	}
	if c.Int("warmup") < 0 || c.Int("warmup") > maxBenchRuns {
		return usagef("--warmup must be from 0 to %d", maxBenchRuns)
	}
	if c.Duration("timeout") <= 0 {
		return usagef("--timeout must be positive")
	}
	return nil
}

// runJob runs j on every device --device names, checking it against
// want and against where given (shaderlab.RunOn), writes the first run's
// --out files and, checking, the verdict.
func runJob(c *ucli.Context, j job, want map[int]*shaderlab.Array, tol func(int) shaderlab.Tolerance, against *shaderlab.Plan) error {
	var runs []*shaderlab.Result
	bad := 0
	err := onShaderDevices(c, func(devs []*engine.Device) (err error) {
		runs, bad, err = shaderlab.RunOn(c.Context, c.App.Writer, j.target, devs, want, tol, against)
		return entryError(err)
	})
	if err != nil {
		return err
	}
	if err := shaderlab.WriteOutputs(c.Context, c.App.Writer, j.target, runs[0], j.outs, c.String("out-dir")); err != nil {
		return err
	}
	what := "binding(s)"
	if _, seq := j.target.(*shaderlab.Sequence); seq {
		what = "buffer(s)"
	}
	if bad > 0 {
		return fmt.Errorf("shader check: %d %s differ beyond the tolerance", bad, what)
	}
	if len(want) > 0 || against != nil {
		fmt.Fprintln(c.App.Writer, "shader check: all passed")
	}
	return nil
}

func shaderRunCommand() *ucli.Command {
	return &ucli.Command{
		Name:      "run",
		Usage:     "run a shader on NPY data and write its outputs",
		UsageText: "vkstat shader run FILE.comp|FILE.spv --bind NAME=IN.npy|TYPE:SHAPE ... [--push NAME=V] [--spec NAME=V] --groups X[,Y,Z]|--global X[,Y,Z] [--out NAME=OUT.npy] [--device all]",
		Description: `Binds NPY files (or zeros of a type and shape) to the shader's bindings,
sets push and specialization constants by name, dispatches, and writes the
bindings named by --out (or every writable one with --out-dir) as NPY.
Types and sizes are checked against the blocks before anything runs.
Prints the GPU time from timestamps, the bytes the bindings move and the
bandwidth that makes; --repeat N reports the median of N runs. --device
all runs on every Vulkan device and reports the largest difference between
their outputs. --timeout stops waiting for a runaway shader.

Examples:
   vkstat shader run examples/shaders/saxpy.comp -b x=examples/shaders/saxpy_x.npy \
       -b y=examples/shaders/saxpy_y.npy --push a=2.5 --push n=1000 --global 1000 -o y=y.npy
   vkstat shader run examples/shaders/tile_transpose.comp -b src=examples/shaders/tile_in.npy \
       -b dst=float32:48x40 --spec TILE=8 --push rows=40 --push cols=48 --global 48,40 -o dst=t.npy
   vkstat --device all shader run ... --repeat 10`,
		Flags: append(compileFlags(), runFlags()...),
		Action: func(c *ucli.Context) error {
			j, _, err := caseJob(c)
			if err != nil {
				return err
			}
			return runJob(c, j, nil, nil, nil)
		},
	}
}

// toleranceFlags are check's, watch's and sweep's --reference, --tol,
// --atol and --rtol.
func toleranceFlags() []ucli.Flag {
	return []ucli.Flag{
		&ucli.StringSliceFlag{Name: "reference", Aliases: []string{"r"}, Usage: "compare a binding with what NumPy computes from the inputs: NAME=EXPRESSION ('2.5 * x + y': bindings, constants and np by name) or NAME=MODULE:FUNCTION or NAME=FILE.py:FUNCTION (called with them as keywords); Python from $VKSTAT_PYTHON, else /usr/bin/python3 (repeatable)"},
		&ucli.Float64Flag{Name: "tol", Value: 1e-5, Usage: "largest accepted |error| as a fraction of max |expected| (where --atol/--rtol are not given)"},
		&ucli.StringSliceFlag{Name: "atol", Usage: "accept |error| ≤ atol + rtol·|expected| per element, as np.testing.assert_allclose: X for every binding or NAME=X (repeatable)"},
		&ucli.StringSliceFlag{Name: "rtol", Usage: "the rtol of that test (default 1e-7 where only --atol is given): X or NAME=X (repeatable)"},
	}
}

// expected are the case's expectations of t and its tolerances.
func expected(c *ucli.Context, sc shaderlab.Case, t shaderlab.Target) (map[int]*shaderlab.Array, func(int) shaderlab.Tolerance, error) {
	want, err := sc.Expectations(c.Context, t)
	if err != nil {
		return nil, nil, entryError(err)
	}
	tol, err := sc.Tolerances(t)
	return want, tol, entryError(err)
}

func shaderCheckCommand() *ucli.Command {
	flags := append(compileFlags(), runFlags()...)
	flags = append(flags,
		&ucli.StringSliceFlag{Name: "expect", Aliases: []string{"e"}, Usage: "compare a binding after the run with an NPY file: NAME=FILE.npy (repeatable)"},
		&ucli.StringFlag{Name: "against", Usage: "compare every writable binding with what this other shader (same bindings and flags) computes"},
	)
	flags = append(flags, toleranceFlags()...)
	return &ucli.Command{
		Name:      "check",
		Usage:     "run a shader and compare its outputs with expected NPY files or another shader; exit 1 on mismatch",
		UsageText: "vkstat shader check FILE.comp [run flags] --expect NAME=WANT.npy ... [--tol 1e-5] | --against OTHER.comp",
		Description: `Runs the shader as shader run does, then compares each --expect binding
with its NPY file: max |error|, that as a fraction of max |expected|
(checked against --tol) and the normalised mean square error.
--reference NAME=EXPRESSION computes the expected array instead, once, in
float64 NumPy from the inputs before the run (bindings, push, uniform and
specialization constants and np by name: 'a * x + y'), or calls
MODULE:FUNCTION or FILE.py:FUNCTION with them as keywords; Python is
$VKSTAT_PYTHON, else /usr/bin/python3, and needs NumPy. Bind inputs as
random:TYPE:SHAPE (floats uniform in [-1, 1), from --seed) and no file is
needed at all. With --against, the other shader runs on the same bindings and constants and
every writable binding is compared. Exit status 1 on any mismatch, so a
Makefile can unit-test shaders. To re-check a built-in operation after
editing its shader, see vkstat verify --op NAME --shader-dir DIR.

Examples:
   vkstat shader check examples/shaders/reduce_shared.comp -b data=examples/shaders/reduce_in.npy \
       -b sums=float32:16 --push n=4000 --push chunk=250 --groups 16 \
       -e sums=examples/shaders/reduce_expected.npy --tol 1e-5
   vkstat shader check my_sum.comp ... --against examples/shaders/reduce_shared.comp`,
		Flags: flags,
		Action: func(c *ucli.Context) error {
			j, sc, err := caseJob(c)
			if err != nil {
				return err
			}
			want, tol, err := expected(c, sc, j.target)
			if err != nil {
				return err
			}
			_, plan := j.target.(*shaderlab.Plan)
			if !plan && len(want) == 0 {
				return usagef("shader check: the case expects nothing: give it \"expect\" (or --expect BUFFER=FILE.npy)")
			}
			var other *shaderlab.Plan
			if a := c.String("against"); a != "" && plan {
				if err := fileExists("against", a); err != nil {
					return err
				}
				sh, err := shaderlab.Load(a, compileOptions(c, sc))
				if err != nil {
					return err
				}
				opt := runOptions(c)
				opt.Repeat = 1
				if other, err = makePlan(sc, sh, opt); err == nil {
					_, err = outFiles(c, other) // --out's names must do for it too
				}
				if err != nil {
					return fmt.Errorf("--against %s: %w", a, err)
				}
			}
			if len(want) == 0 && other == nil {
				return usagef("shader check: give --expect NAME=FILE.npy, --reference NAME=EXPRESSION or --against OTHER")
			}
			return runJob(c, j, want, tol, other)
		},
	}
}
