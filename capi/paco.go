package capi

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"math"
	"strings"
	"time"

	"github.com/vkstat/vkstat/engine"
	"github.com/vkstat/vkstat/pipelines/paco"
	"github.com/vkstat/vkstat/pipelines/synth"
	"github.com/vkstat/vkstat/tensor"
)

type pacoParams struct {
	// FWHM, when there is no "psf" array, is the Gaussian PSF's (synth's,
	// as vkstat paco --fwhm); 0 with a stamp.
	FWHM    float64 `json:"fwhm"`
	PSFNorm string  `json:"psf_norm"` // sum (default), peak or none
	Radius  int     `json:"radius"`   // at least 1
	// Center is null or "" (measured, used when it rules out (H/2, W/2)),
	// "auto" (the same, with warnings) or [y, x], pixels, 0-based.
	Center    any     `json:"center"`
	Threshold float64 `json:"threshold"`
	MinSep    float64 `json:"min_sep"` // 0: 2×radius
	Compat    string  `json:"compat"`
	Placement string  `json:"placement"`
	// Precision is f32 or f64 (or NumPy's names); "" or auto: the cube's.
	Precision     string  `json:"precision"`
	Unbiased      bool    `json:"unbiased"`
	ContrastCheck bool    `json:"contrast_check"`
	StarFlux      float64 `json:"star_flux"` // 0: unknown
	// PixelScale is arcseconds per pixel, above 0; null: none.
	PixelScale  *float64 `json:"pixel_scale"`
	NorthOffset float64  `json:"north_offset"`
}

// PacoInfo is paco's Info: what vkstat paco prints and writes beside its
// maps and tables (detections.json's and contrast.json's scalars).
type PacoInfo struct {
	// Center is how the star centre was chosen: detections.json's
	// center_info.
	Center paco.CenterInfo `json:"center"`
	// Shape is the cube's (T, H, W); PatchPixels the pixels of a patch of
	// Radius.
	Shape       []int  `json:"shape"`
	Radius      int    `json:"radius"`
	PatchPixels int    `json:"patch_pixels"`
	Device      string `json:"device"`
	Precision   string `json:"precision"`
	// Passes over bands of location rows (a device's memory budget).
	Passes           int `json:"passes"`
	InvalidPixels    int `json:"invalid_pixels"`
	InvalidLocations int `json:"invalid_locations"`
	NaNs             int `json:"nans"`
	// Stages are the maps' stages and their times, ms, in order.
	Stages       []PacoStage `json:"stages"`
	Threshold    float64     `json:"threshold"`
	MinSep       float64     `json:"min_sep"`
	NorthOffset  float64     `json:"north_offset"`
	PAConvention string      `json:"pa_convention"`
	// PixelScale (arcsec per pixel) and StarFlux are null when not given.
	PixelScale *float64 `json:"pixel_scale"`
	StarFlux   *float64 `json:"star_flux"`
	// UnbiasedOn is where Algorithm 3 ran ("" without it); UnbiasedMs and
	// CheckMs the times of Algorithm 3 and the contrast check.
	UnbiasedOn string  `json:"unbiased_on"`
	UnbiasedMs float64 `json:"unbiased_ms"`
	CheckMs    float64 `json:"contrast_check_ms"`
	// Notes are what the command prints as it runs (Algorithm 3 moving to
	// the CPU, the contrast check's runs); warnings are the Result's.
	Notes []string `json:"notes"`
}

// PacoStage is one stage of the maps and its time.
type PacoStage struct {
	Name string  `json:"name"`
	Ms   float64 `json:"ms"`
}

// pacoWords puts the library's words for the centre into the Python
// parameter's.
var pacoWords = strings.NewReplacer("centre auto: ", "center='auto': ", "give the centre as y,x", "give center=(y, x)")

// runPaco runs paco.Run, the whole analysis vkstat paco does, on array
// cube (T, H, W), float32 or float64, read where it lies, angles (T,)
// float64 and, unless FWHM is given, psf (an odd square stamp). Outputs:
// snr, flux and sigma (float64 (H, W), as the command's files), psf (the
// stamp used, before normalisation), and three tables as one output per
// column, named table.column: detections (detections.csv's columns),
// contrast (contrast.csv's) and, with ContrastCheck, contrast_check
// (contrast_check.csv's).
func runPaco(ctx context.Context, dev *engine.Device, c *Call) (*Result, error) {
	var p pacoParams
	if err := c.Params(&p); err != nil {
		return nil, err
	}
	cube, err := c.Tensor("cube", Floats...)
	if err != nil {
		return nil, err
	}
	at, err := c.Tensor("angles", tensor.F64)
	if err != nil {
		return nil, err
	}
	if len(at.Shape) != 1 {
		return nil, inputf("angles has shape %s; want (T,), one parallactic angle per frame", tensor.ShapeString(at.Shape))
	}
	opt, err := pacoOptions(p, cube.DType, dev == nil)
	if err != nil {
		return nil, err
	}
	switch {
	case c.Has("psf") && p.FWHM != 0:
		return nil, inputf("give psf or fwhm, not both: a stamp is the PSF (its FWHM is measured on it)")
	case c.Has("psf"):
		if opt.PSF, err = c.Tensor("psf", Floats...); err != nil {
			return nil, err
		}
	case p.FWHM == 0:
		return nil, inputf("give psf (the off-axis PSF stamp) or fwhm (a Gaussian PSF of that FWHM, pixels)")
	}
	if err := checkPaco(cube, at.F64, opt); err != nil {
		return nil, err
	}
	res := c.Result()
	info := &PacoInfo{}
	opt.Note = func(msg string) { info.Notes = append(info.Notes, msg) }
	r, err := paco.Run(ctx, dev, paco.ADI{Cube: cube, Angles: at.F64}, opt)
	if err != nil {
		return nil, err
	}
	m := r.Maps
	snr, flux, sigma := m.Tensors()
	res.add("snr", snr)
	res.add("flux", flux)
	res.add("sigma", sigma)
	res.add("psf", r.PSF)
	addDetections(res, r.Detections, opt.PixelScale > 0, opt.Unbiased)
	addContrast(res, r.Contrast)
	if opt.ContrastCheck {
		addChecks(res, r.Checks)
	}
	for _, w := range r.Warnings {
		res.Warnings = append(res.Warnings, pacoWords.Replace(w.Message))
	}
	ms := func(d time.Duration) float64 { return float64(d.Nanoseconds()) / 1e6 }
	info.Center, info.Shape, info.Radius, info.PatchPixels = r.Center, []int{r.T, r.H, r.W}, r.Radius, r.P
	info.Device, info.Precision, info.Passes = m.Device, m.Precision, m.Passes
	info.InvalidPixels, info.InvalidLocations, info.NaNs = m.InvalidPixels, m.InvalidLocations, r.NaNs
	for _, st := range m.Stages {
		info.Stages = append(info.Stages, PacoStage{st.Name, ms(st.Time)})
	}
	info.Threshold, info.NorthOffset, info.PAConvention = opt.Threshold, opt.NorthOffset, paco.PAConvention
	if info.MinSep = opt.MinSep; info.MinSep <= 0 {
		info.MinSep = float64(2 * r.Radius)
	}
	if opt.PixelScale > 0 {
		info.PixelScale = &opt.PixelScale
	}
	if opt.StarFlux > 0 {
		info.StarFlux = &opt.StarFlux
	}
	info.UnbiasedOn, info.UnbiasedMs, info.CheckMs = r.UnbiasedOn, ms(r.UnbiasedTime), ms(r.CheckTime)
	res.Info = info
	return res.timed(m.Timing()), nil
}

// pacoOptions turns p into paco.Options for a cube of type dt, checking
// them as paco.Run would (ValueErrors on a device too), with the Python
// parameters' names. onCPU: the CPU path, which computes in float64 only.
func pacoOptions(p pacoParams, dt tensor.DType, onCPU bool) (paco.Options, error) {
	opt := paco.Options{FWHM: p.FWHM, PSFNorm: p.PSFNorm, Radius: p.Radius, Threshold: p.Threshold, MinSep: p.MinSep,
		Unbiased: p.Unbiased, ContrastCheck: p.ContrastCheck, StarFlux: p.StarFlux, NorthOffset: p.NorthOffset}
	if opt.PSFNorm == "" {
		opt.PSFNorm = "sum"
	}
	var err error
	if opt.Compat, err = paco.ParseCompat(p.Compat); err != nil {
		return opt, inputf("compat: %v", err)
	}
	if p.Placement == "" {
		p.Placement = "nearest"
	}
	if opt.Placement, err = paco.ParsePlacement(p.Placement); err != nil {
		return opt, InputError{err}
	}
	if opt.Center, opt.CenterYX, err = pacoCenter(p.Center); err != nil {
		return opt, err
	}
	if opt.Radius < 1 {
		return opt, inputf("radius must be at least 1, got %d", opt.Radius)
	}
	if ps := p.PixelScale; ps != nil {
		if !(*ps > 0) { // 0 is the library's "none"; given, it is a mistake
			return opt, inputf("pixel_scale: want arcseconds per pixel, a number above 0, got %g", *ps)
		}
		opt.PixelScale = *ps
	}
	chk := opt
	if chk.FWHM == 0 {
		chk.FWHM = 1 // a stamp is the PSF; checked when it is read
	}
	if err := chk.Check(); err != nil {
		var oe *paco.OptionError
		if errors.As(err, &oe) {
			return opt, inputf("%s%s", pacoParamNames[oe.Field], oe.Msg)
		}
		return opt, InputError{err}
	}
	if p.Precision != "" && p.Precision != "auto" {
		d, err := tensor.ParseDType(p.Precision)
		if err != nil || d.Is16() {
			return opt, inputf("precision %q: want float32 or float64 (f32, f64), or None for the cube's own", p.Precision)
		}
		opt.Convert, opt.DType = true, d
		dt = d
	}
	if onCPU && dt != tensor.F64 && opt.Convert {
		return opt, inputf("precision %s: the PACO CPU path computes in float64 only; ask for float64 (or None) there, or open a Vulkan device (lavapipe, gpu) for float32", dt)
	}
	return opt, nil
}

// pacoCenter reads the centre: null or "" (measured, used when it rules
// out (H/2, W/2)), "auto", or [y, x] in pixels, 0-based.
func pacoCenter(v any) (paco.CenterChoice, [2]float64, error) {
	var yx [2]float64
	switch c := v.(type) {
	case nil:
		return paco.CenterDefault, yx, nil
	case string:
		switch strings.ToLower(strings.TrimSpace(c)) {
		case "":
			return paco.CenterDefault, yx, nil
		case "auto":
			return paco.CenterAuto, yx, nil
		}
	case []any:
		ok := len(c) == 2
		for i := 0; ok && i < 2; i++ {
			n, isNum := c[i].(json.Number)
			var err error
			yx[i], err = n.Float64()
			ok = isNum && err == nil
		}
		if ok {
			return paco.CenterGiven, yx, nil
		}
	}
	return 0, yx, inputf("center: want (y, x) in pixels, 0-based, or auto; got %s", jsonWords(v))
}

// pacoParamNames are the Python parameters of paco.Options' fields.
var pacoParamNames = map[string]string{"FWHM": "fwhm", "PSFNorm": "psf_norm", "Radius": "radius", "Center": "center",
	"CenterYX": "center", "Threshold": "threshold", "MinSep": "min_sep", "StarFlux": "star_flux", "PixelScale": "pixel_scale",
	"NorthOffset": "north_offset"}

// checkPaco refuses, as input errors, the cube, angles, PSF and centre
// that paco.Prepare would refuse inside paco.Run, where on a device any
// error would read as the device's.
func checkPaco(cube *tensor.Tensor, angles []float64, opt paco.Options) error {
	psf := opt.PSF
	if psf == nil {
		var err error
		if psf, err = synth.PSF(opt.FWHM); err != nil {
			return inputf("fwhm: %v", err)
		}
	}
	in := paco.Input{Cube: cube, Angles: angles, PSF: psf, PSFNorm: opt.PSFNorm, Radius: opt.Radius, Compat: opt.Compat, Placement: opt.Placement}
	if opt.Center == paco.CenterGiven {
		in.Center = &[2]int{int(math.Round(opt.CenterYX[0])), int(math.Round(opt.CenterYX[1]))}
	}
	if _, err := paco.Prepare(in); err != nil {
		return InputError{err}
	}
	return nil
}

// table adds the columns of a table of n rows as outputs name.column.
type table struct {
	r    *Result
	name string
	n    int
}

func (t table) f64(col string, v func(i int) float64) {
	t.r.addRaw(t.name+"."+col, "float64", []int{t.n}, 8*int64(t.n), func(b []byte) {
		for i := range t.n {
			binary.LittleEndian.PutUint64(b[8*i:], math.Float64bits(v(i)))
		}
	})
}

func (t table) i64(col string, v func(i int) int) {
	t.r.addRaw(t.name+"."+col, "int64", []int{t.n}, 8*int64(t.n), func(b []byte) {
		for i := range t.n {
			binary.LittleEndian.PutUint64(b[8*i:], uint64(int64(v(i))))
		}
	})
}

func (t table) bool(col string, v func(i int) bool) {
	t.r.addRaw(t.name+"."+col, "bool", []int{t.n}, int64(t.n), func(b []byte) {
		for i := range t.n {
			b[i] = 0
			if v(i) {
				b[i] = 1
			}
		}
	})
}

// addDetections adds the detections as detections.csv's columns:
// separation_arcsec NaN without a pixel scale (the file's empty cell),
// Algorithm 3's columns with unbiased.
func addDetections(r *Result, dets []paco.Detection, arcsec, unbiased bool) {
	t := table{r, "detections", len(dets)}
	t.i64("rank", func(i int) int { return i + 1 })
	t.i64("y", func(i int) int { return dets[i].Y })
	t.i64("x", func(i int) int { return dets[i].X })
	t.f64("separation_px", func(i int) float64 { return dets[i].Sep })
	t.f64("separation_arcsec", func(i int) float64 {
		if !arcsec {
			return math.NaN()
		}
		return dets[i].SepArcsec
	})
	t.f64("pa_east_of_north_deg", func(i int) float64 { return dets[i].PAEastOfNorth })
	t.f64("angle_ccw_from_x_deg", func(i int) float64 { return dets[i].AngleCCWFromX })
	t.f64("snr", func(i int) float64 { return dets[i].SNR })
	t.f64("flux", func(i int) float64 { return dets[i].Flux })
	t.f64("sigma_flux", func(i int) float64 { return dets[i].SigmaFlux })
	if !unbiased {
		return
	}
	u := func(i int) *paco.Unbiased {
		if dets[i].Unbiased == nil {
			nan := math.NaN()
			return &paco.Unbiased{FluxUnbiased: nan, SigmaUnbiased: nan, SNRUnbiased: nan, YRefined: nan, XRefined: nan}
		}
		return dets[i].Unbiased
	}
	t.f64("flux_unbiased", func(i int) float64 { return u(i).FluxUnbiased })
	t.f64("sigma_unbiased", func(i int) float64 { return u(i).SigmaUnbiased })
	t.f64("snr_unbiased", func(i int) float64 { return u(i).SNRUnbiased })
	t.f64("y_refined", func(i int) float64 { return u(i).YRefined })
	t.f64("x_refined", func(i int) float64 { return u(i).XRefined })
	t.i64("iterations", func(i int) int { return u(i).Iterations })
	t.bool("converged", func(i int) bool { return u(i).Converged })
}

// addContrast adds the contrast curve as contrast.csv's columns (NaN
// contrast and delta_mag without the star's flux).
func addContrast(r *Result, curve []paco.ContrastPoint) {
	t := table{r, "contrast", len(curve)}
	t.f64("separation_px", func(i int) float64 { return curve[i].Sep })
	t.i64("pixels", func(i int) int { return curve[i].Pixels })
	t.f64("sigma_flux", func(i int) float64 { return curve[i].Sigma })
	t.f64("flux_limit", func(i int) float64 { return curve[i].Flux })
	t.f64("contrast", func(i int) float64 { return curve[i].Contrast })
	t.f64("delta_mag", func(i int) float64 { return curve[i].Mag })
}

// addChecks adds the contrast check's fakes as contrast_check.csv's
// columns.
func addChecks(r *Result, rows []paco.CheckRow) {
	t := table{r, "contrast_check", len(rows)}
	t.i64("run", func(i int) int { return rows[i].Run })
	t.f64("separation_px", func(i int) float64 { return rows[i].Sep })
	t.f64("y", func(i int) float64 { return rows[i].Y })
	t.f64("x", func(i int) float64 { return rows[i].X })
	t.f64("pa_east_of_north_deg", func(i int) float64 { return rows[i].PA })
	t.f64("flux_injected", func(i int) float64 { return rows[i].Injected })
	t.f64("snr", func(i int) float64 { return rows[i].SNR })
	t.f64("flux", func(i int) float64 { return rows[i].Flux })
	t.f64("throughput", func(i int) float64 { return rows[i].Throughput })
	t.bool("detected", func(i int) bool { return rows[i].Detected })
}
