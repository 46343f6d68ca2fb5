package lintcheck

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/vkstat/vkstat/engine"
	"github.com/vkstat/vkstat/pipelines/chol"
	"github.com/vkstat/vkstat/pipelines/cov"
	"github.com/vkstat/vkstat/pipelines/latent"
	"github.com/vkstat/vkstat/pipelines/mapx"
	"github.com/vkstat/vkstat/pipelines/paco"
	"github.com/vkstat/vkstat/pipelines/quantile"
	"github.com/vkstat/vkstat/pipelines/reduce"
	"github.com/vkstat/vkstat/pipelines/stack"
)

// described are the workloads whose options every front end takes from
// their description (engine.Describe), by package name: their command's
// files in cli/ start with the command's name (commandOf's, where the
// package's is not).
var described = map[string][]engine.Param{
	"paco":     paco.Params(),
	"mapx":     mapx.Params(),
	"cov":      cov.Params(),
	"stack":    stack.Params(),
	"latent":   latent.Params(),
	"chol":     chol.Params(),
	"quantile": quantile.Params(),
	"reduce":   reduce.Params(),
}

// commandOf are the commands of packages named otherwise.
var commandOf = map[string]string{"mapx": "map"}

// optionsOf are the described structs of packages whose is not Options.
var optionsOf = map[string]string{"stack": "Config"}

// statedDefault is a default written into a help text by hand, "(default
// 4)", where a flag shows its own from its value ("(default: 4)").
var statedDefault = regexp.MustCompile(`\(default [^:]`)

// statedDefaultsAllowed are the files that may still write a default into
// a help text, each with why.
var statedDefaultsAllowed = map[string]string{
	"cli/covcmd.go":    "cov's shrinkage is not described yet",
	"cli/shadercmd.go": "the shader lab's flags are no workload's",
	"cli/synthpaco.go": "synth's flags are its own (thin42 moves it out of cli)",
}

// TestFrontEndsStateNoParams: the front ends (cli/, capi/, survey/) do not
// restate a described workload's parameters. They fail on a flag of the
// workload's command named as one of its parameters (paramFlags makes
// those), on options built field by field (paco.Options{FWHM: ...}: start
// from DefaultOptions and set the parameters through the description), and
// on a default written into a help text.
func TestFrontEndsStateNoParams(t *testing.T) {
	root := repoRoot(t)
	n := 0
	walkGo(t, root, nil, parser.SkipObjectResolution, func(rel string, f *ast.File) {
		dir := strings.SplitN(rel, "/", 2)[0]
		if dir != "cli" && dir != "capi" && dir != "survey" {
			return
		}
		n++
		for _, h := range statedParams(rel, f) {
			if strings.HasPrefix(h, "default:") && statedDefaultsAllowed[rel] != "" {
				continue
			}
			t.Errorf("%s: %s", rel, h)
		}
	})
	if n < 20 {
		t.Fatalf("read %d files of cli/, capi/ and survey/: the walk missed the tree", n)
	}
}

// TestStatedParamsFound: the lint finds each way of restating a
// parameter, in code as the front ends had it.
func TestStatedParamsFound(t *testing.T) {
	src := `package cli
var flags = []ucli.Flag{
	&ucli.IntFlag{Name: "radius", Value: 4, Usage: "patch radius in pixels"},
	&ucli.StringFlag{Name: "cube", Usage: "the cube (default none)"},
	&ucli.StringFlag{Name: "out-l", Usage: "factors"},
}
func opts(c *ucli.Context) paco.Options {
	return paco.Options{FWHM: c.Float64("fwhm")}
}
var cfg = stack.Config{LooksAz: 2}
`
	f, err := parser.ParseFile(token.NewFileSet(), "pacocmd.go", src, parser.SkipObjectResolution)
	if err != nil {
		t.Fatal(err)
	}
	got := strings.Join(statedParams("cli/pacocmd.go", f), "\n")
	for _, want := range []string{"flag --radius", "paco.Options built field by field", "stack.Config built field by field", `default: "the cube (default none)"`} {
		if !strings.Contains(got, want) {
			t.Errorf("not found: %s; found:\n%s", want, got)
		}
	}
	if got := strings.Join(statedParams("cli/cholcmd.go", f), "\n"); !strings.Contains(got, "flag --out-l") { // an output parameter's file flag
		t.Errorf("not found in cholcmd.go: flag --out-l; found:\n%s", got)
	}
}

// statedParams lists what file rel (under cli/, capi/ or survey/) states
// of a described workload's parameters itself.
func statedParams(rel string, f *ast.File) []string {
	var hits []string
	base := path.Base(rel)
	ast.Inspect(f, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.CompositeLit:
			sel, ok := n.Type.(*ast.SelectorExpr)
			if !ok {
				return true
			}
			pkg, _ := sel.X.(*ast.Ident)
			if pkg == nil {
				return true
			}
			opts := optionsOf[pkg.Name]
			if opts == "" {
				opts = "Options"
			}
			if _, ok := described[pkg.Name]; ok && sel.Sel.Name == opts && len(n.Elts) > 0 {
				hits = append(hits, pkg.Name+"."+opts+" built field by field: start from "+pkg.Name+".Default"+opts+"() and set its parameters through "+pkg.Name+".Params()")
			}
			if pkg.Name != "ucli" || !strings.HasSuffix(sel.Sel.Name, "Flag") {
				return true
			}
			name := flagName(n)
			for pkg, params := range described {
				cmd := pkg
				if c, ok := commandOf[pkg]; ok {
					cmd = c
				}
				if strings.HasPrefix(base, cmd) && slices.ContainsFunc(params, func(p engine.Param) bool { return paramFlag(p) == name }) {
					hits = append(hits, "flag --"+name+" written by hand: "+cmd+"'s parameter, whose flag paramFlags makes from "+cmd+".Params()")
				}
			}
		case *ast.BasicLit:
			if n.Kind != token.STRING {
				return true
			}
			if s, err := strconv.Unquote(n.Value); err == nil && statedDefault.MatchString(s) {
				hits = append(hits, "default: "+strconv.Quote(s)+" states a default the flag or the description shows")
			}
		}
		return true
	})
	return hits
}

// paramFlag is p's flag as cli's paramFlags names it: --out-<flag> for
// an output.
func paramFlag(p engine.Param) string {
	if p.Output {
		return "out-" + p.Flag
	}
	return p.Flag
}

// flagName is the Name of a ucli flag literal, "" when it is not a
// string literal.
func flagName(lit *ast.CompositeLit) string {
	for _, e := range lit.Elts {
		kv, ok := e.(*ast.KeyValueExpr)
		if !ok {
			continue
		}
		if k, ok := kv.Key.(*ast.Ident); ok && k.Name == "Name" {
			if v, ok := kv.Value.(*ast.BasicLit); ok {
				s, _ := strconv.Unquote(v.Value)
				return s
			}
		}
	}
	return ""
}
