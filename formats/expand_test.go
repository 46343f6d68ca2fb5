package formats

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// TestExpandDates: an @list's lines (comments and blanks skipped, relative
// paths joined to the list's folder), a glob in name order, a path as it
// is; a glob that matches nothing, a bad pattern and an empty list are
// errors.
func TestExpandDates(t *testing.T) {
	dir := t.TempDir()
	for _, n := range []string{"b.tif", "a.tif"} {
		os.WriteFile(filepath.Join(dir, n), nil, 0o644)
	}
	list := filepath.Join(dir, "dates.txt")
	os.WriteFile(list, []byte("# dates\nb.tif\n\n/abs/c.tif # third\n"), 0o644)
	got, err := ExpandDates([]string{"@" + list, filepath.Join(dir, "*.tif"), "x.tif"})
	want := []string{filepath.Join(dir, "b.tif"), "/abs/c.tif", filepath.Join(dir, "a.tif"), filepath.Join(dir, "b.tif"), "x.tif"}
	if err != nil || !slices.Equal(got, want) {
		t.Errorf("ExpandDates = %v, %v; want %v", got, err, want)
	}
	if _, err := ExpandDates([]string{filepath.Join(dir, "*.npy")}); err == nil {
		t.Error("a glob matching nothing was accepted")
	}
	if _, err := ExpandDates([]string{"[x"}); !errors.Is(err, filepath.ErrBadPattern) {
		t.Errorf("bad pattern: %v, want filepath.ErrBadPattern", err)
	}
	os.WriteFile(list, []byte("# none\n"), 0o644)
	if _, err := ExpandDates([]string{"@" + list}); err == nil {
		t.Error("a list naming no file was accepted")
	}
}
