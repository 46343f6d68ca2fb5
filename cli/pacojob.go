package cli

// A PACO target's outputs, whoever runs it: `vkstat paco` (one target, its
// flags) and `vkstat survey run` (many targets from a manifest, one
// device). The target, its files and its analysis are survey.Target and
// paco.Run; these are the files it writes and the summary it prints.

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	mapsPkg "maps"
	"math"
	"path/filepath"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/vkstat/vkstat/engine"
	"github.com/vkstat/vkstat/pipelines/paco"
	"github.com/vkstat/vkstat/survey"
	"github.com/vkstat/vkstat/tensor"
)

// checkTarget is t.Check with a bad option a usage error.
func checkTarget(t *survey.Target) error {
	err := t.Check()
	var ve *survey.ValueError
	if errors.As(err, &ve) {
		return usageError{err}
	}
	return err
}

// parseFloatDType is tensor.ParseDType for the flags that take f32 or f64
// only: the 16-bit storage types are refused.
func parseFloatDType(s string) (tensor.DType, error) {
	dt, err := tensor.ParseDType(s)
	if err == nil && dt.Is16() {
		err = fmt.Errorf("unknown precision %q for this command (want f32 or f64; f16 and bf16 storage is for `vkstat latent` and `synth latent`)", s)
	}
	return dt, err
}

// precisionOf is the dtype to compute in for an input of type dt under
// --precision p.
func precisionOf(p string, dt tensor.DType) (tensor.DType, error) {
	if p == "" || p == "auto" {
		return dt, nil
	}
	d, err := tensor.ParseDType(p)
	if err != nil {
		return 0, usageError{err}
	}
	if d.Is16() {
		return 0, usagef("--precision %s: unknown precision for this command (want f32, f64 or auto); 16-bit storage is for `vkstat latent` only", p)
	}
	return d, nil
}

// cpuPrecisionError refuses --precision p (not f64) on the CPU path.
func cpuPrecisionError(p string) error {
	return usagef("--precision %s: the PACO CPU path computes in float64 only; use --precision f64 (or auto) there, or a Vulkan device (--device lavapipe, gpu) for float32", p)
}

// reportTo sets opt's callbacks, warnings (prefixed by prefix) and notes
// to errw, and returns a progress bar there for paco.Run's context.
func reportTo(opt *paco.Options, errw io.Writer, prefix string) *progress {
	bar := newProgress(errw)
	opt.Warn = func(w engine.Warning) {
		fmt.Fprintf(errw, "vkstat: warning: %s%s\n", prefix, w.Words(flagSetting))
	}
	opt.Note = func(msg string) { fmt.Fprintln(errw, msg) }
	return bar
}

// pacoError words paco.Run's errors for t's options' names.
func pacoError(t *survey.Target, err error) error {
	if errors.Is(err, paco.ErrNoHeaderCenter) {
		w := "--center"
		if t.Word == nil {
			w = "center"
		}
		return usagef("%s header: the cube has no CRPIX1 and CRPIX2 header cards (only FITS cubes can have them); give %s auto or y,x", w, w)
	}
	return t.OptionErr(err)
}

// pacoSummary prints what the run found, and where its wall time went:
// phases, adding up to wall (0: not known), with notes on some of them
// (phaseNotes' and more), or with none only the wall.
func pacoSummary(w io.Writer, t *survey.Target, dir string, in *survey.Inputs, res *paco.Result, device string, phases []engine.PhaseTime, wall time.Duration, notes map[string]string) {
	o, maps, dets, angles := t.Options, res.Maps, res.Detections, in.Angles
	fmt.Fprintf(w, "device:     %s\n", device)
	if maps.Passes > 1 {
		fmt.Fprintf(w, "passes:     %d over bands of location rows, to stay within the device memory budget\n", maps.Passes)
	}
	fmt.Fprintf(w, "precision:  %s\n", maps.Precision)
	fmt.Fprintf(w, "cube:       %s, %d frames of %d×%d, rotation %.1f° to %.1f°\n", t.Cube, res.T, res.H, res.W, angles[0], angles[len(angles)-1])
	fmt.Fprintf(w, "patch:      radius %d (%d pixels), centre (%d, %d)\n", res.Radius, res.P, res.Center.Used[0], res.Center.Used[1])
	fmt.Fprintf(w, "centre:     %s\n", res.Center)
	all := phaseNotes(res, len(dets))
	mapsPkg.Copy(all, notes)
	printPhases(w, phases, wall, all)
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
	quick := survey.ColumnName("quick_contrast")
	if t.Word != nil {
		quick = t.Word("quick_contrast")
	}
	fmt.Fprintf(w, "contrast:   %s\n", contrastSummary(res, o, quick))
	if o.ContrastCheck {
		fmt.Fprintf(w, "            %s\n", contrastCheckSummary(res.Checks, o.Threshold))
	}
	fmt.Fprintf(w, "outputs:    %s\n", dir)
}

// printPhases lists phases, wall-clock, with their share of wall (when
// known) and notes by name (phaseNotes); with no phases, only the wall
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

// phaseNotes say what some of a run's phases hold where a name does not
// say it: the device's own stages under its run, where Algorithm 3 ran,
// how many maps the contrast check made.
func phaseNotes(res *paco.Result, dets int) map[string]string {
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
	notes["unbiased flux"] = fmt.Sprintf(" (Algorithm 3, %s, %d detections)", res.UnbiasedOn, dets)
	notes["contrast check"] = fmt.Sprintf(" (%d maps with fakes)", paco.ContrastCheckRuns)
	if c := res.Calibration; c != nil {
		notes["contrast calibration"] = fmt.Sprintf(" (%d maps with fakes)", c.Passes*c.Runs)
	}
	return notes
}

// pacoJSON prints what pacoSummary prints as one JSON object: the run's
// device and inputs, the centre, the detections (detections.json's), the
// contrast curve (contrast.json's rows), the check's fakes, the warnings
// (code, message, data), the time of each phase and the files written
// (path, and dtype and shape for the maps).
//
// before are the warnings given before the run (the truth file's).
func pacoJSON(w io.Writer, t *survey.Target, dir string, files []string, in *survey.Inputs, res *paco.Result, before []engine.Warning, device string, phases []engine.PhaseTime, wall, startup time.Duration) error {
	o, maps := t.Options, res.Maps
	ms := func(d time.Duration) float64 { return float64(d.Nanoseconds()) / 1e6 }
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
	warnings := append(append([]engine.Warning{}, before...), res.Warnings...)
	list := []map[string]any{}
	for _, f := range files {
		e := map[string]any{"path": filepath.Join(dir, f)}
		if ext := filepath.Ext(f); ext == ".fits" || ext == ".npy" {
			e["dtype"], e["shape"] = "float64", []int{res.H, res.W}
		}
		list = append(list, e)
	}
	doc := map[string]any{
		"command":                "paco",
		"device":                 device,
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
		"flux_units":             survey.FluxUnits(o.PSFNorm),
		"star_flux":              num(res.StarFlux),
		"star_flux_from":         survey.StarFluxFrom(o),
		"warnings":               warnings,
		"timing":                 map[string]any{"wall_ms": ms(wall), "phases": timing(phases), "device_stages": timing(maps.Stages), "device_open_ms": ms(startup)},
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
