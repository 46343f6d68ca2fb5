package synth

import (
	"fmt"
	"math"
	"strconv"
)

// TruthFile is truth.json, the record of a generated sequence that
// `vkstat synth paco` writes beside the cube and `vkstat paco --truth`
// (and a survey's truth column) reads to compare what PACO found.
type TruthFile struct {
	Generator  string              `json:"generator"`
	Version    string              `json:"version"`
	Convention string              `json:"convention"`
	Config     TruthConfig         `json:"config"`
	Center     TruthPoint          `json:"center"`
	Companions []TruthCompanion    `json:"companions"`
	Files      map[string][]string `json:"files"`
}

// TruthConfig is the configuration a TruthFile records.
type TruthConfig struct {
	Height      int     `json:"height"`
	Width       int     `json:"width"`
	Frames      int     `json:"frames"`
	StartDeg    float64 `json:"start_deg"`
	RotationDeg float64 `json:"rotation_deg"`
	FWHM        float64 `json:"fwhm"`
	StampSize   int     `json:"stamp_size"`
	Seed        uint64  `json:"seed"`
	DType       string  `json:"dtype"`
	Noise       Noise   `json:"noise"`
}

// TruthPoint is a sub-pixel position (y, x), 0-based.
type TruthPoint struct {
	Y float64 `json:"y"`
	X float64 `json:"x"`
}

// TruthCompanion is one injected companion: separation (px), position
// angle east of north and map angle (degrees), flux, sky position.
type TruthCompanion struct {
	Sep   float64 `json:"sep"`
	PA    float64 `json:"pa_east_of_north_deg"`
	Theta float64 `json:"angle_ccw_from_x_deg"`
	Flux  float64 `json:"flux"`
	Y     float64 `json:"y"`
	X     float64 `json:"x"`
}

// Convention is what a TruthFile's coordinates mean.
const Convention = "pixel coordinates are 0-based (y, x) in C order; the star is at (H/2, W/2) by integer division; " +
	"pa_east_of_north_deg is the position angle east of north in the sky frame (parallactic angle 0, north up (+y), east left (-x)), " +
	"the angle vkstat paco reports; angle_ccw_from_x_deg is theta = atan2(dy, dx) = pa + 90 in degrees from +x towards +y; " +
	"a companion at theta appears in frame l at angle a = theta - angles[l]: y = cy + sep*sin(a), x = cx + sep*cos(a); flux is the companion's total flux " +
	"(the PSF stamp has unit sum)"

// TruthFile is ds's TruthFile, made by generator (its name and version) with
// files, the names of the files written of each array ("cube": {"cube.fits"}).
func (ds *Dataset) TruthFile(generator, version string, files map[string][]string) TruthFile {
	cfg := ds.Config
	t := TruthFile{
		Generator:  generator,
		Version:    version,
		Convention: Convention,
		Config: TruthConfig{Height: cfg.H, Width: cfg.W, Frames: cfg.Frames, StartDeg: cfg.StartDeg,
			RotationDeg: cfg.RotationDeg, FWHM: cfg.FWHM, StampSize: cfg.StampSize, Seed: cfg.Seed,
			DType: cfg.DType.String(), Noise: *cfg.Noise},
		Center:     TruthPoint{Y: ds.StarY, X: ds.StarX},
		Companions: []TruthCompanion{},
		Files:      files,
	}
	for _, c := range ds.Truth {
		t.Companions = append(t.Companions, TruthCompanion{Sep: c.SepPx, PA: ThetaToPA(c.ThetaDeg), Theta: c.ThetaDeg, Flux: c.Flux, Y: c.Y, X: c.X})
	}
	return t
}

// Card is a header card: a FITS keyword, its value and comment.
type Card struct {
	Key     string
	Value   any
	Comment string
}

// Header is the header cards recording how ds was made, by generator (its
// name and version): the configuration, the noise and every companion (99
// at most; the rest are in the truth file).
func (ds *Dataset) Header(generator, version string) []Card {
	cfg := ds.Config
	n := cfg.Noise
	cards := []Card{
		{Key: "ORIGIN", Value: generator, Comment: "synthetic ADI data"},
		{Key: "VKSTATV", Value: version, Comment: "vkstat version"},
		{Key: "SEED", Value: int64(cfg.Seed), Comment: "random seed"},
		{Key: "NFRAMES", Value: cfg.Frames, Comment: "frames T"},
		{Key: "ANGSTART", Value: cfg.StartDeg, Comment: "[deg] parallactic angle of the first frame"},
		{Key: "ROTATION", Value: cfg.RotationDeg, Comment: "[deg] total field rotation"},
		{Key: "FWHM", Value: cfg.FWHM, Comment: "[pix] PSF FWHM (Gaussian)"},
		{Key: "STAMP", Value: cfg.StampSize, Comment: "[pix] PSF stamp side"},
		{Key: "CENTERY", Value: ds.CY, Comment: "star y, 0-based pixel (H/2)"},
		{Key: "CENTERX", Value: ds.CX, Comment: "star x, 0-based pixel (W/2)"},
		{Key: "HALO", Value: n.Halo, Comment: "static halo at the centre"},
		{Key: "SPECKLE", Value: n.Speckle, Comment: "quasi-static speckle level at the centre"},
		{Key: "TEMPORAL", Value: n.Temporal, Comment: "per-frame smoothed noise std at the centre"},
		{Key: "WHITE", Value: n.White, Comment: "white noise std"},
		{Key: "NOISESCL", Value: n.Scale, Comment: "[pix] radius where noise amplitudes halve"},
		{Key: "NCOMP", Value: len(ds.Truth), Comment: "injected companions"},
	}
	if cfg.Seed > math.MaxInt64 {
		cards[2].Value = strconv.FormatUint(cfg.Seed, 10)
	}
	for i, t := range ds.Truth {
		if i >= 99 {
			cards = append(cards, Card{Key: "COMMENT", Comment: "more companions in truth.json"})
			break
		}
		p := fmt.Sprintf("C%d", i+1)
		cards = append(cards,
			Card{Key: p + "SEP", Value: t.SepPx, Comment: fmt.Sprintf("[pix] companion %d separation", i+1)},
			Card{Key: p + "PA", Value: ThetaToPA(t.ThetaDeg), Comment: "[deg] position angle, east of north"},
			Card{Key: p + "THETA", Value: t.ThetaDeg, Comment: "[deg] map angle, from +x towards +y"},
			Card{Key: p + "FLUX", Value: t.Flux, Comment: "total flux"},
			Card{Key: p + "Y", Value: t.Y, Comment: "[pix] sky y, 0-based"},
			Card{Key: p + "X", Value: t.X, Comment: "[pix] sky x, 0-based"},
		)
	}
	return cards
}
