// Package cli is vkstat's command line: urfave/cli/v2 commands, flag
// parsing, file formats, progress, tables and exit codes.
package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"runtime"
	"time"

	ucli "github.com/urfave/cli/v2"

	"github.com/vkstat/vkstat/engine"
	"github.com/vkstat/vkstat/shaders"
	"github.com/vkstat/vkstat/tensor"
)

// Version is set at build time with -ldflags "-X github.com/vkstat/vkstat/cli.Version=...".
var Version = "dev"

// Exit codes.
const (
	ExitOK    = 0
	ExitError = 1 // the command failed: bad input, no device, a failed check
	ExitUsage = 2 // the command line itself is wrong
)

// usageError marks errors in how the command was called.
type usageError struct{ error }

func usagef(format string, args ...any) error { return usageError{fmt.Errorf(format, args...)} }

// Main runs vkstat with args (os.Args) and returns the exit code.
func Main(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	app := New(stdout, stderr)
	err := app.RunContext(ctx, args)
	if err == nil {
		return ExitOK
	}
	fmt.Fprintf(stderr, "vkstat: %v\n", err)
	if a := advice(err); a != "" {
		fmt.Fprintf(stderr, "vkstat: %s\n", a)
	}
	var ue usageError
	if errors.As(err, &ue) {
		return ExitUsage
	}
	return ExitError
}

var globalFlags = []ucli.Flag{
	&ucli.StringFlag{Name: "device", Aliases: []string{"d"}, Value: "auto", EnvVars: []string{"VKSTAT_DEVICE"},
		Usage: "where to run: auto (best GPU, else the CPU path), cpu, gpu, lavapipe, an index as listed by the devices command, or part of a device name"},
	&ucli.StringFlag{Name: "precision", Aliases: []string{"p"}, Value: "auto",
		Usage: "arithmetic precision: f32, f64, or auto (the input's own type)"},
	&ucli.BoolFlag{Name: "validate", EnvVars: []string{"VKSTAT_VALIDATE"},
		Usage: "enable the Vulkan validation layer; any message it reports is an error"},
	&ucli.BoolFlag{Name: "time", Usage: "print where the time goes: start-up, read, upload, kernel (GPU timestamps), download, write, total"},
	&ucli.StringFlag{Name: "device-memory", EnvVars: []string{"VKSTAT_DEVICE_MEMORY"},
		Usage: "the most device memory to use, e.g. 2GiB or 512MiB (default: 90% of the GPU's); larger inputs run in passes"},
	&ucli.StringFlag{Name: "shader-dir", EnvVars: []string{"VKSTAT_SHADER_DIR"},
		Usage: "load SPIR-V (NAME.spv) from this folder instead of the built-in shaders"},
	&ucli.BoolFlag{Name: "verbose", Usage: "log diagnostics to stderr"},
}

// New builds the application.
func New(stdout, stderr io.Writer) *ucli.App {
	app := newApp(stdout, stderr)
	markUsageErrors(app.Commands)
	return app
}

// markUsageErrors makes a bad flag value of any command exit with
// ExitUsage, not just the top level's.
func markUsageErrors(cmds []*ucli.Command) {
	for _, c := range cmds {
		if c.OnUsageError == nil {
			c.OnUsageError = func(_ *ucli.Context, err error, _ bool) error { return usageError{err} }
		}
		markUsageErrors(c.Subcommands)
	}
}

func newApp(stdout, stderr io.Writer) *ucli.App {
	return &ucli.App{
		Name:    "vkstat",
		Usage:   "batched statistics and small dense linear algebra on any Vulkan GPU, or on the CPU",
		Version: Version,
		Description: `vkstat runs its kernels through Vulkan on NVIDIA, AMD, Intel and Mesa's
lavapipe, and through a native Go path where no GPU is present. Input
arrays are FITS (also .fits.gz) or NumPy .npy files, row-major (C order: a
FITS cube's NAXIS1 is its last axis); outputs are .npy files, or FITS where
a command says so.

Examples:
   vkstat devices
   vkstat map --x x.npy --y y.npy --a 3.5 --b 2.8 --c 10 --out z.npy --time
   vkstat reduce --in cube.npy --axis 0 --stat mean,std --out-dir stats/
   vkstat --device cpu reduce --in cube.npy --axis -1 --stat var --ddof 1 --out-dir out/`,
		Writer:               stdout,
		ErrWriter:            stderr,
		Flags:                globalFlags,
		EnableBashCompletion: true,
		Before: func(c *ucli.Context) error {
			level := slog.LevelWarn
			if c.Bool("verbose") {
				level = slog.LevelDebug
			}
			slog.SetDefault(slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: level})))
			shaders.SetDir(c.String("shader-dir"))
			return nil
		},
		OnUsageError: func(c *ucli.Context, err error, isSub bool) error {
			return usageError{err}
		},
		ExitErrHandler: func(*ucli.Context, error) {}, // Main reports errors
		Commands: []*ucli.Command{
			devicesCommand(),
			mapCommand(),
			reduceCommand(),
			synthCommand(),
			pacoCommand(),
			verifyCommand(),
			benchCommand(),
			covCommand(),
			cholCommand(),
		},
	}
}

// session is the device a command runs on: a Vulkan device, or nil for the
// CPU path.
type session struct {
	inst *engine.Instance
	dev  *engine.Device
	c    *ucli.Context
	// startup is the time to load Vulkan and open the device; read and
	// write the time commands spend on their files (streamed reads overlap
	// the upload and count there).
	startup, read, write time.Duration
	streamed             bool
}

// name describes where the command runs.
func (s *session) name() string {
	if s.dev == nil {
		return fmt.Sprintf("CPU path (native Go, %d threads)", runtime.GOMAXPROCS(0))
	}
	return fmt.Sprintf("%s (Vulkan %s, %s)", s.dev.Info.Name, s.dev.Info.APIVersion, s.dev.Info.Type)
}

// openSession opens the device that --device names. "auto" falls back to
// the CPU path when no loader or no GPU is present; any explicit Vulkan
// choice that cannot be honoured is an error.
func openSession(c *ucli.Context) (*session, error) {
	t0 := time.Now()
	s, err := openDevice(c)
	if s != nil {
		s.startup = time.Since(t0)
	}
	return s, err
}

func openDevice(c *ucli.Context) (*session, error) {
	spec := c.String("device")
	s := &session{c: c}
	if spec == "cpu" {
		return s, nil
	}
	inst, err := engine.NewInstance(engine.Options{Validate: c.Bool("validate")})
	if err != nil {
		if (spec == "auto" || spec == "") && errors.Is(err, engine.ErrNoLoader) && !c.Bool("validate") {
			slog.Info("no Vulkan loader; using the CPU path", "err", err)
			return s, nil
		}
		return nil, err
	}
	idx, err := engine.Select(inst.Devices(), spec)
	if err != nil || idx == engine.CPUPath {
		inst.Close()
		if err != nil {
			return nil, usageError{err}
		}
		return s, nil
	}
	opt, err := engine.DeviceOptionsFromEnv()
	if err == nil && c.String("device-memory") != "" {
		opt.Budget, err = engine.ParseSize(c.String("device-memory"))
		if err != nil {
			err = usagef("--device-memory: %v", err)
		}
	}
	if err != nil {
		inst.Close()
		return nil, err
	}
	dev, err := inst.OpenWith(idx, opt)
	if err != nil {
		inst.Close()
		return nil, err
	}
	s.inst, s.dev = inst, dev
	return s, nil
}

// Close releases the device; validation messages raised while closing
// (leaks) are returned.
func (s *session) Close() error {
	var err error
	if s.dev != nil {
		err = s.dev.Close()
	}
	if s.inst != nil {
		err = errors.Join(err, s.inst.Close())
	}
	return err
}

// precision returns the dtype to compute in for an input of type dt.
func precision(c *ucli.Context, dt tensor.DType) (tensor.DType, error) {
	p := c.String("precision")
	if p == "" || p == "auto" {
		return dt, nil
	}
	d, err := tensor.ParseDType(p)
	if err != nil {
		return 0, usageError{err}
	}
	return d, nil
}

// reportTime prints where the time went when --time is set: start-up
// (loading Vulkan, opening the device), reading inputs, the device's
// copies and kernels, writing outputs, and the wall time of the command.
func reportTime(c *ucli.Context, s *session, t engine.Timing, total time.Duration) {
	if !c.Bool("time") {
		return
	}
	w := c.App.ErrWriter
	ms := func(d time.Duration) string { return fmt.Sprintf("%9.3f ms", float64(d.Nanoseconds())/1e6) }
	fmt.Fprintf(w, "device:   %s\n", s.name())
	if s.dev != nil {
		fmt.Fprintf(w, "start-up: %s (Vulkan loader, instance, device)\n", ms(s.startup))
	}
	if s.streamed {
		fmt.Fprintf(w, "read:     (streamed: the file is read as it is uploaded)\n")
	} else {
		fmt.Fprintf(w, "read:     %s\n", ms(s.read))
	}
	if s.dev == nil {
		fmt.Fprintf(w, "compute:  %s (no copies on the CPU path)\n", ms(t.Kernel))
	} else {
		kernel := ms(t.Kernel) + " (GPU timestamps)"
		if !t.GPUTimed {
			kernel = "n/a (device has no timestamps)"
		}
		up := ms(t.Upload)
		if s.streamed {
			up += " (with the file read)"
		}
		fmt.Fprintf(w, "upload:   %s\nkernel:   %s\ndownload: %s\n", up, kernel, ms(t.Download))
	}
	fmt.Fprintf(w, "write:    %s\n", ms(s.write))
	fmt.Fprintf(w, "total:    %s (wall)\n", ms(total))
}

func requireFlag(c *ucli.Context, names ...string) error {
	for _, n := range names {
		if !c.IsSet(n) {
			return usagef("%s: missing required flag --%s", c.Command.Name, n)
		}
	}
	return nil
}

// fileExists errors early, before any computation, when an input is missing.
func fileExists(flag, path string) error {
	st, err := os.Stat(path)
	if err != nil {
		return fmt.Errorf("--%s: %w", flag, err)
	}
	if st.IsDir() {
		return fmt.Errorf("--%s: %s is a directory, not a file", flag, path)
	}
	return nil
}
