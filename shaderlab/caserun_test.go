package shaderlab_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/vkstat/vkstat/shaderlab"
)

// TestCaseIn: a case file's paths are taken from its folder; data that is
// no file, a module's function and absolute paths stay as they are, and
// the case read is left as it was.
func TestCaseIn(t *testing.T) {
	sc := shaderlab.Case{Shader: "s.comp", Include: []string{"inc", "/abs"},
		Bind:      map[string]any{"x": "x.npy", "y": "float32:4", "z": "random:float32:4"},
		Expect:    map[string]any{"y": "w.npy"},
		Reference: map[string]any{"y": "ref.py:f", "z": "a * x", "w": "mod:fn"}}
	got := sc.In("d")
	want := shaderlab.Case{Shader: "d/s.comp", Include: []string{"d/inc", "/abs"},
		Bind:      map[string]any{"x": "d/x.npy", "y": "float32:4", "z": "random:float32:4"},
		Expect:    map[string]any{"y": "d/w.npy"},
		Reference: map[string]any{"y": "d/ref.py:f", "z": "a * x", "w": "mod:fn"}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("In:\n%+v\nwant\n%+v", got, want)
	}
	if sc.Bind["x"] != "x.npy" || sc.Include[0] != "inc" {
		t.Errorf("the case read changed: %+v", sc)
	}
}

// TestCaseAdd: entries as the flags give them fill the case's maps: a
// define without a value is the name alone, a tolerance without a name is
// every array's ("*"), spaces around = go; an entry without NAME=VALUE
// and a binding bound twice are usage mistakes, worded with the field.
func TestCaseAdd(t *testing.T) {
	var sc shaderlab.Case
	for _, e := range []struct{ field, entry string }{
		{"define", "FAST"}, {"define", "T=float"}, {"bind", "x = x.npy"}, {"push", "n=4"}, {"atol", "1e-3"}, {"rtol", "y=2e-2"},
	} {
		if err := sc.Add(e.field, e.entry); err != nil {
			t.Fatalf("Add(%s, %s): %v", e.field, e.entry, err)
		}
	}
	want := shaderlab.Case{Define: map[string]any{"FAST": "", "T": "float"}, Bind: map[string]any{"x": "x.npy"},
		Push: map[string]any{"n": "4"}, Atol: map[string]any{"*": "1e-3"}, Rtol: map[string]any{"y": "2e-2"}}
	if !reflect.DeepEqual(sc, want) {
		t.Errorf("Add:\n%+v\nwant\n%+v", sc, want)
	}
	for _, e := range []struct{ field, entry, msg string }{
		{"push", "n", `push "n": want NAME=VALUE`},
		{"define", "T=", `define "T=": want NAME=VALUE`},
		{"expect", " =w.npy", `expect " =w.npy": want NAME=VALUE`},
		{"bind", "x=float32:4", "bind x=float32:4: x is bound twice"},
	} {
		var ee *shaderlab.EntryError
		err := sc.Add(e.field, e.entry)
		if !errors.As(err, &ee) || !ee.Usage || err.Error() != e.msg {
			t.Errorf("Add(%s, %s): %v, want the usage error %q", e.field, e.entry, err, e.msg)
		}
	}
	if sc.Bind["x"] != "x.npy" {
		t.Errorf("a refused entry changed the case: bind x=%v", sc.Bind["x"])
	}
	if err := sc.Add("out", "y=y.npy"); err == nil {
		t.Error("Add(out): no error; a case has no out entries")
	}
}

// TestCaseOver: the command line's case over a file's: its values win,
// its maps add by name, its dispatch replaces the file's, its include
// folders come first; the file's name and steps stay.
func TestCaseOver(t *testing.T) {
	base := shaderlab.Case{Name: "v", Include: []string{"a", "b"}, Push: map[string]any{"a": 1, "n": 2}, Global: 10, Times: 3,
		Steps: []shaderlab.Case{{Shader: "s.comp"}}}
	got := shaderlab.Case{Include: []string{"b", "c"}, Push: map[string]any{"a": "3"}, Groups: "4"}.Over(base)
	if !reflect.DeepEqual(got.Include, []string{"b", "c", "a"}) || !reflect.DeepEqual(got.Push, map[string]any{"a": "3", "n": 2}) ||
		got.Groups != "4" || got.Global != nil || got.Name != "v" || got.Times != 3 || len(got.Steps) != 1 {
		t.Errorf("Over: %+v", got)
	}
}

// TestCaseVariants: each variant over the case, numbered where it has
// no name, its files in the case's folder, the command line's settings
// over it; a case without a sweep is its one variant.
func TestCaseVariants(t *testing.T) {
	sc := shaderlab.Case{Shader: "s.comp", Push: map[string]any{"a": 1, "n": 2}, Sweep: []shaderlab.Case{
		{Name: "small", Bind: map[string]any{"x": "x1.npy"}, Push: map[string]any{"n": 10}},
		{Shader: "t.comp", Push: map[string]any{"n": 20}}}}
	got := sc.Variants("d", shaderlab.Case{Push: map[string]any{"a": "3"}})
	if len(got) != 2 || got[0].Name != "small" || got[1].Name != "#2" ||
		got[0].Shader != "d/s.comp" || got[1].Shader != "d/t.comp" || got[0].Bind["x"] != "d/x1.npy" ||
		!reflect.DeepEqual(got[0].Push, map[string]any{"a": "3", "n": 10}) || !reflect.DeepEqual(got[1].Push, map[string]any{"a": "3", "n": 20}) ||
		got[0].Sweep != nil {
		t.Errorf("Variants: %+v", got)
	}
	one := shaderlab.Case{Name: "only", Shader: "s.comp"}.Variants(".", shaderlab.Case{})
	if len(one) != 1 || one[0].Name != "only" || one[0].Shader != "s.comp" {
		t.Errorf("Variants without a sweep: %+v", one)
	}
}

// TestCaseStep: a step given as source compiles under its name (or
// shader.comp), binds buffers by name and keeps its times; a step with
// both dispatches is a mistake in the case.
func TestCaseStep(t *testing.T) {
	co := shaderlab.CompileOptions{TargetEnv: "vulkan1.1"}
	st, err := shaderlab.Case{Name: "twice.comp", Bind: map[string]any{"v": "buf"}, Groups: "1", Times: 2}.Step(double, co)
	if err != nil || st.Shader.Path != "twice.comp" || len(st.Options.Bind) != 1 || st.Options.Bind[0].Buffer != "buf" ||
		st.Options.Groups != [3]uint32{1, 1, 1} || st.Times != 2 {
		t.Fatalf("Step: %+v, %v", st, err)
	}
	if st, err := (shaderlab.Case{Global: "4"}).Step(double, co); err != nil || st.Shader.Path != "shader.comp" {
		t.Errorf("Step without a name: %+v, %v", st, err)
	}
	_, err = shaderlab.Case{Groups: "1", Global: "4"}.Step(double, co)
	var ce *shaderlab.CaseError
	if !errors.As(err, &ce) || err.Error() != "give groups or global, not both" {
		t.Errorf("both dispatches: %v", err)
	}
}

// TestCaseOptions: a case's bindings read and its dispatch parsed; each
// entry that does not do named as a flag would, a mistake in it apart
// from a file that cannot be read.
func TestCaseOptions(t *testing.T) {
	sh := compile(t, "double.comp", double)
	opt, err := shaderlab.Case{Bind: map[string]any{"v": "float32:4"}, Groups: "2", Push: map[string]any{}}.Options(sh, shaderlab.Options{Repeat: 3})
	if err != nil || len(opt.Bind) != 1 || opt.Bind[0].Name != "v" || opt.Bind[0].Data.String() != "float32(4,)" ||
		opt.Groups != [3]uint32{2, 1, 1} || opt.Repeat != 3 {
		t.Fatalf("Options: %+v, %v", opt, err)
	}
	for _, c := range []struct {
		sc    shaderlab.Case
		usage bool
		want  string
	}{
		{shaderlab.Case{Bind: map[string]any{"w": "float32:4"}}, true, `bind w=float32:4: no binding "w"; the shader has binding 0 (v)`},
		{shaderlab.Case{Bind: map[string]any{"v": "float32:-3"}}, true, "bind v=float32:-3: want TYPE:SHAPE, sizes of 1 or more"},
		{shaderlab.Case{Bind: map[string]any{"v": "nosuch.npy"}}, false, "bind v=nosuch.npy: stat nosuch.npy: no such file or directory"},
	} {
		_, err := c.sc.Options(sh, shaderlab.Options{})
		var ee *shaderlab.EntryError
		if !errors.As(err, &ee) || ee.Usage != c.usage || !strings.HasPrefix(err.Error(), c.want) {
			t.Errorf("%+v: %v; want %q (usage %v)", c.sc, err, c.want, c.usage)
		}
	}
	_, err = shaderlab.Case{Groups: "0"}.Options(sh, shaderlab.Options{})
	var ce *shaderlab.CaseError
	if !errors.As(err, &ce) || err.Error() != `groups "0": want positive integers X[,Y[,Z]]` {
		t.Errorf("groups 0: %v", err)
	}
}

// TestCasePlan: a case's plan; an entry the shader cannot take (a push
// constant of a shader that has none, a second entry naming the binding
// the first bound) is refused as that entry, as the flag gives it.
func TestCasePlan(t *testing.T) {
	sh := compile(t, "double.comp", double)
	sc := shaderlab.Case{Bind: map[string]any{"v": "float32:4"}, Global: "8"}
	p, err := sc.Plan(sh, shaderlab.Options{Repeat: 1})
	if err != nil || len(p.Inputs) != 1 || p.Groups != [3]uint32{2, 1, 1} {
		t.Fatalf("Plan: %+v, %v", p, err)
	}
	for field, m := range map[string]map[string]any{
		"push": {"n": 1},
		"bind": {"v": "float32:4", "0": "float32:4"},
	} {
		c := sc
		if field == "push" {
			c.Push = m
		} else {
			c.Bind = m
		}
		_, err := c.Plan(sh, shaderlab.Options{Repeat: 1})
		var ee *shaderlab.EntryError
		want := map[string]string{"push": "push n=1: ", "bind": "bind v=float32:4: "}[field]
		if !errors.As(err, &ee) || !ee.Usage || !strings.HasPrefix(err.Error(), want) {
			t.Errorf("%s %v: %v; want the usage error %q...", field, m, err, want)
		}
	}
}

// TestCaseExpectations: an expect file read for its binding; a binding
// the plan lacks, a missing file, a file of another size and a reference
// for a binding with an expect are refused, named as flags.
func TestCaseExpectations(t *testing.T) {
	p := doublePlan(t)
	dir := t.TempDir()
	write := func(name string, a *shaderlab.Array) string {
		f, err := os.Create(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		if err := a.EncodeNPY(f); err != nil {
			t.Fatal(err)
		}
		return f.Name()
	}
	four, three := write("four.npy", float32s(1, 2, 3, 4)), write("three.npy", float32s(1, 2, 3))
	want, err := shaderlab.Case{Expect: map[string]any{"v": four}}.Expectations(context.Background(), p)
	if err != nil || len(want) != 1 || !slices.Equal(want[0].Values(), []float64{1, 2, 3, 4}) {
		t.Fatalf("Expectations: %v, %v", want, err)
	}
	for _, c := range []struct {
		sc    shaderlab.Case
		usage bool
		want  string
	}{
		{shaderlab.Case{Expect: map[string]any{"w": four}}, true, `expect w=` + four + `: no binding "w"`},
		{shaderlab.Case{Expect: map[string]any{"v": filepath.Join(dir, "none.npy")}}, false, "expect: stat " + filepath.Join(dir, "none.npy") + ": no such file or directory"},
		{shaderlab.Case{Expect: map[string]any{"v": dir}}, false, "expect: " + dir + " is a directory, not a file"},
		{shaderlab.Case{Expect: map[string]any{"v": three}}, false, "expect v=" + three + ": v holds float32(4,), the expectation is float32(3,)"},
		{shaderlab.Case{Expect: map[string]any{"v": four}, Reference: map[string]any{"v": "2 * v"}}, true, "reference v=2 * v: v has an expect already"},
	} {
		_, err := c.sc.Expectations(context.Background(), p)
		var ee *shaderlab.EntryError
		if !errors.As(err, &ee) || ee.Usage != c.usage || !strings.HasPrefix(err.Error(), c.want) {
			t.Errorf("%+v: %v; want %q (usage %v)", c.sc, err, c.want, c.usage)
		}
	}
}

// TestCaseTolerances: 1e-5 of max |expected| unless the case gives tol;
// atol for every array ("*") and rtol for v make v's test allclose's.
func TestCaseTolerances(t *testing.T) {
	p := doublePlan(t)
	half := 0.5
	for _, c := range []struct {
		sc   shaderlab.Case
		want shaderlab.Tolerance
	}{
		{shaderlab.Case{}, shaderlab.Tolerance{Tol: 1e-5}},
		{shaderlab.Case{Tol: &half}, shaderlab.Tolerance{Tol: 0.5}},
		{shaderlab.Case{Atol: map[string]any{"*": 0.1}, Rtol: map[string]any{"v": "0.2"}}, shaderlab.Tolerance{Allclose: true, Atol: 0.1, Rtol: 0.2}},
	} {
		tol, err := c.sc.Tolerances(p)
		if err != nil || tol(0) != c.want {
			t.Errorf("%+v: %+v, %v; want %+v", c.sc, tol(0), err, c.want)
		}
	}
	var ce *shaderlab.CaseError
	if _, err := (shaderlab.Case{Atol: map[string]any{"w": 1}}).Tolerances(p); !errors.As(err, &ce) || !strings.HasPrefix(err.Error(), "atol w=1: ") {
		t.Errorf("atol for no binding: %v", err)
	}
}

// TestOutFiles: --out's NAME=FILE and --out-dir's DIR/NAME.npy for the
// arrays a run writes; a malformed entry, an unknown name and a file that
// is not .npy are refused, named as the flag.
func TestOutFiles(t *testing.T) {
	p := doublePlan(t)
	for _, c := range []struct {
		out       []string
		dir, want string
	}{{nil, "", ""}, {[]string{"v=a.npy"}, "d", "a.npy"}, {nil, "d", "d/v.npy"}} {
		got, err := shaderlab.OutFiles(p, c.out, c.dir)
		if err != nil || len(got) != 1 || got[0] != c.want {
			t.Errorf("%v %q: %q, %v; want %q", c.out, c.dir, got, err, c.want)
		}
	}
	// --out-dir takes the bindings a run may write, y, not readonly x.
	sp, err := shaderlab.NewPlan(compile(t, "saxpy.comp", saxpy), shaderlab.Options{
		Bind: []shaderlab.Bind{{Name: "x", Data: float32s(1)}, {Name: "y", Data: float32s(2)}}, Groups: [3]uint32{1, 1, 1}})
	if err != nil {
		t.Fatal(err)
	}
	if got, err := shaderlab.OutFiles(sp, nil, "d"); err != nil || !slices.Equal(got, []string{"", "d/y.npy"}) {
		t.Errorf("saxpy into d: %q, %v; want y only", got, err)
	}
	for out, want := range map[string]string{"v": `out "v": want NAME=VALUE`, "w=a.npy": `out w=a.npy: no binding "w"`, "v=a.txt": "out v=a.txt: outputs are .npy files"} {
		_, err := shaderlab.OutFiles(p, []string{out}, "")
		var ee *shaderlab.EntryError
		if !errors.As(err, &ee) || !ee.Usage || !strings.HasPrefix(err.Error(), want) {
			t.Errorf("%s: %v; want %q", out, err, want)
		}
	}
}

// TestWatchFiles: the shader, the sources beside it and in the include
// folders, and the NPY files the case binds and expects (not its zeros).
func TestWatchFiles(t *testing.T) {
	dir, inc := t.TempDir(), t.TempDir()
	for _, f := range []string{filepath.Join(dir, "a.comp"), filepath.Join(dir, "b.glsl"), filepath.Join(dir, "c.txt"), filepath.Join(inc, "d.glsl")} {
		if err := os.WriteFile(f, nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	sc := shaderlab.Case{Include: []string{inc}, Bind: map[string]any{"x": "x.npy", "y": "float32:4"}, Expect: map[string]any{"y": "w.npy"}}
	got := sc.WatchFiles(filepath.Join(dir, "a.comp"))
	want := []string{filepath.Join(dir, "a.comp"), filepath.Join(dir, "b.glsl"), filepath.Join(dir, "a.comp"), filepath.Join(inc, "d.glsl"), "x.npy", "w.npy"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("WatchFiles = %q, want %q", got, want)
	}
}
