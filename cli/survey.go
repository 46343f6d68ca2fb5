package cli

// vkstat survey: PACO over many targets in one process (one device, the
// next target read while the current one computes), a shard of them with
// --shard I/N, and the merge of the shards' tables into one survey table.

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	ucli "github.com/urfave/cli/v2"

	"github.com/vkstat/vkstat/pipelines/paco"
	"github.com/vkstat/vkstat/pipelines/synth"
)

// targetsFailedError is returned when a survey ran (its tables are
// written) but some targets failed: vkstat exits with ExitTargetsFailed.
type targetsFailedError struct {
	failed, total int
	table         string
}

func (e targetsFailedError) Error() string {
	return fmt.Sprintf("survey: %d of %d targets failed (the reasons are in %s)", e.failed, e.total, e.table)
}

func surveyCommand() *ucli.Command {
	flags := []ucli.Flag{
		&ucli.StringFlag{Name: "out-dir", Aliases: []string{"out", "o"}, Usage: "folder for the outputs: DIR/<target>/ per target and the survey table (created if missing)"},
		&ucli.StringFlag{Name: "shard", Usage: "run shard I of N only (I = 1..N; the target at manifest position k, from 1, is in shard ((k-1) mod N)+1) and write DIR/survey-shard-I-of-N.json for survey merge"},
	}
	for _, o := range surveyOptions {
		if o.name == "cube" || o.name == "angles" {
			continue
		}
		usage := "default for targets whose " + o.name + " is empty: " + o.usage
		if o.bool {
			flags = append(flags, &ucli.BoolFlag{Name: o.name, Usage: usage})
			continue
		}
		flags = append(flags, &ucli.StringFlag{Name: o.name, Usage: usage})
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
center, threshold, min-sep, star-flux, pixel-scale, north-offset, compat,
psf-placement, format, unbiased, contrast-check, truth: vkstat paco's options
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

// surveySettings are what a shard file records of the run's settings: the
// survey flags given (paths made absolute, so that shards run from
// different folders on one file system compare as equal) and --precision.
// The device is not among them: shards may run on different machines.
func surveySettings(c *ucli.Context, defaults surveyDefaults) map[string]string {
	s := map[string]string{"precision": c.String("precision")}
	if s["precision"] == "" {
		s["precision"] = "auto"
	}
	for _, o := range surveyOptions {
		v, ok := defaults[o.name]
		if !ok {
			continue
		}
		if o.path && !(o.name == "angles" && v == "header") {
			if a, err := filepath.Abs(v); err == nil {
				v = a
			}
		}
		s[o.name] = v
	}
	return s
}

// surveyLoaded is one target's job and files, read ahead.
type surveyLoaded struct {
	job  pacoJob
	data *pacoData
	err  error
	read time.Duration
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
	var shard *surveyShard
	if c.IsSet("shard") {
		s, err := parseShard(c.String("shard"))
		if err != nil {
			return err
		}
		shard = &s
	}
	defaults := surveyDefaults{}
	var scratch pacoJob
	for _, o := range surveyOptions {
		if !c.IsSet(o.name) {
			continue
		}
		v := c.String(o.name)
		if o.bool {
			v = strconv.FormatBool(c.Bool(o.name))
		}
		if err := o.set(&scratch, v); err != nil {
			return usagef("--%s: %v", o.name, err)
		}
		defaults[o.name] = v
	}
	if c.IsSet("psf") && c.IsSet("fwhm") {
		return usagef("survey run: give at most one of --psf and --fwhm")
	}
	if p := c.String("precision"); c.String("device") == "cpu" && p != "" && p != "auto" && p != "f64" {
		return cpuPrecisionError(p)
	}
	man, err := readSurveyManifest(c.Args().First(), defaults)
	if err != nil {
		return err
	}
	if err := checkOutputDir("out-dir", dir); err != nil {
		return err
	}
	var targets []surveyTarget
	for _, t := range man.Targets {
		if shard == nil || shard.has(t.Index) {
			targets = append(targets, t)
		}
	}
	s, err := openSession(c)
	if err != nil {
		return err
	}
	if p := c.String("precision"); s.dev == nil && p != "" && p != "auto" && p != "f64" {
		s.Close()
		return cpuPrecisionError(p)
	}
	host, _ := os.Hostname()
	errw := c.App.ErrWriter
	where := "all"
	if shard != nil {
		where = fmt.Sprintf("shard %d/%d", shard.I, shard.N)
	}
	fmt.Fprintf(errw, "survey: %s, %d targets (%s), on %s\n", man.Path, len(targets), where, s.name())

	// Reading runs one target ahead: the channel is unbuffered, so at most
	// two targets' arrays are in memory.
	ctx, cancel := context.WithCancel(c.Context)
	defer cancel()
	loaded := make(chan surveyLoaded)
	go func() {
		defer close(loaded)
		for _, t := range targets {
			l := surveyLoaded{job: t.job}
			t0 := time.Now()
			if l.err = t.err; l.err == nil {
				l.job.OutDir = filepath.Join(dir, t.Name)
				var truth *synth.TruthFile
				if truth, l.err = l.job.check(); l.err == nil {
					if l.data, l.err = l.job.read(); l.err == nil {
						l.data.truth = truth
					}
				}
			}
			l.read = time.Since(t0)
			select {
			case loaded <- l:
			case <-ctx.Done():
				return
			}
		}
	}()

	env := pacoEnv{sess: s, precision: c.String("precision"), errw: errw}
	rows := make([]surveyRow, 0, len(targets))
	times := make([]surveyTiming, 0, len(targets))
	var readTotal, runTotal time.Duration
	for k, t := range targets {
		l, ok := <-loaded
		if !ok { // interrupted
			break
		}
		t0 := time.Now()
		row := surveyRow{Index: t.Index, Name: t.Name}
		var res *paco.Result
		err := l.err
		if err == nil {
			name := t.Name
			env.warn = func(format string, args ...any) {
				fmt.Fprintf(errw, "vkstat: warning: %s: "+format+"\n", append([]any{name}, args...)...)
			}
			res, err = l.job.analyse(ctx, l.data, env)
			if err == nil {
				err = l.job.write(ctx, res)
			}
			if err == nil {
				var summary bytes.Buffer
				l.job.summary(&summary, l.data, res, s.name())
				err = atomicWriteCtx(ctx, filepath.Join(l.job.OutDir, "summary.txt"), func(w io.Writer) error {
					_, err := w.Write(summary.Bytes())
					return err
				})
			}
		}
		if c.Context.Err() != nil {
			s.Close()
			return c.Context.Err()
		}
		elapsed := time.Since(t0)
		readTotal += l.read
		runTotal += elapsed
		if err != nil {
			row.fail(err)
		} else {
			row.fill(&l.job, res)
		}
		rows = append(rows, row)
		times = append(times, surveyTiming{Index: t.Index, Name: t.Name, Status: row.Status, Host: host,
			Device: s.name(), ReadMs: ms(l.read), RunMs: ms(elapsed)})
		fmt.Fprintf(errw, "survey: [%*d/%d] %s\n", len(fmt.Sprint(len(targets))), k+1, len(targets), row.progressLine(elapsed))
	}
	cerr := s.Close()
	if err := c.Context.Err(); err != nil {
		return err
	}

	table := survey{Manifest: filepath.Base(man.Path), ManifestSHA256: man.SHA256, Targets: len(man.Targets),
		Settings: surveySettings(c, defaults), Rows: rows, Timings: times}
	var written []string
	if shard != nil {
		table.Shard, table.Shards = shard.I, shard.N
		p := filepath.Join(dir, shardFileName(shard.I, shard.N))
		if err := table.writeShard(c.Context, dir, p); err != nil {
			return errors.Join(err, cerr)
		}
		written = []string{p}
	} else {
		if err := table.writeTables(c.Context, dir); err != nil {
			return errors.Join(err, cerr)
		}
		written = []string{filepath.Join(dir, "survey.csv"), filepath.Join(dir, "survey.json"), filepath.Join(dir, surveyTimingsFile)}
	}

	w := c.App.Writer
	failed := table.printSummary(w)
	fmt.Fprintf(w, "device:     %s\n", s.name())
	fmt.Fprintf(w, "time:       %.2f s wall; files read %.2f s (beside the computing), PACO and outputs %.2f s\n",
		time.Since(start).Seconds(), readTotal.Seconds(), runTotal.Seconds())
	fmt.Fprintf(w, "tables:     %s\n", strings.Join(written, ", "))
	if cerr != nil {
		return cerr
	}
	if failed > 0 {
		return targetsFailedError{failed: failed, total: len(rows), table: written[0]}
	}
	return nil
}

// fill records a target's result.
func (r *surveyRow) fill(j *pacoJob, res *paco.Result) {
	r.Status = "ok"
	th, n := j.Opt.Threshold, len(res.Detections)
	r.Threshold, r.Detections = &th, &n
	r.Center = &surveyCenter{Y: res.Center.Used[0], X: res.Center.Used[1], Source: res.Center.Source}
	if n > 0 {
		d := res.Detections[0] // strongest first
		b := &surveyBest{Y: d.Y, X: d.X, SepPx: d.Sep, PA: d.PAEastOfNorth, SNR: d.SNR, Flux: d.Flux, SigmaFlux: d.SigmaFlux}
		if j.Opt.PixelScale > 0 {
			v := d.SepArcsec
			b.SepArcsec = &v
		}
		r.Best = b
	}
}

// fail records a failed target.
func (r *surveyRow) fail(err error) {
	r.Status = "failed"
	r.Reason = strings.Join(strings.Fields(strings.ReplaceAll(err.Error(), "\n", "; ")), " ")
	if a := advice(err); a != "" {
		r.Reason += " (" + a + ")"
	}
}

// progressLine is the target's line on stderr.
func (r *surveyRow) progressLine(d time.Duration) string {
	if r.Status != "ok" {
		return fmt.Sprintf("%s FAILED: %s", r.Name, r.Reason)
	}
	s := fmt.Sprintf("%s ok: %d detection", r.Name, *r.Detections)
	if *r.Detections != 1 {
		s += "s"
	}
	if b := r.Best; b != nil {
		s += fmt.Sprintf(", best SNR %.2f at (%d, %d), sep %.1f px, PA %.1f°", b.SNR, b.Y, b.X, b.SepPx, b.PA)
	}
	return s + fmt.Sprintf(" (%.2f s)", d.Seconds())
}

// surveyArgsLast moves the positional arguments of `survey run MANIFEST
// --flags...` and `survey merge DIR... --flags...` after the flags:
// urfave/cli stops reading flags at the first positional argument, and
// the manifest first is how the command reads best. Every flag of these
// commands takes a value but the global booleans, --unbiased and help.
func surveyArgsLast(args []string) []string {
	for i := 1; i+1 < len(args); i++ {
		if args[i] != "survey" || (args[i+1] != "run" && args[i+1] != "merge") {
			continue
		}
		bools := map[string]bool{"validate": true, "time": true, "verbose": true, "help": true, "h": true}
		for _, o := range surveyOptions {
			bools[o.name] = o.bool
		}
		var flags, pos []string
		rest := args[i+2:]
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
		out := append(append([]string{}, args[:i+2]...), flags...)
		if len(pos) > 0 {
			out = append(append(out, "--"), pos...)
		}
		return out
	}
	return args
}
