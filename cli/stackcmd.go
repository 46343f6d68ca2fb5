package cli

import (
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	ucli "github.com/urfave/cli/v2"

	"github.com/vkstat/vkstat/formats"
	"github.com/vkstat/vkstat/pipelines/stack"
	"github.com/vkstat/vkstat/tensor"
)

func stackCommand() *ucli.Command {
	return &ucli.Command{
		Name:      "stack",
		Usage:     "per-pixel temporal statistics of a stack of SAR images (one file per date)",
		ArgsUsage: "FILE... | 'GLOB' | @LIST.txt",
		UsageText: "vkstat [global options] stack [--looks 4x4] [--crop Y,X,H,W] [--filter lee --filter-size 5] [--stat all] --out-dir DIR FILE...",
		Description: `Reads one raster per date (GeoTIFF, ENVI or anything GDAL reads; complex SLC
such as CInt16 and CFloat32, or real intensity such as Float32; .npy and
.fits 2-d arrays too), and for each date computes |S|² (the real input is
taken as intensity), averages it over a multilook box of --looks a×r
(rows × columns: azimuth × range), keeps the --crop window of the
multilooked image, applies an optional speckle filter (boxcar; Lee 1980;
refined Lee 1981, which takes its statistics from the half window on the
centre's side of the strongest edge), and adds it to
per-pixel temporal statistics: mean, std (--ddof), coefficient of variation
(std/mean), min, max and count of valid samples. Samples equal to a file's
nodata value (for complex samples: both parts) and NaN are left out of the
multilook; a box with none is missing for that date and does not count.

Multilook remainder: the multilooked image is floor(H/a) × floor(W/r); the
last H mod a lines and W mod r columns are dropped, as ISCE and SNAP do.

Dates stream through: each is read while the previous one is reduced, and
memory holds a few strips of input, whatever the number of dates. Every
file is checked before anything is computed: the same size, data type and
georeferencing as the first, or an error names it. formats.Outputs are written all
or none: DIR/<stat>.tif (float32 GeoTIFF with the first date's
georeferencing and projection, shifted and scaled to the crop and the
multilook; NaN is nodata), and .npy or .fits with --format, and
DIR/<stat>.png quicklooks with a colour bar for the statistics --png names.

Files: paths, globs (quote them to let vkstat expand them, in name order),
or @LIST: a text file with one path per line (relative paths are relative
to the list's folder; blank lines and # comments are skipped).

Examples:
   vkstat stack --looks 4x4 --crop 0,0,1024,1024 --out-dir stats/ 'slc/*.tif'
   vkstat stack --looks 2x8 --filter lee --filter-size 5 --stat mean,cv --png mean --out-dir out/ @dates.txt
   vkstat stack --looks 4x4 --filter refined-lee --filter-size 7 --out-dir out/ @dates.txt
   vkstat --device cpu stack --quantity amplitude --ddof 1 --format tif,npy --out-dir out/ d1.tif d2.tif d3.tif`,
		Flags: []ucli.Flag{
			&ucli.StringFlag{Name: "looks", Value: "1x1", Usage: "multilook box a×r: lines (azimuth) × columns (range), e.g. 4x4, 2x8; one number for both"},
			&ucli.StringFlag{Name: "crop", Usage: "window of the multilooked image: first row, first column, rows, columns (Y,X,H,W); H or W 0 runs to the edge"},
			&ucli.StringFlag{Name: "quantity", Value: "intensity", Usage: "intensity (|S|²) or amplitude (the square root of the multilooked, filtered intensity)"},
			&ucli.StringFlag{Name: "filter", Value: "none", Usage: "speckle filter of each date's multilooked intensity: none, boxcar, lee or refined-lee"},
			&ucli.IntFlag{Name: "filter-size", Value: 5, Usage: "filter window (odd, at least 3; at least 5 for refined-lee, whose classic window is 7)"},
			&ucli.Float64Flag{Name: "enl", Usage: "equivalent number of looks for the Lee filters", DefaultText: "the multilook's a·r"},
			&ucli.IntFlag{Name: "ddof", Value: 0, Usage: "delta degrees of freedom of std and cv (0: population, 1: sample)"},
			&ucli.IntFlag{Name: "band", Value: 1, Usage: "raster band to read from each file"},
			&ucli.StringFlag{Name: "stat", Value: "all", Usage: "statistics to write: mean, std, cv, min, max, count, or all"},
			&ucli.StringFlag{Name: "format", Value: "tif", Usage: "output formats, comma-separated: tif (GeoTIFF), npy, fits"},
			&ucli.StringFlag{Name: "png", Usage: "statistics to draw as PNG quicklooks with a colour bar, e.g. mean,cv"},
			&ucli.StringFlag{Name: "out-dir", Aliases: []string{"o"}, Usage: "folder for the outputs (created if missing)"},
		},
		Action: runStack,
	}
}

// parseList parses a comma-separated list of names from allowed ("all":
// every one).
func parseList(flag, s string, allowed []string) ([]string, error) {
	if s == "all" {
		return allowed, nil
	}
	var out []string
	for _, f := range strings.Split(s, ",") {
		f = strings.TrimSpace(f)
		if f == "" {
			continue
		}
		ok := false
		for _, a := range allowed {
			ok = ok || a == f
		}
		if !ok {
			return nil, usagef("--%s: unknown %q; want %s", flag, f, strings.Join(allowed, ", "))
		}
		out = append(out, f)
	}
	return out, nil
}

func parseLooks(s string) (int, int, error) {
	parts := strings.FieldsFunc(strings.ToLower(s), func(r rune) bool { return r == 'x' || r == ',' || r == '×' })
	if len(parts) == 1 {
		parts = append(parts, parts[0])
	}
	if len(parts) != 2 {
		return 0, 0, usagef("--looks %q: want a×r, e.g. 4x4", s)
	}
	a, e1 := strconv.Atoi(strings.TrimSpace(parts[0]))
	r, e2 := strconv.Atoi(strings.TrimSpace(parts[1]))
	if e1 != nil || e2 != nil || a < 1 || r < 1 {
		return 0, 0, usagef("--looks %q: want two positive integers a×r, e.g. 4x4", s)
	}
	return a, r, nil
}

func parseCrop(s string) (stack.Window, error) {
	var w stack.Window
	if s == "" {
		return w, nil
	}
	f := strings.Split(s, ",")
	if len(f) != 4 {
		return w, usagef("--crop %q: want Y,X,H,W (first row, first column, rows, columns of the multilooked image)", s)
	}
	v := make([]int, 4)
	for i, x := range f {
		n, err := strconv.Atoi(strings.TrimSpace(x))
		if err != nil || n < 0 {
			return w, usagef("--crop %q: want four integers ≥ 0", s)
		}
		v[i] = n
	}
	return stack.Window{Y: v[0], X: v[1], H: v[2], W: v[3]}, nil
}

func runStack(c *ucli.Context) error {
	start := time.Now()
	if err := requireFlag(c, "out-dir"); err != nil {
		return err
	}
	a, r, err := parseLooks(c.String("looks"))
	if err != nil {
		return err
	}
	crop, err := parseCrop(c.String("crop"))
	if err != nil {
		return err
	}
	cfg := stack.Config{LooksAz: a, LooksRg: r, Crop: crop, Ddof: c.Int("ddof")}
	switch q := c.String("quantity"); q {
	case "intensity":
	case "amplitude":
		cfg.Quantity = stack.Amplitude
	default:
		return usagef("--quantity: want intensity or amplitude, got %q", q)
	}
	f := c.String("filter")
	kind, err := stack.ParseFilter(f)
	if err != nil {
		return usagef("--filter: %v", err)
	}
	if (c.IsSet("filter-size") || c.IsSet("enl")) && f == "none" {
		return usagef("--filter-size and --enl go with --filter (boxcar, lee or refined-lee)")
	}
	if c.IsSet("enl") && f == "boxcar" {
		return usagef("--enl goes with the Lee filters (--filter lee or refined-lee)")
	}
	if n, least := c.Int("filter-size"), map[bool]int{true: 5, false: 3}[f == "refined-lee"]; f != "none" && (n < least || n%2 == 0) {
		return usagef("--filter-size: want an odd window of at least %d for --filter %s, got %d", least, f, n)
	}
	if v := c.Float64("enl"); c.IsSet("enl") && !(v > 0) {
		return usagef("--enl: want a positive number of looks, got %g", v)
	}
	if b := c.Int("band"); b < 1 {
		return usagef("--band: bands are numbered from 1, got %d", b)
	}
	if kind != stack.NoFilter {
		cfg.Filter = stack.Filter{Kind: kind, Size: c.Int("filter-size"), ENL: c.Float64("enl")}
	}
	if c.Int("ddof") < 0 {
		return usagef("--ddof must be 0 or more, got %d", c.Int("ddof"))
	}
	stats, err := parseList("stat", c.String("stat"), stack.Stats)
	if err != nil {
		return err
	}
	if len(stats) == 0 {
		return usagef("--stat: no statistic named")
	}
	fmts, err := parseList("format", c.String("format"), []string{"tif", "npy", "fits"})
	if err != nil {
		return err
	}
	if slices.Contains(fmts, "tif") && !formats.HaveGDAL {
		return usagef("--format tif: this vkstat was built without GDAL (-tags nogdal) and writes no GeoTIFF; use --format npy or fits")
	}
	var pngs []string
	if c.String("png") != "" {
		if pngs, err = parseList("png", c.String("png"), stack.Stats); err != nil {
			return err
		}
	}
	if len(fmts) == 0 && len(pngs) == 0 {
		return usagef("--format: no output format named")
	}
	dir := c.String("out-dir")
	if err := checkOutputDir("out-dir", dir); err != nil {
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
	infos, err := formats.CheckDates(paths, c.Int("band"), !slices.Contains(fmts, "tif"))
	if err != nil {
		return err
	}
	first := infos[0]
	plan, err := stack.NewPlan(cfg, stack.Grid{Width: first.Width, Height: first.Height, Complex: first.Complex})
	if err != nil {
		if errors.Is(err, stack.ErrConfig) {
			return fmt.Errorf("%s (%d×%d pixels, width×height): %w", first.Path, first.Width, first.Height, err)
		}
		return err
	}
	dates := make([]stack.Date, len(infos))
	for i, d := range infos {
		dates[i] = stack.DateOf(d.Path, d.Open)
	}
	check := time.Since(t0)

	s, err := openSessionFor(c, autoJob("stack", []int{len(dates), first.Height, first.Width}, tensor.F32, 0))
	if err != nil {
		return err
	}
	defer s.Close()
	bar := newProgress(c.App.ErrWriter)
	res, err := stack.Run(c.Context, s.dev, plan, dates, func(done, total int) {
		bar.update(fmt.Sprintf("date %d/%d", done, total), float64(done)/float64(total))
	})
	bar.done()
	if err != nil {
		return err
	}

	tw := time.Now()
	geo := first.Georef.Window(plan.InX, plan.InY, plan.LooksRg, plan.LooksAz)
	outs := formats.Outputs{Ctx: c.Context}
	defer outs.Abort()
	outs.OwnDir(dir)
	var written []string
	add := func(name string, write func(w io.Writer) error) {
		p := filepath.Join(dir, name)
		outs.Add(p, write)
		written = append(written, p)
	}
	for _, st := range stats {
		t := tensor.FromF32(res.Stat(st), res.H, res.W)
		desc := []string{st}
		for _, f := range fmts {
			switch f {
			case "tif":
				add(st+".tif", func(w io.Writer) error { return formats.EncodeGeoTIFF(w, t, geo, desc) })
			case "npy":
				add(st+".npy", func(w io.Writer) error { return formats.EncodeNPY(w, t) })
			case "fits":
				cards := []formats.FITSCard{{Key: "CREATOR", Value: "vkstat " + Version, Comment: "software"},
					{Key: "STAT", Value: st, Comment: "temporal statistic"}, {Key: "NDATES", Value: len(dates), Comment: "dates in the stack"}}
				add(st+".fits", func(w io.Writer) error { return formats.EncodeFITS(w, t, cards) })
			}
		}
	}
	// Quicklooks at the ground shape of a pixel: the geotransform's, else
	// the looks' (input pixels taken as square); intensities in dB.
	aspect, ok := geo.PixelAspect()
	if !ok {
		aspect = float64(a) / float64(r)
	}
	for _, st := range pngs {
		t := tensor.FromF32(res.Stat(st), res.H, res.W)
		q := formats.Quicklook{Title: fmt.Sprintf("%s of %s, %d dates, %dx%d looks", st, c.String("quantity"), len(dates), a, r), Aspect: aspect}
		switch st {
		case "mean", "std", "min", "max":
			q.DB, q.Units = true, "dB"
			if c.String("quantity") == "amplitude" {
				q.Units = "dB (10 log10 of amplitude)"
			}
		case "cv":
			q.Units = "std / mean"
		case "count":
			q.Units = "valid dates"
		}
		add(st+".png", func(w io.Writer) error {
			img, err := formats.RenderQuicklook(t, q)
			if err != nil {
				return err
			}
			return formats.EncodePNG(w, img)
		})
	}
	if err := outs.Commit(); err != nil {
		return err
	}
	write := time.Since(tw)
	for _, p := range written {
		fmt.Fprintf(c.App.Writer, "%s\t%d×%d\n", p, res.H, res.W)
	}
	if empty := res.Empty(); empty > 0 {
		fmt.Fprintf(c.App.ErrWriter, "vkstat: %d of %d pixels have no valid sample in any date (count 0, NaN statistics)\n", empty, len(res.Count))
	}
	if c.Bool("time") {
		ms := func(d time.Duration) string { return fmt.Sprintf("%9.3f ms", float64(d.Nanoseconds())/1e6) }
		w := c.App.ErrWriter
		fmt.Fprintf(w, "device:   %s\n", s.name())
		fmt.Fprintf(w, "dates:    %d of %d×%d %s → %d×%d\n", len(dates), first.Width, first.Height, first.Type, res.H, res.W)
		fmt.Fprintf(w, "check:    %s (opening every date)\n", ms(check))
		fmt.Fprintf(w, "read:     %s (reader goroutine, overlapped with compute)\n", ms(res.Read))
		fmt.Fprintf(w, "compute:  %s (%s)\n", ms(res.Compute), "upload, multilook, filter, statistics")
		fmt.Fprintf(w, "wait:     %s (compute waiting for reads)\n", ms(res.Wait))
		fmt.Fprintf(w, "stack:    %s (wall of the streamed part)\n", ms(res.Wall))
		fmt.Fprintf(w, "write:    %s\n", ms(write))
		fmt.Fprintf(w, "total:    %s (wall)\n", ms(time.Since(start)))
	}
	return nil
}
