package lintcheck

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// repoRoot is the repository's root, two levels above this package.
func repoRoot(t *testing.T) string {
	t.Helper()
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	return root
}

// plant makes a module in a temporary directory holding main.go with the
// given source, and copies the repository's Makefile and gofmt-check.sh
// into it.
func plant(t *testing.T, src string) string {
	t.Helper()
	if _, err := exec.LookPath("gofmt"); err != nil {
		t.Skip("gofmt is not on PATH")
	}
	dir := t.TempDir()
	root := repoRoot(t)
	files := map[string]string{
		"go.mod":  "module planted\n\ngo 1.24\n",
		"main.go": src,
	}
	for _, name := range []string{"Makefile", "scripts/gofmt-check.sh"} {
		b, err := os.ReadFile(filepath.Join(root, name))
		if err != nil {
			t.Fatal(err)
		}
		files[name] = string(b)
	}
	for name, content := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

const (
	formatted   = "package main\n\nfunc main() {}\n"
	unformatted = "package main\nfunc main(){ x:=1;_=x }\n"
)

// runIn runs a command in dir and returns its exit code and output.
func runIn(t *testing.T, dir string, name string, args ...string) (int, string) {
	t.Helper()
	cmd := exec.Command(name, args...)
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	if err == nil {
		return 0, string(out)
	}
	if ee, ok := err.(*exec.ExitError); ok {
		return ee.ExitCode(), string(out)
	}
	t.Fatalf("%s %v: %v", name, args, err)
	return 0, ""
}

// TestGofmtCheck: the script fails on an unformatted file, naming it, and
// passes formatted code.
func TestGofmtCheck(t *testing.T) {
	dir := plant(t, unformatted)
	code, out := runIn(t, dir, "sh", "scripts/gofmt-check.sh", ".")
	if code != 1 || !strings.Contains(out, "main.go") {
		t.Errorf("unformatted main.go: exit %d, output %q; want 1, naming main.go", code, out)
	}
	dir = plant(t, formatted)
	if code, out := runIn(t, dir, "sh", "scripts/gofmt-check.sh", "."); code != 0 {
		t.Errorf("formatted code: exit %d, output %q; want 0", code, out)
	}
	dir = plant(t, "package main\nfunc {\n")
	if code, out := runIn(t, dir, "sh", "scripts/gofmt-check.sh", "."); code != 2 {
		t.Errorf("a syntax error: exit %d, output %q; want 2", code, out)
	}
}

// TestMakeLintFailsOnUnformattedCode: make lint's gofmt step (lint-gofmt,
// which lint depends on) fails on unformatted code under the shell make
// uses (/bin/sh, dash on Debian), and passes formatted code. Before, a
// `gofmt -l | (! read)` pipeline let everything through under dash.
func TestMakeLintFailsOnUnformattedCode(t *testing.T) {
	if _, err := exec.LookPath("make"); err != nil {
		t.Skip("make is not installed")
	}
	dir := plant(t, unformatted)
	code, out := runIn(t, dir, "make", "-s", "lint-gofmt")
	if code == 0 || !strings.Contains(out, "main.go") {
		t.Errorf("make lint-gofmt on unformatted code: exit %d, output %q; want a failure naming main.go", code, out)
	}
	// lint runs the same step first: with a GO that fails, only a passing
	// gofmt step can get as far as calling it.
	code, out = runIn(t, dir, "make", "-s", "lint", "GO=false")
	if code == 0 || !strings.Contains(out, "gofmt needed") {
		t.Errorf("make lint on unformatted code: exit %d, output %q; want the gofmt step to fail", code, out)
	}
	dir = plant(t, formatted)
	if code, out := runIn(t, dir, "make", "-s", "lint-gofmt"); code != 0 {
		t.Errorf("make lint-gofmt on formatted code: exit %d, output %q; want 0", code, out)
	}
	mk, err := os.ReadFile(filepath.Join(repoRoot(t), "Makefile"))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(mk), "tee /dev/stderr") {
		t.Error("the Makefile writes to /dev/stderr, which truncates CI logs written to a file")
	}
}
