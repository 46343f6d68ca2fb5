package cli

// One PACO run, whoever asks for it: `vkstat paco` (one target, its flags)
// and `vkstat survey run` (many targets from a manifest, one device). The
// steps are split so that a survey can read the next target's files while
// the current one computes: check (settings, no I/O but the truth file and
// the output folder), read (the cube, angles and PSF), run (centre,
// maps, detections, outputs, summary).

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"image/png"
	"io"
	"math"
	"os"
	"path/filepath"
	"text/tabwriter"
	"time"

	"github.com/vkstat/vkstat/engine"
	"github.com/vkstat/vkstat/formats"
	"github.com/vkstat/vkstat/pipelines/paco"
	"github.com/vkstat/vkstat/pipelines/synth"
	"github.com/vkstat/vkstat/tensor"
)

// pacoJob is one PACO run's settings: vkstat paco's flags, or one row of a
// survey manifest.
type pacoJob struct {
	Cube, Angles, PSF string
	FWHM              float64 // a Gaussian PSF of this FWHM when PSF is ""
	PSFNorm           string
	Radius            int
	Center            string // y,x, auto, header, or "" (header, else auto)
	StarFlux          float64
	Threshold         float64
	MinSep            float64 // ≤ 0: 2×Radius
	Compat            string
	Placement         string // nearest or subpixel ("": nearest)
	Format            string // fits, npy or both
	OutDir            string
	PixelScale        float64
	PixelScaleSet     bool
	NorthOffset       float64
	Unbiased          bool
	ContrastCheck     bool // injection–recovery of fakes at the contrast curve's limit
	Truth             string
	// Word names an option in messages: "--cube" for vkstat paco, "cube"
	// (the manifest's column) for a survey.
	Word func(string) string
}

// flagWord names options as command-line flags.
func flagWord(name string) string { return "--" + name }

func (j *pacoJob) word(name string) string {
	if j.Word == nil {
		return flagWord(name)
	}
	return j.Word(name)
}

// compat is the job's numerics.
func (j *pacoJob) compat() (paco.Compat, error) {
	switch j.Compat {
	case "none", "":
		return paco.CompatNone, nil
	case "vip":
		return paco.CompatVIP, nil
	}
	return 0, usagef("%s: want none or vip, got %q", j.word("compat"), j.Compat)
}

// placement is the job's PSF placement.
func (j *pacoJob) placement() (paco.Placement, error) {
	if j.Placement == "" {
		return paco.PlacementNearest, nil
	}
	p, err := paco.ParsePlacement(j.Placement)
	if err != nil {
		return 0, usagef("%s: %v", j.word("psf-placement"), err)
	}
	return p, nil
}

// check validates the settings and reads the truth file, before any
// array is read: every mistake a user can make in the options is found
// here.
func (j *pacoJob) check() (*synthTruth, error) {
	f, err := mapFormats("format", j.Format)
	if err != nil {
		return nil, err
	}
	j.Format = f
	if _, err := j.compat(); err != nil {
		return nil, err
	}
	switch j.PSFNorm {
	case "", "sum", "peak", "none":
	default:
		return nil, usagef("%s: want sum, peak or none, got %q", j.word("psf-norm"), j.PSFNorm)
	}
	if _, err := j.placement(); err != nil {
		return nil, err
	}
	var truth *synthTruth
	if p := j.Truth; p != "" {
		b, err := formats.ReadText(p, 0, "a truth.json")
		if err != nil {
			return nil, fmt.Errorf("%s: %w", j.word("truth"), err)
		}
		truth = new(synthTruth)
		if err := json.Unmarshal(b, truth); err != nil {
			return nil, fmt.Errorf("%s: %s is not a truth.json of vkstat synth paco: %w", j.word("truth"), p, err)
		}
	}
	if !(j.StarFlux >= 0) || math.IsInf(j.StarFlux, 0) {
		return nil, usagef("%s must be a finite number ≥ 0, got %g", j.word("star-flux"), j.StarFlux)
	}
	if j.Radius < 1 {
		return nil, usagef("%s must be at least 1, got %d", j.word("radius"), j.Radius)
	}
	if v := j.PixelScale; j.PixelScaleSet && !(v > 0 && v < 3600) {
		return nil, usagef("%s: want arcseconds per pixel, a number above 0, got %g", j.word("pixel-scale"), v)
	}
	if v := j.MinSep; !(v >= 0) || math.IsInf(v, 0) {
		return nil, usagef("%s: want a distance in pixels of 0 (2×radius) or more, got %g", j.word("min-sep"), v)
	}
	if v := j.NorthOffset; math.IsNaN(v) || math.IsInf(v, 0) {
		return nil, usagef("%s: want a finite angle in degrees, got %g", j.word("north-offset"), v)
	}
	if err := checkOutputDir("out-dir", j.OutDir); err != nil {
		return nil, err
	}
	for _, f := range []struct{ name, path string }{{"cube", j.Cube}, {"angles", j.Angles}, {"psf", j.PSF}} {
		if f.path != "" && !(f.name == "angles" && f.path == "header") {
			st, err := os.Stat(f.path)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", j.word(f.name), err)
			}
			if st.IsDir() {
				return nil, fmt.Errorf("%s: %s is a directory, not a file", j.word(f.name), f.path)
			}
		}
	}
	return truth, nil
}

// pacoData is what a job reads from its files.
type pacoData struct {
	cube   *tensor.Tensor
	cards  []FITSCard
	angles []float64
	psf    *tensor.Tensor
	truth  *synthTruth
}

// read reads the cube (with its FITS header), the angles and the PSF (or
// makes the Gaussian one).
func (j *pacoJob) read() (*pacoData, error) {
	var d pacoData
	var err error
	if d.cube, d.cards, err = formats.ReadArrayHeader(j.Cube); err != nil {
		return nil, fmt.Errorf("%s: %w", j.word("cube"), err)
	}
	if j.Angles == "header" {
		T := 0
		if len(d.cube.Shape) == 3 {
			T = d.cube.Shape[0]
		}
		if d.angles, err = headerAngles(d.cards, T); err != nil {
			return nil, fmt.Errorf("%s header: %w", j.word("angles"), err)
		}
	} else {
		T := 0 // one angle per frame: a longer file (or stream) is not read past T+1 numbers
		if len(d.cube.Shape) == 3 {
			T = d.cube.Shape[0]
		}
		if d.angles, err = formats.ReadVectorMax(j.Angles, T); err != nil {
			if T > 0 {
				return nil, fmt.Errorf("%s (one angle per frame of the %d-frame cube): %w", j.word("angles"), T, err)
			}
			return nil, fmt.Errorf("%s: %w", j.word("angles"), err)
		}
	}
	if j.PSF != "" {
		if d.psf, err = ReadArray(j.PSF); err != nil {
			return nil, fmt.Errorf("%s: %w", j.word("psf"), err)
		}
	} else {
		if !(j.FWHM > 0) || j.FWHM > 100 {
			return nil, usagef("%s must be between 0 and 100 pixels, got %g", j.word("fwhm"), j.FWHM)
		}
		if d.psf, err = synth.PSF(j.FWHM); err != nil {
			return nil, err
		}
	}
	return &d, nil
}

// pacoEnv is where a job runs and reports.
type pacoEnv struct {
	// open gives the device (a nil dev is the CPU path); release is called
	// once the maps (and Algorithm 3) are computed, with the session open
	// returned.
	open    func() (*session, error)
	release func(*session) error
	// precision is the global --precision.
	precision string
	out       io.Writer // the summary
	errw      io.Writer // the progress bar
	warn      func(format string, args ...any)
}

// pacoResult is what a job found, for vkstat paco's --time and the survey
// table.
type pacoResult struct {
	sess   *session
	prep   *paco.Prepared
	maps   *paco.Maps
	dets   []paco.Detection
	center pacoCenterInfo
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

// run computes the maps and detections of d, writes the outputs to
// j.OutDir (all or none) and prints the summary.
func (j *pacoJob) run(ctx context.Context, d *pacoData, env pacoEnv) (*pacoResult, error) {
	cube, angles, psf := d.cube, d.angles, d.psf
	compat, err := j.compat()
	if err != nil {
		return nil, err
	}
	dt, err := precisionOf(env.precision, cube.DType)
	if err != nil {
		return nil, err
	}
	nanCount := 0
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, v := range cube.Float64s() {
		if math.IsNaN(v) {
			nanCount++
		} else {
			lo, hi = min(lo, v), max(hi, v)
		}
	}
	warn := env.warn
	switch {
	case nanCount == cube.Len():
		warn("every value of the cube is NaN: the maps will be all NaN")
	case lo == hi:
		warn("the cube is constant (%g wherever it is not NaN): no background variation to learn, the maps will be NaN or meaningless", lo)
	}
	if len(angles) > 0 {
		amin, amax := angles[0], angles[0]
		for _, a := range angles {
			amin, amax = min(amin, a), max(amax, a)
		}
		if amax == amin {
			warn("the field does not rotate (every angle is %g°): PACO cannot tell a companion from the static background, the maps are meaningless", amin)
		}
	}
	var center *[2]int
	var centerInfo pacoCenterInfo
	if len(cube.Shape) == 3 {
		if center, centerInfo, err = pacoCenter(j.Center, cube, d.cards, psf, warn); err != nil {
			return nil, err
		}
	}
	radius := j.Radius
	placement, err := j.placement()
	if err != nil {
		return nil, err
	}
	in := paco.Input{Cube: cube.As(dt), Angles: angles, PSF: psf, PSFNorm: j.PSFNorm, Radius: radius, Center: center, Compat: compat, Placement: placement}
	prep, err := paco.Prepare(in)
	if err != nil {
		return nil, err
	}
	s, err := env.open()
	if err != nil {
		return nil, err
	}
	if p := env.precision; s.dev == nil && dt != tensor.F64 && p != "" && p != "auto" {
		env.release(s)
		return nil, usagef("--precision %s: the PACO CPU path computes in float64 only; use --precision f64 (or auto) there, or a Vulkan device (--device lavapipe, gpu) for float32", p)
	}
	bar := newProgress(env.errw)
	in.Progress = bar.update
	maps, err := paco.Run(ctx, s.dev, in)
	bar.done()
	if err != nil {
		env.release(s)
		return nil, err
	}
	minSep := j.MinSep
	if minSep <= 0 {
		minSep = float64(2 * radius)
	}
	threshold := j.Threshold
	dets := paco.Detect(maps, threshold, prep.CY, prep.CX, minSep)
	pixelScale, northOffset := j.PixelScale, j.NorthOffset
	for i := range dets {
		if pixelScale > 0 {
			dets[i].SepArcsec = dets[i].Sep * pixelScale
		}
		dets[i].PAEastOfNorth = paco.PositionAngle(float64(dets[i].Y-prep.CY), float64(dets[i].X-prep.CX), northOffset)
	}
	unbiased := j.Unbiased
	var unbiasedTime time.Duration
	unbiasedOn := "CPU"
	if unbiased {
		// Algorithm 3 on the GPU that made the maps, in the maps'
		// precision (its moments there, the iteration on the host), else
		// on the host in float64 on the cube as read.
		in3 := in
		in3.Progress = nil
		host := in3
		host.Cube = cube
		t0 := time.Now()
		var err error
		dev := s.dev
		if dev != nil && dev.Info.IsCPU() {
			// A software device (lavapipe, SwiftShader) is the host's own
			// cores, and on them Algorithm 3's moments run about 10×
			// faster in native Go (docs/paco.md).
			dev = nil
		}
		if dev != nil {
			err = paco.AddUnbiased(ctx, dev, in3, dets, true)
			if errors.Is(err, engine.ErrTooLarge) || errors.Is(err, engine.ErrBudget) || errors.Is(err, engine.ErrNoFit) {
				fmt.Fprintf(env.errw, "note: %v; Algorithm 3 runs on the CPU instead\n", err)
				dev, err = nil, nil
			}
		}
		if dev == nil {
			err = paco.AddUnbiased(ctx, nil, host, dets, true)
		} else if err == nil {
			unbiasedOn = dev.Info.Name
		}
		if err != nil {
			env.release(s)
			return nil, err
		}
		unbiasedTime = time.Since(t0)
	}
	curve := paco.ContrastCurve(maps.Sigma, prep.H, prep.W, prep.CY, prep.CX, threshold, j.StarFlux)
	var checks []contrastCheckRow
	var checkTime time.Duration
	if j.ContrastCheck {
		t0 := time.Now()
		checks, err = contrastCheck(ctx, s.dev, in, prep, curve, dets, threshold, northOffset, env.errw)
		if err != nil {
			env.release(s)
			return nil, err
		}
		checkTime = time.Since(t0)
	}
	if err := env.release(s); err != nil {
		return nil, err
	}

	// Outputs, all or nothing.
	dir, format := j.OutDir, j.Format
	cards := []FITSCard{
		{Key: "CREATOR", Value: "vkstat " + Version, Comment: "software"},
		{Key: "PACORAD", Value: radius, Comment: "patch radius (pixels)"},
		{Key: "PACONPIX", Value: prep.P(), Comment: "pixels per patch"},
		{Key: "PACOCY", Value: prep.CY, Comment: "star centre y (0-based)"},
		{Key: "PACOCX", Value: prep.CX, Comment: "star centre x (0-based)"},
		{Key: "PACOCSRC", Value: centerInfo.Source, Comment: "centre from: option, header, estimated, geometric"},
		{Key: "PACOCOMP", Value: j.Compat, Comment: "numerics: none or vip"},
		{Key: "PACOPSFP", Value: placement.String(), Comment: "PSF placement: nearest or subpixel"},
		{Key: "PSFNORM", Value: j.PSFNorm, Comment: "PSF stamp normalisation"},
		{Key: "NFRAMES", Value: prep.T, Comment: "frames in the cube"},
		{Key: "DEVICE", Value: truncate(maps.Device, 60), Comment: "where it ran"},
		{Key: "PRECISIO", Value: maps.Precision, Comment: "arithmetic precision"},
		{Key: "CUBE", Value: truncate(filepath.Base(j.Cube), 60), Comment: "input cube"},
	}
	snr, flux, sigma := maps.Tensors()
	outs := Outputs{Ctx: ctx}
	defer outs.Abort()
	outs.OwnDir(dir)
	for _, m := range []struct {
		name string
		t    *tensor.Tensor
		unit string
	}{{"snr", snr, "signal-to-noise ratio"}, {"flux", flux, "flux in PSF-stamp units"}, {"sigma", sigma, "flux standard deviation"}} {
		m := m
		if format != "npy" {
			cc := append(append([]FITSCard(nil), cards...), FITSCard{Key: "BUNIT", Value: m.unit, Comment: ""})
			outs.Add(filepath.Join(dir, m.name+".fits"), func(w io.Writer) error { return EncodeFITS(w, m.t, cc) })
		}
		if format != "fits" {
			outs.Add(filepath.Join(dir, m.name+".npy"), func(w io.Writer) error { return EncodeNPY(w, m.t) })
		}
	}
	outs.Add(filepath.Join(dir, "detections.csv"), func(w io.Writer) error { return writeDetectionsCSV(w, dets, pixelScale > 0, unbiased) })
	outs.Add(filepath.Join(dir, "detections.json"), func(w io.Writer) error {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		list := dets
		if list == nil {
			list = []paco.Detection{}
		}
		doc := map[string]any{"threshold": threshold, "center": []int{prep.CY, prep.CX}, "center_info": centerInfo, "detections": list,
			"pa_convention": paco.PAConvention, "north_offset_deg": northOffset}
		if pixelScale > 0 {
			doc["pixel_scale_arcsec"] = pixelScale
		}
		if unbiased {
			doc["unbiased"] = unbiasedNote
		}
		return enc.Encode(doc)
	})
	addContrastOutputs(&outs, dir, curve, threshold, j.StarFlux, j.PSFNorm, centerInfo)
	if j.ContrastCheck {
		addContrastCheckOutputs(&outs, dir, checks)
	}
	marks := make([]Mark, len(dets))
	for i, d := range dets {
		marks[i] = Mark{Y: float64(d.Y), X: float64(d.X), Label: fmt.Sprintf("%d", i+1)}
	}
	title := fmt.Sprintf("PACO SNR, R=%d, %d frames", radius, prep.T)
	outs.Add(filepath.Join(dir, "snr.png"), func(w io.Writer) error {
		img, err := renderSNR(snr, marks, title)
		if err != nil {
			return err
		}
		formats.DrawCompass(img, prep.H, prep.W, northOffset) // N up, E left unless --north-offset
		return png.Encode(w, img)
	})
	if err := outs.Commit(); err != nil {
		return nil, err
	}

	// Summary.
	w := env.out
	fmt.Fprintf(w, "device:     %s\n", s.name())
	if maps.Passes > 1 {
		fmt.Fprintf(w, "passes:     %d over bands of location rows, to stay within the device memory budget\n", maps.Passes)
	}
	fmt.Fprintf(w, "precision:  %s\n", maps.Precision)
	fmt.Fprintf(w, "cube:       %s, %d frames of %d×%d, rotation %.1f° to %.1f°\n", j.Cube, prep.T, prep.H, prep.W, angles[0], angles[len(angles)-1])
	fmt.Fprintf(w, "patch:      radius %d (%d pixels), centre (%d, %d)\n", radius, prep.P(), prep.CY, prep.CX)
	fmt.Fprintf(w, "centre:     %s\n", centerInfo.describe())
	for _, st := range maps.Stages {
		fmt.Fprintf(w, "  %-15s %9.3f ms\n", st.Name, float64(st.Time.Microseconds())/1e3)
	}
	if unbiased {
		fmt.Fprintf(w, "  %-15s %9.3f ms (Algorithm 3, %s, %d detections)\n", "unbiased flux", float64(unbiasedTime.Microseconds())/1e3, unbiasedOn, len(dets))
	}
	if j.ContrastCheck {
		fmt.Fprintf(w, "  %-15s %9.3f ms (%d maps with fakes)\n", "contrast check", float64(checkTime.Microseconds())/1e3, contrastCheckRuns)
	}
	fmt.Fprintf(w, "invalid:    %d of %d map pixels NaN, %d of %d locations without statistics", maps.InvalidPixels, prep.H*prep.W, maps.InvalidLocations, prep.H*prep.W)
	if nanCount > 0 {
		fmt.Fprintf(w, "; %d NaN values in the cube", nanCount)
	}
	fmt.Fprintln(w)
	fmt.Fprintf(w, "detections: %d above SNR %g\n", len(dets), threshold)
	if len(dets) > 0 {
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
		sepHead := "\t"
		if pixelScale > 0 {
			sepHead = "sep(\")\t"
		}
		head := "#\ty\tx\tsep(px)\t" + sepHead + "PA(E of N)\tθ(+x→+y)\tSNR\tflux\tσ_flux\t"
		if unbiased {
			head += "flux(unb.)\tσ(unb.)\tSNR(unb.)\ty(ref.)\tx(ref.)\titer\t"
		}
		fmt.Fprintln(tw, head)
		for i, d := range dets {
			sep := "\t"
			if pixelScale > 0 {
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
		fmt.Fprintf(w, "            PA: degrees east of north, north up (+y) and east left (−x) in the derotated frame, north offset %g°; θ: from +x towards +y\n", northOffset)
	}
	if d.truth != nil {
		printTruth(w, d.truth, dets, maps)
	}
	fmt.Fprintf(w, "contrast:   %s\n", contrastSummary(curve, threshold, j.PSFNorm))
	if j.ContrastCheck {
		fmt.Fprintf(w, "            %s\n", contrastCheckSummary(checks, threshold))
	}
	fmt.Fprintf(w, "outputs:    %s\n", dir)
	return &pacoResult{sess: s, prep: prep, maps: maps, dets: dets, center: centerInfo}, nil
}

// timing is the device's share of the run, for --time.
func (r *pacoResult) timing() engine.Timing { return r.maps.Timing() }
