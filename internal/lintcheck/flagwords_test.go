package lintcheck

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// flagWord is a command-line flag as errors would name it: "--device".
var flagWord = regexp.MustCompile(`--[A-Za-z]`)

// flagWordsAllowed lists the error strings below cli/ that may name a
// flag, as "path: text"; each entry says why.
var flagWordsAllowed = map[string]bool{}

// TestNoFlagWordsBelowCLI walks every package outside cli/ and cmd/ and
// fails on an error message (a string literal given to fmt.Errorf or
// errors.New) that names a command-line flag: the library is called from
// Go and Python too, where there are no flags; cli/ words its advice with
// the flag that fed the option (DESIGN.md, "engine and pipelines return
// typed errors and never name command-line flags").
func TestNoFlagWordsBelowCLI(t *testing.T) {
	root := repoRoot(t)
	hits := flagWordsIn(t, root)
	for _, h := range hits {
		if !flagWordsAllowed[h] {
			t.Errorf("an error below cli/ names a flag: %s", h)
		}
	}
}

// flagWordsIn returns "path: text" for every error string literal with a
// flag word in the module under root, outside cli/ and cmd/.
func flagWordsIn(t *testing.T, root string) []string {
	t.Helper()
	var hits []string
	walkGo(t, root, []string{"cli", "cmd"}, parser.SkipObjectResolution, func(rel string, f *ast.File) {
		ast.Inspect(f, func(n ast.Node) bool {
			call, ok := n.(*ast.CallExpr)
			if !ok || !isErrorConstructor(call.Fun) {
				return true
			}
			for _, a := range call.Args {
				ast.Inspect(a, func(n ast.Node) bool {
					if lit, ok := n.(*ast.BasicLit); ok && lit.Kind == token.STRING {
						if s, err := strconv.Unquote(lit.Value); err == nil && flagWord.MatchString(s) {
							hits = append(hits, rel+": "+s)
						}
					}
					return true
				})
			}
			return true
		})
	})
	return hits
}

// walkGo parses every non-test Go file under root with mode, outside the
// folders skip (paths relative to root), testdata, python and hidden ones,
// and calls fn with its path relative to root.
func walkGo(t *testing.T, root string, skip []string, mode parser.Mode, fn func(rel string, f *ast.File)) {
	t.Helper()
	fset := token.NewFileSet()
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		rel = filepath.ToSlash(rel)
		if d.IsDir() {
			if n := d.Name(); rel != "." && (slices.Contains(skip, rel) || n == "testdata" || n == "python" || strings.HasPrefix(n, ".")) {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(p, ".go") || strings.HasSuffix(p, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, p, nil, mode)
		if err != nil {
			return err
		}
		fn(rel, f)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// isErrorConstructor reports whether fun is fmt.Errorf or errors.New.
func isErrorConstructor(fun ast.Expr) bool {
	sel, ok := fun.(*ast.SelectorExpr)
	if !ok {
		return false
	}
	pkg, ok := sel.X.(*ast.Ident)
	return ok && (pkg.Name == "fmt" && sel.Sel.Name == "Errorf" || pkg.Name == "errors" && sel.Sel.Name == "New")
}

// The walker finds what it is for: a planted error naming a flag, in a
// string concatenation, and not a flag-like string outside an error.
func TestFlagWordsFinds(t *testing.T) {
	dir := t.TempDir()
	src := `package p

import (
	"errors"
	"fmt"
)

var args = []string{"--n", "3"} // not an error

func f(x int) error {
	if x > 0 {
		return fmt.Errorf("radius %d: too large (" + "use --radius 2)", x)
	}
	return errors.New("x")
}
`
	for _, p := range []string{"pkg/p.go", "cli/c.go"} {
		writeFile(t, filepath.Join(dir, p), strings.ReplaceAll(src, "package p", "package "+filepath.Base(filepath.Dir(p))))
	}
	hits := flagWordsIn(t, dir)
	if len(hits) != 1 || hits[0] != "pkg/p.go: use --radius 2)" {
		t.Errorf("hits %q; want the one in pkg/p.go", hits)
	}
}

func writeFile(t *testing.T, p, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}
