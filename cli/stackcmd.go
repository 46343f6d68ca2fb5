package cli

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"maps"
	"path/filepath"
	"slices"
	"time"

	ucli "github.com/urfave/cli/v2"

	"github.com/vkstat/vkstat/engine"
	"github.com/vkstat/vkstat/formats"
	"github.com/vkstat/vkstat/outputs"
	"github.com/vkstat/vkstat/partials"
	"github.com/vkstat/vkstat/pipelines/stack"
)

func stackCommand() *ucli.Command {
	return &ucli.Command{
		Name:      "stack",
		Usage:     "per-pixel temporal statistics of a stack of SAR images (one file per date)",
		ArgsUsage: "FILE... | 'GLOB' | @LIST.txt",
		UsageText: "vkstat [global options] stack [--looks 4x4] [--window X,Y,W,H] [--filter lee --filter-size 5] [--stat all] --out-dir DIR FILE...",
		Description: `Reads one raster per date (GeoTIFF, ENVI or anything GDAL reads; complex SLC
such as CInt16 and CFloat32, or real intensity such as Float32; .npy and
.fits 2-d arrays too), and for each date computes |S|² (the real input is
taken as intensity) over --window (GDAL's -srcwin: xoff,yoff,xsize,ysize
in input pixels), averages it over multilook boxes of --looks a×r (rows ×
columns: azimuth × range) from the window's corner, applies an optional speckle
filter (boxcar; Lee 1980; refined Lee 1981, which takes its statistics
from the half window on the centre's side of the strongest edge), and
adds it to per-pixel temporal statistics: mean, std (--ddof), coefficient
of variation (std/mean), min, max, count of valid dates and samples, the
valid input samples of each look box over the dates. Samples equal to a file's
nodata value (for complex samples: both parts) and NaN are left out of the
multilook; a box with none is missing for that date and does not count.

Multilook remainder: the multilooked image of a W×H window (columns×rows,
as gdalinfo's "Size is W, H") is floor(W/r) × floor(H/a); the last W mod r
columns and H mod a lines are dropped, as ISCE and SNAP do. docs/stack.md
says what the outputs mean and how they differ from GDAL's and SNAP's. Sizes are
printed columns×rows throughout, as GDAL prints them; the .npy and .fits
outputs are (rows, columns) arrays, as NumPy reads them.

Dates stream through: each is read while the previous one is reduced, and
memory holds a few strips of input, whatever the number of dates. Every
file is checked before anything is computed: the same size, data type and
georeferencing as the first, or an error names it. The outputs are written
all or none: DIR/<stat>.tif (float32 GeoTIFF with the first date's
georeferencing and projection, shifted and scaled to the window and the
multilook; NaN is nodata), and .npy or .fits with --format, and
DIR/<stat>.png quicklooks with a colour bar for the statistics --plot names
(.svg or .pdf with --plot-format): in map coordinates with a scale bar
where the dates are georeferenced in metres, else in the input's range
columns and azimuth lines.

Shards: with --partial, stack writes instead the per-pixel state of its
dates (count, mean, M2, min, max as float64 arrays, and partial.json, which
records the flags and the dates' grid): the dates of a long stack can run as
shards (a Slurm array, docs/scale.md), and vkstat merge writes from their
partials the outputs one run over all the dates writes.

Files: paths, globs (quote them to let vkstat expand them, in name order),
or @LIST: a text file with one path per line (relative paths are relative
to the list's folder; blank lines and # comments are skipped).

Examples:
   vkstat stack --looks 4x4 --window 0,0,4096,2048 --out-dir stats/ 'slc/*.tif'
   vkstat stack --looks 2x8 --filter lee --filter-size 5 --stat mean,cv --plot mean --out-dir out/ @dates.txt
   vkstat stack --looks 4x4 --filter refined-lee --filter-size 7 --out-dir out/ @dates.txt
   vkstat --device cpu stack --quantity amplitude --ddof 1 --format tif,npy --out-dir out/ d1.tif d2.tif d3.tif
   vkstat stack --looks 4x4 --partial --out-dir parts/2019 'slc/2019*.tif'   (then: vkstat merge --out-dir out/ parts/*)`,
		// stack's parameters (stack.Params), with --window's earliest
		// spelling after it: --crop Y,X,H,W (rows first, multilooked pixels).
		Flags: append(slices.Insert(paramFlags(stack.Params()), 2, ucli.Flag(
			&ucli.StringFlag{Name: "crop", Hidden: true, Usage: "the window rows first in multilooked pixels: first row, first column, rows, columns (Y,X,H,W); use --window X,Y,W,H in input pixels"})),
			&ucli.IntFlag{Name: "band", Value: stack.DefaultBand, Usage: "raster band to read from each file"},
			&ucli.StringFlag{Name: "stat", Value: "all", Usage: "statistics to write: mean, std, cv, min, max, count (valid dates), samples (valid input samples of the look box over the dates), or all"},
			&ucli.BoolFlag{Name: "db", Usage: "write mean, min and max in decibels: 10·log10 of intensity, 20·log10 of amplitude (std and cv stay linear)"},
			&ucli.StringFlag{Name: "format", Value: "tif", Usage: "output formats, comma-separated: tif (GeoTIFF), npy, fits"},
			&ucli.StringFlag{Name: "plot", Aliases: []string{"png"}, Usage: "statistics to draw as quicklooks with a colour bar, e.g. mean,cv (PNG, or --plot-format)"},
			&ucli.StringFlag{Name: "out-dir", Aliases: []string{"out", "o"}, Usage: "folder for the outputs (created if missing)"},
			&ucli.BoolFlag{Name: "partial", Usage: "write the dates' mergeable per-pixel state (partial.json and float64 arrays) for vkstat merge instead of the statistics"},
			jsonFlag(),
		),
		Action: runStack,
	}
}

// parseList parses a comma-separated list of names from allowed ("all":
// every one), worded with flag (engine.ParseNames).
func parseList(flag, s string, allowed []string) ([]string, error) {
	names, err := engine.ParseNames(flag, s, allowed)
	return names, fieldError(err)
}

// parseCrop reads --crop Y,X,H,W, --window's earliest spelling (rows
// first, multilooked pixels of cfg's looks), into cfg's window, with a
// note giving the --window that is the same.
func parseCrop(c *ucli.Context, cfg *stack.Config) error {
	if !c.IsSet("crop") {
		return nil
	}
	if c.IsSet("window") {
		return usagef("--crop and --window are one window: give --window X,Y,W,H")
	}
	w, err := stack.ParseWindow(c.String("crop"), true, cfg.LooksAz, cfg.LooksRg)
	if err != nil {
		return fieldError(err)
	}
	if w != (stack.Window{}) {
		fmt.Fprintf(c.App.ErrWriter, "vkstat: note: stack --crop Y,X,H,W (rows first, multilooked pixels) is now --window X,Y,W,H (GDAL's -srcwin, input pixels): --window %d,%d,%d,%d\n", w.X, w.Y, w.W, w.H)
	}
	cfg.Window = w
	return nil
}

func runStack(c *ucli.Context) error {
	start := time.Now()
	if err := requireFlag(c, "out-dir"); err != nil {
		return err
	}
	o, cfg, err := stackSettings(c)
	if err != nil {
		return err
	}
	paths, err := formats.ExpandDates(c.Args().Slice())
	if errors.Is(err, filepath.ErrBadPattern) {
		return usageError{err}
	}
	if err != nil {
		return err
	}
	if len(paths) == 0 {
		return usagef("stack: no input files: give paths, a quoted glob or @list.txt (see vkstat stack --help)")
	}
	t0 := time.Now()
	// GeoTIFF outputs carry the projection, which only GDAL reads.
	infos, err := formats.CheckDates(paths, c.Int("band"), !slices.Contains(o.Formats, "tif"))
	if err != nil {
		return err
	}
	first := infos[0]
	plan, err := stack.NewPlan(cfg, stack.Grid{Width: first.Width, Height: first.Height, Complex: first.Complex})
	if err != nil {
		if errors.Is(err, stack.ErrConfig) {
			return fmt.Errorf("%s (%d×%d pixels, columns×rows): %w", first.Path, first.Width, first.Height, err)
		}
		return err
	}
	dates := make([]stack.Date, len(infos))
	for i, d := range infos {
		dates[i] = stack.DateOf(d.Path, d.Open)
	}
	check := time.Since(t0)
	o.Plan, o.First, o.Dates = plan, first, len(dates)

	s, err := openSessionFor(c, priced(stack.Spec)(stack.Work(len(dates), stack.Grid{Width: first.Width, Height: first.Height, Complex: true})))
	if err != nil {
		return err
	}
	defer s.Close()
	o.Device = s.name()
	bar := newProgress(c.App.ErrWriter)
	if c.Bool("partial") {
		part, err := stack.RunPartial(engine.WithProgress(c.Context, bar.update), s.dev, dates, stack.Options{Plan: plan})
		bar.done()
		if err != nil {
			return err
		}
		return stackPartial(c, o, paths, part)
	}
	res, err := stack.Run(engine.WithProgress(c.Context, bar.update), s.dev, dates, stack.Options{Plan: plan})
	bar.done()
	if err != nil {
		return err
	}
	tw := time.Now()
	if err := writeStack(c, o, res); err != nil {
		return err
	}
	write := time.Since(tw)
	if c.Bool("time") {
		res.WriteSteps(c.App.ErrWriter, fmt.Sprintf("%d of %d×%d %s", len(dates), first.Width, first.Height, first.Type), check)
	}
	if err := s.Close(); err != nil { // before --time, which reports closing
		return err
	}
	s.Write, s.OwnSteps = write, true
	res.Timing.AddPhase("check", check)
	reportTime(c, s, res.Timing, time.Since(start))
	return nil
}

// stackSettings reads stack's flags (all but the dates) into what it
// writes and the stack's Config.
func stackSettings(c *ucli.Context) (*outputs.Stack, stack.Config, error) {
	var cfg stack.Config
	// stack accumulates in float64 whatever the dates' type and writes
	// float32 statistics: a precision it would not honour is refused, not
	// ignored.
	if p := c.String("precision"); p != "" && p != "auto" && p != "f32" {
		return nil, cfg, usagef("--precision %s: stack accumulates in float64 and writes float32 statistics; leave --precision at auto (or f32)", p)
	}
	cfg = stack.DefaultConfig()
	if err := setParams(c, stack.Params(), &cfg); err != nil {
		return nil, cfg, err
	}
	if err := parseCrop(c, &cfg); err != nil {
		return nil, cfg, err
	}
	f := cfg.Filter
	cfg.Filter = stack.NewFilter(f.Kind, f.Size, f.ENL) // the default window goes with a filter
	if err := cfg.Check(); err != nil {
		return nil, cfg, fieldError(err)
	}
	if err := stack.CheckBand(c.Int("band")); err != nil {
		return nil, cfg, fieldError(err)
	}
	stats, err := parseList("stat", c.String("stat"), stack.Stats)
	if err != nil {
		return nil, cfg, err
	}
	if len(stats) == 0 {
		return nil, cfg, usagef("--stat: no statistic named")
	}
	fmts, err := parseList("format", c.String("format"), []string{"tif", "npy", "fits"})
	if err != nil {
		return nil, cfg, err
	}
	if slices.Contains(fmts, "tif") && !formats.HaveGDAL {
		return nil, cfg, usagef("--format tif: this vkstat was built without GDAL (-tags nogdal) and writes no GeoTIFF; use --format npy or fits")
	}
	pngs, err := parseList("plot", c.String("plot"), stack.Stats) // none when empty
	if err != nil {
		return nil, cfg, err
	}
	plot, err := plotFormat(c)
	if err != nil {
		return nil, cfg, err
	}
	if len(fmts) == 0 && len(pngs) == 0 {
		return nil, cfg, usagef("--format: no output format named")
	}
	return &outputs.Stack{Dir: c.String("out-dir"), Stats: stats, Formats: fmts, Plots: pngs, Plot: plot, DB: c.Bool("db"),
		Creator: "vkstat " + Version}, cfg, nil
}

// writeStack writes the statistics of res (all or none) and the summary.
func writeStack(c *ucli.Context, o *outputs.Stack, res *stack.Result) error {
	sum := newSummary(c)
	if err := writeOutputs(c, o.Dir, "stack", o.Files(res), sum); err != nil {
		return err
	}
	maps.Copy(sum.doc, o.Summary(res))
	if err := sum.print(c); err != nil {
		return err
	}
	if empty := res.Empty(); empty > 0 {
		fmt.Fprintf(c.App.ErrWriter, "vkstat: %d of %d pixels have no valid sample in any date (count 0, NaN statistics)\n", empty, len(res.Count))
	}
	return nil
}

// stackPartial is stack --partial: the state of the dates (paths), with
// the flags that were set and the first date's grid and georeferencing as
// settings that every shard must share, written to --out-dir.
func stackPartial(c *ucli.Context, o *outputs.Stack, paths []string, part *stack.Partial) error {
	f := o.First
	h, arrays, err := partials.Stack(part, partials.StackGrid{Columns: f.Width, Rows: f.Height, Complex: f.Complex, Type: f.Type, Georef: f.Georef}, paths)
	if err != nil {
		return err
	}
	setFlags(c, h.Settings, stackNotSettings, "plot-format")
	return writePartial(c, o.Dir, "stack", h, arrays, map[string]any{"dates": part.Dates, "device": o.Device},
		fmt.Sprintf("partial of %d dates, %d×%d (columns×rows)", part.Dates, part.W, part.H))
}

// stackNotSettings are stack's flags that do not change its outputs.
var stackNotSettings = map[string]bool{"out-dir": true, "json": true, "partial": true}

// mergeStack merges stack's partials into the outputs one stack run over
// every shard's dates writes, with the flags the shards were run with.
func mergeStack(c *ucli.Context, dir string, shards []*partials.Shard) error {
	m, files, g, err := partials.MergeStack(shards)
	if err != nil {
		return fmt.Errorf("merge: %w", err)
	}
	set := shards[0].Header.Settings
	// The shards' flags, parsed again as stack parses them.
	cmd := stackCommand()
	fs := flag.NewFlagSet("stack", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	for _, f := range cmd.Flags {
		if err := f.Apply(fs); err != nil {
			return err
		}
	}
	fs.String("plot-format", "png", "")
	args := []string{"--out-dir=" + dir}
	for k, v := range set {
		if fs.Lookup(k) != nil && !stackNotSettings[k] {
			args = append(args, "--"+k+"="+v)
		}
	}
	if err := fs.Parse(args); err != nil {
		return fmt.Errorf("merge: %s: the shards' settings: %w", shards[0].Dir, err)
	}
	sc := ucli.NewContext(c.App, fs, c)
	sc.Command = cmd
	o, cfg, err := stackSettings(sc)
	if err != nil {
		return fmt.Errorf("merge: %s: the shards' settings: %w", shards[0].Dir, err)
	}
	if o.Plan, err = stack.NewPlan(cfg, stack.Grid{Width: g.Columns, Height: g.Rows, Complex: g.Complex}); err != nil {
		return fmt.Errorf("merge: %w", err)
	}
	if o.Plan.H != m.H || o.Plan.W != m.W {
		return fmt.Errorf("merge: the partials are of %d×%d pixels but their settings make %d×%d (columns×rows)", m.W, m.H, o.Plan.W, o.Plan.H)
	}
	o.First = formats.DateFile{Path: files[0], Width: g.Columns, Height: g.Rows, Type: g.Type, Complex: g.Complex, Georef: g.Georef}
	o.Dates, o.Device = m.Dates, "merge"
	return writeStack(c, o, m.Finish(cfg.Ddof))
}
