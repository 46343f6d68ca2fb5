package stack

// The options' checks, once for every front end: their errors name the
// parameters (`vkstat stack`'s flags and Python's keywords are named
// after them), which each front end words in its own terms.

import (
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/vkstat/vkstat/engine"
)

// ParseQuantity reads intensity ("" too) or amplitude; otherwise an
// *engine.FieldError naming "quantity".
func ParseQuantity(s string) (Quantity, error) {
	switch s {
	case "", "intensity":
		return Intensity, nil
	case "amplitude":
		return Amplitude, nil
	}
	return 0, engine.Fieldf("quantity", ": want intensity or amplitude, got %q", s)
}

// CheckBand refuses a band below 1 (the band read from each date's file).
func CheckBand(band int) error {
	if band < 1 {
		return engine.Fieldf("band", ": bands are numbered from 1, got %d", band)
	}
	return nil
}

// Check refuses a Config no grid can take, before a file is read: a
// filter's window (odd, at least 3; 5 for refined Lee) and looks, a
// window or looks without a filter (an *engine.OptionsError), a negative ddof.
// NewPlan checks the rest against the grid.
func (c Config) Check() error {
	f := c.Filter
	least := 3
	if f.Kind == RefinedLee {
		least = 5
	}
	switch {
	case f.Kind == NoFilter && (f.Size != 0 || f.ENL != 0):
		return engine.Optionsf("{filter_size} and {enl} go with {filter} (boxcar, lee or refined-lee)")
	case f.Kind == Boxcar && f.ENL != 0:
		return engine.Optionsf("{enl} goes with the Lee filters ({filter} lee or refined-lee)")
	case f.Kind != NoFilter && (f.Size < least || f.Size%2 == 0):
		return engine.Optionsf("{filter_size}: want an odd window of at least %d for {filter} %s, got %d", least, f.Kind, f.Size)
	case f.ENL < 0 || math.IsNaN(f.ENL) || math.IsInf(f.ENL, 0):
		return engine.Fieldf("enl", ": want a positive number of looks, got %g", f.ENL)
	}
	return engine.AtLeast("ddof", c.Ddof, 0)
}

// NewFilter is the speckle filter of kind with window size and, for Lee,
// enl looks: a size of 0 is DefaultFilterSize where there is a filter
// (none has no window), for every front end. Config.Check checks it.
func NewFilter(kind FilterKind, size int, enl float64) Filter {
	if kind != NoFilter && size == 0 {
		size = DefaultFilterSize
	}
	return Filter{Kind: kind, Size: size, ENL: enl}
}

// NewWindow is the window v gives: GDAL's -srcwin [xoff, yoff, xsize,
// ysize] in input pixels or, with crop, the earliest spelling, [first
// row, first column, rows, columns] of the image multilooked a×r (rows ×
// columns). Anything but four integers ≥ 0 is an *engine.FieldError
// naming window (or crop).
func NewWindow(v []int, crop bool, a, r int) (Window, error) {
	field, order := "window", "xoff, yoff, xsize, ysize in input pixels, as GDAL's -srcwin"
	if crop {
		field, order = "crop", "first row, first column, rows, columns of the multilooked image"
	}
	if len(v) != 4 || slices.Min(v) < 0 {
		return Window{}, engine.Fieldf(field, ": want four integers ≥ 0 (%s), got %v", order, v)
	}
	if crop {
		return Window{X: v[1] * r, Y: v[0] * a, W: v[3] * r, H: v[2] * a}, nil
	}
	return Window{X: v[0], Y: v[1], W: v[2], H: v[3]}, nil
}

// ParseWindow is the window text gives, NewWindow's v comma-separated:
// "X,Y,W,H" (or, with crop, "Y,X,H,W"); "" is the whole grid. Anything
// but integers is an *engine.FieldError naming window (or crop).
func ParseWindow(text string, crop bool, a, r int) (Window, error) {
	if strings.TrimSpace(text) == "" {
		return Window{}, nil
	}
	var v []int
	for _, x := range strings.Split(text, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(x))
		if err != nil {
			field := "window"
			if crop {
				field = "crop"
			}
			return Window{}, engine.Fieldf(field, " %q: want integers, comma-separated", text)
		}
		v = append(v, n)
	}
	return NewWindow(v, crop, a, r)
}
