package lintcheck

import (
	"go/ast"
	"go/parser"
	"os"
	"path"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"
)

// leaf reports whether package q is a leaf helper: under internal/ (the
// modules built on engine are device/'s, a part of their own), shaders,
// or tensor (arrays and their element types, on internal/par only: the
// engine names the shader variant of a type, engine.Variant).
func leaf(q string) bool {
	return under(q, "internal") || q == "shaders" || q == "tensor"
}

// under reports whether package p is prefix or below it.
func under(p, prefix string) bool {
	return p == prefix || strings.HasPrefix(p, prefix+"/")
}

// importRules are DESIGN.md's arrows, which run down only: a package for
// which from holds may reach (import, directly or through others) only
// the packages for which may holds.
var importRules = []struct {
	why  string
	from func(p string) bool
	may  func(q string) bool
}{
	{"engine imports nothing of vkstat's but leaf packages (so never pipelines or cli)",
		func(p string) bool { return under(p, "engine") }, leaf},
	{"the leaf helpers in internal/ import only leaves",
		leaf, leaf},
	{"pipelines never import cli or formats",
		func(p string) bool { return under(p, "pipelines") },
		func(q string) bool { return !under(q, "cli") && !under(q, "formats") }},
	{"device/ (built on engine) never imports what is built on it",
		func(p string) bool { return under(p, "device") },
		func(q string) bool {
			return !under(q, "pipelines") && !under(q, "cli") && !under(q, "formats") && !under(q, "suite") && !under(q, "capi")
		}},
	{"only cmd/vkstat imports cli",
		func(p string) bool { return !under(p, "cli") && p != "cmd/vkstat" },
		func(q string) bool { return !under(q, "cli") }},
	{"the Python library draws nothing: gonum/plot's start-up (its fonts) would be 3 ms of every first call",
		func(p string) bool { return under(p, "capi") || p == "cmd/libvkstat" },
		func(q string) bool { return !under(q, "formats/figure") }},
}

// TestImportsRunDown checks importRules on the import graph of every
// package's non-test Go files (tests may import what they need: engine's
// tests open devices with device/testdev).
func TestImportsRunDown(t *testing.T) {
	g := importGraph(t, repoRoot(t))
	if len(g) < 20 || len(g["engine"]) == 0 {
		t.Fatalf("read %d packages (engine imports %v): the walk missed the tree", len(g), g["engine"])
	}
	for _, v := range importViolations(g) {
		t.Error(v)
	}
}

// The rules find what they are for, in a planted graph: engine reaching a
// pipeline through a leaf, a pipeline importing formats, device
// used by a leaf, and a clean graph passing.
func TestImportRulesFind(t *testing.T) {
	bad := map[string][]string{
		"engine":         {"internal/par"},
		"internal/par":   {"pipelines/cov"},
		"pipelines/cov":  {"engine", "formats"},
		"formats":        nil,
		"internal/spirv": {"device/tune"},
		"device/tune":    {"engine"},
		"capi":           {"suite"},
		"suite":          {"formats/figure"},
	}
	got := strings.Join(importViolations(bad), "\n")
	for _, want := range []string{
		"engine reaches pipelines/cov",
		"internal/par reaches pipelines/cov",
		"pipelines/cov reaches formats",
		"internal/spirv reaches device/tune",
		"capi reaches formats/figure",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("violations:\n%s\nwant one saying %q", got, want)
		}
	}
	good := map[string][]string{
		"engine":        {"internal/par", "internal/spirv"},
		"device/tune":   {"engine"},
		"pipelines/cov": {"engine", "device/tune", "shaders"},
		"cli":           {"pipelines/cov", "formats"},
		"cmd/vkstat":    {"cli"},
	}
	if v := importViolations(good); len(v) > 0 {
		t.Errorf("a clean graph: %v", v)
	}
}

// importViolations checks importRules on g (package → the vkstat packages
// it imports, paths relative to the module).
func importViolations(g map[string][]string) []string {
	var out []string
	pkgs := make([]string, 0, len(g))
	for p := range g {
		pkgs = append(pkgs, p)
	}
	sort.Strings(pkgs)
	for _, p := range pkgs {
		for _, r := range importRules {
			if !r.from(p) {
				continue
			}
			for _, q := range reachable(g, p) {
				if !r.may(q) {
					out = append(out, p+" reaches "+q+": "+r.why)
				}
			}
		}
	}
	return out
}

// reachable lists the packages p imports, directly or through others.
func reachable(g map[string][]string, p string) []string {
	seen := map[string]bool{}
	var walk func(string)
	walk = func(q string) {
		for _, r := range g[q] {
			if !seen[r] {
				seen[r] = true
				walk(r)
			}
		}
	}
	walk(p)
	out := make([]string, 0, len(seen))
	for q := range seen {
		out = append(out, q)
	}
	sort.Strings(out)
	return out
}

// importGraph reads the imports of every package's non-test Go files
// under root, keeping the module's own packages.
func importGraph(t *testing.T, root string) map[string][]string {
	t.Helper()
	mod, err := os.ReadFile(filepath.Join(root, "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	var module string
	for _, line := range strings.Split(string(mod), "\n") {
		if f := strings.Fields(line); len(f) == 2 && f[0] == "module" {
			module = f[1]
		}
	}
	if module == "" {
		t.Fatal("go.mod names no module")
	}
	g := map[string][]string{}
	walkGo(t, root, nil, parser.ImportsOnly, func(rel string, f *ast.File) {
		pkg := path.Dir(rel)
		if _, ok := g[pkg]; !ok {
			g[pkg] = nil
		}
		for _, im := range f.Imports {
			p, _ := strconv.Unquote(im.Path.Value)
			if q, ok := strings.CutPrefix(p, module+"/"); ok && !slices.Contains(g[pkg], q) {
				g[pkg] = append(g[pkg], q)
			}
		}
	})
	return g
}
