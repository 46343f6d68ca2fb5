package synth

import (
	"testing"

	"github.com/vkstat/vkstat/engine"
)

// TestStackSetFormat: the names vkstat synth stack takes, and the
// refusals, each naming its option.
func TestStackSetFormat(t *testing.T) {
	for _, tc := range []struct {
		format, typ string
		want        StackFormat
		complex     bool
		int16       bool
	}{
		{"tif", "cint16", StackFormat{"GTiff", ".tif", "CInt16"}, true, true},
		{"GeoTIFF", "CFloat32", StackFormat{"GTiff", ".tif", "CFloat32"}, true, false},
		{"envi", "float32", StackFormat{"ENVI", ".bin", "Float32"}, false, false},
	} {
		var s Stack
		f, err := s.SetFormat(tc.format, tc.typ)
		if floats := map[bool]int{true: 2, false: 1}[tc.complex]; s.Floats() != floats {
			t.Errorf("%s %s: %d floats a sample, want %d", tc.format, tc.typ, s.Floats(), floats)
		}
		if err != nil || f != tc.want || s.Complex != tc.complex || s.Int16 != tc.int16 {
			t.Errorf("%s %s: %+v complex %v int16 %v, %v", tc.format, tc.typ, f, s.Complex, s.Int16, err)
		}
	}
	for _, tc := range []struct{ format, typ, want string }{
		{"tif", "cint8", `--type: want cint16, cfloat32 or float32, got "cint8"`},
		{"PNG", "float32", `--format: want tif or envi, got "png"`},
		{"envi", "cint16", "--type cint16 --format envi: ENVI has no complex int16 type; use --type cfloat32 for ENVI, or --format tif"},
	} {
		var s Stack
		_, err := s.SetFormat(tc.format, tc.typ)
		flag := func(field, value string) string {
			if value == "" {
				return "--" + field
			}
			return "--" + field + " " + value
		}
		if w, named := engine.InWords(err, flag); !named || w.Error() != tc.want {
			t.Errorf("%s %s: %v, want %s", tc.format, tc.typ, w, tc.want)
		}
	}
}
