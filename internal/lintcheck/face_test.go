package lintcheck

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
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
		var params []ast.Expr
		for _, p := range fn.Type.Params.List {
			for range max(1, len(p.Names)) {
				params = append(params, p.Type)
			}
		}
		var results []ast.Expr
		if fn.Type.Results != nil {
			for _, r := range fn.Type.Results.List {
				for range max(1, len(r.Names)) {
					results = append(results, r.Type)
				}
			}
		}
		if len(params) != 4 || !isSel(params[0], "context", "Context") || !isStar(params[1], func(x ast.Expr) bool { return isSel(x, "engine", "Device") }) ||
			!isIdent(params[3], "Options") || len(results) != 2 || !isStar(results[0], func(x ast.Expr) bool { return isIdent(x, "Result") }) || !isIdent(results[1], "error") {
			return fmt.Errorf("%s: Run is not func Run(ctx context.Context, dev *engine.Device, in <Input>, opt Options) (*Result, error)", filepath.Base(file))
		}
		return nil
	}
	return fmt.Errorf("%s declares no func Run(ctx context.Context, dev *engine.Device, in <Input>, opt Options) (*Result, error)", filepath.Base(file))
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
