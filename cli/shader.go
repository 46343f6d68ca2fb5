package cli

import (
	"errors"
	"fmt"
	"path/filepath"

	ucli "github.com/urfave/cli/v2"

	"github.com/vkstat/vkstat/shaderlab"
)

// compileOptions are the case's include, define and target-env, and
// --optimize.
func compileOptions(c *ucli.Context, sc shaderlab.Case) shaderlab.CompileOptions {
	o := sc.CompileOptions("")
	o.Optimize = c.Bool("optimize")
	return o
}

// flagCase is the case the command line's flags describe (its NAME=VALUE
// lists as maps, a tolerance for every array as "*").
func flagCase(c *ucli.Context) (shaderlab.Case, error) {
	sc := shaderlab.Case{Include: c.StringSlice("include")}
	for _, f := range []string{"define", "bind", "push", "uniform", "spec", "expect", "reference", "atol", "rtol"} {
		for _, s := range c.StringSlice(f) {
			if err := sc.Add(f, s); err != nil {
				return sc, entryError(err)
			}
		}
	}
	if c.IsSet("groups") {
		sc.Groups = c.String("groups")
	}
	if c.IsSet("global") {
		sc.Global = c.String("global")
	}
	if c.IsSet("target-env") {
		sc.TargetEnv = c.String("target-env")
	}
	if c.IsSet("tol") {
		sc.Tol = ptr(c.Float64("tol"))
	}
	if c.IsSet("seed") {
		sc.Seed = ptr(c.Int64("seed"))
	}
	return sc, nil
}

func ptr[T any](v T) *T { return &v }

// shaderCase is the case of the command line (flagCase) over its --case
// file's, and that file's case as it reads (nil without --case).
func shaderCase(c *ucli.Context) (shaderlab.Case, *shaderlab.Case, error) {
	sc, err := flagCase(c)
	file := c.String("case")
	if err != nil || file == "" {
		return sc, nil, err
	}
	if err := fileExists("case", file); err != nil {
		return sc, nil, err
	}
	fc, err := shaderlab.ReadCase(file)
	if err != nil {
		return sc, nil, err
	}
	if len(fc.Sweep) > 0 {
		return sc, nil, usagef("--case %s: the case has a sweep: run it with vkstat shader sweep %s", file, file)
	}
	return sc.Over(fc.In(filepath.Dir(file))), fc, nil
}

// shaderArg returns the one positional argument: the shader file.
func shaderArg(c *ucli.Context) (string, error) {
	if c.NArg() != 1 {
		return "", usagef("%s: want one shader file (.comp GLSL or .spv SPIR-V), got %d arguments", c.Command.FullName(), c.NArg())
	}
	return shaderFile(c.Args().First())
}

// shaderFile is path, a shader file that is there.
func shaderFile(path string) (string, error) {
	if err := fileExists("shader", path); err != nil {
		return "", fmt.Errorf("%s: %w", path, errors.Unwrap(err))
	}
	return path, nil
}

// shaderPath is the shader file: the command line's, else the case's.
func shaderPath(c *ucli.Context, sc shaderlab.Case) (string, error) {
	if sc.Shader == "" || c.NArg() > 0 {
		return shaderArg(c)
	}
	return shaderFile(sc.Shader)
}

// runOptions are --timeout, --repeat, --warmup and --no-bounds-check.
func runOptions(c *ucli.Context) shaderlab.Options {
	return shaderlab.Options{Timeout: c.Duration("timeout"), Repeat: c.Int("repeat"), Warmup: c.Int("warmup"), NoBoundsCheck: c.Bool("no-bounds-check")}
}

// entryError words an error of a case's entry as the command line's flag.
func entryError(err error) error {
	var ee *shaderlab.EntryError
	var ce *shaderlab.CaseError
	var se *shaderlab.ReferenceSizeError
	switch {
	case errors.As(err, &ee) && ee.Usage, errors.As(err, &ce):
		return usagef("--%v", err)
	case errors.As(err, &ee), errors.As(err, &se):
		return fmt.Errorf("--%w", err)
	}
	return err
}

// makePlan makes the plan of sh that the case's bindings, constants and
// dispatch and opt's run settings give: every error here comes before any
// device work.
func makePlan(sc shaderlab.Case, sh *shaderlab.Shader, opt shaderlab.Options) (*shaderlab.Plan, error) {
	p, err := sc.Plan(sh, opt)
	var ce *shaderlab.CaseError
	var nd *shaderlab.NoDataError
	var de *shaderlab.DispatchError
	switch {
	case errors.As(err, &ce) && sc.Groups != nil && sc.Global != nil:
		return nil, usagef("give --groups or --global, not both")
	case errors.As(err, &nd):
		n := shaderlab.BindName(nd.Binding)
		if nd.Binding.Kind == "uniform" && nd.Binding.Block != nil {
			ex := n + "." + nd.Binding.Block.Members[0].Name
			return nil, usagef("%s: give its members with --uniform %s=VALUE ... (unset members are 0), or its %d bytes with --bind %s=FILE.npy", nd, ex, nd.Binding.Block.Size, n)
		}
		return nil, usagef("%s: give --bind %s=FILE.npy, or --bind %s=float32:N for N zeros", nd, n, n)
	case errors.As(err, &de):
		l := de.Local
		return nil, usagef("give the dispatch: --groups X[,Y,Z] workgroups, or --global X[,Y,Z] invocations (divided by the local size %d×%d×%d)", l[0], l[1], l[2])
	}
	return p, entryError(err)
}

// outFiles are the files --out and --out-dir name for t's arrays
// (shaderlab.OutFiles).
func outFiles(c *ucli.Context, t shaderlab.Target) ([]string, error) {
	outs, err := shaderlab.OutFiles(t, c.StringSlice("out"), c.String("out-dir"))
	return outs, entryError(err)
}

// shaderSource is --shader-dir as the devices' shader source
// (shaderlab.FolderLoader); nil for no folder: the shaders built into the
// binary.
func shaderSource(dir string) func(name string) ([]byte, error) {
	if dir == "" {
		return nil
	}
	load := shaderlab.FolderLoader(dir)
	return func(name string) ([]byte, error) {
		b, err := load(name)
		if err != nil {
			return nil, fmt.Errorf("--shader-dir: %w", err)
		}
		return b, nil
	}
}
