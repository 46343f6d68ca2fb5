package synth

import (
	"context"
	"encoding/binary"
	"errors"
	"math"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/vkstat/vkstat/engine"
	"github.com/vkstat/vkstat/formats"
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

// TestStackWrite: an ENVI intensity stack of 2 dates with a border: the
// maps, each date's raw little-endian float32 samples as Date draws them
// (0 in the border), its header marking 0 as nodata, and dates.txt.
func TestStackWrite(t *testing.T) {
	dir := t.TempDir()
	s := Stack{H: 8, W: 6, Dates: 2, Change: 1, Border: 1, Seed: 3}
	f, err := s.SetFormat("envi", "float32")
	if err != nil {
		t.Fatal(err)
	}
	outs := formats.Outputs{Ctx: context.Background()}
	defer outs.Abort()
	if err := s.Write(context.Background(), &outs, dir, f, nil); err != nil {
		t.Fatal(err)
	}
	if err := outs.Commit(); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"reflectivity.tif", "date_001.hdr", "date_002.hdr"} {
		if _, err := os.Stat(filepath.Join(dir, name)); err != nil {
			t.Error(err)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "reflectivity_changed.tif")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("reflectivity_changed.tif without a change: %v", err)
	}
	list, err := os.ReadFile(filepath.Join(dir, "dates.txt"))
	if want := "# vkstat synth stack: one date per line\ndate_001.bin\ndate_002.bin\n"; err != nil || string(list) != want {
		t.Errorf("dates.txt %q, %v", list, err)
	}
	sigma, changed := s.Maps()
	want := make([]float32, s.H*s.W)
	if err := s.Date(context.Background(), 1, sigma, changed, want); err != nil {
		t.Fatal(err)
	}
	raw, err := os.ReadFile(filepath.Join(dir, "date_002.bin"))
	if err != nil || len(raw) != 4*len(want) {
		t.Fatalf("date_002.bin: %d bytes, %v", len(raw), err)
	}
	got := make([]float32, len(want))
	for i := range got {
		got[i] = math.Float32frombits(binary.LittleEndian.Uint32(raw[4*i:]))
	}
	if !slices.Equal(got, want) || got[0] != 0 || got[len(got)-1] != 0 {
		t.Errorf("date_002.bin differs from Date's values (or its border is not 0): %v", got[:8])
	}
	r, err := formats.OpenENVI(filepath.Join(dir, "date_002.bin"))
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if v, ok := r.NoData(1); !ok || v != 0 {
		t.Errorf("date_002.hdr: nodata %v %v, want 0", v, ok)
	}
}
