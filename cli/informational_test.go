package cli

import (
	"context"
	"io"
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
