package survey

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"strings"

	"github.com/vkstat/vkstat/engine"
	"github.com/vkstat/vkstat/formats"
	"github.com/vkstat/vkstat/formats/figure"
	"github.com/vkstat/vkstat/pipelines/paco"
	"github.com/vkstat/vkstat/pipelines/synth"
	"github.com/vkstat/vkstat/tensor"
)

// Target is one PACO run given as files: a manifest row, or `vkstat paco`'s
// command line.
type Target struct {
	Index int    // 1-based position in the manifest
	Name  string // its folder under the survey's output
	Where string // "line 4" or "target 3", for messages
	// Cube is the ADI cube (T, H, W), FITS or NPY; Angles the T parallactic
	// angles in degrees (FITS, NPY or text), or "header": from the cube's
	// ESO PARANG START/END cards (HeaderAngles); PSF the PSF stamp, or ""
	// for Options.FWHM's Gaussian; Truth, when set, a truth.json of vkstat
	// synth paco.
	Cube, Angles, PSF, Truth string
	// Format names the map files a writer makes: fits, npy or both.
	Format string
	// Plot is the pictures' format (snr.png, contrast.png): "" is PNG.
	Plot figure.Format
	// Options are the analysis'; Read sets PSF and HeaderCenter from the
	// files.
	Options paco.Options
	// Err is a bad value in the manifest: the target fails with it, the
	// others run.
	Err error
	// Word names a library field (engine.FieldError's: "cube",
	// "psf_norm") in messages; nil names it as its manifest column
	// (ColumnName); a command line gives "--cube", "--psf-norm".
	Word func(string) string
}

// word is t's name for a library field (engine.FieldError's) or file:
// its manifest column, or t.Word's.
func (t *Target) word(field string) string {
	if t.Word == nil {
		return ColumnName(field)
	}
	return t.Word(field)
}

// columnRenames are the columns (and command-line flags) named otherwise
// than the library's fields (their flag tags): paco's placement, and
// quantile's q (--quantiles: -q is the global --quiet).
var columnRenames = map[string]string{"placement": "psf-placement", "q": "quantiles"}

// ColumnName is the manifest column of a library field: the field with
// "-" for "_" ("psf_norm": psf-norm), but those of columnRenames. The
// command line's flags are named alike.
func ColumnName(field string) string {
	if c, ok := columnRenames[field]; ok {
		return c
	}
	return strings.ReplaceAll(field, "_", "-")
}

// OptionErr is an error of t's options in t's words: an
// *engine.FieldError (paco.Options.Check's, paco.Prepare's), or
// paco.ErrNoHeaderCenter, a *ValueError naming its column (or flag).
func (t *Target) OptionErr(err error) error {
	if errors.Is(err, paco.ErrNoHeaderCenter) {
		w := t.word("center")
		return &ValueError{Option: w, Msg: " header: the cube has no CRPIX1 and CRPIX2 header cards (only FITS cubes can have them); give " + w + " auto or y,x"}
	}
	var fe *engine.FieldError
	if errors.As(err, &fe) && err.Error() == fe.Error() {
		return &ValueError{Option: t.word(fe.Field), Msg: fe.Msg}
	}
	return err
}

// ValueError is a bad option value: Option (a column, or a flag) and what
// is wrong with it, starting with ": " or " ".
type ValueError struct{ Option, Msg string }

func (e *ValueError) Error() string { return e.Option + e.Msg }

// CheckOptions validates t's options (paco.Options.Check) as a
// *ValueError in t's words.
func (t *Target) CheckOptions() error {
	opt := t.Options
	if t.PSF != "" {
		opt.PSF = new(tensor.Tensor) // the stamp, read later, is the PSF
	}
	return t.OptionErr(opt.Check())
}

// Check validates t's options (a *ValueError) and that its files exist,
// and parses its truth file, before any array is read.
func (t *Target) Check() error {
	if err := t.CheckOptions(); err != nil {
		return err
	}
	if _, err := t.readTruth(); err != nil {
		return err
	}
	for _, f := range []struct{ name, path string }{{"cube", t.Cube}, {"angles", t.Angles}, {"psf", t.PSF}} {
		if f.path != "" && !(f.name == "angles" && f.path == "header") {
			st, err := os.Stat(f.path)
			if err != nil {
				return fmt.Errorf("%s: %w", t.word(f.name), err)
			}
			if st.IsDir() {
				return fmt.Errorf("%s: %s is a directory, not a file", t.word(f.name), f.path)
			}
		}
	}
	return nil
}

func (t *Target) readTruth() (*synth.TruthFile, error) {
	if t.Truth == "" {
		return nil, nil
	}
	b, err := formats.ReadText(t.Truth, 0, "a truth.json")
	if err != nil {
		return nil, fmt.Errorf("%s: %w", t.word("truth"), err)
	}
	truth := new(synth.TruthFile)
	if err := json.Unmarshal(b, truth); err != nil {
		return nil, fmt.Errorf("%s: %s is not a truth.json of vkstat synth paco: %w", t.word("truth"), t.Truth, err)
	}
	return truth, nil
}

// Inputs are a target's arrays, read.
type Inputs struct {
	Cube   *tensor.Tensor
	Angles []float64
	Truth  *synth.TruthFile // nil without a truth file
	// Phases are the reads' times: the truth file, the cube, the angles
	// and the PSF stamp.
	Phases []engine.PhaseTime
}

// Read reads t's cube (with its FITS header's centre, into
// Options.HeaderCenter), angles, PSF stamp (into Options.PSF) and truth
// file.
func (t *Target) Read() (*Inputs, error) {
	var in Inputs
	var cards []formats.FITSCard
	var err error
	var tm engine.Timing
	clock := tm.Clock()
	if in.Truth, err = t.readTruth(); err != nil {
		return nil, err
	}
	if in.Truth != nil {
		clock.Lap("read truth")
	}
	if in.Cube, cards, err = formats.ReadArrayHeader(t.Cube); err != nil {
		return nil, fmt.Errorf("%s: %w", t.word("cube"), err)
	}
	clock.Lap("read cube")
	// The header's centre: FITS pixels are 1-based and NAXIS1 is x.
	cx1, okx := formats.CardFloat(cards, "CRPIX1")
	cy1, oky := formats.CardFloat(cards, "CRPIX2")
	t.Options.HeaderCenter = nil
	if okx && oky {
		t.Options.HeaderCenter = &[2]float64{cy1 - 1, cx1 - 1}
	}
	T := 0 // one angle per frame: a longer file (or stream) is not read past T+1 numbers
	if len(in.Cube.Shape) == 3 {
		T = in.Cube.Shape[0]
	}
	if t.Angles == "header" {
		if in.Angles, err = HeaderAngles(cards, T); err != nil {
			return nil, fmt.Errorf("%s header: %w", t.word("angles"), err)
		}
	} else if in.Angles, err = formats.ReadVectorMax(t.Angles, T); err != nil {
		if T > 0 {
			return nil, fmt.Errorf("%s (one angle per frame of the %d-frame cube): %w", t.word("angles"), T, err)
		}
		return nil, fmt.Errorf("%s: %w", t.word("angles"), err)
	}
	clock.Lap("read angles")
	t.Options.PSF = nil
	if t.PSF != "" {
		if t.Options.PSF, err = formats.ReadArray(t.PSF); err != nil {
			return nil, fmt.Errorf("%s: %w", t.word("psf"), err)
		}
		clock.Lap("read PSF")
	}
	in.Phases = tm.Phases
	return &in, nil
}

// The cards HeaderAngles reads: the parallactic angle at the start and the
// end of the exposure, as ESO's instruments (NACO, SPHERE, ...) write them
// in a cube of one exposure's frames.
const (
	ParangStartKey = "ESO TEL PARANG START"
	ParangEndKey   = "ESO TEL PARANG END"
)

// HeaderAngles gives the T frames of one exposure their parallactic
// angles from the cube's header: HIERARCH ESO TEL PARANG START and END,
// interpolated linearly in time at each frame's middle, (t + ½)/T of the
// way through, with END taken within 180° of START (the angle wraps at
// ±180°). Linear in time is exact only where the parallactic angle turns
// at a constant rate; near transit it does not, and per-frame angles from
// the observatory's pipeline are better there.
func HeaderAngles(cards []formats.FITSCard, T int) ([]float64, error) {
	start, ok1 := formats.CardFloat(cards, ParangStartKey)
	end, ok2 := formats.CardFloat(cards, ParangEndKey)
	if !ok1 || !ok2 {
		return nil, fmt.Errorf("the cube's header has no HIERARCH %s and %s (ESO's parallactic angles at the start and end of the exposure): give the angles in a file", ParangStartKey, ParangEndKey)
	}
	if math.IsNaN(start) || math.IsInf(start, 0) || math.IsNaN(end) || math.IsInf(end, 0) {
		return nil, fmt.Errorf("the header's parallactic angles are not finite (start %g, end %g)", start, end)
	}
	end = start + math.Remainder(end-start, 360)
	out := make([]float64, T)
	for t := range out {
		out[t] = start + (end-start)*(float64(t)+0.5)/float64(T)
	}
	return out, nil
}
