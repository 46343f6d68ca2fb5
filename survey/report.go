package survey

// What a PACO run on a target reports, whoever runs it: the summary
// vkstat paco prints (and a survey writes as each target's summary.txt)
// and the JSON document of vkstat paco --json.

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	mapsPkg "maps"
	"math"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/vkstat/vkstat/engine"
	"github.com/vkstat/vkstat/formats"
	"github.com/vkstat/vkstat/pipelines/paco"
	"github.com/vkstat/vkstat/pipelines/synth"
)

// Report is a PACO run on a target, as its summary and JSON document tell
// it.
type Report struct {
	Target *Target
	Dir    string   // where the outputs went
	Files  []string // their names in Dir (WriteTarget's), for the JSON
	Inputs *Inputs
	Result *paco.Result
	// Before are the warnings given before the run (the truth file's).
	Before []engine.Warning
	Device string
	// Phases of the run, wall-clock, adding up to Wall (0: not known);
	// with none, the summary gives only the wall.
	Phases []engine.PhaseTime
	Wall   time.Duration
	// Startup is how long the device took to open, for the JSON.
	Startup time.Duration
	// Notes follow the phases of their names, beside PhaseNotes'.
	Notes map[string]string
}

// WriteRun writes what a survey keeps of a target's run to dir:
// WriteTarget's files and summary.txt, the run's Report (its phases
// res.Timing's).
func WriteRun(ctx context.Context, t *Target, dir string, in *Inputs, res *paco.Result, creator, device string) error {
	if _, err := WriteTarget(ctx, t, dir, res, creator, nil); err != nil {
		return err
	}
	var summary bytes.Buffer
	(&Report{Target: t, Dir: dir, Inputs: in, Result: res, Device: device, Phases: res.Timing.Phases}).Text(&summary)
	return formats.AtomicWriteContext(ctx, filepath.Join(dir, "summary.txt"), func(w io.Writer) error {
		_, err := w.Write(summary.Bytes())
		return err
	})
}

// Text prints what the run found, and where its wall time went: phases,
// with notes on some of them (PhaseNotes' and r.Notes), or with none only
// the wall.
func (r *Report) Text(w io.Writer) {
	t, in, res := r.Target, r.Inputs, r.Result
	o, maps, dets, angles := t.Options, res.Maps, res.Detections, in.Angles
	fmt.Fprintf(w, "device:     %s\n", r.Device)
	if maps.Passes > 1 {
		fmt.Fprintf(w, "passes:     %d over bands of location rows, to stay within the device memory budget\n", maps.Passes)
	}
	fmt.Fprintf(w, "precision:  %s\n", maps.Precision)
	fmt.Fprintf(w, "cube:       %s, %d frames of %d×%d, rotation %.1f° to %.1f°\n", t.Cube, res.T, res.H, res.W, angles[0], angles[len(angles)-1])
	fmt.Fprintf(w, "patch:      radius %d (%d pixels), centre (%d, %d)\n", res.Radius, res.P, res.Center.Used[0], res.Center.Used[1])
	fmt.Fprintf(w, "centre:     %s\n", res.Center)
	all := PhaseNotes(res)
	mapsPkg.Copy(all, r.Notes)
	printPhases(w, r.Phases, r.Wall, all)
	fmt.Fprintf(w, "invalid:    %d of %d map pixels NaN, %d of %d locations without statistics", maps.InvalidPixels, res.H*res.W, maps.InvalidLocations, res.H*res.W)
	if res.NaNs > 0 {
		fmt.Fprintf(w, "; %d NaN values in the cube", res.NaNs)
	}
	fmt.Fprintln(w)
	fmt.Fprintf(w, "detections: %d above SNR %g\n", len(dets), o.Threshold)
	if len(dets) > 0 {
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
		sepHead := "\t"
		if o.PixelScale > 0 {
			sepHead = "sep(\")\t"
		}
		head := "#\ty\tx\tsep(px)\t" + sepHead + "PA(E of N)\tθ(+x→+y)\tSNR\tflux\tσ_flux\t"
		if o.Unbiased {
			head += "flux(unb.)\tσ(unb.)\tSNR(unb.)\ty(ref.)\tx(ref.)\titer\t"
		}
		fmt.Fprintln(tw, head)
		for i, d := range dets {
			sep := "\t"
			if o.PixelScale > 0 {
				sep = fmt.Sprintf("%.4f\t", d.SepArcsec)
			}
			fmt.Fprintf(tw, "%d\t%d\t%d\t%.2f\t%s%.1f\t%.1f\t%.2f\t%.4g\t%.3g\t", i+1, d.Y, d.X, d.Sep, sep, d.PAEastOfNorth, d.AngleCCWFromX, d.SNR, d.Flux, d.SigmaFlux)
			if u := d.Unbiased; u != nil {
				conv := ""
				if !u.Converged {
					conv = " (not converged)"
				}
				fmt.Fprintf(tw, "%.4g\t%.3g\t%.2f\t%.2f\t%.2f\t%d%s\t", u.FluxUnbiased, u.SigmaUnbiased, u.SNRUnbiased, u.YRefined, u.XRefined, u.Iterations, conv)
			}
			fmt.Fprintln(tw)
		}
		tw.Flush()
		fmt.Fprintf(w, "            PA: degrees east of north, north up (+y) and east left (−x) in the derotated frame, north offset %g°; θ: from +x towards +y\n", o.NorthOffset)
		if o.Unbiased {
			fmt.Fprintln(w, "            SNR(unb.) = flux(unb.)/σ(unb.), σ = 1/√a with the re-learnt statistics taken as known: not a detection significance (it ignores their own noise and is often several times the map's); quote the map's SNR")
		}
	}
	if in.Truth != nil {
		printTruth(w, in.Truth, dets, maps)
	}
	fmt.Fprintf(w, "contrast:   %s\n", contrastSummary(res, o, t.word("quick_contrast")))
	if o.ContrastCheck {
		fmt.Fprintf(w, "            %s\n", contrastCheckSummary(res.Checks, o.Threshold))
	}
	fmt.Fprintf(w, "outputs:    %s\n", r.Dir)
}

// printPhases lists phases, wall-clock, with their share of wall (when
// known) and notes by name (PhaseNotes); with no phases, only the wall
// (--time lists them).
func printPhases(w io.Writer, phases []engine.PhaseTime, wall time.Duration, notes map[string]string) {
	ms := func(d time.Duration) float64 { return float64(d.Microseconds()) / 1e3 }
	sum := (&engine.Timing{Phases: phases}).Named()
	switch {
	case len(phases) == 0:
		fmt.Fprintf(w, "time:       %.1f ms wall (--time lists its phases)\n", ms(wall))
		return
	case wall > 0:
		fmt.Fprintf(w, "time:       %.1f ms wall, in these phases (%.1f %% of it):\n", ms(wall), 100*float64(sum)/float64(wall))
	default:
		fmt.Fprintf(w, "time:       %.1f ms, in these phases:\n", ms(sum))
	}
	for _, st := range phases {
		fmt.Fprintf(w, "  %-18s %10.3f ms%s\n", st.Name, ms(st.Time), notes[st.Name])
	}
}

// PhaseNotes say what some of a run's phases hold where a name does not
// say it: the device's own stages under its run, where Algorithm 3 ran,
// how many maps the contrast check made.
func PhaseNotes(res *paco.Result) map[string]string {
	ms := func(d time.Duration) float64 { return float64(d.Microseconds()) / 1e3 }
	notes := map[string]string{}
	var parts []string
	for _, d := range res.Maps.Stages {
		if d.Name != "total (device)" {
			parts = append(parts, fmt.Sprintf("%s %.3f", d.Name, ms(d.Time)))
		}
	}
	if len(parts) > 0 {
		notes["device run"] = " (" + strings.Join(parts, ", ") + ")"
	}
	notes["unbiased flux"] = fmt.Sprintf(" (Algorithm 3, %s, %d detections)", res.UnbiasedOn, len(res.Detections))
	notes["contrast check"] = fmt.Sprintf(" (%d maps with fakes)", paco.ContrastCheckRuns)
	if c := res.Calibration; c != nil {
		notes["contrast calibration"] = fmt.Sprintf(" (%d maps with fakes)", c.Passes*c.Runs)
	}
	return notes
}

// printTruth lists every injected companion with the detection within
// 1.5 px of it (if any), the SNR and flux at its pixel, and the detections
// that match no companion.
func printTruth(w io.Writer, truth *synth.TruthFile, dets []paco.Detection, m *paco.Maps) {
	fmt.Fprintln(w, "truth:")
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "sep(px)\tPA(E of N)\tθ(+x→+y)\tinjected flux\ty\tx\tdetected\tSNR\tflux\tflux/injected\t")
	matches, unmatched := paco.MatchTruth(truth.Companions, dets, m)
	for _, mt := range matches {
		tc, found, unb := mt.Companion, "no", ""
		if k := mt.Detection; k >= 0 {
			found = fmt.Sprintf("#%d", k+1)
			if u := dets[k].Unbiased; u != nil {
				unb = fmt.Sprintf("  unbiased %.4g (%.2f of injected) at (%.2f, %.2f)", u.FluxUnbiased, u.FluxUnbiased/tc.Flux, u.YRefined, u.XRefined)
			}
		}
		fmt.Fprintf(tw, "%.1f\t%.1f\t%.1f\t%.4g\t%.1f\t%.1f\t%s\t%.2f\t%.4g\t%.2f\t%s\n", tc.Sep, tc.PA, tc.Theta, tc.Flux, tc.Y, tc.X, found, mt.SNR, mt.Flux, mt.Flux/tc.Flux, unb)
	}
	tw.Flush()
	for _, i := range unmatched {
		d := dets[i]
		fmt.Fprintf(w, "detection #%d at (%d, %d), SNR %.2f, matches no injected companion\n", i+1, d.Y, d.X, d.SNR)
	}
}

// contrastSummary is the contrast curve's lines in the summary: the flux
// limit (in the units the PSF's normalisation gives) at the inner working
// angle and a few separations beyond, with arcsec given a pixel scale,
// and its calibration (calibrationSummary).
func contrastSummary(res *paco.Result, o paco.Options, quick string) string {
	curve := res.Contrast
	arcsec := func(sep float64) string {
		if o.PixelScale > 0 {
			return fmt.Sprintf(" (%.3g″)", sep*o.PixelScale)
		}
		return ""
	}
	s := fmt.Sprintf("%g-σ flux limit (units: %s) from the inner working angle, %.3g px%s = max(FWHM, patch radius):", o.Threshold, FluxUnits(o.PSFNorm), res.InnerWorkingAngle, arcsec(res.InnerWorkingAngle))
	n := 0
	for _, p := range curve {
		if math.IsNaN(p.Flux) || !(p.Sep == curve[0].Sep || p.Sep == 5 || p.Sep == 10 || p.Sep == 20 || p.Sep == 40) {
			continue
		}
		if n > 0 {
			s += ","
		}
		n++
		s += fmt.Sprintf(" %.3g at %g px%s", p.Flux, p.Sep, arcsec(p.Sep))
		if !math.IsNaN(p.Mag) {
			s += fmt.Sprintf(" (Δmag %.2f)", p.Mag)
		}
	}
	if n == 0 {
		s += " nowhere finite"
	}
	return s + " (contrast.csv)\n            " + calibrationSummary(res, o, quick)
}

// calibrationSummary says how the curve was calibrated, what it cost and
// how to skip it (quick, the option that does, as the user gives it), or
// that it was not.
func calibrationSummary(res *paco.Result, o paco.Options, quick string) string {
	c := res.Calibration
	if c == nil {
		if o.QuickContrast {
			return "not calibrated (" + quick + "): threshold × σ_flux, optimistic by the inverse of the throughput (about 1.2–2.2× on synthetic sequences)"
		}
		return "not calibrated: no room for fake companions (a warning says why)"
	}
	var tp []float64
	for _, p := range res.Contrast {
		if !math.IsNaN(p.Throughput) {
			tp = append(tp, p.Throughput)
		}
	}
	s := fmt.Sprintf("calibrated by injection–recovery: %d passes × %d runs of the maps with fakes (%d fakes in the last), %.2f s; ", c.Passes, c.Runs, len(c.Fakes), res.CalibrationTime.Seconds())
	if len(tp) > 0 {
		s += fmt.Sprintf("limits divided by the SNR throughput %.2f–%.2f (± %.0f %%, median standard error); ", slices.Min(tp), slices.Max(tp), 100*c.MedianRelErr)
	}
	return s + quick + " skips it"
}

// contrastCheckSummary is the check's line in the summary.
func contrastCheckSummary(rows []paco.CheckRow, threshold float64) string {
	det := 0
	var tp []float64
	for _, r := range rows {
		if r.Detected {
			det++
		}
		if !math.IsNaN(r.Throughput) {
			tp = append(tp, r.Throughput)
		}
	}
	s := fmt.Sprintf("check: %d fakes at the limit, %d found at SNR ≥ %g", len(rows), det, threshold)
	if len(tp) > 0 {
		sort.Float64s(tp)
		s += fmt.Sprintf(", flux kept %.0f %% (median; %.0f–%.0f %%)", 100*tp[len(tp)/2], 100*tp[0], 100*tp[len(tp)-1])
	}
	return s + " (contrast_check.csv)"
}

// JSON prints what Text prints as one JSON object: the run's device and
// inputs, the centre, the detections (detections.json's), the contrast
// curve (contrast.json's rows), the check's fakes, the warnings (code,
// message, data; Before's first), the time of each phase and the files
// written (path, and dtype and shape for the maps).
func (r *Report) JSON(w io.Writer) error {
	t, dir, in, res := r.Target, r.Dir, r.Inputs, r.Result
	o, maps := t.Options, res.Maps
	num := func(v float64) any { // JSON has no NaN
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return nil
		}
		return v
	}
	timing := func(st []paco.Stage) []map[string]any {
		out := []map[string]any{}
		for _, p := range st {
			out = append(out, map[string]any{"name": p.Name, "ms": ms(p.Time)})
		}
		return out
	}
	dets := res.Detections
	if dets == nil {
		dets = []paco.Detection{}
	}
	warnings := append(append([]engine.Warning{}, r.Before...), res.Warnings...)
	list := []map[string]any{}
	for _, f := range r.Files {
		e := map[string]any{"path": filepath.Join(dir, f)}
		if ext := filepath.Ext(f); ext == ".fits" || ext == ".npy" {
			e["dtype"], e["shape"] = "float64", []int{res.H, res.W}
		}
		list = append(list, e)
	}
	doc := map[string]any{
		"command":                "paco",
		"device":                 r.Device,
		"precision":              maps.Precision,
		"passes":                 maps.Passes,
		"cube":                   map[string]any{"path": t.Cube, "frames": res.T, "height": res.H, "width": res.W},
		"rotation_deg":           paco.Rotation(in.Angles),
		"patch":                  map[string]any{"radius": res.Radius, "pixels": res.P},
		"center":                 res.Center,
		"fwhm_px":                res.FWHM,
		"inner_working_angle_px": res.InnerWorkingAngle,
		"threshold":              o.Threshold,
		"north_offset_deg":       o.NorthOffset,
		"pa_convention":          paco.PAConvention,
		"invalid_pixels":         maps.InvalidPixels,
		"invalid_locations":      maps.InvalidLocations,
		"nans":                   res.NaNs,
		"detections":             dets,
		"contrast":               paco.ContrastTable(res.Contrast, o.PixelScale > 0).JSONRows(),
		"contrast_calibration":   res.Calibration.Doc(),
		"flux_units":             FluxUnits(o.PSFNorm),
		"star_flux":              num(res.StarFlux),
		"star_flux_from":         StarFluxFrom(o),
		"warnings":               warnings,
		"timing":                 map[string]any{"wall_ms": ms(r.Wall), "phases": timing(r.Phases), "device_stages": timing(maps.Stages), "device_open_ms": ms(r.Startup)},
		"outputs":                dir,
		"files":                  list,
	}
	if o.PixelScale > 0 {
		doc["pixel_scale_arcsec"] = o.PixelScale
	}
	if o.Unbiased {
		doc["unbiased_on"] = res.UnbiasedOn
	}
	if o.ContrastCheck {
		doc["contrast_check"] = paco.CheckTable(res.Checks).JSONRows()
	}
	if in.Truth != nil {
		matches, unmatched := paco.MatchTruth(in.Truth.Companions, res.Detections, maps)
		var rows []map[string]any
		for _, mt := range matches {
			c := mt.Companion
			var rank any // the detection's rank, null for none
			if mt.Detection >= 0 {
				rank = mt.Detection + 1
			}
			rows = append(rows, map[string]any{"separation_px": c.Sep, "pa_east_of_north_deg": c.PA, "angle_ccw_from_x_deg": c.Theta,
				"flux_injected": c.Flux, "y": c.Y, "x": c.X, "detection": rank, "snr": num(mt.SNR), "flux": num(mt.Flux)})
		}
		ranks := []int{}
		for _, i := range unmatched {
			ranks = append(ranks, i+1)
		}
		doc["truth"] = map[string]any{"companions": rows, "unmatched_detections": ranks}
	}
	e := json.NewEncoder(w)
	e.SetIndent("", "  ")
	return e.Encode(doc)
}

// Info is r's run as the C ABI reports it (paco.NewInfo), with notes, what
// the run said as it went (paco.Options.Note).
func (r *Report) Info(notes []string) *paco.Info {
	return paco.NewInfo(r.Target.Options, r.Result, notes)
}
