package synth

import (
	"context"
	"slices"
	"testing"
)

// TestStackFiles: an intensity stack of 3 dates with a change gives the
// two maps, then the dates as Date draws them, by name, and dates.txt
// naming them, telling progress of dates 0, 1, 2 and then 3 of 3.
func TestStackFiles(t *testing.T) {
	s := Stack{H: 8, W: 6, Dates: 3, Change: 2, Seed: 1}
	var names []string
	got := map[string][]float32{}
	var told []int
	list, err := s.Files(context.Background(), ".bin", func(name string, date bool, data []float32) error {
		names = append(names, name)
		if date != (name[:4] == "date") {
			t.Errorf("%s: date %v", name, date)
		}
		got[name] = slices.Clone(data)
		return nil
	}, func(d, n int) { told = append(told, d, n) })
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"reflectivity.tif", "reflectivity_changed.tif", "date_001.bin", "date_002.bin", "date_003.bin"}; !slices.Equal(names, want) {
		t.Errorf("files %v, want %v", names, want)
	}
	if !slices.Equal(told, []int{0, 3, 1, 3, 2, 3, 3, 3}) {
		t.Errorf("progress %v", told)
	}
	if want := "# vkstat synth stack: one date per line\ndate_001.bin\ndate_002.bin\ndate_003.bin\n"; list != want {
		t.Errorf("dates.txt %q", list)
	}
	sigma, changed := s.Maps()
	want := make([]float32, s.H*s.W)
	if err := s.Date(context.Background(), 2, sigma, changed, want); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(got["date_003.bin"], want) || !slices.Equal(got["reflectivity.tif"], sigma) || !slices.Equal(got["reflectivity_changed.tif"], changed) {
		t.Errorf("a file differs from Date's or Maps' values")
	}
}
