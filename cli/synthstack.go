package cli

import (
	"fmt"
	"strings"

	ucli "github.com/urfave/cli/v2"

	"github.com/vkstat/vkstat/formats"
	"github.com/vkstat/vkstat/pipelines/synth"
	"github.com/vkstat/vkstat/tensor"
	"github.com/vkstat/vkstat/workloads"
)

// synthStackCommand writes a synthetic stack of co-registered SLC dates.
func synthStackCommand() *ucli.Command {
	return &ucli.Command{
		Name:      "stack",
		Usage:     "a stack of synthetic SAR dates (complex speckle over a known reflectivity map)",
		UsageText: "vkstat synth stack --dates 5 --shape 1024,1024 [--type cint16] [--format tif] [--change 3] [--seed 1] --out-dir DIR",
		Description: `Each date is single-look complex speckle, S = sqrt(σ/2)·(n1 + i·n2) with n1, n2
independent standard normal draws (fully developed speckle: |S|² is
exponential with mean σ), over a known reflectivity map σ: patches of
constant backscatter from 10 to 10,000 on a gentle ramp. With --change k,
the dates from the middle of the stack on have σ multiplied by k in a
rectangle (the middle third of the rows and columns): a temporal change the
statistics should find.

Writes DIR/date_001.tif, ... (GeoTIFF) or DIR/date_001.bin with .hdr
(ENVI), georeferenced in UTM 20S (EPSG:32720) at 10 m, the map as
DIR/reflectivity.tif (Float32; × k in the change rectangle as
reflectivity_changed.tif with --change), and DIR/dates.txt listing the
dates for vkstat stack @DIR/dates.txt. --nodata-border N fills an N-sample
border with 0+0j and marks 0 as nodata. A vkstat built without GDAL (-tags
nogdal) writes ENVI only (.bin and .hdr, the map too), without a
coordinate system.

Examples:
   vkstat synth stack --dates 5 --shape 512,512 --out-dir slc/
   vkstat stack --looks 4x4 --out-dir stats/ @slc/dates.txt
   vkstat synth stack --dates 12 --shape 2048,2048 --type cfloat32 --format envi --change 3 --out-dir big/`,
		Flags: []ucli.Flag{
			&ucli.IntFlag{Name: "dates", Value: 5, Usage: "number of dates"},
			&ucli.StringFlag{Name: "shape", Value: "512,512", Usage: "lines,samples (H,W) of each date"},
			&ucli.StringFlag{Name: "type", Value: "cint16", Usage: "sample type: cint16, cfloat32 (complex SLC) or float32 (intensity |S|²)"},
			&ucli.StringFlag{Name: "format", Value: "tif", Usage: "tif (GeoTIFF) or envi"},
			&ucli.Float64Flag{Name: "change", Value: 1, Usage: "factor on σ in the change rectangle from the middle date on (1: no change)"},
			&ucli.IntFlag{Name: "nodata-border", Usage: "width of a 0+0j border marked as nodata (0: none)"},
			&ucli.Uint64Flag{Name: "seed", Value: 1, Usage: "random seed"},
			&ucli.StringFlag{Name: "out-dir", Aliases: []string{"out", "o"}, Usage: "folder for the dates (created if missing)"},
		},
		Action: runSynthStack,
	}
}

func runSynthStack(c *ucli.Context) error {
	if err := requireFlag(c, "out-dir"); err != nil {
		return err
	}
	shape, err := tensor.ParseShape(c.String("shape"))
	if err != nil || len(shape) != 2 {
		return usagef("--shape %q: want lines,samples, e.g. 1024,1024", c.String("shape"))
	}
	h, w := shape[0], shape[1]
	st := synth.Stack{H: h, W: w, Dates: c.Int("dates"), Change: c.Float64("change"), Border: c.Int("nodata-border"), Seed: c.Uint64("seed")}
	if err := st.Check(); err != nil {
		return fieldError(err)
	}
	f, err := st.SetFormat(c.String("format"), c.String("type"))
	if err != nil {
		return fieldError(err)
	}
	if err := checkMemory(fmt.Sprintf("synth stack: one %d×%d %s date", h, w, f.Type), uint64(h)*uint64(w)*uint64(st.Floats())*4*3); err != nil {
		return err
	}
	dir := c.String("out-dir")
	if !formats.HaveGDAL && f.Driver != "ENVI" {
		return usagef("--format %s: this vkstat was built without GDAL (-tags nogdal); use --format envi (with --type cfloat32 or float32)", strings.ToLower(c.String("format")))
	}
	bar := newProgress(c.App.ErrWriter)
	defer bar.done()
	progress := func(t, T int) { bar.update(fmt.Sprintf("date %d/%d", min(t+1, T), T), float64(t)/float64(T)) }
	if err := workloads.WriteSynthStack(c.Context, dir, st, f, progress); err != nil {
		return err
	}
	fmt.Fprintf(c.App.Writer, "%s\t%d dates of %d×%d %s (%s), the reflectivity map, dates.txt\n", dir, st.Dates, h, w, f.Type, f.Driver)
	return nil
}
