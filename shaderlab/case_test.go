package shaderlab_test

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/vkstat/vkstat/device/testdev"
	"github.com/vkstat/vkstat/shaderlab"
)

// TestCase: a case file's variant merged over it, its values as a flag
// takes them, its macros, a step's options and what a step may not give.
func TestCase(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "c.json")
	js := `{"shader": "s.comp", "define": {"T": "float", "FAST": null, "N": 4}, "push": {"a": 2.5, "n": 1000},
	        "groups": [4, 2], "tol": 1e-6,
	        "sweep": [{"name": "f16", "define": {"T": "float16_t"}, "push": {"n": 10}, "global": 10}]}`
	if err := os.WriteFile(file, []byte(js), 0o600); err != nil {
		t.Fatal(err)
	}
	sc, err := shaderlab.ReadCase(file)
	if err != nil {
		t.Fatal(err)
	}
	v := sc.Merged(sc.Sweep[0])
	if v.Name != "f16" || v.Shader != "s.comp" || v.Sweep != nil || v.Groups != nil || shaderlab.Value(v.Global) != "10" || *v.Tol != 1e-6 {
		t.Errorf("merged: name %q shader %q sweep %v groups %v global %v tol %v", v.Name, v.Shader, v.Sweep, v.Groups, v.Global, *v.Tol)
	}
	if got, want := v.Defines(), []string{"FAST", "N=4", "T=float16_t"}; !slices.Equal(got, want) {
		t.Errorf("defines %q, want %q", got, want)
	}
	if got := shaderlab.Settings(v.Push); !slices.Equal(got, []shaderlab.Setting{{Name: "a", Value: "2.5"}, {Name: "n", Value: "10"}}) {
		t.Errorf("push %v", got)
	}
	if sc.Define["T"] != "float" {
		t.Errorf("merging changed the case: define T %v", sc.Define["T"])
	}
	o, err := sc.StepOptions()
	if err != nil || o.Groups != [3]uint32{4, 2, 1} || len(o.Push) != 2 {
		t.Errorf("step options %+v, %v; want groups [4 2 1]", o, err)
	}
	if err := sc.CheckStep(); err == nil {
		t.Error("a step with a tol and a sweep was taken")
	}
	if err := (shaderlab.Case{Shader: "s.comp", Times: 3}).CheckStep(); err != nil {
		t.Error(err)
	}
	var bad shaderlab.Case
	if err := json.Unmarshal([]byte(`{"groups": [0]}`), &bad); err != nil {
		t.Fatal(err)
	}
	if _, err := bad.StepOptions(); err == nil || err.Error() != `groups "0": want positive integers X[,Y[,Z]]` {
		t.Errorf("groups [0]: %v", err)
	}
	if _, err := shaderlab.ParseDims("1,2,3,4"); err == nil || !strings.Contains(err.Error(), "want X, X,Y or X,Y,Z") {
		t.Errorf("four dimensions: %v", err)
	}
	if err := os.WriteFile(file, []byte(`{"shaders": "s.comp"}`), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := shaderlab.ReadCase(file); err == nil || !strings.Contains(err.Error(), `unknown field "shaders"`) {
		t.Errorf("unknown key: %v", err)
	}
}

// TestReadData: zeros, random draws and files, and a malformed
// TYPE:SHAPE as a *DataError.
func TestReadData(t *testing.T) {
	a, err := shaderlab.ReadData("uint32:3x2", 0, "x")
	if err != nil || a.Elem != "uint32" || !slices.Equal(a.Shape, []int{3, 2}) || len(a.Data) != 24 || a.Source != "zeros uint32:3x2" {
		t.Fatalf("uint32:3x2: %v, %v", a, err)
	}
	r, err := shaderlab.ReadData("random:float32:8", 5, "x")
	want, _ := shaderlab.Random("float32", []int{8}, 5, "x")
	if err != nil || string(r.Data) != string(want.Data) {
		t.Errorf("random:float32:8: %v", err)
	}
	var de *shaderlab.DataError
	for _, v := range []string{"float32:0", "float33:4", "random:x", "float32:99999999999x99999999999"} {
		if _, err := shaderlab.ReadData(v, 0, "x"); !errors.As(err, &de) {
			t.Errorf("%s: %v, want a DataError", v, err)
		}
	}
	if _, err := shaderlab.ReadData(t.TempDir(), 0, "x"); err == nil || !strings.Contains(err.Error(), "is a directory, not a file") {
		t.Errorf("a folder: %v", err)
	}
	if !shaderlab.NamesFile("x.npy") || shaderlab.NamesFile("float32:4") || shaderlab.NamesFile("random:float32:4") {
		t.Error("NamesFile")
	}
}

// TestTolerances: tol where atol and rtol give none, else
// assert_allclose's test with its defaults (rtol 1e-7, atol 0).
func TestTolerances(t *testing.T) {
	sh := compile(t, "saxpy.comp", saxpy)
	p, err := shaderlab.NewPlan(sh, shaderlab.Options{Bind: []shaderlab.Bind{{Name: "x", Data: float32s(make([]float32, 1000)...)}, {Name: "y", Data: float32s(make([]float32, 1000)...)}},
		Push: []shaderlab.Setting{{Name: "n", Value: "1000"}}, Global: [3]uint64{1000}})
	if err != nil {
		t.Fatal(err)
	}
	tol, err := shaderlab.Tolerances(p, 1e-3, []string{"y=0.5"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if x, y := tol(0), tol(1); x != (shaderlab.Tolerance{Tol: 1e-3}) || y != (shaderlab.Tolerance{Allclose: true, Atol: 0.5, Rtol: 1e-7}) {
		t.Errorf("x %+v, y %+v", x, y)
	}
	tol, _ = shaderlab.Tolerances(p, 1e-3, []string{"2"}, []string{"x=0.25"})
	if x := tol(0); x != (shaderlab.Tolerance{Allclose: true, Atol: 2, Rtol: 0.25}) {
		t.Errorf("x %+v", x)
	}
	for _, c := range []struct {
		atol []string
		want string
	}{{[]string{"-1"}, `atol "-1": want a number of 0 or more`}, {[]string{"z=1"}, "atol z=1: "}} {
		if _, err := shaderlab.Tolerances(p, 0, c.atol, nil); err == nil || !strings.HasPrefix(err.Error(), c.want) {
			t.Errorf("%v: %v, want %s...", c.atol, err, c.want)
		}
	}
	if _, err := shaderlab.Tolerances(p, -1, nil, nil); err == nil || !strings.HasPrefix(err.Error(), "tol: ") {
		t.Errorf("tol -1: %v", err)
	}
}

// TestReferences: a reference over a plan's inputs and constants (x = 1,
// 2, 3, ... and a = 2.5 give 2.5, 5, 7.5, ...) lands at its binding's
// index; one of the wrong length is a *ReferenceSizeError.
func TestReferences(t *testing.T) {
	sh := compile(t, "saxpy.comp", saxpy)
	x := make([]float32, 1000)
	for i := range x {
		x[i] = float32(i + 1)
	}
	p, err := shaderlab.NewPlan(sh, shaderlab.Options{Bind: []shaderlab.Bind{{Name: "x", Data: float32s(x...)}, {Name: "y", Data: float32s(make([]float32, 1000)...)}},
		Push: []shaderlab.Setting{{Name: "a", Value: "2.5"}, {Name: "n", Value: "1000"}}, Global: [3]uint64{1000}})
	if err != nil {
		t.Fatal(err)
	}
	got, err := shaderlab.References(context.Background(), p, map[int]string{1: "a * x"})
	if err != nil && strings.Contains(err.Error(), "needs Python with NumPy") {
		t.Skipf("no Python with NumPy here: %v", err)
	} else if err != nil {
		t.Fatal(err)
	}
	if v := got[1].Values(); len(v) != 1000 || v[0] != 2.5 || v[999] != 2500 {
		t.Errorf("a * x: %v ... %v", v[:2], v[len(v)-1])
	}
	_, err = shaderlab.References(context.Background(), p, map[int]string{1: "x[:10]"})
	var se *shaderlab.ReferenceSizeError
	if !errors.As(err, &se) || err.Error() != "reference y=x[:10]: y holds float32(1000,), the reference gives float64(10,)" {
		t.Errorf("x[:10]: %v", err)
	}
}

// TestSummarize: one failing verdict fails the lot; the elements beyond
// add up; the largest error and NMSE are kept.
func TestSummarize(t *testing.T) {
	vs := []shaderlab.Verdict{
		{Pass: true, Diff: shaderlab.Diff{MaxRel: 1e-7, NMSE: 1e-14}},
		{Pass: false, Beyond: 3, Diff: shaderlab.Diff{MaxRel: 0.5, NMSE: 1e-15}},
		{Pass: false, Beyond: 4, Diff: shaderlab.Diff{MaxRel: 0.25, NMSE: 1e-3}},
	}
	if got, want := shaderlab.Summarize(vs), (shaderlab.Summary{Pass: false, Beyond: 7, MaxRel: 0.5, NMSE: 1e-3}); got != want {
		t.Errorf("got %+v, want %+v", got, want)
	}
	if got := shaderlab.Summarize(vs[:1]); !got.Pass {
		t.Errorf("one passing verdict: %+v", got)
	}
}

// TestCaseSequence: examples/shaders/reduce_two_pass.json as a Sequence
// (its files relative to the case) on every Vulkan device, its partial
// sums and total held to NumPy's (reduce_expected.npy,
// reduce_total_expected.npy); mistakes in a case's steps are *CaseErrors
// naming the step, before any device work, and a missing shader file is
// not one.
func TestCaseSequence(t *testing.T) {
	dir := filepath.Join("..", "examples", "shaders")
	file := filepath.Join(dir, "reduce_two_pass.json")
	sc, err := shaderlab.ReadCase(file)
	if err != nil {
		t.Fatal(err)
	}
	seq, err := sc.Sequence(file, shaderlab.Options{Repeat: 2})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(seq.Names, []string{"data", "parts", "total"}) || seq.Dispatches() != 2 || seq.File != file {
		t.Fatalf("buffers %q, %d dispatches, file %q", seq.Names, seq.Dispatches(), seq.File)
	}
	// A random buffer is drawn from the case's seed, as --bind draws it.
	seed := int64(7)
	rc := *sc
	rc.Seed, rc.Buffers = &seed, map[string]any{"data": "random:float32:4000", "parts": "float32:16", "total": "float32:1"}
	rs, err := rc.Sequence(file, shaderlab.Options{})
	drawn, _ := shaderlab.ReadData("random:float32:4000", 7, "data")
	if err != nil || !slices.Equal(rs.Buffers[0].Data, drawn.Data) {
		t.Errorf("random buffer of seed 7: %v, or not the data ReadData draws", err)
	}
	var want []*shaderlab.Array
	for _, f := range []string{"reduce_expected.npy", "reduce_total_expected.npy"} {
		a, err := shaderlab.ReadNPY(filepath.Join(dir, f))
		if err != nil {
			t.Fatal(err)
		}
		want = append(want, a)
	}
	for _, dev := range testdev.Devices(t) {
		r, err := seq.Run(context.Background(), dev)
		if err != nil {
			t.Fatalf("%s: %v", dev.Info.Name, err)
		}
		for i, w := range want {
			if d, err := shaderlab.Compare(r.Outputs[i+1], w); err != nil || d.MaxRel > 1e-6 {
				t.Errorf("%s: %s: %v %v", dev.Info.Name, seq.Names[i+1], d, err)
			}
		}
	}
	step := func(f func(*shaderlab.Case)) shaderlab.Case {
		bad := *sc
		bad.Steps = slices.Clone(sc.Steps)
		f(&bad.Steps[1])
		return bad
	}
	for _, c := range []struct {
		name string
		sc   shaderlab.Case
		want string
	}{
		{"an unknown buffer", step(func(s *shaderlab.Case) { s.Bind = map[string]any{"data": "part", "sums": "total"} }),
			`step 2: bind data=part: no buffer "part" (the case has data, parts, total) and no file ` + filepath.Join(dir, "part")},
		{"groups and global", step(func(s *shaderlab.Case) { s.Global = 16 }), "step 2: give groups or global, not both"},
		{"a zero dispatch", step(func(s *shaderlab.Case) { s.Groups = []any{json.Number("0")} }), `step 2: groups "0": want positive integers X[,Y[,Z]]`},
		{"an expectation in a step", step(func(s *shaderlab.Case) { s.Expect = map[string]any{"total": "x.npy"} }), "step 2: a step gives shader"},
		{"a malformed shape", step(func(s *shaderlab.Case) { s.Bind = map[string]any{"data": "parts", "sums": "float32:0x"} }), "step 2: bind sums: "},
		{"a sweep", shaderlab.Case{Steps: sc.Steps, Sweep: sc.Steps}, "a case has steps or a sweep, not both"},
		{"a missing shader", step(func(s *shaderlab.Case) { s.Shader = "missing.comp" }), ""},
	} {
		_, err := c.sc.Sequence(file, shaderlab.Options{})
		var ce *shaderlab.CaseError
		if c.want == "" {
			if err == nil || errors.As(err, &ce) || !strings.HasPrefix(err.Error(), "step 2: ") {
				t.Errorf("%s: %v; want an error of step 2 that is no CaseError", c.name, err)
			}
		} else if !errors.As(err, &ce) || !strings.HasPrefix(err.Error(), c.want) {
			t.Errorf("%s: %v; want a CaseError %q", c.name, err, c.want)
		}
	}
}
