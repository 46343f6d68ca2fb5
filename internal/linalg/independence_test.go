package linalg

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestReferencesIndependent: the float64 references of the pipelines that
// use this package (their reference.go) must not reach it, directly or
// through the package's other functions, so that a bug here cannot hide
// from the tests that hold the fast paths against them. A function is
// tainted when it names this package (or internal/vec, whose Dot it uses)
// or calls a tainted function or method of its own package, by name.
func TestReferencesIndependent(t *testing.T) {
	for _, pkg := range []string{"cov", "chol", "paco"} {
		dir := filepath.Join("..", "..", "pipelines", pkg)
		ents, err := os.ReadDir(dir)
		if err != nil {
			t.Fatal(err)
		}
		fset := token.NewFileSet()
		calls := map[string]map[string]bool{} // function name → names it calls
		tainted := map[string]bool{}
		var refFuncs []string
		for _, e := range ents {
			name := e.Name()
			if !strings.HasSuffix(name, ".go") || strings.HasSuffix(name, "_test.go") {
				continue
			}
			f, err := parser.ParseFile(fset, filepath.Join(dir, name), nil, 0)
			if err != nil {
				t.Fatal(err)
			}
			isRef := name == "reference.go"
			shared := map[string]bool{} // local names of the shared packages
			for _, im := range f.Imports {
				path, _ := strconv.Unquote(im.Path.Value)
				if path != "github.com/vkstat/vkstat/internal/linalg" && path != "github.com/vkstat/vkstat/internal/vec" {
					continue
				}
				if isRef {
					t.Errorf("pipelines/%s/%s imports %s", pkg, name, path)
				}
				local := filepath.Base(path)
				if im.Name != nil {
					local = im.Name.Name
				}
				shared[local] = true
			}
			for _, d := range f.Decls {
				fd, ok := d.(*ast.FuncDecl)
				if !ok || fd.Body == nil {
					continue
				}
				fn := fd.Name.Name
				if fd.Recv != nil {
					fn = "." + fn // methods are called through selectors
				}
				if isRef {
					refFuncs = append(refFuncs, fn)
				}
				if calls[fn] == nil {
					calls[fn] = map[string]bool{}
				}
				ast.Inspect(fd.Body, func(n ast.Node) bool {
					switch n := n.(type) {
					case *ast.SelectorExpr:
						if id, ok := n.X.(*ast.Ident); ok && shared[id.Name] {
							tainted[fn] = true
						}
					case *ast.CallExpr:
						switch f := n.Fun.(type) {
						case *ast.Ident:
							calls[fn][f.Name] = true
						case *ast.SelectorExpr:
							calls[fn]["."+f.Sel.Name] = true
						}
					}
					return true
				})
			}
		}
		for changed := true; changed; {
			changed = false
			for fn, cs := range calls {
				if tainted[fn] {
					continue
				}
				for c := range cs {
					if tainted[c] {
						tainted[fn], changed = true, true
						break
					}
				}
			}
		}
		if len(refFuncs) == 0 {
			t.Errorf("pipelines/%s: no reference.go functions found", pkg)
		}
		for _, fn := range refFuncs {
			if tainted[fn] {
				t.Errorf("pipelines/%s: reference function %s reaches internal/linalg (or internal/vec)", pkg, fn)
			}
		}
	}
}
