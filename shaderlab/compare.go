package shaderlab

import (
	"context"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/vkstat/vkstat/engine"
)

// Diff is how far an array is from another, element by element, NaNs
// apart.
type Diff struct {
	MaxAbs float64 // largest |got − want|
	MaxRel float64 // MaxAbs over max |want| (MaxAbs where want is all 0)
	NMSE   float64 // Σ(got − want)² / Σ want² (Σ(got − want)² where want is all 0)
	NaNs   int     // elements NaN in one array and not the other
}

// Compare measures how far got is from want; their element types may
// differ, their element counts may not.
func Compare(got, want *Array) (Diff, error) {
	g, w := got.Values(), want.Values()
	if len(g) != len(w) {
		return Diff{}, fmt.Errorf("%d elements, expected %d", len(g), len(w))
	}
	var d Diff
	var num, den, wmax float64
	for i := range g {
		if math.IsNaN(g[i]) || math.IsNaN(w[i]) {
			if math.IsNaN(g[i]) != math.IsNaN(w[i]) {
				d.NaNs++
			}
			continue
		}
		e := math.Abs(g[i] - w[i])
		d.MaxAbs = max(d.MaxAbs, e)
		wmax = max(wmax, math.Abs(w[i]))
		num += e * e
		den += w[i] * w[i]
	}
	if wmax > 0 {
		d.MaxRel = d.MaxAbs / wmax
	} else {
		d.MaxRel = d.MaxAbs
	}
	if den > 0 {
		d.NMSE = num / den
	} else {
		d.NMSE = num
	}
	return d, nil
}

// OK says whether d passes a tolerance on MaxRel, with no NaN mismatch.
func (d Diff) OK(tol float64) bool { return d.NaNs == 0 && d.MaxRel <= tol }

func (d Diff) String() string {
	s := fmt.Sprintf("max error %.3g (%.3g of max |expected|), NMSE %.3g", d.MaxAbs, d.MaxRel, d.NMSE)
	if d.NaNs > 0 {
		s += fmt.Sprintf(", %d NaN mismatches", d.NaNs)
	}
	return s
}

// Tolerance bounds each element's error: |got − want| ≤ Atol + Rtol·|want|
// where Allclose (np.testing.assert_allclose's test), else |got − want| ≤
// Tol·max |want| (Diff.MaxRel ≤ Tol).
type Tolerance struct {
	Tol, Atol, Rtol float64
	Allclose        bool
}

// Tol is the same tolerance on MaxRel for every binding.
func Tol(tol float64) func(int) Tolerance {
	return func(int) Tolerance { return Tolerance{Tol: tol} }
}

// Tolerances are the tolerances of t's arrays: tol (a fraction of max
// |expected|) where atol and rtol give none, else the element-by-element
// test of np.testing.assert_allclose (its defaults: rtol 1e-7, atol 0).
// atol and rtol entries are X for every array or NAME=X for one; an error
// names the setting (tol, atol or rtol) first.
func Tolerances(t Target, tol float64, atol, rtol []string) (func(int) Tolerance, error) {
	if tol < 0 {
		return nil, fmt.Errorf("tol: want a fraction of max |expected| of 0 or more, got %g", tol)
	}
	type pair struct{ atol, rtol *float64 }
	all := pair{}
	by := map[int]*pair{}
	for _, f := range []struct {
		name string
		list []string
	}{{"atol", atol}, {"rtol", rtol}} {
		for _, s := range f.list {
			name, val, named := strings.Cut(s, "=")
			if !named {
				name, val = "", s
			}
			x, err := strconv.ParseFloat(strings.TrimSpace(val), 64)
			if err != nil || x < 0 || math.IsInf(x, 0) {
				return nil, fmt.Errorf("%s %q: want a number of 0 or more, or NAME=NUMBER", f.name, s)
			}
			p := &all
			if named {
				k, err := t.Find(strings.TrimSpace(name))
				if err != nil {
					return nil, fmt.Errorf("%s %s: %v", f.name, s, err)
				}
				if by[k] == nil {
					by[k] = &pair{}
				}
				p = by[k]
			}
			if f.name == "atol" {
				p.atol = &x
			} else {
				p.rtol = &x
			}
		}
	}
	return func(i int) Tolerance {
		p := all
		if b := by[i]; b != nil {
			if b.atol != nil {
				p.atol = b.atol
			}
			if b.rtol != nil {
				p.rtol = b.rtol
			}
		}
		if p.atol == nil && p.rtol == nil {
			return Tolerance{Tol: tol}
		}
		t := Tolerance{Allclose: true, Rtol: 1e-7}
		if p.atol != nil {
			t.Atol = *p.atol
		}
		if p.rtol != nil {
			t.Rtol = *p.rtol
		}
		return t
	}, nil
}

func (t Tolerance) String() string {
	if t.Allclose {
		return fmt.Sprintf("|error| ≤ %.3g + %.3g·|expected|", t.Atol, t.Rtol)
	}
	return fmt.Sprintf("tolerance %.3g", t.Tol)
}

// Mismatch is one element beyond the tolerance.
type Mismatch struct {
	Index     []int // in the output's shape
	Got, Want float64
}

func (m Mismatch) String() string {
	idx := make([]string, len(m.Index))
	for i, v := range m.Index {
		idx[i] = strconv.Itoa(v)
	}
	return fmt.Sprintf("[%s] got %.7g, want %.7g", strings.Join(idx, ", "), m.Got, m.Want)
}

// firstShown is how many mismatches besides the worst a Verdict keeps.
const firstShown = 5

// Verdict is one binding's output compared with what was expected.
type Verdict struct {
	Name      string  // the output's name (Target.Name)
	Binding   Binding // the binding, of a sequence the first, that binds it
	Tolerance Tolerance
	Diff      Diff
	Err       error // the arrays do not compare: their element counts differ
	Pass      bool  // no Err, and no element beyond the tolerance
	// Elements is the number of elements compared; Beyond those beyond
	// the tolerance (NaN in one array and not the other counts), Worst
	// the one of them with the largest error (a NaN mismatch first) and
	// First the first few others, in index order.
	Elements, Beyond int
	Worst            *Mismatch
	First            []Mismatch
}

// elements fills v's Beyond, Worst and First from got and want (which
// compare).
func (v *Verdict) elements(got, want *Array) {
	g, w := got.Values(), want.Values()
	v.Elements = len(g)
	var wmax float64
	for _, x := range w {
		if !math.IsNaN(x) {
			wmax = max(wmax, math.Abs(x))
		}
	}
	shape := got.Shape
	if n := product(shape); n != len(g) {
		shape = []int{len(g)}
	}
	worst := -1.0
	for i := range g {
		e := math.Abs(g[i] - w[i])
		nan := math.IsNaN(g[i]) != math.IsNaN(w[i])
		if !nan && math.IsNaN(g[i]) {
			continue // NaN where NaN is expected
		}
		bound := v.Tolerance.Tol * wmax
		if wmax == 0 {
			bound = v.Tolerance.Tol // as MaxRel is MaxAbs there
		}
		if v.Tolerance.Allclose {
			bound = v.Tolerance.Atol + v.Tolerance.Rtol*math.Abs(w[i])
		}
		if !nan && e <= bound {
			continue
		}
		v.Beyond++
		m := Mismatch{Index: unravel(i, shape), Got: g[i], Want: w[i]}
		if nan {
			e = math.Inf(1)
		}
		if e > worst {
			worst, v.Worst = e, &m
		}
		if len(v.First) <= firstShown {
			v.First = append(v.First, m)
		}
	}
	// The first few but the worst.
	if i := slices.IndexFunc(v.First, func(m Mismatch) bool { return slices.Equal(m.Index, v.Worst.Index) }); i >= 0 {
		v.First = slices.Delete(v.First, i, i+1)
	}
	v.First = v.First[:min(len(v.First), firstShown)]
}

func product(shape []int) int {
	n := 1
	for _, d := range shape {
		n *= d
	}
	return n
}

// unravel is flat index i in a C-order array of shape.
func unravel(i int, shape []int) []int {
	out := make([]int, len(shape))
	for d := len(shape) - 1; d >= 0; d-- {
		if shape[d] > 0 {
			out[d] = i % shape[d]
			i /= shape[d]
		}
	}
	return out
}

// Check compares the outputs of r with want, by binding number, in
// binding order; tol gives each binding's tolerance.
func (p *Plan) Check(r *Result, want map[int]*Array, tol func(binding int) Tolerance) []Verdict {
	return check(p, r, want, tol)
}

// Check compares the buffers r holds after a sequence's run with want,
// by buffer (the order NewSequence gave them); tol gives each one's
// tolerance. A Verdict's Binding is the first that binds the buffer.
func (s *Sequence) Check(r *Result, want map[int]*Array, tol func(buffer int) Tolerance) []Verdict {
	return check(s, r, want, tol)
}

// check compares t's outputs with want, in t's order.
func check(t Target, r *Result, want map[int]*Array, tol func(int) Tolerance) []Verdict {
	var out []Verdict
	for i := range t.Arrays() {
		exp, ok := want[i]
		if !ok || i >= len(r.Outputs) {
			continue
		}
		d, err := Compare(r.Outputs[i], exp)
		v := Verdict{Name: t.Name(i), Binding: t.binding(i), Tolerance: tol(i), Diff: d, Err: err}
		if err == nil {
			v.elements(r.Outputs[i], exp)
			v.Pass = v.Beyond == 0
		}
		out = append(out, v)
	}
	return out
}

// Target is what a plan and a sequence share for their outputs: the
// arrays they run on by index (a plan's bindings, a sequence's buffers),
// named, found by name, and checked.
type Target interface {
	// Arrays are the data before the run, by index.
	Arrays() []*Array
	// Name is how messages and file names call array i.
	Name(i int) string
	// Find is the index of an array by name (a plan: as FindBinding).
	Find(name string) (int, error)
	// Note is what a failing check should add (SubgroupNote), or "".
	Note(r *Result) string
	Check(r *Result, want map[int]*Array, tol func(int) Tolerance) []Verdict
	// Constants are the push, uniform and specialization constants set
	// by name (a uniform's BINDING.MEMBER as MEMBER), for a reference.
	Constants() []Setting
	// Run runs it on a device (Plan.Run, Sequence.Run).
	Run(ctx context.Context, dev *engine.Device) (*Result, error)
	// WriteRun writes run r: what it dispatched, and its times.
	WriteRun(w io.Writer, r *Result)
	binding(i int) Binding
	// writes says whether a run may write array i.
	writes(i int) bool
	// what names it in messages: a plan by its shader, a sequence by its
	// case file.
	what() string
}

// Constants are the settings of Options.Push, Uniform and Spec.
func (p *Plan) Constants() []Setting {
	var out []Setting
	for _, l := range [][]Setting{p.opt.Push, p.opt.Uniform, p.opt.Spec} {
		for _, s := range l {
			if _, m, ok := strings.Cut(s.Name, "."); ok {
				s.Name = m
			}
			out = append(out, s)
		}
	}
	return out
}

// Constants are the steps' (a later step's over an earlier's).
func (s *Sequence) Constants() []Setting {
	var out []Setting
	for _, st := range s.Steps {
		out = append(out, st.Plan.Constants()...)
	}
	return out
}

// Arrays are the plan's inputs, by binding number.
func (p *Plan) Arrays() []*Array { return p.Inputs }

// Name is BindName of binding i.
func (p *Plan) Name(i int) string { return BindName(p.Shader.Module.Bindings[i]) }

func (p *Plan) binding(i int) Binding { return p.Shader.Module.Bindings[i] }

func (p *Plan) writes(i int) bool { return !p.Shader.Module.Bindings[i].ReadOnly }

func (p *Plan) what() string { return p.Shader.Path }

// Find is the number of a binding, found as FindBinding does.
func (p *Plan) Find(name string) (int, error) {
	b, err := FindBinding(p.Shader.Module, name)
	if err != nil {
		return 0, err
	}
	return int(b.Binding), nil
}

// Note is SubgroupNote for the plan on r's device.
func (p *Plan) Note(r *Result) string {
	return SubgroupNote(p.Shader.Module, p.Local, r.Device, r.Subgroup)
}

// Arrays are the sequence's buffers.
func (s *Sequence) Arrays() []*Array { return s.Buffers }

// Name is buffer i's name, or for a step's own data that of the binding
// and step.
func (s *Sequence) Name(i int) string {
	if s.Names[i] != "" {
		return s.Names[i]
	}
	what, _ := s.describe(i)
	return what
}

func (s *Sequence) binding(i int) Binding {
	_, b := s.describe(i)
	return b
}

func (s *Sequence) writes(i int) bool { return s.Names[i] != "" }

func (s *Sequence) what() string { return s.File }

// Find is the index of a named buffer.
func (s *Sequence) Find(name string) (int, error) {
	if k := slices.Index(s.Names, name); k >= 0 && name != "" {
		return k, nil
	}
	var names []string
	for _, n := range s.Names {
		if n != "" {
			names = append(names, n)
		}
	}
	return 0, fmt.Errorf("no buffer %q; the sequence has %s", name, strings.Join(names, ", "))
}

// Note is the first step's with subgroup operations.
func (s *Sequence) Note(r *Result) string {
	for i, st := range s.Steps {
		if n := st.Plan.Note(r); n != "" {
			if len(s.Steps) > 1 {
				n = fmt.Sprintf("step %d: %s", i+1, n)
			}
			return n
		}
	}
	return ""
}

// Worst is the verdict's Diff of the largest MaxRel (the zero Diff for
// none).
func Worst(vs []Verdict) Diff {
	var w Diff
	for _, v := range vs {
		if v.Diff.MaxRel > w.MaxRel {
			w = v.Diff
		}
	}
	return w
}

// Summary is a check's verdicts in one: whether every one passes, the
// elements beyond the tolerance in all, and the largest MaxRel and NMSE.
type Summary struct {
	Pass         bool
	Beyond       int
	MaxRel, NMSE float64
}

// Summarize sums up vs.
func Summarize(vs []Verdict) Summary {
	s := Summary{Pass: true}
	for _, v := range vs {
		s.Pass = s.Pass && v.Pass
		s.Beyond += v.Beyond
		s.MaxRel, s.NMSE = max(s.MaxRel, v.Diff.MaxRel), max(s.NMSE, v.Diff.NMSE)
	}
	return s
}

// Written is what r holds of the bindings the shader may write (all but
// the readonly ones), by binding number: the reference to Check another
// run, on another device or of another shader, against.
func (p *Plan) Written(r *Result) map[int]*Array {
	out := map[int]*Array{}
	for i := range p.Shader.Module.Bindings {
		if p.writes(i) && i < len(r.Outputs) {
			out[i] = r.Outputs[i]
		}
	}
	return out
}
