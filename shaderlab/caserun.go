package shaderlab

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// One shader run from a Case: the command line of vkstat shader run,
// check and watch is a Case (its flags filled in), merged over a --case
// file's, and each variant of a sweep is one.

// EntryError is an entry of a case that does not do, named as the
// command line names it without the dashes ("bind x=FILE.npy: ...", or
// "expect: ..." without an entry).
type EntryError struct {
	Field, Entry string
	Err          error
	// Usage: the entry itself is a mistake (a binding the shader lacks,
	// a malformed TYPE:SHAPE), not a file that cannot be read.
	Usage bool
}

func (e *EntryError) Error() string {
	if e.Entry == "" {
		return e.Field + ": " + e.Err.Error()
	}
	return e.Field + " " + e.Entry + ": " + e.Err.Error()
}

func (e *EntryError) Unwrap() error { return e.Err }

// Entry is a case's setting as a flag gives it: NAME=VALUE, or VALUE
// alone for "*" (a tolerance for every array).
func Entry(s Setting) string {
	if s.Name == "*" {
		return s.Value
	}
	return s.Name + "=" + s.Value
}

// ParseEntry reads an entry of a case's field as a flag gives it
// (Entry's inverse): NAME=VALUE; for define also NAME alone (an empty
// value), for atol and rtol VALUE alone (for every array, "*"). One that
// does not do is an *EntryError.
func ParseEntry(field, s string) (Setting, error) {
	k, v, ok := strings.Cut(s, "=")
	switch {
	case !ok && field == "define":
		return Setting{Name: s}, nil
	case !ok && (field == "atol" || field == "rtol"):
		return Setting{Name: "*", Value: s}, nil
	}
	if k, v = strings.TrimSpace(k), strings.TrimSpace(v); !ok || k == "" || v == "" {
		return Setting{}, &EntryError{field, fmt.Sprintf("%q", s), errors.New("want NAME=VALUE"), true}
	}
	return Setting{Name: k, Value: v}, nil
}

// Add adds an entry (ParseEntry) to the case's field of that JSON name:
// define, bind, push, uniform, spec, expect, reference, atol or rtol. A
// binding bound twice is an *EntryError.
func (sc *Case) Add(field, entry string) error {
	m := map[string]*map[string]any{"define": &sc.Define, "bind": &sc.Bind, "push": &sc.Push, "uniform": &sc.Uniform,
		"spec": &sc.Spec, "expect": &sc.Expect, "reference": &sc.Reference, "atol": &sc.Atol, "rtol": &sc.Rtol}[field]
	if m == nil {
		return fmt.Errorf("a case has no entries of %s", field)
	}
	s, err := ParseEntry(field, entry)
	if err != nil {
		return err
	}
	if *m == nil {
		*m = map[string]any{}
	}
	if _, twice := (*m)[s.Name]; twice && field == "bind" {
		return &EntryError{field, entry, fmt.Errorf("%s is bound twice", s.Name), true}
	}
	(*m)[s.Name] = s.Value
	return nil
}

// In is the case with its paths (shader, include, FILE.npy data of bind,
// expect, FILE.py of a reference) taken relative to dir, the case file's
// folder; absolute ones stay as they are.
func (sc Case) In(dir string) Case {
	out := sc
	out.Shader = sc.path(dir, sc.Shader)
	out.Include = nil
	for _, inc := range sc.Include {
		out.Include = append(out.Include, sc.path(dir, inc))
	}
	remap := func(m map[string]any, f func(v string) string) map[string]any {
		if m == nil {
			return nil
		}
		o := map[string]any{}
		for k, v := range m {
			o[k] = f(Value(v))
		}
		return o
	}
	out.Bind = remap(sc.Bind, func(v string) string {
		if NamesFile(v) {
			return sc.path(dir, v)
		}
		return v
	})
	out.Expect = remap(sc.Expect, func(v string) string { return sc.path(dir, v) })
	out.Reference = remap(sc.Reference, func(v string) string {
		if f, fn, ok := strings.Cut(v, ".py:"); ok && IsFunctionRef(v) {
			return sc.path(dir, f+".py") + ":" + fn
		}
		return v
	})
	return out
}

// Variants are the cases a sweep runs: each of its variants merged over
// the case (the case itself where it has none), named #1, #2, ... where it
// gives no name, its paths taken relative to dir (In), and over laid on
// it (Over: the command line's settings win).
func (sc Case) Variants(dir string, over Case) []Case {
	vs := sc.Sweep
	if len(vs) == 0 {
		vs = []Case{{Name: sc.Name}}
	}
	out := make([]Case, len(vs))
	for i, v := range vs {
		vc := sc.Merged(v)
		if vc.Name == "" {
			vc.Name = fmt.Sprintf("#%d", i+1)
		}
		out[i] = over.Over(vc.In(dir))
	}
	return out
}

// Over is the case merged over base (Merged: its settings win, maps
// merged key by key), with its include folders and then those of base it
// does not give; base's name and steps are kept.
func (sc Case) Over(base Case) Case {
	out := base.Merged(sc)
	out.Name, out.Include = base.Name, slices.Clone(sc.Include)
	for _, inc := range base.Include {
		if !slices.Contains(sc.Include, inc) {
			out.Include = append(out.Include, inc)
		}
	}
	return out
}

// Options are opt with the case's bindings read (FILE.npy, TYPE:SHAPE
// zeros, random:TYPE:SHAPE drawn from the case's seed) and checked
// against sh's, its push, uniform and specialization constants, and its
// dispatch. An entry that does not do is an *EntryError.
func (sc Case) Options(sh *Shader, opt Options) (Options, error) {
	for _, b := range Settings(sc.Bind) {
		bad := func(err error, usage bool) error { return &EntryError{"bind", Entry(b), err, usage} }
		binding, err := FindBinding(sh.Module, b.Name)
		if err != nil {
			return opt, bad(err, true)
		}
		arr, err := ReadData(b.Value, sc.seed(), BindName(*binding))
		var de *DataError
		if err != nil {
			return opt, bad(err, errors.As(err, &de))
		}
		if err := CheckData(*binding, arr); err != nil {
			return opt, err
		}
		opt.Bind = append(opt.Bind, Bind{Name: b.Name, Data: arr})
	}
	steps, err := sc.StepOptions()
	if err != nil {
		return opt, &CaseError{err}
	}
	opt.Push, opt.Spec, opt.Uniform, opt.Groups, opt.Global = steps.Push, steps.Spec, steps.Uniform, steps.Groups, steps.Global
	return opt, nil
}

// Plan is the plan of sh that the case's settings (Options) and opt's run
// settings give; an entry of bind, push, uniform or spec the shader cannot
// take is an *EntryError naming it (NewPlan's *SettingError by its field
// and index).
func (sc Case) Plan(sh *Shader, opt Options) (*Plan, error) {
	opt, err := sc.Options(sh, opt)
	if err != nil {
		return nil, err
	}
	p, err := NewPlan(sh, opt)
	var se *SettingError
	if errors.As(err, &se) {
		field := strings.ToLower(se.Field)
		m := map[string]map[string]any{"bind": sc.Bind, "push": sc.Push, "spec": sc.Spec, "uniform": sc.Uniform}[field]
		return nil, &EntryError{field, Entry(Settings(m)[se.Index]), se.Err, true}
	}
	return p, err
}

// Expectations are the case's expected arrays of t by index: its expect
// files, read, and its references computed (References, from t's arrays
// before the run). An entry that does not do is an *EntryError.
func (sc Case) Expectations(ctx context.Context, t Target) (map[int]*Array, error) {
	want := map[int]*Array{}
	for _, e := range Settings(sc.Expect) {
		bad := func(err error, usage bool) error { return &EntryError{"expect", Entry(e), err, usage} }
		i, err := t.Find(e.Name)
		if err != nil {
			return nil, bad(err, true)
		}
		if st, err := os.Stat(e.Value); err != nil {
			return nil, &EntryError{Field: "expect", Err: err}
		} else if st.IsDir() {
			return nil, &EntryError{Field: "expect", Err: fmt.Errorf("%s is a directory, not a file", e.Value)}
		}
		arr, err := ReadNPY(e.Value)
		if err != nil {
			return nil, bad(err, false)
		}
		if got := t.Arrays()[i]; arr.Len() != got.Len() {
			return nil, bad(fmt.Errorf("%s holds %s, the expectation is %s", t.Name(i), got, arr), false)
		}
		want[i] = arr
	}
	refs := map[int]string{}
	for _, r := range Settings(sc.Reference) {
		i, err := t.Find(r.Name)
		if err != nil {
			return nil, &EntryError{"reference", Entry(r), err, true}
		}
		if want[i] != nil {
			return nil, &EntryError{"reference", Entry(r), fmt.Errorf("%s has an expect already", t.Name(i)), true}
		}
		refs[i] = r.Value
	}
	if len(refs) == 0 {
		return want, nil
	}
	got, err := References(ctx, t, refs)
	if err != nil {
		return nil, err
	}
	maps.Copy(want, got)
	return want, nil
}

// Tolerances are the case's tolerances of t's arrays (Tolerances): tol
// (1e-5 where it gives none), atol and rtol; one that does not do is a
// *CaseError.
func (sc Case) Tolerances(t Target) (func(int) Tolerance, error) {
	tol := 1e-5
	if sc.Tol != nil {
		tol = *sc.Tol
	}
	entries := func(m map[string]any) []string {
		var out []string
		for _, s := range Settings(m) {
			out = append(out, Entry(s))
		}
		return out
	}
	f, err := Tolerances(t, tol, entries(sc.Atol), entries(sc.Rtol))
	if err != nil {
		return nil, &CaseError{err}
	}
	return f, nil
}

// OutFiles are the files of t's arrays (per array, its file or "" for
// none) that out names (NAME=FILE.npy entries) and dir gives (DIR/NAME.npy
// for each array a run may write); an entry that does not do is an
// *EntryError.
func OutFiles(t Target, out []string, dir string) ([]string, error) {
	files := make([]string, len(t.Arrays()))
	for _, s := range out {
		e, err := ParseEntry("out", s)
		if err != nil {
			return nil, err
		}
		i, err := t.Find(e.Name)
		if err != nil {
			return nil, &EntryError{"out", s, err, true}
		}
		files[i] = e.Value
	}
	for i := range files {
		if dir != "" && t.writes(i) && files[i] == "" {
			files[i] = filepath.Join(dir, t.Name(i)+".npy")
		}
		if files[i] != "" && !strings.HasSuffix(files[i], ".npy") {
			return nil, &EntryError{"out", t.Name(i) + "=" + files[i], errors.New("outputs are .npy files"), true}
		}
	}
	return files, nil
}

// WatchFiles are the files whose change should run the case's shader,
// path, again: its sources (SourceFiles, with the case's include folders)
// and the NPY files of its bind and expect.
func (sc Case) WatchFiles(path string) []string {
	files := SourceFiles(path, sc.Include)
	for _, m := range []map[string]any{sc.Bind, sc.Expect} {
		for _, s := range Settings(m) {
			if strings.HasSuffix(s.Value, ".npy") {
				files = append(files, s.Value)
			}
		}
	}
	return files
}
