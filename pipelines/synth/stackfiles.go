package synth

import (
	"context"
	"fmt"
	"strings"

	"github.com/vkstat/vkstat/engine"
)

// Files draws s's files in turn and gives each to add, by name: the
// reflectivity map (reflectivity.tif) and, when s.Change is not 1, the
// changed map (reflectivity_changed.tif), then the dates (date true):
// date_001<ext>, ... It returns dates.txt, the list of the dates for
// vkstat stack @dates.txt. progress, when set, hears of each date before
// it is drawn (t of Dates, 0-based) and of the last one done.
func (s Stack) Files(ctx context.Context, ext string, add func(name string, date bool, data []float32) error, progress func(t, dates int)) (string, error) {
	sigma, changed := s.Maps()
	if err := add("reflectivity.tif", false, sigma); err != nil {
		return "", err
	}
	if s.Change != 1 {
		if err := add("reflectivity_changed.tif", false, changed); err != nil {
			return "", err
		}
	}
	data := make([]float32, s.Floats()*s.H*s.W)
	var list strings.Builder
	list.WriteString("# vkstat synth stack: one date per line\n")
	for t := 0; t < s.Dates; t++ {
		if err := ctx.Err(); err != nil {
			return "", err
		}
		if progress != nil {
			progress(t, s.Dates)
		}
		if err := s.Date(ctx, t, sigma, changed, data); err != nil {
			return "", err
		}
		name := fmt.Sprintf("date_%03d%s", t+1, ext)
		if err := add(name, true, data); err != nil {
			return "", err
		}
		list.WriteString(name + "\n")
	}
	if progress != nil {
		progress(s.Dates, s.Dates)
	}
	return list.String(), nil
}

// Floats is the float32s of one of s's samples: 2 complex, 1 intensity.
func (s Stack) Floats() int {
	if s.Complex {
		return 2
	}
	return 1
}

// StackFormat is how a stack's dates are written: GDAL's driver (GTiff or
// ENVI), the dates' extension and their sample type (GDAL's CInt16,
// CFloat32 or Float32).
type StackFormat struct{ Driver, Ext, Type string }

// SetFormat reads the format (tif, tiff, gtiff, geotiff or envi) and the
// sample type (cint16, cfloat32 or float32) of s's dates, as vkstat synth
// stack takes them, and sets s.Complex and s.Int16 for the type. An error
// names its options (*engine.FieldError, *engine.OptionsError).
func (s *Stack) SetFormat(format, typ string) (StackFormat, error) {
	t := map[string]string{"cint16": "CInt16", "cfloat32": "CFloat32", "float32": "Float32"}[strings.ToLower(typ)]
	if t == "" {
		return StackFormat{}, engine.Fieldf("type", ": want cint16, cfloat32 or float32, got %q", typ)
	}
	f := StackFormat{Driver: "GTiff", Ext: ".tif", Type: t}
	switch format = strings.ToLower(format); format {
	case "tif", "tiff", "gtiff", "geotiff":
	case "envi":
		f.Driver, f.Ext = "ENVI", ".bin"
	default:
		return StackFormat{}, engine.Fieldf("format", ": want tif or envi, got %q", format)
	}
	if f.Driver == "ENVI" && t == "CInt16" {
		return StackFormat{}, engine.Optionsf("{type=cint16} {format=envi}: ENVI has no complex int16 type; use {type=cfloat32} for ENVI, or {format=tif}")
	}
	s.Complex, s.Int16 = t != "Float32", t == "CInt16"
	return f, nil
}
