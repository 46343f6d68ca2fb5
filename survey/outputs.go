package survey

// A PACO target's output files, whoever runs it: vkstat paco (one target)
// and survey runs (many targets from a manifest, one device).

import (
	"context"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"path/filepath"
	"strconv"

	"github.com/vkstat/vkstat/formats"
	"github.com/vkstat/vkstat/formats/figure"
	"github.com/vkstat/vkstat/pipelines/paco"
	"github.com/vkstat/vkstat/tensor"
)

// unbiasedNote is what detections.json says about the Algorithm 3 fields.
const unbiasedNote = "flux_unbiased, sigma_unbiased, snr_unbiased: PACO Algorithm 3 (statistics re-learnt without the source, iterated until |Δflux| ≤ 1e-4·flux, at most 50 iterations; converged false otherwise); " +
	"y_refined, x_refined: sub-pixel sky position maximising b²/a on a ±0.5 px grid in 0.1 px steps; flux, sigma_flux, snr, y, x stay Algorithm 2's"

// WriteTarget writes the outputs of PACO's run res on target t to dir,
// all or none: the SNR, flux and σ maps (FITS, with the run's header
// cards and creator, and/or NPY as t.Format says), detections.csv and
// .json, contrast.csv, .json and .png, contrast_check.csv with the check,
// and snr.png with the detections circled (the pictures in t.Plot's
// format: .svg or .pdf instead of .png).
func WriteTarget(ctx context.Context, t *Target, dir string, res *paco.Result, creator string) error {
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
	snr, flux, sigma := maps.Tensors()
	outs := formats.Outputs{Ctx: ctx}
	defer outs.Abort()
	outs.OwnDir(dir, "paco")
	for _, m := range []struct {
		name string
		t    *tensor.Tensor
		unit string
	}{{"snr", snr, "signal-to-noise ratio"}, {"flux", flux, "flux in PSF-stamp units"}, {"sigma", sigma, "flux standard deviation"}} {
		if format != "npy" {
			cc := append(append([]formats.FITSCard(nil), cards...), formats.FITSCard{Key: "BUNIT", Value: m.unit, Comment: ""})
			outs.Add(filepath.Join(dir, m.name+".fits"), func(w io.Writer) error { return formats.EncodeFITS(w, m.t, cc) })
		}
		if format != "fits" {
			outs.Add(filepath.Join(dir, m.name+".npy"), func(w io.Writer) error { return formats.EncodeNPY(w, m.t) })
		}
	}
	outs.Add(filepath.Join(dir, "detections.csv"), func(w io.Writer) error { return writeDetectionsCSV(w, dets, o.PixelScale > 0, o.Unbiased) })
	outs.Add(filepath.Join(dir, "detections.json"), func(w io.Writer) error {
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
	addContrastOutputs(&outs, dir, res.Contrast, o.Threshold, o.StarFlux, o.PSFNorm, res.Center, t.Plot)
	if o.ContrastCheck {
		addContrastCheckOutputs(&outs, dir, res.Checks)
	}
	marks := make([]figure.Mark, len(dets))
	for i, d := range dets {
		marks[i] = figure.Mark{Y: float64(d.Y), X: float64(d.X), Label: fmt.Sprintf("%d", i+1)}
	}
	// N up, E left unless a north offset.
	m := figure.Map{Data: snr, Title: fmt.Sprintf("PACO SNR, R=%d, %d frames", res.Radius, res.T), BarLabel: "SNR",
		Marks: marks, Compass: &figure.Compass{NorthOffset: o.NorthOffset}}
	if err := m.Check(); err != nil {
		return err
	}
	outs.Add(filepath.Join(dir, t.Plot.File("snr")), func(w io.Writer) error { return figure.Encode(w, m, t.Plot) })
	return outs.Commit()
}

// addContrastOutputs declares contrast.csv, contrast.json and contrast.png
// (PACO.md's contrast curve; .svg or .pdf in plot) in outs.
func addContrastOutputs(outs *formats.Outputs, dir string, curve []paco.ContrastPoint, threshold, starFlux float64, psfNorm string, center paco.CenterInfo, plot figure.Format) {
	num := func(v float64) any { // JSON has no NaN
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return nil
		}
		return v
	}
	outs.Add(filepath.Join(dir, "contrast.csv"), func(w io.Writer) error {
		cw := csv.NewWriter(w)
		cw.Write([]string{"separation_px", "pixels", "sigma_flux", "flux_limit", "contrast", "delta_mag"})
		f := func(v float64) string { return strconv.FormatFloat(v, 'g', 8, 64) }
		for _, p := range curve {
			cw.Write([]string{f(p.Sep), strconv.Itoa(p.Pixels), f(p.Sigma), f(p.Flux), f(p.Contrast), f(p.Mag)})
		}
		cw.Flush()
		return cw.Error()
	})
	outs.Add(filepath.Join(dir, "contrast.json"), func(w io.Writer) error {
		rows := make([]map[string]any, len(curve))
		for i, p := range curve {
			rows[i] = map[string]any{"separation_px": p.Sep, "pixels": p.Pixels, "sigma_flux": num(p.Sigma),
				"flux_limit": num(p.Flux), "contrast": num(p.Contrast), "delta_mag": num(p.Mag)}
		}
		doc := map[string]any{
			"definition": "flux_limit = threshold × median of σ_flux over the 1-px annulus separation ± 0.5 px around the centre; contrast = flux_limit / star_flux; delta_mag = −2.5 log10(contrast)",
			"threshold":  threshold,
			"star_flux":  num(starFlux),
			"flux_units": FluxUnits(psfNorm),
			"center":     center,
			"curve":      rows,
		}
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(doc)
	})
	outs.Add(filepath.Join(dir, plot.File("contrast")), func(w io.Writer) error {
		p := figure.Lines{Title: fmt.Sprintf("PACO %g-σ detection limit, centre (%d, %d)", threshold, center.Used[0], center.Used[1]),
			XLabel: "separation (px)", LogY: true, YLabel: "flux limit (PSF units)"}
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

func FluxUnits(psfNorm string) string {
	switch psfNorm {
	case "peak":
		return "PSF stamp peak"
	case "none":
		return "PSF stamp as given"
	}
	return "PSF stamp total flux"
}

// addContrastCheckOutputs declares contrast_check.csv.
func addContrastCheckOutputs(outs *formats.Outputs, dir string, rows []paco.CheckRow) {
	outs.Add(filepath.Join(dir, "contrast_check.csv"), func(w io.Writer) error {
		cw := csv.NewWriter(w)
		cw.Write([]string{"run", "separation_px", "y", "x", "pa_east_of_north_deg", "flux_injected", "snr", "flux", "throughput", "detected"})
		f := func(v float64) string { return strconv.FormatFloat(v, 'g', 8, 64) }
		for _, r := range rows {
			cw.Write([]string{strconv.Itoa(r.Run), f(r.Sep), f(r.Y), f(r.X), f(r.PA), f(r.Injected), f(r.SNR), f(r.Flux), f(r.Throughput), strconv.FormatBool(r.Detected)})
		}
		cw.Flush()
		return cw.Error()
	})
}

// writeDetectionsCSV writes one row per detection. The position angle's
// column says its convention (paco.PAConvention): pa_east_of_north_deg is the
// astronomical PA, angle_ccw_from_x_deg the map angle from +x towards +y;
// separation_arcsec is empty without a pixel scale.
func writeDetectionsCSV(w io.Writer, dets []paco.Detection, arcsec, unbiased bool) error {
	cw := csv.NewWriter(w)
	head := []string{"rank", "y", "x", "separation_px", "separation_arcsec", "pa_east_of_north_deg", "angle_ccw_from_x_deg", "snr", "flux", "sigma_flux"}
	if unbiased {
		head = append(head, "flux_unbiased", "sigma_unbiased", "snr_unbiased", "y_refined", "x_refined", "iterations", "converged")
	}
	cw.Write(head)
	f := func(v float64) string { return strconv.FormatFloat(v, 'g', 8, 64) }
	for i, d := range dets {
		sep := ""
		if arcsec {
			sep = f(d.SepArcsec)
		}
		row := []string{strconv.Itoa(i + 1), strconv.Itoa(d.Y), strconv.Itoa(d.X), f(d.Sep), sep, f(d.PAEastOfNorth), f(d.AngleCCWFromX), f(d.SNR), f(d.Flux), f(d.SigmaFlux)}
		if u := d.Unbiased; unbiased && u != nil {
			row = append(row, f(u.FluxUnbiased), f(u.SigmaUnbiased), f(u.SNRUnbiased), f(u.YRefined), f(u.XRefined), strconv.Itoa(u.Iterations), strconv.FormatBool(u.Converged))
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

// WriteTables writes the survey table, survey.csv and survey.json, and
// survey-timings.csv to dir, all or none.
func (s *Table) WriteTables(ctx context.Context, dir string) error {
	out := formats.Outputs{Ctx: ctx}
	defer out.Abort()
	out.CreateDir(dir)
	out.Add(filepath.Join(dir, "survey.csv"), s.WriteCSV)
	out.Add(filepath.Join(dir, "survey.json"), s.WriteJSON)
	out.Add(filepath.Join(dir, TimingsFile), s.WriteTimings)
	return out.Commit()
}
