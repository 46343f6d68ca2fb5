package cli

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	ucli "github.com/urfave/cli/v2"

	"github.com/vkstat/vkstat/shaderlab"
)

// compileOptions reads the compile flags.
func compileOptions(c *ucli.Context) shaderlab.CompileOptions {
	return shaderlab.CompileOptions{
		Includes:  c.StringSlice("include"),
		Defines:   c.StringSlice("define"),
		TargetEnv: c.String("target-env"),
		Optimize:  c.Bool("optimize"),
	}
}

// shaderArg returns the one positional argument: the shader file.
func shaderArg(c *ucli.Context) (string, error) {
	if c.NArg() != 1 {
		return "", usagef("%s: want one shader file (.comp GLSL or .spv SPIR-V), got %d arguments", c.Command.FullName(), c.NArg())
	}
	path := c.Args().First()
	if err := fileExists("shader", path); err != nil {
		return "", fmt.Errorf("%s: %w", path, errors.Unwrap(err))
	}
	return path, nil
}

// caseShaderArg applies --case (applyCase) and returns the shader file:
// the command line's, else the case's.
func caseShaderArg(c *ucli.Context) (string, error) {
	path, err := applyCase(c)
	if err != nil || path == "" {
		if err == nil {
			path, err = shaderArg(c)
		}
		return path, err
	}
	if err := fileExists("shader", path); err != nil {
		return "", fmt.Errorf("%s: %w", path, errors.Unwrap(err))
	}
	return path, nil
}

// shaderJob is a plan and the files its bindings go to after the run.
type shaderJob struct {
	*shaderlab.Plan
	outs []string // per binding, its --out or --out-dir file, or ""
}

// splitAssign splits NAME=VALUE.
func splitAssign(flag, s string) (string, string, error) {
	k, v, ok := strings.Cut(s, "=")
	if !ok || k == "" || v == "" {
		return "", "", usagef("--%s %q: want NAME=VALUE", flag, s)
	}
	return strings.TrimSpace(k), strings.TrimSpace(v), nil
}

// settings reads the NAME=VALUE flags --push or --spec.
func settings(c *ucli.Context, flag string) ([]shaderlab.Setting, error) {
	var out []shaderlab.Setting
	for _, s := range c.StringSlice(flag) {
		k, v, err := splitAssign(flag, s)
		if err != nil {
			return nil, err
		}
		out = append(out, shaderlab.Setting{Name: k, Value: v})
	}
	return out, nil
}

// parseDims reads X[,Y[,Z]] (shaderlab.ParseDims) for --flag.
func parseDims(flag, s string) ([3]uint64, error) {
	d, err := shaderlab.ParseDims(s)
	if err != nil {
		return d, usagef("--%s %v", flag, err)
	}
	return d, nil
}

// bindData reads --bind NAME=FILE.npy or NAME=TYPE:SHAPE (zeros), checked
// against binding b.
func bindData(s, v string, b *shaderlab.Binding, seed uint64) (*shaderlab.Array, error) {
	arr, err := readArray("--bind "+s, shaderlab.BindName(*b), v, seed)
	if err != nil {
		return nil, err
	}
	return arr, shaderlab.CheckData(*b, arr)
}

// readArray reads a binding's data v (shaderlab.ReadData: FILE.npy,
// TYPE:SHAPE zeros, random:TYPE:SHAPE from seed and key); what names v in
// messages (--bind x=FILE).
func readArray(what, key, v string, seed uint64) (*shaderlab.Array, error) {
	arr, err := shaderlab.ReadData(v, seed, key)
	var de *shaderlab.DataError
	if errors.As(err, &de) {
		return nil, usagef("%s: %v", what, err)
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	return arr, nil
}

// constantFlags reads --push, --spec, --uniform and the dispatch (--groups
// or --global) into opt.
func constantFlags(c *ucli.Context, opt *shaderlab.Options) error {
	var err error
	if opt.Push, err = settings(c, "push"); err != nil {
		return err
	}
	if opt.Spec, err = settings(c, "spec"); err != nil {
		return err
	}
	if opt.Uniform, err = settings(c, "uniform"); err != nil {
		return err
	}
	switch {
	case c.IsSet("groups") && c.IsSet("global"):
		return usagef("give --groups or --global, not both")
	case c.IsSet("groups"):
		g, err := parseDims("groups", c.String("groups"))
		if err != nil {
			return err
		}
		opt.Groups = [3]uint32{uint32(g[0]), uint32(g[1]), uint32(g[2])}
	case c.IsSet("global"):
		if opt.Global, err = parseDims("global", c.String("global")); err != nil {
			return err
		}
	}
	return nil
}

// makePlan reads the binding, push-constant, specialization, dispatch and
// output flags into a plan of sh that runs repeat times: every error here
// comes before any device work.
func makePlan(c *ucli.Context, sh *shaderlab.Shader, repeat int) (*shaderJob, error) {
	mod := sh.Module
	opt := shaderlab.Options{Timeout: c.Duration("timeout"), Repeat: repeat, Warmup: c.Int("warmup"), NoBoundsCheck: c.Bool("no-bounds-check")}
	for _, s := range c.StringSlice("bind") {
		k, v, err := splitAssign("bind", s)
		if err != nil {
			return nil, err
		}
		b, err := shaderlab.FindBinding(mod, k)
		if err != nil {
			return nil, usagef("--bind %s: %v", s, err)
		}
		arr, err := bindData(s, v, b, uint64(c.Int64("seed")))
		if err != nil {
			return nil, err
		}
		opt.Bind = append(opt.Bind, shaderlab.Bind{Name: k, Data: arr})
	}
	if err := constantFlags(c, &opt); err != nil {
		return nil, err
	}
	p, err := shaderlab.NewPlan(sh, opt)
	var se *shaderlab.SettingError
	var nd *shaderlab.NoDataError
	var de *shaderlab.DispatchError
	switch {
	case errors.As(err, &se):
		flag := strings.ToLower(se.Field)
		return nil, usagef("--%s %s: %v", flag, c.StringSlice(flag)[se.Index], se.Err)
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
	case err != nil:
		return nil, err
	}

	outs, err := outFiles(c, p, len(p.Inputs), func(i int) bool { return !mod.Bindings[i].ReadOnly })
	if err != nil {
		return nil, err
	}
	return &shaderJob{Plan: p, outs: outs}, nil
}

// outFiles are the files --out and --out-dir name for the n arrays of t
// ("" for none); --out-dir takes those written(i) says a run writes.
func outFiles(c *ucli.Context, t shaderlab.Target, n int, written func(i int) bool) ([]string, error) {
	outs := make([]string, n)
	for _, s := range c.StringSlice("out") {
		k, v, err := splitAssign("out", s)
		if err != nil {
			return nil, err
		}
		i, err := t.Find(k)
		if err != nil {
			return nil, usagef("--out %s: %v", s, err)
		}
		outs[i] = v
	}
	for i := range outs {
		if dir := c.String("out-dir"); dir != "" && written(i) && outs[i] == "" {
			outs[i] = filepath.Join(dir, t.Name(i)+".npy")
		}
		if outs[i] != "" && !strings.HasSuffix(outs[i], ".npy") {
			return nil, usagef("--out %s=%s: outputs are .npy files", t.Name(i), outs[i])
		}
	}
	return outs, nil
}

// rateText is shaderlab.RateText (TestRateText checks it here).
var rateText = shaderlab.RateText
