package lintcheck

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"testing"
)

// maxFuncLines is the longest a function of the packages in shortFuncs
// may be, its declaration's first line to its closing brace.
const maxFuncLines = 150

// shortFuncs are the packages held to maxFuncLines, tests included: a
// function longer than that is several steps that want names (paco.Vulkan
// was one of 497 lines: planner, tables, kernels and submissions).
var shortFuncs = []string{"pipelines/paco"}

// TestFunctionsAreShort checks that no function of shortFuncs is longer
// than maxFuncLines.
func TestFunctionsAreShort(t *testing.T) {
	for _, pkg := range shortFuncs {
		names, err := filepath.Glob(filepath.Join(repoRoot(t), pkg, "*.go"))
		if err != nil {
			t.Fatal(err)
		}
		if len(names) < 10 {
			t.Fatalf("%s: %d Go files: the walk missed the package", pkg, len(names))
		}
		for _, name := range names {
			for fn, n := range longFuncs(t, name, maxFuncLines) {
				t.Errorf("%s/%s: %s is %d lines, more than %d: split it into steps with names", pkg, filepath.Base(name), fn, n, maxFuncLines)
			}
		}
	}
}

// longFuncs are the functions (methods as Type.Name) of file longer than
// limit lines, with their lengths.
func longFuncs(t *testing.T, file string, limit int) map[string]int {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, file, nil, parser.SkipObjectResolution)
	if err != nil {
		t.Fatal(err)
	}
	long := map[string]int{}
	for _, d := range f.Decls {
		fn, ok := d.(*ast.FuncDecl)
		if !ok {
			continue
		}
		name := fn.Name.Name
		if fn.Recv != nil && len(fn.Recv.List) == 1 {
			typ := fn.Recv.List[0].Type
			if s, ok := typ.(*ast.StarExpr); ok {
				typ = s.X
			}
			if id, ok := typ.(*ast.Ident); ok {
				name = id.Name + "." + name
			}
		}
		if n := fset.Position(fn.End()).Line - fset.Position(fn.Pos()).Line + 1; n > limit {
			long[name] = n
		}
	}
	return long
}

// TestLongFuncsSeesALongFunction: longFuncs finds a function of 151
// lines and passes one of 150.
func TestLongFuncsSeesALongFunction(t *testing.T) {
	dir := t.TempDir()
	src := func(lines int) string {
		s := "package x\n\nfunc f() {\n"
		for i := 0; i < lines-2; i++ {
			s += "\t_ = 0\n"
		}
		return s + "}\n"
	}
	for _, c := range []struct {
		lines int
		long  bool
	}{{150, false}, {151, true}} {
		file := filepath.Join(dir, "x.go")
		writeFile(t, file, src(c.lines))
		if n, ok := longFuncs(t, file, maxFuncLines)["f"]; ok != c.long || ok && n != c.lines {
			t.Errorf("a function of %d lines: longFuncs says %d, %v", c.lines, n, ok)
		}
	}
}
