package cli

// vkstat survey: PACO over many targets in one process (one device, the
// next target read while the current one computes), a shard of them with
// --shard I/N, and the merge of the shards' tables into one survey table.

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"time"

	ucli "github.com/urfave/cli/v2"

	"github.com/vkstat/vkstat/internal/heap"
	"github.com/vkstat/vkstat/pipelines/paco"
	"github.com/vkstat/vkstat/survey"
	"github.com/vkstat/vkstat/tensor"
)

func surveyCommand() *ucli.Command {
	flags := []ucli.Flag{
		&ucli.StringFlag{Name: "out-dir", Aliases: []string{"out", "o"}, Usage: "folder for the outputs: DIR/<target>/ per target and the survey table (created if missing)"},
		&ucli.StringFlag{Name: "shard", Usage: "run shard I of N only (I = 1..N; the target at manifest position k, from 1, is in shard ((k-1) mod N)+1) and write DIR/survey-shard-I-of-N.json for survey merge"},
	}
	for _, o := range survey.Columns {
		if o.Name == "cube" || o.Name == "angles" {
			continue
		}
		usage := "default for targets whose " + o.Name + " is empty: " + o.Usage
		if o.Bool {
			flags = append(flags, &ucli.BoolFlag{Name: o.Name, Usage: usage})
			continue
		}
		flags = append(flags, &ucli.StringFlag{Name: o.Name, DefaultText: o.Default, Usage: usage})
	}
	return &ucli.Command{
		Name:  "survey",
		Usage: "PACO over a whole survey: many targets in one process, in shards on Slurm or Kubernetes, one table",
		Subcommands: []*ucli.Command{{
			Name:      "run",
			Usage:     "run PACO on every target of a manifest (or one shard of them) on one device",
			UsageText: "vkstat [global options] survey run MANIFEST --out-dir DIR [--shard I/N] [defaults: --radius 3 --fwhm 4 ...]",
			Description: `MANIFEST is CSV (a header row, one target per row) or JSON (an array of
objects, or {"targets": [...]}). Columns (keys): name (required: the
target's folder), cube, angles, psf or fwhm, and any of psf-norm, radius,
center, threshold, min-sep, star-flux, star-flux-scale, pixel-scale,
north-offset, compat,
psf-placement, format, unbiased, quick-contrast, contrast-check, truth:
vkstat paco's options
("_" may stand for "-").
An unknown column is an error naming it. An empty cell takes the value of
the flag of the same name, else vkstat paco's default. Relative paths in the
manifest are relative to the manifest's folder.

The device is opened once for all targets, and the next target's files are
read while the current one computes. Each target's outputs go to
DIR/<name>/ (the files vkstat paco writes, plus summary.txt, its printed
summary). The survey table, DIR/survey.csv and DIR/survey.json, has one row
per target in manifest order: status (ok, or failed and why), detections
above the threshold, the best detection (y, x, separation, position angle,
SNR, flux, σ) and the centre used; times and the host are apart, in
DIR/survey-timings.csv, so that tables of the same survey compare equal.
With --shard I/N only that shard runs and DIR/survey-shard-I-of-N.json is
written instead; vkstat survey merge makes the survey table from the shards.

A target that fails (a missing file, angles that do not match the cube, a
bad centre) is a row naming the reason; the rest still run. Exit status: 0
when every target ran, 3 when the tables are written but some targets
failed, 1 when the survey could not run (bad manifest, no device), 2 for a
wrong command line, 130 when interrupted (no table is written then).

Examples:
   vkstat synth survey --targets 20 --out-dir data
   vkstat --device cpu survey run data/manifest.csv --radius 3 --out-dir results
   vkstat survey run data/manifest.csv --shard 2/4 --out-dir results
   vkstat survey merge results`,
			Flags:  flags,
			Action: surveyRunAction,
		}, {
			Name:      "merge",
			Usage:     "merge the shards' tables (survey-shard-I-of-N.json) into one survey table",
			UsageText: "vkstat survey merge [--out-dir DIR] DIR|SHARD.json...",
			Description: `Reads every survey-shard-I-of-N.json in the folders given (or the files
given), checks that they are the N shards of one manifest, each once, and
writes survey.csv, survey.json and survey-timings.csv to --out-dir (default:
the first folder given). The tables are byte-identical to those of the same
survey run in one process. A missing shard is an error naming it, and so
are shards run with different settings (survey flags, --precision). Exit
status 3 when the table lists failed targets.

Examples:
   vkstat survey merge results
   vkstat survey merge --out-dir all node1/results node2/results`,
			Flags: []ucli.Flag{
				&ucli.StringFlag{Name: "out-dir", Aliases: []string{"out", "o"}, Usage: "folder for survey.csv, survey.json and survey-timings.csv (default: the first folder given)"},
			},
			Action: surveyMergeAction,
		}},
	}
}

func surveyRunAction(c *ucli.Context) error {
	start := time.Now()
	if c.NArg() != 1 {
		return usagef("survey run: want one MANIFEST (.csv or .json), got %d arguments", c.NArg())
	}
	if err := requireFlag(c, "out-dir"); err != nil {
		return err
	}
	dir := c.String("out-dir")
	opt := survey.RunOptions{}
	if c.IsSet("shard") {
		s, err := survey.ParseShard(c.String("shard"))
		if err != nil {
			return usagef("--shard %s: %v", strconv.Quote(c.String("shard")), err)
		}
		opt.Shard = &s
	}
	defaults, err := survey.ParseDefaults(func(name string) (string, bool) { return c.String(name), c.IsSet(name) }) // a bool's "true" or "false"
	if err != nil {
		return fieldError(err)
	}
	if err := survey.CheckDefaults(defaults, flagName); err != nil {
		return usageError{err}
	}
	if opt.Convert, opt.DType, err = pacoPrecision(c); err != nil {
		return err
	}
	man, err := survey.ReadManifest(c.Args().First(), defaults)
	if err != nil {
		return err
	}
	plot, _ := plotFormat(c) // hardenCommand has refused a bad one
	s, err := openSession(c)
	if err != nil {
		return err
	}
	p := c.String("precision")
	if s.dev == nil && opt.Convert && opt.DType != tensor.F64 { // the CPU path computes in float64 only
		s.Close()
		return cpuPrecisionError(p)
	}
	opt.Host, _ = os.Hostname()
	opt.Device = s.name()
	opt.Settings = survey.Settings(defaults, p)
	errw := c.App.ErrWriter
	fmt.Fprintf(errw, "survey: %s, on %s\n", man.Describe(opt.Shard), s.name())

	opt.Dir, opt.Creator, opt.Plot = dir, "vkstat "+Version, plot
	opt.Check = func(d string) error { return checkOutputDir("out-dir", d) }
	report := reporter(errw) // each target's analysis draws its own bar
	opt.Start = func(t *survey.Target, o *paco.Options) (func(string, float64), func()) {
		progress, end := report(t, o)
		return progress, func() { end(); heap.CollectScratch() } // before the target's outputs
	}
	opt.Reason = func(t *survey.Target, err error) string {
		if errors.Is(err, paco.ErrNoPSF) {
			return err.Error() + ", in the manifest or as survey run's --psf or --fwhm"
		}
		err = pacoError(t, err)
		if a := advice(err); a != "" {
			return err.Error() + " (" + a + ")" // on one line, as every reason (Row)
		}
		return err.Error()
	}
	opt.Finish = func(k, n int, row *survey.Row, elapsed time.Duration) {
		fmt.Fprintf(errw, "survey: [%*d/%d] %s\n", len(fmt.Sprint(n)), k, n, row.ProgressLine(elapsed))
	}
	table, err := survey.Run(c.Context, s.dev, man, opt)
	cerr := s.Close()
	if err != nil {
		return err
	}
	written, err := table.WriteTables(c.Context, dir)
	if err != nil {
		return errors.Join(err, cerr)
	}

	table.Summary(c.App.Writer, s.name(), time.Since(start), written)
	if cerr != nil {
		return cerr
	}
	return table.Err(written[0])
}

func surveyMergeAction(c *ucli.Context) error {
	if c.NArg() == 0 {
		return usagef("survey merge: give the folders (or survey-shard-I-of-N.json files) of the shards")
	}
	args := c.Args().Slice()
	dir := c.String("out-dir")
	if dir == "" {
		dir = args[0]
		if st, err := os.Stat(dir); err == nil && !st.IsDir() {
			dir = filepath.Dir(dir)
		}
	}
	if err := checkOutputDir("out-dir", dir); err != nil {
		return err
	}
	var s *survey.Table
	files, err := survey.ReadShardFiles(args)
	if err == nil {
		s, err = survey.Merge(files, args)
	}
	var se *survey.SettingsError
	if errors.As(err, &se) {
		return errors.New("survey merge: " + se.Format(func(k, v string) string { return "--" + k + " " + v }))
	}
	if err != nil {
		return fmt.Errorf("survey merge: %w", err)
	}
	written, err := s.WriteTables(c.Context, dir)
	if err != nil {
		return err
	}
	fmt.Fprintf(c.App.Writer, "merged:     %d shard files\n", len(files))
	s.Summary(c.App.Writer, "", 0, written)
	return s.Err(written[0])
}
