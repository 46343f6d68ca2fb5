package engine

import (
	"encoding/json"
	"fmt"
	"math"
	"reflect"
	"strings"
	"testing"
)

// mode is an enumeration as the workloads declare theirs: a name each
// (String), read back from it (UnmarshalText), and its choices.
type mode int

func (m mode) String() string { return [...]string{"fast", "exact"}[m] }

func (mode) Choices() []string { return []string{"fast", "exact"} }

func (m *mode) UnmarshalText(b []byte) error {
	switch string(b) {
	case "fast":
		*m = 0
	case "exact":
		*m = 1
	default:
		return fmt.Errorf("want fast or exact, got %q", b)
	}
	return nil
}

type paramOpts struct {
	Hidden  float64
	Size    int     `param:"size" help:"the size"`
	Scale   float64 `param:"scale" default:"2×size" help:"the scale"`
	Norm    string  `param:"norm" choices:"sum,peak" help:"normalisation"`
	Mode    mode    `param:"mode" flag:"the-mode"`
	On      bool    `param:"switch_on"`
	Flux    float64 `param:"flux" kind:"text"`
	fluxPSF bool
}

// SetText reads flux as a number or "psf".
func (o *paramOpts) SetText(param, text string) (bool, error) {
	if param != "flux" || text != "psf" {
		return false, nil
	}
	o.fluxPSF = true
	return true, nil
}

// TestDescribe: every tag lands in its Param, in the fields' order; the
// defaults are the struct's values (an enumeration's by name).
func TestDescribe(t *testing.T) {
	got := Describe(paramOpts{Size: 4, Scale: 0, Norm: "sum", Mode: 1, On: true})
	want := []Param{
		{Name: "size", Flag: "size", Kind: reflect.Int, Default: 4, Help: "the size", index: []int{1}},
		{Name: "scale", Flag: "scale", Kind: reflect.Float64, Default: 0.0, DefaultText: "2×size", Help: "the scale", index: []int{2}},
		{Name: "norm", Flag: "norm", Kind: reflect.String, Default: "sum", Help: "normalisation", Choices: []string{"sum", "peak"}, index: []int{3}},
		{Name: "mode", Flag: "the-mode", Kind: reflect.String, Default: "exact", Choices: []string{"fast", "exact"}, index: []int{4}},
		{Name: "switch_on", Flag: "switch-on", Kind: reflect.Bool, Default: true, index: []int{5}},
		{Name: "flux", Flag: "flux", Kind: reflect.String, Default: 0.0, Text: true, index: []int{6}},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Describe:\n got %+v\nwant %+v", got, want)
	}
	d := Defaults(paramOpts{Size: 4, Mode: 1})
	if d["mode"] != "exact" || d["size"] != 4 || len(d) != 6 {
		t.Errorf("Defaults = %v", d)
	}
	if p := FindParam(got, "the-mode"); p == nil || p.Name != "mode" {
		t.Errorf("FindParam(the-mode) = %v", p)
	}
}

// TestParamSetText: text reaches each kind of field, enumerations through
// UnmarshalText, the options' own SetText first; bad text says what was
// wanted and leaves the field.
func TestParamSetText(t *testing.T) {
	ps := Describe(paramOpts{})
	var o paramOpts
	for name, text := range map[string]string{"size": " 7", "scale": "2.5", "norm": "peak", "mode": "exact", "switch_on": "true", "flux": "psf"} {
		if err := FindParam(ps, name).SetText(&o, text); err != nil {
			t.Fatalf("%s %q: %v", name, text, err)
		}
	}
	if want := (paramOpts{Size: 7, Scale: 2.5, Norm: "peak", Mode: 1, On: true, fluxPSF: true}); o != want {
		t.Errorf("set %+v, want %+v", o, want)
	}
	if err := FindParam(ps, "flux").SetText(&o, "12"); err != nil || o.Flux != 12 {
		t.Errorf("flux 12: %v, %g", err, o.Flux)
	}
	for name, bad := range map[string]string{"size": "2.5", "scale": "NaN", "switch_on": "yes", "mode": "slow"} {
		before := o
		err := FindParam(ps, name).SetText(&o, bad)
		if err == nil || !strings.Contains(err.Error(), "want") || o != before {
			t.Errorf("%s %q: err %v, options %+v (were %+v)", name, bad, err, o, before)
		}
	}
}

// TestParamSetValue: the C ABI's decoded values read as their text.
func TestParamSetValue(t *testing.T) {
	ps := Describe(paramOpts{})
	var o paramOpts
	for name, v := range map[string]any{"size": 3, "scale": 0.1, "switch_on": true, "mode": "exact", "flux": json.Number("1e3")} {
		if err := FindParam(ps, name).SetValue(&o, v); err != nil {
			t.Fatalf("%s %v: %v", name, v, err)
		}
	}
	if want := (paramOpts{Size: 3, Scale: 0.1, On: true, Mode: 1, Flux: 1000}); o != want {
		t.Errorf("set %+v, want %+v", o, want)
	}
	if err := FindParam(ps, "size").SetValue(&o, []any{1}); err == nil {
		t.Error("size [1]: no error")
	}
}

// box is a struct-typed field's own parameters, described in place.
type box struct {
	Kind mode `param:"box_kind"`
	Side int  `param:"side"`
}

// nestedOpts have a parameter in a struct-typed field and a text one
// their own Text and SetText show and read ("3x4").
type nestedOpts struct {
	Box box
	W   int `param:"shape" kind:"text"`
	H   int
}

func (o nestedOpts) Text(string) string { return fmt.Sprintf("%dx%d", o.W, o.H) }

func (o *nestedOpts) SetText(param, text string) (bool, error) {
	if param != "shape" {
		return false, nil
	}
	_, err := fmt.Sscanf(strings.ReplaceAll(text, ",", "x"), "%dx%d", &o.W, &o.H)
	return true, err
}

// TestDescribeNested: a struct-typed field's parameters are the options',
// set through its index; a text parameter's default is the options' Text,
// and a list reaches it as its items comma-separated.
func TestDescribeNested(t *testing.T) {
	ps := Describe(nestedOpts{Box: box{Side: 5}, W: 1, H: 2})
	want := []Param{
		{Name: "box_kind", Flag: "box-kind", Kind: reflect.String, Default: "fast", Choices: []string{"fast", "exact"}, index: []int{0, 0}},
		{Name: "side", Flag: "side", Kind: reflect.Int, Default: 5, index: []int{0, 1}},
		{Name: "shape", Flag: "shape", Kind: reflect.String, Default: "1x2", Text: true, index: []int{1}},
	}
	if !reflect.DeepEqual(ps, want) {
		t.Fatalf("Describe:\n got %+v\nwant %+v", ps, want)
	}
	var o nestedOpts
	if err := FindParam(ps, "box_kind").SetText(&o, "exact"); err != nil {
		t.Fatal(err)
	}
	if err := FindParam(ps, "side").SetValue(&o, json.Number("7")); err != nil {
		t.Fatal(err)
	}
	if err := FindParam(ps, "shape").SetValue(&o, []any{json.Number("3"), json.Number("4")}); err != nil {
		t.Fatal(err)
	}
	if want := (nestedOpts{Box: box{Kind: 1, Side: 7}, W: 3, H: 4}); o != want {
		t.Errorf("set %+v, want %+v", o, want)
	}
	if err := FindParam(ps, "shape").SetValue(&o, []any{"3", true}); err == nil {
		t.Error(`shape ["3", true]: no error`)
	}
}

// listOpts has the kinds the command line takes otherwise: lists, and an
// output (chol's --out-l).
type listOpts struct {
	Q    []float64 `param:"q" help:"quantiles"`
	Axes []int     `param:"axes"`
	L    bool      `param:"l" kind:"output" help:"factors"`
	Stat words     `param:"stat" key:"stats"`
}

// words is a list read from text by its own UnmarshalText and named by
// its String, as reduce's statistics.
type words []string

func (w words) String() string { return strings.Join(w, "+") }

func (w *words) UnmarshalText(b []byte) error {
	*w = strings.Split(string(b), "+")
	return nil
}

// TestParamLists: a list is a Slice, set from comma-separated text (the
// command line's) or a JSON list (the C ABI's), "" the empty list; a bad
// element says what was wanted and leaves the field; an output is a Bool
// marked Output.
func TestParamLists(t *testing.T) {
	ps := Describe(listOpts{Q: []float64{0.5}, Stat: words{"a", "b"}})
	if q := ps[0]; q.Kind != reflect.Slice || !reflect.DeepEqual(q.Default, []float64{0.5}) || q.Output {
		t.Errorf("q described as %+v", q)
	}
	if l := ps[2]; l.Kind != reflect.Bool || !l.Output || l.Help != "factors" {
		t.Errorf("l described as %+v", l)
	}
	if st := ps[3]; st.Kind != reflect.Slice || st.Default != "a+b" || st.Key != "stats" || st.Name != "stat" {
		t.Errorf("stat described as %+v", st)
	}
	var o listOpts
	if err := ps[3].SetValue(&o, []any{"x+y"}); err != nil || !reflect.DeepEqual(o.Stat, words{"x", "y"}) {
		t.Errorf("stat [x+y]: %v, %v", err, o.Stat)
	}
	if err := ps[0].SetText(&o, "0.1, 0.9"); err != nil || !reflect.DeepEqual(o.Q, []float64{0.1, 0.9}) {
		t.Errorf("q 0.1, 0.9: %v, %v", err, o.Q)
	}
	if err := ps[1].SetValue(&o, []any{json.Number("-2"), 1.0}); err != nil || !reflect.DeepEqual(o.Axes, []int{-2, 1}) {
		t.Errorf("axes [-2, 1]: %v, %v", err, o.Axes)
	}
	if err := ps[0].SetValue(&o, []any{}); err != nil || o.Q == nil || len(o.Q) != 0 {
		t.Errorf("q []: %v, %#v", err, o.Q)
	}
	o.Q = []float64{0.5}
	for _, bad := range []any{"0.1,x", "0.1,,0.2", []any{0.1, true}, []any{"0.5x"}} {
		err := ps[0].SetValue(&o, bad)
		if err == nil || !strings.Contains(err.Error(), "want comma-separated numbers") || !reflect.DeepEqual(o.Q, []float64{0.5}) {
			t.Errorf("q %v: err %v, q %v", bad, err, o.Q)
		}
	}
	if err := ps[0].SetText(&o, "NaN"); err != nil || len(o.Q) != 1 || !math.IsNaN(o.Q[0]) {
		t.Errorf("q NaN (for Check to refuse): %v, %v", err, o.Q)
	}
	if err := ps[1].SetText(&o, "1.5"); err == nil {
		t.Error("axes 1.5: no error")
	}
}
