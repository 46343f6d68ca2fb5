package paco

import "github.com/vkstat/vkstat/engine"

// Info is what a PACO run reports beside its maps and tables
// (detections.json's and contrast.json's scalars), as the C ABI gives it
// (Python's info).
type Info struct {
	// Center is how the star centre was chosen: detections.json's
	// center_info.
	Center CenterInfo `json:"center"`
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
	Stages       []StageMs `json:"stages"`
	Threshold    float64   `json:"threshold"`
	MinSep       float64   `json:"min_sep"`
	NorthOffset  float64   `json:"north_offset"`
	PAConvention string    `json:"pa_convention"`
	// PixelScale (arcsec per pixel) and StarFlux (the star's flux the
	// contrast used: given, or the stamp's, times star_flux_scale) are
	// null when not given.
	PixelScale *float64 `json:"pixel_scale"`
	StarFlux   *float64 `json:"star_flux"`
	// UnbiasedOn is where Algorithm 3 ran ("" without it); UnbiasedMs and
	// CheckMs the times of Algorithm 3 and the contrast check.
	UnbiasedOn string  `json:"unbiased_on"`
	UnbiasedMs float64 `json:"unbiased_ms"`
	CheckMs    float64 `json:"contrast_check_ms"`
	// Calibration is how the contrast curve was calibrated, as
	// contrast.json's calibration (null with QuickContrast, or where no
	// fake fitted); CalibrationMs its time.
	Calibration   map[string]any `json:"calibration"`
	CalibrationMs float64        `json:"contrast_calibration_ms"`
	// Notes are what the command prints as it runs (Algorithm 3 moving to
	// the CPU, the contrast check's runs); warnings are the Result's.
	Notes []string `json:"notes"`
}

// StageMs is one stage of the maps and its time in milliseconds.
type StageMs struct {
	Name string  `json:"name"`
	Ms   float64 `json:"ms"`
}

// NewInfo is the Info of the run that gave res with options o, with
// notes, what the run said as it went (Options.Note).
func NewInfo(o Options, res *Result, notes []string) *Info {
	m := res.Maps
	info := &Info{Center: res.Center, Shape: []int{res.T, res.H, res.W}, Radius: res.Radius, PatchPixels: res.P,
		Device: m.Device, Precision: m.Precision, Passes: m.Passes,
		InvalidPixels: m.InvalidPixels, InvalidLocations: m.InvalidLocations, NaNs: res.NaNs,
		Threshold: o.Threshold, MinSep: o.MinSeparation(), NorthOffset: o.NorthOffset, PAConvention: PAConvention,
		UnbiasedOn: res.UnbiasedOn, UnbiasedMs: engine.Ms(res.UnbiasedTime), CheckMs: engine.Ms(res.CheckTime),
		Calibration: res.Calibration.Doc(), CalibrationMs: engine.Ms(res.CalibrationTime), Notes: notes}
	for _, st := range m.Stages {
		info.Stages = append(info.Stages, StageMs{st.Name, engine.Ms(st.Time)})
	}
	if s := o.PixelScale; s > 0 {
		info.PixelScale = &s
	}
	if f := res.StarFlux; f > 0 {
		info.StarFlux = &f
	}
	return info
}
