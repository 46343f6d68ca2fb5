package cli

// Command-line checks every command shares: stray positional arguments,
// non-finite numbers, global flags given after the command, unknown
// commands.

import (
	"fmt"
	"math"
	"slices"
	"strings"

	ucli "github.com/urfave/cli/v2"
)

// takesArgs names, by path, the commands that read positional arguments
// (verify --compare A.json B.json, the shader subcommands' FILE and
// sweep's case file, stack's dates (@LIST.txt too), survey run's MANIFEST,
// merge's partials and survey merge's folders): files they read
// (files.go) but for completion's shell. Every other command refuses them
// (synth stack too, whose leaf name is stack's).
var takesArgs = map[string]bool{"verify": true, "shader info": true, "shader run": true, "shader check": true, "shader watch": true,
	"shader sweep": true, "stack": true, "merge": true, "survey run": true, "survey merge": true, "completion": true}

// argsLast puts the flags of a command that reads positional arguments
// (takesArgs: `stack a.tif --json b.tif`, `survey run MANIFEST --out DIR`,
// `shader check -I DIR FILE -b ...`) before those arguments (flagsFirst),
// the command's own flags and the global ones that take no value read as
// such: urfave/cli stops reading flags at the first positional argument.
func argsLast(app *ucli.App, args []string) []string {
	cmd, path, _, end := commandAt(app, args)
	if cmd == nil || !takesArgs[path] {
		return args
	}
	return append(args[:end:end], flagsFirst(args[end:], boolFlags(cmd.Flags))...)
}

// globalCategory groups the global flags in a command's help.
const globalCategory = "GLOBAL (also accepted before the command)"

func init() {
	plain := ucli.FlagStringer
	ucli.FlagStringer = func(f ucli.Flag) string { return longFirst(f, plain(f)) }
}

// longFirst writes a flag's own name in its help line with two dashes, as
// the README and the examples spell it, even a one-letter one (map's --x
// and --a; urfave/cli writes -x), and the long aliases (quantile's --q);
// other one-letter aliases keep one (-o, -d).
func longFirst(f ucli.Flag, line string) string {
	n := f.Names()
	for _, a := range n[min(1, len(n)):] {
		if _, ok := longAliases[a]; ok {
			line = strings.ReplaceAll(line, ", -"+a+" ", ", --"+a+" ")
		}
	}
	if len(n) > 0 && len(n[0]) == 1 && strings.HasPrefix(line, "-"+n[0]) {
		return "-" + line
	}
	return line
}

// walkCommands calls fn for every command and subcommand in cmds, with
// its full name ("synth paco"), a command before its subcommands.
func walkCommands(cmds []*ucli.Command, prefix string, fn func(name string, c *ucli.Command)) {
	for _, c := range cmds {
		name := strings.TrimSpace(prefix + " " + c.Name)
		fn(name, c)
		walkCommands(c.Subcommands, name, fn)
	}
}

// hardenCommand applies the checks to c, the command at path.
func hardenCommand(path string, c *ucli.Command) {
	if c.OnUsageError == nil {
		c.OnUsageError = func(_ *ucli.Context, err error, _ bool) error { return flagError(err, path, c.Flags) }
	}
	if len(c.Subcommands) > 0 {
		if c.Action == nil {
			c.Action = unknownCommand(c.Subcommands, path)
		}
		return
	}
	addGlobalFlags(c)
	action, name := c.Action, path
	c.Before = adoptGlobalFlags // no command has a Before of its own
	c.Action = func(ctx *ucli.Context) error {
		if ctx.NArg() > 0 && !takesArgs[name] {
			return usagef("%s: unexpected argument %q: it takes no positional arguments, every input is a --flag (flags after %q were not read)",
				name, ctx.Args().First(), ctx.Args().First())
		}
		if err := checkFiniteFlags(ctx); err != nil {
			return err
		}
		if _, err := plotFormat(ctx); err != nil { // refused by every command, those that draw nothing too
			return err
		}
		if err := checkFiles(ctx, name); err != nil {
			return err
		}
		err := action(ctx)
		if f := filesOf(ctx); err == nil && f != nil {
			err = f.late
		}
		return err
	}
}

// unknownCommand is the action of a command line whose first word names no
// command: with no word it shows the help, otherwise it is a usage error
// that names the word and lists the commands.
func unknownCommand(cmds []*ucli.Command, path string) ucli.ActionFunc {
	return func(c *ucli.Context) error {
		if !c.Args().Present() {
			if c.Command != nil && c.Command.Name != "" {
				return ucli.ShowSubcommandHelp(c)
			}
			return ucli.ShowAppHelp(c)
		}
		var names []string
		for _, cmd := range cmds {
			if !cmd.Hidden {
				names = append(names, cmd.Name)
			}
		}
		prefix := ""
		if path != "" {
			prefix = path + ": "
		}
		return usagef("%sunknown command %q; the commands are: %s (see vkstat %s--help)",
			prefix, c.Args().First(), strings.Join(names, ", "), strings.TrimPrefix(path+" ", " "))
	}
}

// newGlobalFlags are the global flags; a fresh set per app, since urfave
// records in each flag whether it was set.
func newGlobalFlags() []ucli.Flag {
	return []ucli.Flag{
		&ucli.StringFlag{Name: "device", Aliases: []string{"d"}, Value: "auto", EnvVars: []string{"VKSTAT_DEVICE"},
			Usage: "where to run: auto (the faster for the job of the CPU path and the best GPU, --time says why), cpu, gpu, lavapipe, an index as listed by the devices command, or part of a device name"},
		&ucli.StringFlag{Name: "precision", Aliases: []string{"p"}, Value: "auto",
			Usage: "arithmetic precision: f32, f64, or auto (the input's own type); latent also takes f16 and bf16 (16-bit storage on the device)"},
		&ucli.BoolFlag{Name: "validate", EnvVars: []string{"VKSTAT_VALIDATE"},
			Usage: "enable the Vulkan validation layer; any message it reports is an error"},
		&ucli.BoolFlag{Name: "time", Usage: "print where the time goes: start-up, read, upload, kernel (GPU timestamps), download, write, total; the phases that split the total (allocation, host copies, submits, waits, ...) and what the device counted (allocations, pipelines, submits, host bytes copied)"},
		&ucli.StringFlag{Name: "time-json", Usage: "write what --time prints, as JSON, to this file"},
		&ucli.StringFlag{Name: "device-memory", EnvVars: []string{"VKSTAT_DEVICE_MEMORY"},
			Usage: "the most device memory to use, e.g. 2GiB or 512MiB (default: 90% of the GPU's); larger inputs run in passes"},
		&ucli.StringFlag{Name: "disable", EnvVars: []string{"VKSTAT_DISABLE"},
			Usage: "run as if the device lacked these features (float64, float16, subgroup; comma-separated), to test the kernels written for such devices"},
		&ucli.StringFlag{Name: "shader-dir", EnvVars: []string{"VKSTAT_SHADER_DIR"},
			Usage: "load SPIR-V (NAME.spv) from this folder instead of the built-in shaders; a folder with variants.txt and GLSL sources (shaders/) is compiled on the fly"},
		&ucli.BoolFlag{Name: "verbose", Usage: "log diagnostics to stderr at debug level: each device opened (name, type, driver, Vulkan version, float64 and subgroup size), the pipeline cache's loads and saves, and verify's rows as they finish"},
		&ucli.BoolFlag{Name: "quiet", Aliases: []string{"q"}, Usage: "draw no progress bars on stderr (warnings and errors still print)"},
		&ucli.StringFlag{Name: "plot-format", Value: "png", EnvVars: []string{"VKSTAT_PLOT_FORMAT"},
			Usage: "format of the pictures commands draw (snr, contrast, corr, pca, spectra, stack's): png, or svg and pdf (vector, for papers)"},
	}
}

// addGlobalFlags gives c a copy of each global flag it does not define
// itself, without environment variables (the app-level flag reads those),
// so that `vkstat reduce --device cpu ...` works like `vkstat --device cpu
// reduce ...`.
func addGlobalFlags(c *ucli.Command) {
	have := map[string]bool{}
	for _, f := range c.Flags {
		for _, n := range namesOf(f) {
			have[n] = true
		}
	}
	for _, g := range newGlobalFlags() {
		names := namesOf(g)
		name := names[0]
		if have[name] {
			continue
		}
		var aliases []string
		for _, a := range names[1:] {
			if !have[a] {
				aliases = append(aliases, a)
			}
		}
		switch f := g.(type) {
		case *ucli.StringFlag:
			c.Flags = append(c.Flags, &ucli.StringFlag{Name: name, Aliases: aliases, Value: f.Value, Usage: f.Usage, Category: globalCategory})
		case *ucli.BoolFlag:
			c.Flags = append(c.Flags, &ucli.BoolFlag{Name: name, Aliases: aliases, Usage: f.Usage, Category: globalCategory})
		}
	}
}

// namesOf is f.Names() without urfave's regular expression per name (a
// check for v1's "name, alias" form, which vkstat does not use): building
// the app asked for some 600 names, 0.6 ms of every process's start.
func namesOf(f ucli.Flag) []string {
	var name string
	var aliases []string
	switch f := f.(type) {
	case *ucli.StringFlag:
		name, aliases = f.Name, f.Aliases
	case *ucli.BoolFlag:
		name, aliases = f.Name, f.Aliases
	case *ucli.IntFlag:
		name, aliases = f.Name, f.Aliases
	case *ucli.Float64Flag:
		name, aliases = f.Name, f.Aliases
	default:
		return f.Names()
	}
	return append([]string{name}, aliases...)
}

// adoptGlobalFlags runs before a command: a global flag that the command
// line gave before the command, and not after it, is copied into the
// command's own copy, so that the command reads one value whichever side it
// was given on; the logging and shader settings are then applied again.
func adoptGlobalFlags(c *ucli.Context) error {
	local := c.LocalFlagNames()
	lineage := c.Lineage()
	for _, g := range newGlobalFlags() {
		name := g.Names()[0]
		if slices.Contains(local, name) {
			continue
		}
		for _, x := range lineage[1:] {
			if x.IsSet(name) {
				if err := c.Set(name, x.String(name)); err != nil {
					return usageError{fmt.Errorf("--%s: %w", name, err)}
				}
				break
			}
		}
	}
	setupLogging(c)
	return nil
}

// checkFiniteFlags refuses NaN and ±Inf in every floating-point flag given:
// no command has a use for them, and they would otherwise surface late (a
// JSON encoder refusing NaN after the whole run).
func checkFiniteFlags(c *ucli.Context) error {
	for _, f := range c.Command.Flags {
		ff, ok := f.(*ucli.Float64Flag)
		if !ok || !c.IsSet(ff.Name) {
			continue
		}
		if v := c.Float64(ff.Name); math.IsNaN(v) || math.IsInf(v, 0) {
			return usagef("--%s: want a finite number, got %v", ff.Name, v)
		}
	}
	return nil
}

// flagsFirst puts the flags of rest (a command's arguments) before its
// positional arguments, which follow a "--": urfave/cli stops reading
// flags at the first positional argument. bools names the flags that take
// no value.
func flagsFirst(rest []string, bools map[string]bool) []string {
	var flags, pos []string
	for k := 0; k < len(rest); k++ {
		a := rest[k]
		switch {
		case a == "--":
			pos = append(pos, rest[k+1:]...)
			k = len(rest)
		case strings.HasPrefix(a, "-") && len(a) > 1:
			flags = append(flags, a)
			if name := strings.TrimLeft(a, "-"); !strings.Contains(name, "=") && !bools[name] && k+1 < len(rest) {
				flags = append(flags, rest[k+1])
				k++
			}
		default:
			pos = append(pos, a)
		}
	}
	if len(pos) > 0 {
		flags = append(append(flags, "--"), pos...)
	}
	return flags
}

// boolFlags names the flags that take no value: those of flags, the
// global booleans and help.
func boolFlags(flags []ucli.Flag) map[string]bool {
	bools := map[string]bool{"validate": true, "time": true, "verbose": true, "quiet": true, "q": true, "help": true, "h": true}
	for _, f := range flags {
		if _, ok := f.(*ucli.BoolFlag); ok {
			for _, n := range f.Names() {
				bools[n] = true
			}
		}
	}
	return bools
}
