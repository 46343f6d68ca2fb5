package cli

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestInformational: help, the version and completion skip the command's
// memory set-up; every run of work keeps it.
func TestInformational(t *testing.T) {
	for _, c := range []struct {
		args []string
		want bool
	}{
		{[]string{"vkstat"}, true},
		{[]string{"vkstat", "--version"}, true},
		{[]string{"vkstat", "-v"}, true},
		{[]string{"vkstat", "help", "paco"}, true},
		{[]string{"vkstat", "paco", "--help"}, true},
		{[]string{"vkstat", "reduce", "--o", "--generate-bash-completion"}, true},
		{[]string{"vkstat", "devices"}, false},
		{[]string{"vkstat", "--device", "cpu", "reduce", "--in", "x.npy", "--stat", "mean"}, false},
		{[]string{"vkstat", "--verbose", "paco", "--cube", "c.fits"}, false},
	} {
		if got := Informational(c.args); got != c.want {
			t.Errorf("Informational(%q) = %v, want %v", c.args, got, c.want)
		}
	}
}

// TestVersionWithoutTheApp: Main prints --version and -v without building
// the app, as the app itself prints them.
func TestVersionWithoutTheApp(t *testing.T) {
	var app strings.Builder
	if err := New(&app, io.Discard).Run([]string{"vkstat", "--version"}); err != nil {
		t.Fatal(err)
	}
	for _, flag := range []string{"--version", "-v"} {
		var out, errw strings.Builder
		if code := Main(context.Background(), []string{"vkstat", flag}, &out, &errw); code != ExitOK || errw.Len() > 0 {
			t.Fatalf("vkstat %s: exit %d, stderr %q", flag, code, errw.String())
		}
		if out.String() != app.String() || !strings.HasPrefix(out.String(), "vkstat version ") {
			t.Errorf("vkstat %s printed %q, the app %q", flag, out.String(), app.String())
		}
	}
	var errw strings.Builder
	if code := Main(context.Background(), []string{"vkstat", "--version"}, failWriter{}, &errw); code != ExitError ||
		!strings.Contains(errw.String(), "writing standard output") {
		t.Errorf("--version to a closed standard output: exit %d, stderr %q", code, errw.String())
	}
}

// TestSmallJob: map, reduce, quantile, cov and chol on input files of
// less than 1 MiB in all skip the heap set-up; larger inputs, compressed
// or missing ones, and every other command keep it.
func TestSmallJob(t *testing.T) {
	dir := t.TempDir()
	file := func(name string, size int) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, make([]byte, size), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	x, y, big, gz := file("x.npy", 8<<10), file("y.npy", 8<<10), file("big.npy", 1<<20), file("c.fits.gz", 1<<10)
	for _, c := range []struct {
		args []string
		want bool
	}{
		{[]string{"vkstat", "map", "--x", x, "--y", y, "--out", "z.npy"}, true},
		{[]string{"vkstat", "--device", "cpu", "--time", "map", "--x=" + x, "--y", y}, true},
		{[]string{"vkstat", "-d", "cpu", "reduce", "--in", x, "--axis", "-1", "--stat", "mean"}, true},
		{[]string{"vkstat", "--device-memory=1GiB", "chol", "--in", x, "--solve", y}, true},
		{[]string{"vkstat", "cov", "--in", x}, true},
		{[]string{"vkstat", "cov", "-i", x}, true},
		{[]string{"vkstat", "chol", "-i", big, "--solve", y}, false},
		{[]string{"vkstat", "reduce", "--in", big, "--stat", "mean"}, false},
		{[]string{"vkstat", "map", "--x", x, "--y", big}, false},
		{[]string{"vkstat", "reduce", "--in", gz}, false},
		{[]string{"vkstat", "reduce", "--in", filepath.Join(dir, "missing.npy")}, false},
		{[]string{"vkstat", "reduce", "--in"}, false},
		{[]string{"vkstat", "reduce", "--stat", "mean"}, false},
		{[]string{"vkstat", "paco", "--cube", x, "--angles", y, "--psf", y}, false},
		{[]string{"vkstat", "--device", "map", "paco", "--cube", x}, false}, // "map" as a global flag's value
		{[]string{"vkstat", "devices"}, false},
	} {
		if got := SmallJob(c.args); got != c.want {
			t.Errorf("SmallJob(%q) = %v, want %v", c.args, got, c.want)
		}
	}
}
