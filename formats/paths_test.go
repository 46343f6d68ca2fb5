package formats

import (
	"os"
	"path/filepath"
	"testing"
)

func TestSameFile(t *testing.T) {
	dir := t.TempDir()
	a := filepath.Join(dir, "a.npy")
	if err := os.WriteFile(a, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "link.npy")
	if err := os.Symlink(a, link); err != nil {
		t.Fatal(err)
	}
	sub := filepath.Join(dir, "sub")
	if err := os.Mkdir(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		a, b string
		want bool
	}{
		{a, a, true},
		{a, filepath.Join(sub, "..", "a.npy"), true}, // the same path, spelt otherwise
		{a, link, true}, // a link to it
		{filepath.Join(dir, "new.npy"), filepath.Join(sub, "..", "new.npy"), true}, // not written yet, one folder
		{filepath.Join(dir, "new.npy"), filepath.Join(sub, "new.npy"), false},
		{a, filepath.Join(dir, "b.npy"), false},
		{a, "", false},
	} {
		if got := SameFile(c.a, c.b); got != c.want {
			t.Errorf("SameFile(%s, %s) = %v, want %v", c.a, c.b, got, c.want)
		}
	}
}

func TestInDirAndMissingTop(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct {
		dir, path string
		want      bool
	}{
		{dir, filepath.Join(dir, "a.npy"), true},
		{dir, filepath.Join(dir, "x", "y", "a.npy"), true},
		{filepath.Join(dir, "x"), filepath.Join(dir, "a.npy"), false},
		{filepath.Join(dir, "x"), filepath.Join(dir, "xy", "a.npy"), false},
	} {
		if got := InDir(c.dir, c.path); got != c.want {
			t.Errorf("InDir(%s, %s) = %v, want %v", c.dir, c.path, got, c.want)
		}
	}
	if got, want := MissingTop(filepath.Join(dir, "x", "y", "z")), filepath.Join(dir, "x"); got != want {
		t.Errorf("MissingTop = %s, want %s", got, want)
	}
	if got, want := MissingTop(filepath.Join(dir, "x")), filepath.Join(dir, "x"); got != want {
		t.Errorf("MissingTop = %s, want %s", got, want)
	}
	if !IsCharDevice(os.DevNull) || IsCharDevice(dir) || IsCharDevice(filepath.Join(dir, "none")) {
		t.Errorf("IsCharDevice: %s is one, a folder and a missing file are not", os.DevNull)
	}
}
