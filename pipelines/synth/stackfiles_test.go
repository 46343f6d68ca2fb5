package synth

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/vkstat/vkstat/formats"
)

// TestStackFiles: an intensity stack of 3 dates with a change, as ENVI,
// stages the two maps, the dates as Date draws them and dates.txt naming
// them, telling progress of dates 0, 1, 2 and then 3 of 3; Spec gives the
// types and, with a border, 0 as nodata.
func TestStackFiles(t *testing.T) {
	s := Stack{H: 8, W: 6, Dates: 3, Change: 2, Seed: 1}
	spec, err := s.Spec("ENVI")
	if err != nil {
		t.Fatal(err)
	}
	if spec.Type != "Float32" || spec.NoData != nil || spec.Width != 6 || spec.Height != 8 {
		t.Errorf("spec %+v: want Float32 6×8 without nodata", spec)
	}
	if b, _ := (Stack{H: 8, W: 6, Complex: true, Int16: true, Border: 1}).Spec("GTiff"); b.Type != "CInt16" || b.NoData == nil || *b.NoData != 0 {
		t.Errorf("CInt16 with a border: %+v", b)
	}
	dir := t.TempDir()
	out := formats.Outputs{Ctx: context.Background()}
	var told []int
	if err := s.AddFiles(context.Background(), &out, dir, ".bin", spec, func(d, n int) { told = append(told, d, n) }); err != nil {
		t.Fatal(err)
	}
	if err := out.Commit(); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(told, []int{0, 3, 1, 3, 2, 3, 3, 3}) {
		t.Errorf("progress %v", told)
	}
	list, err := os.ReadFile(filepath.Join(dir, "dates.txt"))
	if err != nil {
		t.Fatal(err)
	}
	if want := "# vkstat synth stack: one date per line\ndate_001.bin\ndate_002.bin\ndate_003.bin\n"; string(list) != want {
		t.Errorf("dates.txt %q", list)
	}
	sigma, changed := s.Maps()
	want := make([]float32, s.H*s.W)
	if err := s.Date(context.Background(), 2, sigma, changed, want); err != nil {
		t.Fatal(err)
	}
	got, err := formats.ReadRaster(filepath.Join(dir, "date_003.bin"))
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(got.F32, want) {
		t.Errorf("date_003.bin differs from Date's draw")
	}
	for _, name := range []string{"reflectivity.tif", "reflectivity_changed.tif"} {
		m, err := formats.ReadRaster(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		if name == "reflectivity.tif" && !slices.Equal(m.F32, sigma) || name != "reflectivity.tif" && !slices.Equal(m.F32, changed) {
			t.Errorf("%s differs from Maps'", name)
		}
	}
}
