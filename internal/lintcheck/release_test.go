package lintcheck

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// readRepoFile is the text of the repository's file name.
func readRepoFile(t *testing.T, root, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(root, name))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestReleaseFiles: the files that let others use and cite vkstat agree
// with each other: VERSION is a release number (MAJOR.MINOR.PATCH), which
// CITATION.cff cites and scripts/version.sh (what `vkstat --version` and the
// wheel say) starts with; LICENSE is the BSD 3-clause licence CITATION.cff
// names; CHANGELOG.md has a section for the release or the unreleased work.
func TestReleaseFiles(t *testing.T) {
	root := repoRoot(t)
	read := func(name string) string { return readRepoFile(t, root, name) }
	version := strings.TrimSpace(read("VERSION"))
	if !regexp.MustCompile(`^\d+\.\d+\.\d+$`).MatchString(version) {
		t.Fatalf("VERSION %q is not MAJOR.MINOR.PATCH", version)
	}
	cff := read("CITATION.cff")
	for _, want := range []string{"cff-version: 1.2.0\n", "\nversion: " + version + "\n", "\nlicense: BSD-3-Clause\n", "\ntitle: "} {
		if !strings.Contains(cff, want) {
			t.Errorf("CITATION.cff lacks %q", strings.TrimSpace(want))
		}
	}
	if l := read("LICENSE"); !strings.HasPrefix(l, "BSD 3-Clause License\n") || !strings.Contains(l, "Neither the name of the copyright holder") {
		t.Error("LICENSE is not the BSD 3-clause licence that CITATION.cff names")
	}
	cl := read("CHANGELOG.md")
	if !strings.HasPrefix(cl, "# Changelog\n") || !regexp.MustCompile(`(?m)^## (Unreleased|`+regexp.QuoteMeta(version)+`)\b`).MatchString(cl) {
		t.Errorf("CHANGELOG.md has no section for %s or Unreleased", version)
	}
	out, err := exec.Command("sh", filepath.Join(root, "scripts", "version.sh")).Output()
	got := strings.TrimSpace(string(out))
	if err != nil || !regexp.MustCompile(`^`+regexp.QuoteMeta(version)+`(\+g[0-9a-f]{7,}(\.dirty)?)?$`).MatchString(got) {
		t.Errorf("scripts/version.sh says %q (%v), want %s, or %s+gHASH[.dirty]", got, err, version, version)
	}
}
