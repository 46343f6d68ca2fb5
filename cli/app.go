// Package cli is vkstat's command line: urfave/cli/v2 commands, flag
// parsing, file formats, progress, tables and exit codes. The flags'
// defaults are the workloads' own (their DefaultOptions or Defaults), and
// the library's option errors and warnings are worded here with the flags'
// names (fields.go: --radius for the field radius).
package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"runtime"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/vkstat/vkstat/formats"

	ucli "github.com/urfave/cli/v2"

	"github.com/vkstat/vkstat/device/tune"
	"github.com/vkstat/vkstat/engine"
	"github.com/vkstat/vkstat/survey"
)

// Version is set at build time with -ldflags "-X github.com/vkstat/vkstat/cli.Version=...".
var Version = "dev"

// Exit codes.
const (
	ExitOK    = 0
	ExitError = 1 // the command failed: bad input, no device, a failed check
	ExitUsage = 2 // the command line itself is wrong
	// ExitTargetsFailed: vkstat survey ran and wrote its table, but some
	// targets failed (the table and the summary say which and why).
	ExitTargetsFailed = 3
	// ExitInterrupted: stopped by SIGINT or SIGTERM (the shell's 128+SIGINT).
	ExitInterrupted = 130
)

// usageError marks errors in how the command was called.
type usageError struct{ error }

func usagef(format string, args ...any) error { return usageError{fmt.Errorf(format, args...)} }

// Main runs vkstat with args (os.Args) and returns the exit code.
func Main(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	out := &checkedWriter{w: stdout}
	var err error
	if len(args) == 2 && (args[1] == "--version" || args[1] == "-v") {
		// As the app prints it, without building the app: its commands,
		// their flags and urfave/cli's set-up of them are 3 ms of 20 on the
		// 2-core VM.
		fmt.Fprintf(out, "vkstat version %s\n", Version)
	} else {
		app := New(out, stderr)
		args, err = renameFlags(app, args, stderr)
		if err == nil {
			err = app.RunContext(ctx, argsLast(app, args))
		}
	}
	if err == nil && out.err != nil {
		// What the command printed did not arrive (a full disk, a closed
		// standard output): its result is lost, so it failed.
		err = fmt.Errorf("writing standard output: %w", out.err)
	}
	if err == nil {
		return ExitOK
	}
	if ctx.Err() != nil {
		formats.RemoveTemporaries()
		fmt.Fprintln(stderr, "vkstat: interrupted")
		return ExitInterrupted
	}
	fmt.Fprintf(stderr, "vkstat: %v\n", err)
	var tf survey.FailedError // a survey ran, its tables written, but some targets failed
	if errors.As(err, &tf) {
		return ExitTargetsFailed
	}
	if a := advice(err); a != "" {
		fmt.Fprintf(stderr, "vkstat: %s\n", a)
	}
	var ue usageError
	if errors.As(err, &ue) {
		return ExitUsage
	}
	return ExitError
}

// checkedWriter is standard output as the commands see it: the first
// write error is kept for Main, and every later write fails with it
// without writing, so that nothing half-printed follows a lost line.
type checkedWriter struct {
	mu  sync.Mutex // commands may print from several goroutines
	w   io.Writer
	err error
}

func (c *checkedWriter) Write(p []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.err != nil {
		return 0, c.err
	}
	n, err := c.w.Write(p)
	if err == nil && n < len(p) {
		err = io.ErrShortWrite
	}
	c.err = err
	return n, err
}

// closestFlag is the flag among flags whose name (or alias, or earlier
// spelling in old) is closest to name, with its dashes; "" for none.
func closestFlag(name string, flags []ucli.Flag, old map[string]string) string {
	if ucli.SuggestFlag == nil { // built with urfave_cli_no_suggest
		return ""
	}
	// The candidates as flags of their own, each name one, so that an
	// earlier spelling leads to today's.
	var cands []ucli.Flag
	for _, f := range flags {
		for _, n := range f.Names() {
			cands = append(cands, &ucli.BoolFlag{Name: n})
		}
	}
	for n := range old {
		cands = append(cands, &ucli.BoolFlag{Name: n})
	}
	s := strings.TrimLeft(ucli.SuggestFlag(cands, name, true), "-")
	if n, ok := old[s]; ok {
		s = n
	}
	for _, f := range flags { // an alias leads to the flag's own name
		if slices.Contains(f.Names(), s) {
			s = f.Names()[0]
		}
	}
	if s == "" {
		return ""
	}
	if len(s) == 1 {
		return "-" + s
	}
	return "--" + s
}

// unknownFlags words a flag a command does not take, by command path and
// flag: one that names what the command takes as a positional argument,
// or one its sibling commands take.
var unknownFlags = map[string]string{
	"survey run --manifest":  "the manifest is positional: vkstat survey run [flags] MANIFEST",
	"stack --dates":          "the dates are positional: vkstat stack [flags] FILE... | 'GLOB' | @LIST.txt",
	"verify --reports":       "the reports are positional: vkstat verify --compare A.json B.json",
	"shader sweep --out":     sweepWritesNone,
	"shader sweep --o":       sweepWritesNone,
	"shader sweep --out-dir": sweepWritesNone,
	"shader sweep --case":    "the case file is the argument: vkstat shader sweep [flags for every variant] CASE.json",
}

const sweepWritesNone = "a sweep writes its table only; to write a variant's bindings, run its flags with vkstat shader run --out-dir DIR"

// flagError is a usage error; Go's "flag provided but not defined: -outdir"
// becomes "reduce: unknown flag --outdir; did you mean --out-dir?", the
// suggestion the closest of flags by name.
func flagError(err error, path string, flags []ucli.Flag) error {
	name, ok := strings.CutPrefix(err.Error(), "flag provided but not defined: -")
	if !ok {
		return usageError{err}
	}
	name = strings.TrimLeft(name, "-")
	dashes := "--"
	if len(name) == 1 {
		dashes = "-"
	}
	msg := fmt.Sprintf("unknown flag %s%s", dashes, name)
	if path != "" {
		msg = path + ": " + msg
	}
	if arg, ok := unknownFlags[path+" --"+name]; ok {
		return usagef("%s; %s", msg, arg)
	}
	cmd, _, _ := strings.Cut(path, " ") // renamed is by the first word
	if s := closestFlag(name, flags, renamed[cmd]); s != "" {
		msg += "; did you mean " + s + "?"
	}
	help := strings.Join(strings.Fields("vkstat "+path+" --help"), " ")
	return usagef("%s (%s lists the flags)", msg, help)
}

// New builds the application.
func New(stdout, stderr io.Writer) *ucli.App {
	app := &ucli.App{
		Name:    "vkstat",
		Usage:   "batched statistics and small dense linear algebra on any Vulkan GPU, or on the CPU",
		Version: Version,
		Description: `vkstat runs its kernels through Vulkan on NVIDIA, AMD, Intel and Mesa's
lavapipe, and through a native Go path where no GPU is present. Input
arrays are FITS (also .fits.gz) or NumPy .npy files, row-major (C order: a
FITS cube's NAXIS1 is its last axis); latent also reads safetensors, and
stack reads rasters (GeoTIFF, ENVI, anything GDAL reads). Outputs are .npy
files, or FITS (and GeoTIFF for stack) where a command says so. Each
command's --help says what it reads and writes, with examples.

Examples:
   vkstat devices
   vkstat map --x x.npy --y y.npy --a 3.5 --b 2.8 --c 10 --out z.npy --time
   vkstat reduce --in cube.npy --axis 0 --stat mean,std --out-dir stats/
   vkstat --device cpu reduce --in cube.npy --axis -1 --stat var --ddof 1 --out-dir out/`,
		Writer:               stdout,
		ErrWriter:            stderr,
		Flags:                newGlobalFlags(),
		EnableBashCompletion: true,
		Before: func(c *ucli.Context) error {
			setupLogging(c)
			return nil
		},
		OnUsageError: func(c *ucli.Context, err error, isSub bool) error {
			return flagError(err, "", c.App.Flags)
		},
		ExitErrHandler: func(*ucli.Context, error) {}, // Main reports errors
		Commands: []*ucli.Command{
			devicesCommand(),
			mapCommand(),
			reduceCommand(),
			quantileCommand(),
			mergeCommand(),
			stackCommand(),
			latentCommand(),
			synthCommand(),
			pacoCommand(),
			surveyCommand(),
			verifyCommand(),
			benchCommand(),
			covCommand(),
			cholCommand(),
			shaderCommand(),
			completionCommand(),
			manCommand(),
		},
	}
	// The shared checks for every command of the app; a bad flag value of
	// any command exits with ExitUsage, not just the top level's, worded
	// with the closest flag the command takes (flagError).
	app.Action = unknownCommand(app.Commands, "")
	walkCommands(app.Commands, "", hardenCommand)
	return app
}

// setupLogging applies --verbose, --quiet and --shader-dir.
func setupLogging(c *ucli.Context) {
	level := slog.LevelWarn
	if c.Bool("verbose") {
		level = slog.LevelDebug
	}
	if _, quiet := c.App.ErrWriter.(quietWriter); c.Bool("quiet") && !quiet {
		c.App.ErrWriter = quietWriter{c.App.ErrWriter}
	}
	slog.SetDefault(slog.New(slog.NewTextHandler(c.App.ErrWriter, &slog.HandlerOptions{Level: level})))
}

// session is the device a command runs on: a Vulkan device, or nil for the
// CPU path.
type session struct {
	set *engine.Set
	dev *engine.Device
	c   *ucli.Context
	// What --time reports of the run besides the call's own timing
	// (reportTime): start-up, the device's pipelines and close (Close),
	// and what the command sets: the time spent on its files (Read,
	// Write; Streamed reads overlap the upload and count there), ReadBeside
	// (latent), OwnSteps (stack), Account and Notes (paco).
	engine.RunTiming
	// closed: Close ran (a command closes before --time reports, and
	// again on its way out).
	closed bool
}

// name describes where the command runs.
func (s *session) name() string {
	if s.dev == nil {
		return fmt.Sprintf("CPU path (native Go, %d threads)", runtime.GOMAXPROCS(0))
	}
	return fmt.Sprintf("%s (Vulkan %s, %s)", s.dev.Info.Name, s.dev.Info.APIVersion, s.dev.Info.Type)
}

// openSession opens the one device that --device names (engine.OpenAll);
// auto is the best GPU, else the CPU path, decided without loading Vulkan
// where the machine's census lists no GPU (tune.CensusFile). Commands that
// know their job's size use openSessionFor.
func openSession(c *ucli.Context) (*session, error) { return openSessionWith(c, nil) }

// openSessionWith is openSession with auto choosing among the devices
// listed (engine.OpenOptions.Auto).
func openSessionWith(c *ucli.Context, auto func([]engine.DeviceInfo) engine.Choice) (*session, error) {
	t0 := time.Now()
	set, err := openDevicesWith(c, "auto", false, auto)
	if err != nil {
		return nil, err
	}
	if n := len(set.Devices); n != 1 {
		set.Close()
		return nil, usagef("--device %s names %d devices; %s runs on one", c.String("device"), n, c.Command.Name)
	}
	return &session{set: set, dev: set.Devices[0], c: c, RunTiming: engine.RunTiming{Startup: time.Since(t0), StartupPhases: set.Startup(), Why: set.Why}}, nil
}

// openDevicesWith opens the devices that --device names, def when it is
// not given (engine.OpenAll), auto choosing among those listed
// (engine.OpenOptions.Auto): "auto" and "all" fall back to the CPU path,
// with a note on stderr, when Vulkan is unusable (no loader, no driver, no
// device); any explicit Vulkan choice that cannot be honoured is an error
// naming the cause.
func openDevicesWith(c *ucli.Context, def string, vulkanOnly bool, auto func([]engine.DeviceInfo) engine.Choice) (*engine.Set, error) {
	opt, err := deviceOptions(c) // a bad option is an error on every path
	if err != nil {
		return nil, err
	}
	opt.Shaders = shaderSource(c.String("shader-dir"))
	spec := c.String("device")
	if strings.TrimSpace(spec) == "" {
		spec = def
	}
	set, err := engine.OpenAll(spec, engine.OpenOptions{Validate: c.Bool("validate"), Device: opt, VulkanOnly: vulkanOnly, Auto: auto,
		Census: tune.CensusFile{}})
	if err != nil {
		return nil, deviceError(err)
	}
	if set.Fallback != "" {
		fmt.Fprintf(c.App.ErrWriter, "vkstat: %s\n", set.Fallback)
	}
	return set, nil
}

// onDevices runs f on the devices that --device names (openDevicesWith)
// and closes them; validation messages raised while closing fail the
// command.
func onDevices(c *ucli.Context, def string, vulkanOnly bool, f func(devs []*engine.Device) error) error {
	set, err := openDevicesWith(c, def, vulkanOnly, nil)
	if err != nil {
		return err
	}
	err = f(set.Devices)
	if cerr := set.Close(); err == nil {
		err = cerr
	}
	return err
}

// deviceOptions are the engine's device options from the environment and
// the global flags.
func deviceOptions(c *ucli.Context) (engine.DeviceOptions, error) {
	opt, err := engine.DeviceOptionsWith(c.String("device-memory"), c.String("disable"))
	return opt, fieldError(err)
}

// deviceError words, with the flag's name, what to do when a --device spec
// cannot be honoured (an *engine.OpenError); a spec that names no device
// is a usage error.
func deviceError(err error) error {
	var oe *engine.OpenError
	if !errors.As(err, &oe) {
		return err
	}
	if oe.BadSpec() {
		return usageError{cliWords{oe}}
	}
	return cliWords{oe}
}

// cliWords is an engine.OpenError worded with the command line's names.
type cliWords struct{ *engine.OpenError }

func (w cliWords) Error() string {
	if errors.Is(w.Err, engine.ErrNoValidation) {
		return "--validate (or VKSTAT_VALIDATE=1): " + w.Err.Error()
	}
	return w.Words("--device", false, "--device cpu", "`vkstat devices`")
}

// Close releases the device; validation messages raised while closing
// (leaks) are returned.
func (s *session) Close() error {
	if s.closed {
		return nil
	}
	s.closed = true
	if s.dev != nil {
		s.Pipelines, s.Built = s.dev.Pipelines()
	}
	t0 := time.Now()
	defer func() { s.RunTiming.Close = time.Since(t0) }()
	return s.set.Close()
}

// availableMemory is engine.AvailableMemory; tests replace it.
var availableMemory = engine.AvailableMemory

// checkMemory refuses an array of bytes bytes that the machine cannot hold.
func checkMemory(what string, bytes uint64) error {
	return engine.CheckHostMemory(what, bytes, availableMemory())
}

// reportTime prints where the time went when --time is set
// (engine.RunTiming's text) and writes it as JSON to --time-json FILE
// (its Report).
func reportTime(c *ucli.Context, s *session, t engine.Timing, total time.Duration) {
	if !c.Bool("time") && c.String("time-json") == "" {
		return
	}
	r := s.RunTiming
	r.Device, r.OnDevice, r.Call, r.Total = s.name(), s.dev != nil, t, total
	if path := c.String("time-json"); path != "" {
		err := formats.AtomicWriteContext(c.Context, path, formats.JSON(r.Report()))
		if err != nil && !noteLate(c, fmt.Errorf("--time-json: %w", err)) {
			fmt.Fprintf(c.App.ErrWriter, "vkstat: --time-json: %v\n", err)
		}
	}
	if c.Bool("time") {
		r.WriteText(c.App.ErrWriter)
	}
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

// Informational reports whether args (os.Args) ask only for help, the
// version or shell completion's candidates: work that needs none of the
// memory a command sets up (main's heap.Start: 5–6 ms of --version's 27,
// and of a TAB's completion, on the 2-core VM). A wrong answer costs only
// that time: an argument "help" or "-h" given as a flag's value leaves a
// run without the huge-page heap, as GOGC does.
func Informational(args []string) bool {
	if len(args) <= 1 {
		return true // the usage
	}
	for _, a := range args[1:] {
		switch a {
		case "help", "h", "-h", "--help", "-help", "-v", "--version", "-version", "--generate-bash-completion":
			return true
		}
	}
	return false
}

// smallJobs are the commands whose memory is a small multiple of their
// inputs' (their outputs and a copy or two), and smallInputs the input
// files' total under which a run of them takes fewer fresh pages than
// main's heap set-up (heap.Start: a collection and the return of 192 MiB
// to the kernel) costs: 4–5 ms on the 2-core VM, a sixth of a
// 1,000-element map's process, for huge pages that pay from a few MB of
// heap on. PACO, latent and stack make several times their inputs and
// keep the set-up always (docs/benchmarks/startup.md).
var smallJobs = map[string]bool{"map": true, "reduce": true, "quantile": true, "cov": true, "chol": true}

const smallInputs = 1 << 20

// SmallJob reports whether args (os.Args) run one of smallJobs on input
// files (the flags of role inFile) of fewer than smallInputs bytes in all,
// none compressed. Anything else, or a file it cannot stat, is not small
// (the command then says what is wrong). Like Informational, a wrong
// answer costs only time.
func SmallJob(args []string) bool {
	takesValue := map[string]bool{}
	for _, f := range newGlobalFlags() {
		if _, ok := f.(*ucli.BoolFlag); !ok {
			for _, n := range namesOf(f) {
				takesValue[n] = true
			}
		}
	}
	i := 1
	for ; i < len(args) && strings.HasPrefix(args[i], "-"); i++ {
		if name := strings.TrimLeft(args[i], "-"); !strings.Contains(name, "=") && takesValue[name] {
			i++ // the global flag's value
		}
	}
	if i >= len(args) || !smallJobs[args[i]] {
		return false
	}
	var total int64
	inputs := 0
	rest := args[i+1:]
	for j := 0; j < len(rest); j++ {
		name, value, hasValue := strings.Cut(strings.TrimLeft(rest[j], "-"), "=")
		if name == "i" {
			name = "in" // the one input flag with an alias
		}
		if !strings.HasPrefix(rest[j], "-") || flagRoles[name] != inFile {
			continue
		}
		if !hasValue {
			if j+1 >= len(rest) {
				return false
			}
			j++
			value = rest[j]
		}
		st, err := os.Stat(value)
		if err != nil || !st.Mode().IsRegular() || strings.HasSuffix(value, ".gz") {
			return false
		}
		total += st.Size()
		inputs++
	}
	return inputs > 0 && total < smallInputs
}
