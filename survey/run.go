// Package survey runs PACO (pipelines/paco) over many targets, as `vkstat
// survey` does: a manifest (CSV or JSON, one target per row, vkstat paco's
// options as columns) is read into Targets; Run analyses them on one
// device, reading the next target's files while the current one computes,
// and returns the survey table (one Row per target: ok with its best
// detection and centre, or failed and why); a run split into shards (Shard,
// on a Slurm array or a Kubernetes Indexed Job: deploy/) writes one
// ShardFile each, and Merge makes the table of the whole survey from them.
//
// The package reads the targets' files (cube, angles, PSF, truth) and its
// own (manifests, shard files), and writes each target's outputs
// (WriteTarget, WriteRun: to RunOptions.Dir in a run) and the survey's
// tables (Table.WriteTables); RunOptions.Done receives each target's
// result, for a caller that wants more of it.
package survey

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"github.com/vkstat/vkstat/engine"
	"github.com/vkstat/vkstat/formats/figure"
	"github.com/vkstat/vkstat/pipelines/paco"
	"github.com/vkstat/vkstat/tensor"
)

// RunOptions say which targets Run runs, how, and whom it tells.
type RunOptions struct {
	// Shard, when set, runs only its targets.
	Shard *Shard
	// Convert and DType set every target's precision (paco.Options).
	Convert bool
	DType   tensor.DType
	// Dir, when set, is where each target's outputs go: Dir/<name>/, as
	// WriteRun writes them (made by Creator; the pictures in Plot's
	// format).
	Dir, Creator string
	Plot         figure.Format
	// Check, when set, is called with a target's folder in Dir before its
	// files are read (to check that it can be written, say): an error
	// fails the target.
	Check func(dir string) error
	// Start, when set, hears each target's analysis (Target.Analyse),
	// before its outputs are written and Done.
	Start Start
	// Done, when set, receives each target's result, once its outputs are
	// written: an error fails the target.
	Done func(t *Target, in *Inputs, res *paco.Result) error
	// Finish, when set, hears of each target finished: the k-th of n, its
	// row and how long its analysis (and Done) took.
	Finish func(k, n int, row *Row, elapsed time.Duration)
	// Reason words a failed target's error for its row; nil: the error's
	// text, on one line.
	Reason func(t *Target, err error) string
	// Host and Device name where the targets ran, in the timings.
	Host, Device string
	// Settings are the run's settings (Settings), kept in a shard's file so
	// that Merge can refuse shards run differently.
	Settings map[string]string
}

// Settings are what a shard file records of a run's settings: the
// defaults given (paths made absolute, so that shards run from different
// folders on one file system compare as equal) and the precision ("auto"
// when ""). The device is not among them: shards may run on different
// machines.
func Settings(defaults Defaults, precision string) map[string]string {
	s := map[string]string{"precision": precision}
	if precision == "" {
		s["precision"] = "auto"
	}
	for _, o := range Columns {
		v, ok := defaults[o.Name]
		if !ok {
			continue
		}
		if o.Path && !(o.Name == "angles" && v == "header") {
			if a, err := filepath.Abs(v); err == nil {
				v = a
			}
		}
		s[o.Name] = v
	}
	return s
}

// loaded is one target's files, read ahead.
type loaded struct {
	in   *Inputs
	err  error
	read time.Duration
}

// Run analyses man's targets (opt.Shard's only, when set) with paco.Run
// on dev, or on the CPU when dev is nil, reading each target's files while
// the one before computes, and returns the table: a row per target in
// manifest order, ok or failed and why (a missing file, angles that do not
// match the cube, a bad centre fail that target only). An interrupted run
// (ctx done) returns ctx's error and no table.
func Run(ctx context.Context, dev *engine.Device, man *Manifest, opt RunOptions) (*Table, error) {
	var targets []*Target
	for i := range man.Targets {
		if t := &man.Targets[i]; opt.Shard == nil || opt.Shard.Has(t.Index) {
			targets = append(targets, t)
		}
	}
	// Reading runs one target ahead: the channel is unbuffered, so at most
	// two targets' arrays are in memory.
	rctx, cancel := context.WithCancel(ctx)
	defer cancel()
	next := make(chan loaded)
	go func() {
		defer close(next)
		for _, t := range targets {
			var l loaded
			t0 := time.Now()
			if l.err = t.Err; l.err == nil && opt.Check != nil {
				l.err = opt.Check(filepath.Join(opt.Dir, t.Name))
			}
			if l.err == nil {
				if l.err = t.Check(); l.err == nil {
					l.in, l.err = t.Read()
				}
			}
			l.read = time.Since(t0)
			select {
			case next <- l:
			case <-rctx.Done():
				return
			}
		}
	}()
	table := &Table{Manifest: filepath.Base(man.Path), ManifestSHA256: man.SHA256, Targets: len(man.Targets), Settings: opt.Settings}
	if opt.Shard != nil {
		table.Shard, table.Shards = opt.Shard.I, opt.Shard.N
	}
	for k, t := range targets {
		l, ok := <-next
		if !ok { // interrupted
			break
		}
		t0 := time.Now()
		row := Row{Index: t.Index, Name: t.Name}
		var res *paco.Result
		err := l.err
		if err == nil {
			tc := *t // the run's settings, not the caller's manifest's
			t = &tc
			if opt.Convert {
				t.Options.Convert, t.Options.DType = true, opt.DType
			}
			res, _, err = t.Analyse(ctx, dev, l.in, opt.Start)
			if err == nil && opt.Dir != "" {
				t.Plot = opt.Plot
				err = WriteRun(ctx, t, filepath.Join(opt.Dir, t.Name), l.in, res, opt.Creator, opt.Device)
			}
			if err == nil && opt.Done != nil {
				err = opt.Done(t, l.in, res)
			}
		}
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		elapsed := time.Since(t0)
		if err != nil {
			row.fail(t, err, opt.Reason)
		} else {
			row.fill(t, res)
		}
		table.Rows = append(table.Rows, row)
		table.Timings = append(table.Timings, Timing{Index: t.Index, Name: t.Name, Status: row.Status, Host: opt.Host,
			Device: opt.Device, ReadMs: ms(l.read), RunMs: ms(elapsed)})
		if opt.Finish != nil {
			opt.Finish(k+1, len(targets), &row, elapsed)
		}
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return table, nil
}

// Start hears a target's analysis: called as it starts, with the options
// it runs with, it may set their Warn and Note, and it returns what hears
// the analysis's stages (engine.WithProgress; nil: the context's
// Progress) and what is called when the analysis ends (nil: nothing).
type Start func(t *Target, opt *paco.Options) (progress func(stage string, frac float64), end func())

// Analyse runs PACO (paco.Run) on dev, or on the CPU when dev is nil, on
// t's inputs in with t's options, as vkstat paco does and a survey does
// for each target: start, when set, hears it, and the truth file's
// warnings (paco.TruthAngleWarnings) go to the options' Warn before the
// run's own. They are returned beside the result (Report.Before).
func (t *Target) Analyse(ctx context.Context, dev *engine.Device, in *Inputs, start Start) (*paco.Result, []engine.Warning, error) {
	o, end := t.Options, func() {}
	if start != nil {
		progress, e := start(t, &o)
		if progress != nil {
			ctx = engine.WithProgress(ctx, progress)
		}
		if e != nil {
			end = e
		}
	}
	before := paco.TruthAngleWarnings(in.Truth, in.Angles)
	for _, w := range before {
		if o.Warn != nil {
			o.Warn(w)
		}
	}
	res, err := paco.Run(ctx, dev, paco.ADI{Cube: in.Cube, Angles: in.Angles}, o)
	end()
	return res, before, err
}

func ms(d time.Duration) float64 { return float64(d.Nanoseconds()) / 1e6 }

// fill records a target's result.
func (r *Row) fill(t *Target, res *paco.Result) {
	r.Status = "ok"
	th, n := t.Options.Threshold, len(res.Detections)
	r.Threshold, r.Detections = &th, &n
	r.Center = &CenterUsed{Y: res.Center.Used[0], X: res.Center.Used[1], Source: res.Center.Source}
	if n > 0 {
		d := res.Detections[0] // strongest first
		b := &Best{Y: d.Y, X: d.X, SepPx: d.Sep, PA: d.PAEastOfNorth, SNR: d.SNR, Flux: d.Flux, SigmaFlux: d.SigmaFlux}
		if t.Options.PixelScale > 0 {
			v := d.SepArcsec
			b.SepArcsec = &v
		}
		r.Best = b
	}
}

// fail records a failed target.
func (r *Row) fail(t *Target, err error, reason func(*Target, error) string) {
	r.Status = "failed"
	s := err.Error()
	if reason != nil {
		s = reason(t, err)
	}
	r.Reason = strings.Join(strings.Fields(strings.ReplaceAll(s, "\n", "; ")), " ")
}

// ProgressLine is the target's line as a run goes: ok with its best
// detection, or FAILED and why.
func (r *Row) ProgressLine(d time.Duration) string {
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
