// Package stack computes per-pixel temporal statistics of a stack of SAR
// images (one file per date), the workload of the project's SAR seed: each
// date's |S|² intensity (or the real input, taken as intensity), an a×r
// multilook of a window of the input, an optional speckle filter, then the mean, standard
// deviation, coefficient of variation, minimum, maximum and count of valid
// samples over the dates, accumulated in one pass (Welford) as the dates
// stream through.
//
// Dates are read by a goroutine while the previous strip is uploaded and
// reduced, through a small pool of strip buffers: memory stays bounded by a
// few strips whatever the stack's length.
//
// The window is GDAL's (-srcwin xoff yoff xsize ysize): input pixels,
// columns first; the multilook boxes start at its corner. Multilook
// remainder: the output grid is floor(ysize/a) × floor(xsize/r); the last
// ysize mod a lines and xsize mod r columns, which do not fill a box, are
// dropped, as ISCE and SNAP do.
package stack

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/vkstat/vkstat/engine"
	"github.com/vkstat/vkstat/tensor"
)

// Quantity is what is averaged over the dates.
type Quantity int

const (
	// Intensity is |S|² (complex input) or the real input, multilooked.
	Intensity Quantity = iota
	// Amplitude is the square root of the multilooked (and filtered) intensity.
	Amplitude
)

// String is the quantity's name: intensity or amplitude.
func (q Quantity) String() string {
	if q == Amplitude {
		return "amplitude"
	}
	return "intensity"
}

// UnmarshalText reads a quantity's name (ParseQuantity).
func (q *Quantity) UnmarshalText(b []byte) error {
	v, err := ParseQuantity(string(b))
	if err == nil {
		*q = v
	}
	return err
}

// DefaultFilterSize is a speckle filter's window unless told (refined
// Lee's classic window is 7).
const DefaultFilterSize = 5

// DefaultBand is the band read from each date's file unless told: the
// first.
const DefaultBand = 1

// Defaults are what the front ends compute unless told, by parameter
// name: the zero Config (|S|², no multilook, no filter, ddof 0), with a
// filter's window DefaultFilterSize, from each file's DefaultBand.
func Defaults() map[string]any {
	var c Config
	return map[string]any{"quantity": c.Quantity.String(), "filter": c.Filter.Kind.String(), "filter_size": DefaultFilterSize, "ddof": c.Ddof,
		"band": DefaultBand}
}

// FilterKind is a per-date speckle filter, applied to the multilooked intensity.
type FilterKind int

const (
	// NoFilter leaves each date as multilooked.
	NoFilter FilterKind = iota
	// Boxcar is the mean over a k×k window.
	Boxcar
	// Lee is Lee's (1980) local-statistics filter over a k×k window.
	Lee
	// RefinedLee is Lee's (1981) refined filter: the Lee weight from the
	// statistics of the half window on the centre's side of the strongest of
	// four edges (vertical, horizontal, two diagonals) found from the means
	// of nine 3×3 sub-windows. Windows clipped by the image's edge or holding
	// a NaN fall back to plain Lee. k ≥ 5; 7 is Lee's original.
	RefinedLee
)

// UnmarshalText reads a filter kind's name (ParseFilter).
func (k *FilterKind) UnmarshalText(b []byte) error {
	v, err := ParseFilter(string(b))
	if err == nil {
		*k = v
	}
	return err
}

func (k FilterKind) String() string {
	switch k {
	case Boxcar:
		return "boxcar"
	case Lee:
		return "lee"
	case RefinedLee:
		return "refined-lee"
	}
	return "none"
}

// Filter is a speckle filter: its kind, window size (odd, ≥ 3) and, for
// Lee, the equivalent number of looks of its input (0: the multilook's a·r).
type Filter struct {
	Kind FilterKind `param:"filter" choices:"none,boxcar,lee,refined-lee" help:"speckle filter of each date's multilooked intensity: none, boxcar, lee or refined-lee"`
	Size int        `param:"filter_size" help:"filter window (odd, at least 3; at least 5 for refined-lee, whose classic window is 7)"`
	ENL  float64    `param:"enl" default:"the multilook's a·r" help:"equivalent number of looks for the Lee filters"`
}

// Window is a rectangle of the input grid, in input pixels, in GDAL's
// order (-srcwin xoff yoff xsize ysize): columns [X, X+W), rows [Y, Y+H).
// W or H zero means to the grid's edge. The multilook boxes start at its
// corner (X, Y).
type Window struct{ X, Y, W, H int }

// Config is what to compute, its parameters named by their `param` tags
// (Params).
type Config struct {
	// LooksAz × LooksRg is the multilook box: rows (azimuth) × columns
	// (range); 0 means 1. The parameter looks, "a×r" (SetText).
	LooksAz int `param:"looks" kind:"text" help:"multilook box a×r: lines (azimuth) × columns (range), e.g. 4x4, 2x8; one number for both"`
	LooksRg int
	// Window is read from each date: the parameter window, "X,Y,W,H"
	// (SetText).
	Window   Window   `param:"window" kind:"text" help:"window of the input, as GDAL's -srcwin: xoff,yoff,xsize,ysize in input pixels (X,Y,W,H), multilooked from its corner; W or H 0 runs to the edge"`
	Quantity Quantity `param:"quantity" choices:"intensity,amplitude" help:"intensity (|S|²) or amplitude (the square root of the multilooked, filtered intensity)"`
	Filter   Filter
	Ddof     int `param:"ddof" help:"delta degrees of freedom of std and cv (0: population, 1: sample)"` // of the standard deviation (0 or 1)
}

// DefaultConfig is what the front ends compute unless told: |S|², no
// multilook (1×1), no filter, ddof 0.
func DefaultConfig() Config { return Config{LooksAz: 1, LooksRg: 1} }

// Params describe the parameters of Config every front end takes
// (engine.Describe), with DefaultConfig's defaults and a filter's window
// DefaultFilterSize, which its zero Size means (NewFilter).
func Params() []engine.Param {
	shown := DefaultConfig()
	shown.Filter.Size = DefaultFilterSize
	return engine.Describe(shown)
}

// Text is the looks ("2x8") or the window ("X,Y,W,H", "" for the whole
// grid) as SetText reads them (engine.TextGetter).
func (c Config) Text(param string) string {
	if param == "looks" {
		return fmt.Sprintf("%dx%d", c.LooksAz, c.LooksRg)
	}
	if w := c.Window; w != (Window{}) {
		return fmt.Sprintf("%d,%d,%d,%d", w.X, w.Y, w.W, w.H)
	}
	return ""
}

// SetText reads the looks (ParseLooks) and the window (ParseWindow) from
// text (engine.TextSetter); its errors are *engine.FieldErrors naming
// them.
func (c *Config) SetText(param, text string) (bool, error) {
	switch param {
	case "looks":
		a, r, err := ParseLooks(text)
		if err != nil {
			return true, engine.Fieldf("looks", " %v", err)
		}
		c.LooksAz, c.LooksRg = a, r
		return true, nil
	case "window":
		w, err := ParseWindow(text, false, c.LooksAz, c.LooksRg)
		if err == nil {
			c.Window = w
		}
		return true, err
	}
	return false, nil
}

// Grid is the geometry every date shares: the input raster's size and
// whether its samples are complex.
type Grid struct {
	Width, Height int
	Complex       bool
}

// Reader reads one date.
type Reader interface {
	// Read reads the w×h window at (x0, y0) of the input grid into dst:
	// 2·w·h floats, interleaved (re, im), for a complex grid; w·h otherwise.
	Read(x0, y0, w, h int, dst []float32) error
	// NoData returns the value that marks missing samples, if any. A
	// complex sample is missing when both parts equal it (0+0j for nodata
	// 0, the usual fill of SLC borders).
	NoData() (float64, bool)
	Close() error
}

// Date opens one date of the stack.
type Date interface {
	Name() string
	Open() (Reader, error)
}

// DateOf is a Date named name that open opens: a file's reader, say,
// whose Open returns its own type.
func DateOf[R Reader](name string, open func() (R, error)) Date {
	return funcDate[R]{name, open}
}

type funcDate[R Reader] struct {
	name string
	open func() (R, error)
}

func (d funcDate[R]) Name() string { return d.name }
func (d funcDate[R]) Open() (Reader, error) {
	r, err := d.open()
	if err != nil {
		return nil, err // not a nil R in a non-nil Reader
	}
	return r, nil
}

// ErrConfig wraps errors in a Config or a crop that does not fit the grid.
var ErrConfig = errors.New("stack")

// Plan is a Config resolved against a Grid.
type Plan struct {
	Config
	Grid
	H, W int // the output: the multilooked window
	InX  int // the input window read from each date: columns [InX, InX+InW)
	InY  int // rows [InY, InY+InH)
	InW  int
	InH  int
	Per  int // floats per input sample: 2 complex, 1 real
	ENL  float64

	// test steers the strips in tests; nil is what runs otherwise.
	test *testOptions
}

// NewPlan checks cfg (Check, then against g) and works out the windows.
func NewPlan(cfg Config, g Grid) (*Plan, error) {
	if cfg.LooksAz == 0 {
		cfg.LooksAz = 1
	}
	if cfg.LooksRg == 0 {
		cfg.LooksRg = 1
	}
	if err := cfg.Check(); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrConfig, err)
	}
	a, r := cfg.LooksAz, cfg.LooksRg
	if a < 1 || r < 1 {
		return nil, fmt.Errorf("%w: multilook factors must be at least 1, got %d×%d", ErrConfig, a, r)
	}
	if g.Width < 1 || g.Height < 1 {
		return nil, fmt.Errorf("%w: empty input grid %d×%d", ErrConfig, g.Width, g.Height)
	}
	p := &Plan{Config: cfg, Grid: g, Per: 1}
	if g.Complex {
		p.Per = 2
	}
	c := cfg.Window
	if c.W == 0 {
		c.W = g.Width - c.X
	}
	if c.H == 0 {
		c.H = g.Height - c.Y
	}
	if c.Y < 0 || c.X < 0 || c.H < 1 || c.W < 1 || c.Y+c.H > g.Height || c.X+c.W > g.Width {
		return nil, fmt.Errorf("%w: window %d,%d,%d,%d (xoff, yoff, xsize, ysize, as GDAL's -srcwin, in input pixels) lies outside the %d×%d (width×height) image",
			ErrConfig, cfg.Window.X, cfg.Window.Y, cfg.Window.W, cfg.Window.H, g.Width, g.Height)
	}
	p.Window = c
	p.H, p.W = c.H/a, c.W/r
	if p.H < 1 || p.W < 1 {
		return nil, fmt.Errorf("%w: a %d×%d multilook (rows × columns) leaves nothing of a %d×%d (width×height) window", ErrConfig, a, r, c.W, c.H)
	}
	p.InY, p.InX, p.InH, p.InW = c.Y, c.X, p.H*a, p.W*r
	if f := cfg.Filter; f.Kind != NoFilter {
		p.ENL = f.ENL
		if p.ENL == 0 {
			p.ENL = float64(a * r)
		}
	}
	return p, nil
}

// StripRows is how many output rows one strip of input holds within
// maxBytes (at least one).
func (p *Plan) StripRows(maxBytes int64) int {
	row := int64(p.InW) * int64(p.LooksAz) * int64(p.Per) * 4
	return max(1, min(p.H, int(maxBytes/row)))
}

// Result holds the statistics, each H×W float32 in row-major order. Pixels
// with no valid sample have count 0 and NaN elsewhere; the standard deviation
// is NaN where count ≤ ddof. Count (the dates with a valid look box) and
// Samples (the valid input samples of the look box, over every date: up to
// looks × dates) hold whole numbers.
type Result struct {
	H, W                    int
	Mean, Std, CV, Min, Max []float32
	Count, Samples          []float32
	Dates                   int
	// Read is the reader's time (all dates), beside the call's: it runs
	// on a goroutine of its own, alongside the computation, so it is no
	// phase of the call's wall.
	Read time.Duration
	// Timing is what the call cost (Run): Kernel the device's or the
	// CPU's work on the dates; Phases (docs/datapath.md) split the calling
	// goroutine's time: its waiting for the reader is read-wait,
	// allocating the strips the reader fills read-buffers; on the CPU path
	// the rest of the streamed part (computing the dates, then the
	// statistics) is compute; on a device the engine's phases (copies,
	// submits, waits) name the computation, results and convert the host's
	// work on the state downloaded.
	Timing engine.Timing
	// state is the per-pixel state the statistics came from (RunPartial).
	state *Partial
}

// Options are what Run runs with: the Plan (NewPlan) of the dates.
type Options struct {
	*Plan
}

// Run computes the statistics of the dates on dev, or on the CPU when dev
// is nil, telling ctx's Progress (engine.WithProgress) of each date done.
func Run(ctx context.Context, dev *engine.Device, dates []Date, opt Options) (*Result, error) {
	return runKeep(ctx, dev, dates, opt, false)
}

// runKeep is Run, keeping the state (Result.state) when keep.
func runKeep(ctx context.Context, dev *engine.Device, dates []Date, opt Options, keep bool) (*Result, error) {
	if opt.Plan == nil {
		return nil, fmt.Errorf("%w: no plan", ErrConfig)
	}
	m := engine.Begin(dev)
	var r *Result
	var err error
	if dev == nil {
		r, err = cpuRun(ctx, opt.Plan, dates, keep)
	} else {
		r, err = vulkanRun(ctx, dev, opt.Plan, dates, keep)
	}
	if err != nil {
		return nil, err
	}
	m.End(&r.Timing)
	return r, nil
}

// Stats names the statistics of a Result, in order.
var Stats = []string{"mean", "std", "cv", "min", "max", "count", "samples"}

// Stat is the statistic of that name (Stats), nil for another name.
func (r *Result) Stat(name string) []float32 {
	return map[string][]float32{"mean": r.Mean, "std": r.Std, "cv": r.CV, "min": r.Min, "max": r.Max, "count": r.Count, "samples": r.Samples}[name]
}

// DBStats are the statistics in the quantity's units, which ToDB converts:
// std and cv are not (a spread and a ratio).
var DBStats = []string{"mean", "min", "max"}

// ToDB is v in decibels, a new slice: 10·log10 of an intensity, 20·log10
// of an amplitude (the same dB for the same backscatter); ≤ 0 gives −Inf
// or NaN, as log10 does.
func ToDB(v []float32, q Quantity) []float32 {
	k := 10.0
	if q == Amplitude {
		k = 20
	}
	out := make([]float32, len(v))
	for i, x := range v {
		out[i] = float32(k * math.Log10(float64(x)))
	}
	return out
}

// Output is the statistic of that name as the front ends write it: in
// decibels when db asks and it is one of DBStats (inDB), else as it is.
func (r *Result) Output(name string, db bool, q Quantity) (v []float32, inDB bool) {
	if db && slices.Contains(DBStats, name) {
		return ToDB(r.Stat(name), q), true
	}
	return r.Stat(name), false
}

// IsCount says whether the statistic of that name holds counts (count,
// samples): whole numbers, written as int32 (Int32Bytes).
func IsCount(name string) bool { return name == "count" || name == "samples" }

// Int32Bytes are counts held as float32 whole numbers, as little-endian
// int32.
func Int32Bytes(v []float32) []byte {
	b := make([]byte, 4*len(v))
	for i, x := range v {
		binary.LittleEndian.PutUint32(b[4*i:], uint32(int32(x)))
	}
	return b
}

// Empty is how many pixels have no valid sample in any date (count 0).
func (r *Result) Empty() int {
	n := 0
	for _, c := range r.Count {
		if c == 0 {
			n++
		}
	}
	return n
}

// ParseFilter is the filter kind of that name: none (or ""), boxcar, lee
// or refined-lee.
func ParseFilter(name string) (FilterKind, error) {
	for _, k := range []FilterKind{NoFilter, Boxcar, Lee, RefinedLee} {
		if name == k.String() {
			return k, nil
		}
	}
	if name == "" {
		return NoFilter, nil
	}
	return NoFilter, fmt.Errorf("want none, boxcar, lee or refined-lee, got %q", name)
}

// ParseLooks reads a multilook box, rows (azimuth) × columns (range), as
// the command line and the Python package take it: "4" (4×4), "2x8",
// "2×8" or "2,8"; both positive integers.
func ParseLooks(s string) (az, rg int, err error) {
	parts := strings.FieldsFunc(strings.ToLower(s), func(r rune) bool { return r == 'x' || r == ',' || r == '×' })
	if len(parts) == 1 {
		parts = append(parts, parts[0])
	}
	if len(parts) != 2 {
		return 0, 0, fmt.Errorf("%q: want a×r, e.g. 4x4", s)
	}
	a, e1 := strconv.Atoi(strings.TrimSpace(parts[0]))
	r, e2 := strconv.Atoi(strings.TrimSpace(parts[1]))
	if e1 != nil || e2 != nil || a < 1 || r < 1 {
		return 0, 0, fmt.Errorf("%q: want two positive integers a×r, e.g. 4x4", s)
	}
	return a, r, nil
}

// finish turns the Welford state, and the samples counted (timing), into
// the statistics.
func finish[C uint32 | float64, E float32 | float64](p *Plan, n []C, mean, m2 []float64, mn, mx []E, dates int, samples []uint32) *Result {
	N := p.H * p.W
	res := &Result{H: p.H, W: p.W, Dates: dates,
		Mean: tensor.Make[float32](N), Std: tensor.Make[float32](N), CV: tensor.Make[float32](N),
		Min: tensor.Make[float32](N), Max: tensor.Make[float32](N), Count: tensor.Make[float32](N), Samples: tensor.Make[float32](N)}
	nan := float32(math.NaN())
	for i := 0; i < N; i++ {
		res.Count[i] = float32(n[i])
		res.Samples[i] = float32(samples[i])
		if n[i] == 0 {
			res.Mean[i], res.Std[i], res.CV[i], res.Min[i], res.Max[i] = nan, nan, nan, nan, nan
			continue
		}
		res.Mean[i], res.Min[i], res.Max[i] = float32(mean[i]), float32(mn[i]), float32(mx[i])
		if d := float64(n[i]) - float64(p.Ddof); d > 0 {
			s := math.Sqrt(max(m2[i], 0) / d)
			res.Std[i] = float32(s)
			res.CV[i] = float32(s / mean[i])
		} else {
			res.Std[i], res.CV[i] = nan, nan
		}
	}
	return res
}
