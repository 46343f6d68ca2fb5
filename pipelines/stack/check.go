package stack

// The options' checks, once for every front end: their errors name the
// parameters (`vkstat stack`'s flags and Python's keywords are named
// after them), which each front end words in its own terms.

import (
	"math"

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
