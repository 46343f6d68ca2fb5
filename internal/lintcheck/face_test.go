package lintcheck

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// notPipelines are the packages under pipelines/ that are not workloads
// run on a device: synth makes test data.
var notPipelines = map[string]bool{"synth": true}

// TestPipelinesShareOneFace checks that every pipeline package declares, in
// pipelines/<name>/<name>.go,
//
//	func Run(ctx context.Context, dev *engine.Device, in <Input>, opt Options) (*Result, error)
//
// so that a caller (cli, capi, suite, survey) meets every workload through
// the same door: dev nil for the CPU path, the Timing on the Result, the
// progress in ctx (engine.WithProgress).
func TestPipelinesShareOneFace(t *testing.T) {
	dir := filepath.Join(repoRoot(t), "pipelines")
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, e := range ents {
		if !e.IsDir() || notPipelines[e.Name()] {
			continue
		}
		n++
		name := e.Name()
		file := filepath.Join(dir, name, name+".go")
		if err := faceOf(file); err != nil {
			t.Errorf("pipelines/%s: %v", name, err)
		}
	}
	if n < 9 {
		t.Fatalf("found %d pipeline packages under %s: the walk missed the tree", n, dir)
	}
}

// faceOf says what keeps file from declaring Run with the one signature.
func faceOf(file string) error {
	f, err := parser.ParseFile(token.NewFileSet(), file, nil, parser.SkipObjectResolution)
	if err != nil {
		return err
	}
	for _, d := range f.Decls {
		fn, ok := d.(*ast.FuncDecl)
		if !ok || fn.Recv != nil || fn.Name.Name != "Run" {
			continue
		}
		params, results := fields(fn.Type.Params), fields(fn.Type.Results)
		if len(params) != 4 || !isSel(params[0], "context", "Context") || !isStar(params[1], func(x ast.Expr) bool { return isSel(x, "engine", "Device") }) ||
			!isIdent(params[3], "Options") || len(results) != 2 || !isStar(results[0], func(x ast.Expr) bool { return isIdent(x, "Result") }) || !isIdent(results[1], "error") {
			return fmt.Errorf("%s: Run is not func Run(ctx context.Context, dev *engine.Device, in <Input>, opt Options) (*Result, error)", filepath.Base(file))
		}
		return nil
	}
	return fmt.Errorf("%s declares no func Run(ctx context.Context, dev *engine.Device, in <Input>, opt Options) (*Result, error)", filepath.Base(file))
}

// offFace are the exported Run* functions of pipelines still outside the
// face, each with why.
var offFace = map[string]string{}

// TestRunEntryPointsShareTheFace checks that every exported function of a
// pipeline package whose name starts with Run (a second entry point:
// RunSource, say) takes the face's arguments, (ctx context.Context, dev
// *engine.Device, in <Input>, opt Options), and returns (*T, error) for a
// struct T of the package that carries a Timing field; a variant that
// only its own package needs is unexported, or folded into Run as an
// input or an option (reduce's Options.Central, cov's Options.Gather).
func TestRunEntryPointsShareTheFace(t *testing.T) {
	dir := filepath.Join(repoRoot(t), "pipelines")
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	seen, off := 0, map[string]bool{}
	for _, e := range ents {
		if !e.IsDir() || notPipelines[e.Name()] {
			continue
		}
		bad, n, err := offFaceIn(filepath.Join(dir, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		seen += n
		for _, b := range bad {
			off[e.Name()+"."+b] = true
			if _, ok := offFace[e.Name()+"."+b]; !ok {
				t.Errorf("pipelines/%s: %s is not func %s(ctx context.Context, dev *engine.Device, in <Input>, opt Options) (*<Result with a Timing>, error)", e.Name(), b, b)
			}
		}
	}
	if seen < 9 {
		t.Fatalf("found %d exported Run* functions under %s: the walk missed the tree", seen, dir)
	}
	for name := range offFace {
		if !off[name] {
			t.Errorf("%s is listed in offFace but is not an exported Run* function off the face: take it off the list", name)
		}
	}
}

// offFaceIn lists the exported Run* functions of the package in dir that
// do not have the face, and how many Run* functions it read.
func offFaceIn(dir string) (bad []string, n int, err error) {
	fset := token.NewFileSet()
	var files []*ast.File
	names, err := filepath.Glob(filepath.Join(dir, "*.go"))
	if err != nil {
		return nil, 0, err
	}
	for _, name := range names {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, parser.SkipObjectResolution)
		if err != nil {
			return nil, 0, err
		}
		files = append(files, f)
	}
	timed := map[string]bool{} // struct types with a Timing field
	for _, f := range files {
		ast.Inspect(f, func(x ast.Node) bool {
			ts, ok := x.(*ast.TypeSpec)
			if !ok {
				return true
			}
			if st, ok := ts.Type.(*ast.StructType); ok {
				for _, fl := range st.Fields.List {
					for _, id := range fl.Names {
						if id.Name == "Timing" && isSel(fl.Type, "engine", "Timing") {
							timed[ts.Name.Name] = true
						}
					}
				}
			}
			return false
		})
	}
	for _, f := range files {
		for _, d := range f.Decls {
			fn, ok := d.(*ast.FuncDecl)
			if !ok || fn.Recv != nil || !strings.HasPrefix(fn.Name.Name, "Run") || !fn.Name.IsExported() {
				continue
			}
			n++
			params, results := fields(fn.Type.Params), fields(fn.Type.Results)
			if len(params) != 4 || !isSel(params[0], "context", "Context") || !isStar(params[1], func(x ast.Expr) bool { return isSel(x, "engine", "Device") }) ||
				!isIdent(params[3], "Options") || len(results) != 2 || !isStar(results[0], func(x ast.Expr) bool { id, ok := x.(*ast.Ident); return ok && timed[id.Name] }) ||
				!isIdent(results[1], "error") {
				bad = append(bad, fn.Name.Name)
			}
		}
	}
	sort.Strings(bad)
	return bad, n, nil
}

// fields lists a parameter or result list's types, one per name.
func fields(l *ast.FieldList) []ast.Expr {
	var out []ast.Expr
	if l == nil {
		return nil
	}
	for _, p := range l.List {
		for range max(1, len(p.Names)) {
			out = append(out, p.Type)
		}
	}
	return out
}

func isIdent(x ast.Expr, name string) bool {
	id, ok := x.(*ast.Ident)
	return ok && id.Name == name
}

func isSel(x ast.Expr, pkg, name string) bool {
	s, ok := x.(*ast.SelectorExpr)
	return ok && isIdent(s.X, pkg) && s.Sel.Name == name
}

func isStar(x ast.Expr, elem func(ast.Expr) bool) bool {
	s, ok := x.(*ast.StarExpr)
	return ok && elem(s.X)
}
