package survey

// A PACO target's output files, whoever runs it: vkstat paco (one target)
// and survey runs (many targets from a manifest, one device).

import (
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"path/filepath"
	"strconv"
	"sync"

	"github.com/vkstat/vkstat/engine"
	"github.com/vkstat/vkstat/formats"
	"github.com/vkstat/vkstat/formats/figure"
	"github.com/vkstat/vkstat/pipelines/paco"
	"github.com/vkstat/vkstat/tensor"
)

// unbiasedNote is what detections.json says about the Algorithm 3 fields.
const unbiasedNote = "flux_unbiased, sigma_unbiased, snr_unbiased: PACO Algorithm 3 (statistics re-learnt without the source, iterated until |Δflux| ≤ 1e-4·flux, at most 50 iterations; converged false otherwise); " +
	"snr_unbiased takes the re-learnt statistics as known (σ = 1/√a ignores their own estimation noise), so it is not a detection significance and is often several times snr: quote snr; " +
	"y_refined, x_refined: sub-pixel sky position maximising b²/a on a ±0.5 px grid in 0.1 px steps; flux, sigma_flux, snr, y, x stay Algorithm 2's"

// WriteTarget writes the outputs of PACO's run res on target t to dir,
// all or none: the SNR, flux and σ maps (FITS, with the run's header
// cards and creator, and/or NPY as t.Format says), detections.csv and
// .json, contrast.csv, .json and .png, contrast_check.csv with the check,
// and snr.png with the detections circled (the pictures in t.Plot's
// format: .svg or .pdf instead of .png). The files are encoded at once,
// each on its own goroutine, then written in turn. With tm, the steps'
// times are added to its phases: "encode outputs", "write files" and
// "commit outputs". It returns the files' names, in the folder.
func WriteTarget(ctx context.Context, t *Target, dir string, res *paco.Result, creator string, tm *engine.Timing) ([]string, error) {
	format, o, maps, dets := t.Format, t.Options, res.Maps, res.Detections
	cards := []formats.FITSCard{
		{Key: "CREATOR", Value: creator, Comment: "software"},
		{Key: "PACORAD", Value: res.Radius, Comment: "patch radius (pixels)"},
		{Key: "PACONPIX", Value: res.P, Comment: "pixels per patch"},
		{Key: "PACOCY", Value: res.Center.Used[0], Comment: "star centre y (0-based)"},
		{Key: "PACOCX", Value: res.Center.Used[1], Comment: "star centre x (0-based)"},
		{Key: "PACOCSRC", Value: res.Center.Source, Comment: "centre from: option, header, estimated, geometric"},
		{Key: "PACOCOMP", Value: o.Compat.String(), Comment: "numerics: none or vip"},
		{Key: "PACOPSFP", Value: o.Placement.String(), Comment: "PSF placement: nearest or subpixel"},
		{Key: "PSFNORM", Value: o.PSFNorm, Comment: "PSF stamp normalisation"},
		{Key: "NFRAMES", Value: res.T, Comment: "frames in the cube"},
		{Key: "DEVICE", Value: truncate(maps.Device, 60), Comment: "where it ran"},
		{Key: "PRECISIO", Value: maps.Precision, Comment: "arithmetic precision"},
		{Key: "CUBE", Value: truncate(filepath.Base(t.Cube), 60), Comment: "input cube"},
	}
	if o.PixelScale > 0 {
		cards = append(cards, offsetWCS(res.Center.Used, o.PixelScale, o.NorthOffset)...)
	}
	snr, flux, sigma := maps.Tensors()
	outs := &targetOutputs{Outputs: formats.Outputs{Ctx: ctx}, dir: dir}
	defer outs.Abort()
	outs.OwnDir(dir, "paco")
	for _, m := range []struct {
		name string
		t    *tensor.Tensor
		unit string
	}{{"snr", snr, "signal-to-noise ratio"}, {"flux", flux, "flux in PSF-stamp units"}, {"sigma", sigma, "flux standard deviation"}} {
		if format != "npy" {
			cc := append(append([]formats.FITSCard(nil), cards...), formats.FITSCard{Key: "BUNIT", Value: m.unit, Comment: ""})
			outs.addSized(m.name+".fits", m.t.Bytes()+16<<10, func(w io.Writer) error { return formats.EncodeFITS(w, m.t, cc) })
		}
		if format != "fits" {
			outs.addSized(m.name+".npy", m.t.Bytes()+4<<10, func(w io.Writer) error { return formats.EncodeNPY(w, m.t) })
		}
	}
	outs.add("detections.csv", func(w io.Writer) error { return writeCSV(w, paco.DetectionTable(dets, o.PixelScale > 0, o.Unbiased)) })
	outs.add("detections.json", func(w io.Writer) error {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		list := dets
		if list == nil {
			list = []paco.Detection{}
		}
		doc := map[string]any{"threshold": o.Threshold, "center": []int{res.Center.Used[0], res.Center.Used[1]}, "center_info": res.Center, "detections": list,
			"pa_convention": paco.PAConvention, "north_offset_deg": o.NorthOffset}
		if o.PixelScale > 0 {
			doc["pixel_scale_arcsec"] = o.PixelScale
		}
		if o.Unbiased {
			doc["unbiased"] = unbiasedNote
		}
		return enc.Encode(doc)
	})
	addContrastOutputs(outs, res, o, t.Plot, t.Title())
	if o.ContrastCheck {
		addContrastCheckOutputs(outs, res.Checks)
	}
	m := snrFigure(t, res, snr)
	outs.add(t.Plot.File("snr"), func(w io.Writer) error {
		if err := m.Check(); err != nil { // Draw would draw nothing
			return err
		}
		return figure.Encode(w, m, t.Plot)
	})
	var names []string
	for _, f := range outs.files {
		names = append(names, f.name)
	}
	return names, outs.commit(tm)
}

// snrFigure is the SNR map's picture: titled with the target, the
// detections circled and numbered, the star marked, N and E arrows (N up,
// E left unless a north offset), and with a pixel scale the axes in
// arcsec from the star.
func snrFigure(t *Target, res *paco.Result, snr *tensor.Tensor) figure.Map {
	o := t.Options
	var marks []figure.Mark
	for i, d := range res.Detections {
		marks = append(marks, figure.Mark{Y: float64(d.Y), X: float64(d.X), Label: fmt.Sprintf("%d", i+1)})
	}
	cy, cx := float64(res.Center.Used[0]), float64(res.Center.Used[1])
	marks = append(marks, figure.Mark{Y: cy, X: cx, Star: true})
	m := figure.Map{Data: snr, Title: fmt.Sprintf("PACO SNR, %s, R=%d, %d frames", t.Title(), res.Radius, res.T), BarLabel: "SNR",
		Marks: marks, Compass: &figure.Compass{NorthOffset: o.NorthOffset}}
	if s := o.PixelScale; s > 0 {
		// A pixel edge at p (from the first pixel's outer edge) is at
		// Origin + Step·p: the star's pixel centre, p = c + ½, at 0.
		m.X = figure.Axis{Label: "x offset from the star (arcsec)", Origin: -(cx + 0.5) * s, Step: s}
		m.Y = figure.Axis{Label: "y offset from the star (arcsec)", Origin: -(cy + 0.5) * s, Step: s}
	}
	return m
}

// targetOutputs are a target's output files in a folder: add declares
// one, commit encodes them all at once (the maps' FITS files and the
// pictures take tens to hundreds of milliseconds each at 1024×1024), then
// writes and commits them as formats.Outputs does.
type targetOutputs struct {
	formats.Outputs
	dir   string
	files []*encodedFile
}

// encodedFile is one output, encoded in memory.
type encodedFile struct {
	name  string
	write func(w io.Writer) error
	size  int // bytes to hold at once, when known
	buf   bytes.Buffer
	err   error
}

// add declares the file name in the folder, which write encodes.
func (o *targetOutputs) add(name string, write func(w io.Writer) error) { o.addSized(name, 0, write) }

// addSized is add for a file of about size bytes (its buffer is made that
// large at once, not grown through every power of two on the way).
func (o *targetOutputs) addSized(name string, size int, write func(w io.Writer) error) {
	o.files = append(o.files, &encodedFile{name: name, write: write, size: size})
}

// commit encodes every file, each on its own goroutine, writes them in
// the order they were added, and commits them, adding each step's time
// to tm's phases (when not nil).
func (o *targetOutputs) commit(tm *engine.Timing) error {
	var steps engine.Timing
	clock := steps.Clock()
	var wg sync.WaitGroup
	for _, f := range o.files {
		wg.Add(1)
		go func() {
			defer wg.Done()
			f.buf.Grow(f.size)
			f.err = f.write(&f.buf)
		}()
	}
	wg.Wait()
	clock.Lap("encode outputs")
	for _, f := range o.files {
		o.Add(filepath.Join(o.dir, f.name), func(w io.Writer) error {
			if f.err != nil {
				return f.err
			}
			_, err := w.Write(f.buf.Bytes())
			return err
		})
		f.buf = bytes.Buffer{}
	}
	clock.Lap("write files")
	err := o.Commit()
	clock.Lap("commit outputs")
	for _, p := range steps.Phases {
		if tm != nil {
			tm.AddPhase(p.Name, p.Time)
		}
	}
	return err
}

// offsetWCS are the FITS cards of a linear world coordinate frame of
// offsets from the star, in arcsec, for a map whose star is at pixel
// center (y, x) and whose pixels are scale arcsec: axis 1 the offset east,
// axis 2 north, as the detections' position angles assume (north up and
// east left in the derotated frame, turned by the north offset, which the
// PC matrix carries). No celestial coordinates: the star's RA and Dec are
// not known here.
func offsetWCS(center [2]int, scale, northOffset float64) []formats.FITSCard {
	s, c := math.Sincos(northOffset * math.Pi / 180)
	cards := []formats.FITSCard{
		{Key: "PIXSCALE", Value: scale, Comment: "arcsec per pixel"},
		{Key: "WCSNAME", Value: "offset from the star", Comment: "a linear frame, not celestial"},
		{Key: "CTYPE1", Value: "EOFFSET", Comment: "offset east of the star (linear)"},
		{Key: "CTYPE2", Value: "NOFFSET", Comment: "offset north of the star (linear)"},
		{Key: "CUNIT1", Value: "arcsec", Comment: ""},
		{Key: "CUNIT2", Value: "arcsec", Comment: ""},
		{Key: "CRPIX1", Value: float64(center[1] + 1), Comment: "the star, x (1-based)"},
		{Key: "CRPIX2", Value: float64(center[0] + 1), Comment: "the star, y (1-based)"},
		{Key: "CRVAL1", Value: 0.0, Comment: ""},
		{Key: "CRVAL2", Value: 0.0, Comment: ""},
		{Key: "CDELT1", Value: -scale, Comment: "east is left (-x)"},
		{Key: "CDELT2", Value: scale, Comment: "north is up (+y)"},
	}
	if northOffset != 0 {
		cards = append(cards, formats.FITSCard{Key: "PC1_1", Value: c, Comment: "north offset rotation"},
			formats.FITSCard{Key: "PC1_2", Value: -s, Comment: ""}, formats.FITSCard{Key: "PC2_1", Value: s, Comment: ""},
			formats.FITSCard{Key: "PC2_2", Value: c, Comment: ""})
	}
	return append(cards, formats.FITSCard{Key: "NORTHOFF", Value: northOffset, Comment: "true-north correction (deg), added to PAs"})
}

// Title names the target in pictures: its name in the manifest, or its
// cube's file name.
func (t *Target) Title() string {
	if t.Name != "" {
		return t.Name
	}
	return filepath.Base(t.Cube)
}

// addContrastOutputs declares contrast.csv, contrast.json and contrast.png
// (PACO.md's contrast curve, from the inner working angle out; .svg or
// .pdf in plot) in outs.
func addContrastOutputs(outs *targetOutputs, res *paco.Result, o paco.Options, plot figure.Format, target string) {
	curve, center, threshold, scale := res.Contrast, res.Center, o.Threshold, o.PixelScale
	num := formats.JSONNumber // JSON has no NaN
	outs.add("contrast.csv", func(w io.Writer) error { return writeCSV(w, paco.ContrastTable(curve, scale > 0)) })
	outs.add("contrast.json", func(w io.Writer) error {
		doc := map[string]any{
			"definition":             ContrastDefinition(res.Calibration != nil),
			"calibration":            res.Calibration.Doc(),
			"inner_working_angle_px": res.InnerWorkingAngle,
			"fwhm_px":                res.FWHM,
			"threshold":              threshold,
			"star_flux":              num(res.StarFlux),
			"star_flux_from":         StarFluxFrom(o),
			"flux_units":             FluxUnits(o.PSFNorm),
			"center":                 center,
			"curve":                  paco.ContrastTable(curve, scale > 0).JSONRows(),
		}
		if scale > 0 {
			doc["pixel_scale_arcsec"] = scale
			doc["inner_working_angle_arcsec"] = res.InnerWorkingAngle * scale
		}
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(doc)
	})
	outs.add(plot.File("contrast"), func(w io.Writer) error {
		p := figure.Lines{Title: fmt.Sprintf("PACO %g-σ detection limit, %s, centre (%d, %d)", threshold, target, center.Used[0], center.Used[1]),
			XLabel: "separation (px)", LogY: true, YLabel: "flux limit (cube counts)"}
		if scale > 0 {
			p.XLabel = fmt.Sprintf("separation (arcsec, %.4g per px)", scale)
		}
		useMag := false
		for _, c := range curve {
			if !math.IsNaN(c.Mag) {
				useMag = true
			}
		}
		if useMag {
			p.YLabel, p.LogY, p.InvertY = "contrast (delta mag)", false, true
		}
		var s figure.Series
		for _, c := range curve {
			s.X = append(s.X, c.Sep)
			if scale > 0 {
				s.X[len(s.X)-1] = c.SepArcsec
			}
			if useMag {
				s.Y = append(s.Y, c.Mag)
			} else {
				s.Y = append(s.Y, c.Flux)
			}
		}
		p.Series = []figure.Series{s}
		return figure.Encode(w, p, plot)
	})
}

// ContrastDefinition says what contrast.json's columns are, calibrated
// or not.
func ContrastDefinition(calibrated bool) string {
	s := "flux_limit_uncalibrated = threshold × median of σ_flux over the 1-px annulus separation ± 0.5 px around the centre; "
	if calibrated {
		s += "flux_limit = flux_limit_uncalibrated / throughput, the SNR fakes injected there keep (calibration); "
	} else {
		s += "flux_limit = flux_limit_uncalibrated (not calibrated: optimistic by the inverse of the throughput); "
	}
	return s + "contrast = flux_limit / star_flux; delta_mag = −2.5 log10(contrast); " +
		"from the inner working angle out: max(FWHM, patch radius), closer to the star a patch holds its core"
}

// StarFluxFrom says where the star's flux came from, for contrast.json
// and --json: "" when it is not known.
func StarFluxFrom(o paco.Options) string {
	s := ""
	switch {
	case o.StarFluxPSF:
		s = "the PSF stamp's flux as the flux map counts it (" + FluxUnits(o.PSFNorm) + ")"
	case o.StarFlux > 0:
		s = "given, in the cube's counts"
	default:
		return ""
	}
	if o.StarFluxScale > 0 && o.StarFluxScale != 1 {
		s += fmt.Sprintf(", × %g (star_flux_scale)", o.StarFluxScale)
	}
	return s
}

// FluxUnits words the flux map's units for a PSF normalisation: the
// stamp is normalised, so fluxes are in the cube's counts whatever its
// own scale.
func FluxUnits(psfNorm string) string {
	switch psfNorm {
	case "peak":
		return "the cube's counts at a source's peak"
	case "none":
		return "multiples of the PSF stamp as given"
	}
	return "the cube's counts, a source's total"
}

// addContrastCheckOutputs declares contrast_check.csv.
func addContrastCheckOutputs(outs *targetOutputs, rows []paco.CheckRow) {
	outs.add("contrast_check.csv", func(w io.Writer) error { return writeCSV(w, paco.CheckTable(rows)) })
}

// writeCSV writes t as CSV: a header of its columns' names, then one line
// per row, numbers to 8 significant digits; a cell the row does not have
// is empty. detections.csv's columns say their conventions
// (paco.PAConvention): pa_east_of_north_deg is the astronomical PA,
// angle_ccw_from_x_deg the map angle from +x towards +y.
func writeCSV(w io.Writer, t paco.Table) error {
	cw := csv.NewWriter(w)
	row := make([]string, len(t.Columns))
	for j, c := range t.Columns {
		row[j] = c.Name
	}
	cw.Write(row)
	for i := range t.Rows {
		for j, c := range t.Columns {
			switch v := c.Cell(i).(type) {
			case nil:
				row[j] = ""
			case float64:
				row[j] = strconv.FormatFloat(v, 'g', 8, 64)
			case int:
				row[j] = strconv.Itoa(v)
			case bool:
				row[j] = strconv.FormatBool(v)
			}
		}
		cw.Write(row)
	}
	cw.Flush()
	return cw.Error()
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n]
}

// WriteTables writes the survey's tables to dir, all or none, and returns
// their paths: a shard's file (ShardFileName) for a shard, else survey.csv,
// survey.json and survey-timings.csv.
func (s *Table) WriteTables(ctx context.Context, dir string) ([]string, error) {
	out := formats.Outputs{Ctx: ctx}
	defer out.Abort()
	out.CreateDir(dir)
	var files []string
	add := func(name string, write func(io.Writer) error) {
		files = append(files, filepath.Join(dir, name))
		out.Add(files[len(files)-1], write)
	}
	if s.Shards > 0 {
		add(ShardFileName(s.Shard, s.Shards), s.WriteShard)
	} else {
		add("survey.csv", s.WriteCSV)
		add("survey.json", s.WriteJSON)
		add(TimingsFile, s.WriteTimings)
	}
	return files, out.Commit()
}
