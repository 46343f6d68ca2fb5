package shaderlab

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
)

// Case is one shader run described as data: a case file of vkstat shader
// (--case, sweep) and each step of Python's vkstat.shader decode into it.
// Values are JSON values as a flag takes them (Value): 2.5, 1000, "x", a
// list [X, Y, Z]; paths are relative to the case file.
type Case struct {
	// Name names a sweep's variant; for a step given as source, the name
	// of its source in messages.
	Name      string         `json:"name"`
	Shader    string         `json:"shader"`
	Include   []string       `json:"include"`
	Define    map[string]any `json:"define"`
	TargetEnv string         `json:"target_env"`
	// Bind gives each binding (number, instance or block name) its data:
	// FILE.npy, TYPE:SHAPE zeros, random:TYPE:SHAPE, or in a step the name
	// of a buffer.
	Bind      map[string]any `json:"bind"`
	Push      map[string]any `json:"push"`
	Uniform   map[string]any `json:"uniform"`
	Spec      map[string]any `json:"spec"`
	Groups    any            `json:"groups"`
	Global    any            `json:"global"`
	Expect    map[string]any `json:"expect"`
	Reference map[string]any `json:"reference"`
	Seed      *int64         `json:"seed"`
	Tol       *float64       `json:"tol"`
	Atol      map[string]any `json:"atol"`
	Rtol      map[string]any `json:"rtol"`
	// Flops is the floating-point operations of one dispatch, for the
	// sweep's GFLOP/s (0: not given).
	Flops float64 `json:"flops"`
	Sweep []Case  `json:"sweep"`
	// Buffers and Steps make a sequence: buffers by name (FILE.npy or
	// TYPE:SHAPE) that stay on the device, and steps, each a shader run
	// (bind names buffers) Times times in a row.
	Buffers map[string]any `json:"buffers"`
	Steps   []Case         `json:"steps"`
	Times   int            `json:"times"`
}

// ReadCase reads a case file.
func ReadCase(path string) (*Case, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var sc Case
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	dec.UseNumber()
	if err := dec.Decode(&sc); err != nil {
		return nil, fmt.Errorf("%s: %w (a case file is JSON: shader, include, define, target_env, bind, push, uniform, spec, groups or global, expect, reference, seed, tol, atol, rtol, flops, sweep; buffers, steps, times)", path, err)
	}
	return &sc, nil
}

// Merged is the case with v's settings over it (maps merged key by key).
func (sc Case) Merged(v Case) Case {
	out := sc
	out.Sweep, out.Name = nil, v.Name
	pick := func(a, b string) string {
		if b != "" {
			return b
		}
		return a
	}
	out.Shader, out.TargetEnv = pick(sc.Shader, v.Shader), pick(sc.TargetEnv, v.TargetEnv)
	if v.Include != nil {
		out.Include = v.Include
	}
	for _, p := range []struct {
		dst *map[string]any
		src map[string]any
	}{{&out.Define, v.Define}, {&out.Bind, v.Bind}, {&out.Push, v.Push}, {&out.Uniform, v.Uniform},
		{&out.Spec, v.Spec}, {&out.Expect, v.Expect}, {&out.Reference, v.Reference}, {&out.Atol, v.Atol}, {&out.Rtol, v.Rtol}} {
		m := map[string]any{}
		maps.Copy(m, *p.dst)
		maps.Copy(m, p.src)
		*p.dst = m
	}
	if v.Groups != nil || v.Global != nil {
		out.Groups, out.Global = v.Groups, v.Global
	}
	if v.Tol != nil {
		out.Tol = v.Tol
	}
	if v.Seed != nil {
		out.Seed = v.Seed
	}
	if v.Flops != 0 {
		out.Flops = v.Flops
	}
	return out
}

// CheckStep refuses, in a step of a sequence, what only a whole case
// gives.
func (sc Case) CheckStep() error {
	if len(sc.Steps) > 0 || len(sc.Sweep) > 0 || sc.Buffers != nil || sc.Expect != nil || sc.Reference != nil || sc.Seed != nil || sc.Tol != nil || sc.Atol != nil || sc.Rtol != nil {
		return fmt.Errorf("a step gives shader, include, define, target_env, bind, push, uniform, spec, groups or global, and times")
	}
	return nil
}

// Value is a case's JSON value as a flag takes it: 2.5, 1000, true, "x";
// a list as X,Y,Z.
func Value(v any) string {
	if l, ok := v.([]any); ok {
		parts := make([]string, len(l))
		for i, x := range l {
			parts[i] = Value(x)
		}
		return strings.Join(parts, ",")
	}
	return fmt.Sprint(v)
}

// Settings are m's NAME=VALUE entries in name order.
func Settings(m map[string]any) []Setting {
	out := make([]Setting, 0, len(m))
	for _, k := range slices.Sorted(maps.Keys(m)) {
		out = append(out, Setting{Name: k, Value: Value(m[k])})
	}
	return out
}

// Defines are the case's macros as CompileOptions takes them, in name
// order: NAME=VALUE, or NAME where the value is empty or null.
func (sc Case) Defines() []string {
	var out []string
	for _, d := range Settings(sc.Define) {
		if d.Value != "" && d.Value != "<nil>" {
			out = append(out, d.Name+"="+d.Value)
		} else {
			out = append(out, d.Name)
		}
	}
	return out
}

// StepOptions are a step's options: its constants, its dispatch, and its
// bindings, each naming a buffer of the sequence.
func (sc Case) StepOptions() (Options, error) {
	o := Options{Push: Settings(sc.Push), Spec: Settings(sc.Spec), Uniform: Settings(sc.Uniform)}
	if sc.Groups != nil && sc.Global != nil {
		return o, fmt.Errorf("give groups or global, not both")
	}
	for _, b := range Settings(sc.Bind) {
		o.Bind = append(o.Bind, Bind{Name: b.Name, Buffer: b.Value})
	}
	if sc.Groups != nil {
		g, err := ParseDims(Value(sc.Groups))
		if err != nil {
			return o, fmt.Errorf("groups %w", err)
		}
		o.Groups = [3]uint32{uint32(g[0]), uint32(g[1]), uint32(g[2])}
	}
	if sc.Global != nil {
		var err error
		if o.Global, err = ParseDims(Value(sc.Global)); err != nil {
			return o, fmt.Errorf("global %w", err)
		}
	}
	return o, nil
}

// ParseDims reads X[,Y[,Z]] (the dimensions not given are 1).
func ParseDims(s string) ([3]uint64, error) {
	d := [3]uint64{1, 1, 1}
	parts := strings.Split(s, ",")
	if len(parts) > 3 {
		return d, fmt.Errorf("%q: want X, X,Y or X,Y,Z", s)
	}
	for i, p := range parts {
		v, err := strconv.ParseUint(strings.TrimSpace(p), 10, 32)
		if err != nil || v == 0 {
			return d, fmt.Errorf("%q: want positive integers X[,Y[,Z]]", s)
		}
		d[i] = v
	}
	return d, nil
}

// CaseError is a mistake in a case's description, found before any file
// is compiled or any device work (the command line's usage errors).
type CaseError struct{ Err error }

func (e *CaseError) Error() string { return e.Err.Error() }
func (e *CaseError) Unwrap() error { return e.Err }

func caseErrorf(format string, a ...any) error { return &CaseError{fmt.Errorf(format, a...)} }

// Sequence is the case's "buffers" and "steps" as a Sequence named by
// file, the case file: files are relative to its folder, random data is drawn from the case's seed, each step is merged over
// the case (its shader, include, define, constants) and binds the case's
// buffers by name or data of its own. opt gives the steps' NoBoundsCheck
// and the run settings. A mistake in the description is a *CaseError,
// a malformed TYPE:SHAPE a *CaseError around a *DataError.
func (sc Case) Sequence(file string, opt Options) (*Sequence, error) {
	dir := filepath.Dir(file)
	switch {
	case len(sc.Sweep) > 0:
		return nil, caseErrorf("a case has steps or a sweep, not both")
	case sc.Bind != nil || sc.Groups != nil || sc.Global != nil:
		return nil, caseErrorf("a case with steps gives bind, groups or global per step")
	case sc.Times < 0:
		return nil, caseErrorf("times %d: want 1 or more", sc.Times)
	}
	path := func(p string) string {
		if !NamesFile(p) || filepath.IsAbs(p) {
			return p
		}
		return filepath.Join(dir, p)
	}
	read := func(what, key, v string) (*Array, error) {
		arr, err := ReadData(path(v), sc.seed(), key)
		var de *DataError
		if errors.As(err, &de) {
			return nil, &CaseError{fmt.Errorf("%s: %w", what, err)}
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %w", what, err)
		}
		return arr, nil
	}
	names := slices.Sorted(maps.Keys(sc.Buffers))
	var buffers []Buffer
	for _, k := range names {
		arr, err := read("buffer "+k, k, Value(sc.Buffers[k]))
		if err != nil {
			return nil, err
		}
		buffers = append(buffers, Buffer{Name: k, Data: arr})
	}
	var steps []Step
	for i, st := range sc.Steps {
		what := fmt.Sprintf("step %d", i+1)
		if err := st.CheckStep(); err != nil {
			return nil, caseErrorf("%s: %v", what, err)
		}
		if st.Times < 0 {
			return nil, caseErrorf("%s: times %d: want 1 or more", what, st.Times)
		}
		m := sc.Merged(st)
		m.Bind, m.Times = nil, st.Times
		if m.Shader == "" {
			return nil, caseErrorf("%s names no shader", what)
		}
		m.Shader = m.path(dir, m.Shader)
		step, err := m.Step("", m.CompileOptions(dir))
		var ce *CaseError
		if errors.As(err, &ce) {
			return nil, caseErrorf("%s: %v", what, err)
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %w", what, err)
		}
		o := &step.Options
		o.NoBoundsCheck = opt.NoBoundsCheck
		for _, b := range Settings(st.Bind) {
			if slices.Contains(names, b.Value) {
				o.Bind = append(o.Bind, Bind{Name: b.Name, Buffer: b.Value})
				continue
			}
			if NamesFile(b.Value) && !fileThere(path(b.Value)) {
				return nil, caseErrorf("%s: bind %s=%s: no buffer %q (the case has %s) and no file %s", what, b.Name, b.Value, b.Value, strings.Join(names, ", "), path(b.Value))
			}
			arr, err := read(what+": bind "+b.Name, b.Name, b.Value)
			if err != nil {
				return nil, err
			}
			o.Bind = append(o.Bind, Bind{Name: b.Name, Data: arr})
		}
		steps = append(steps, step)
	}
	seq, err := NewSequence(buffers, steps, opt)
	if err != nil {
		return nil, err
	}
	seq.Times, seq.File = sc.Times, file
	return seq, nil
}

// Step is the case as a step of a sequence: its shader file loaded or,
// where source is given, that GLSL compiled as sc.Name ("shader.comp"
// where it has none), with co; its constants, dispatch and Times; and its
// bindings, each naming a buffer (StepOptions). A mistake in its settings
// is a *CaseError.
func (sc Case) Step(source string, co CompileOptions) (Step, error) {
	var sh *Shader
	var err error
	if source != "" {
		name := sc.Name
		if name == "" {
			name = "shader.comp"
		}
		sh, err = Compile(name, []byte(source), co)
	} else {
		sh, err = Load(sc.Shader, co)
	}
	if err != nil {
		return Step{}, err
	}
	o, err := sc.StepOptions()
	if err != nil {
		return Step{}, &CaseError{err}
	}
	return Step{Shader: sh, Options: o, Times: sc.Times}, nil
}

// seed is the seed of the case's random:TYPE:SHAPE data (0 where it gives
// none).
func (sc Case) seed() uint64 {
	if sc.Seed == nil {
		return 0
	}
	return uint64(*sc.Seed)
}

// path is p relative to dir, unless it is absolute.
func (Case) path(dir, p string) string {
	if p == "" || filepath.IsAbs(p) {
		return p
	}
	return filepath.Join(dir, p)
}

// CompileOptions are the case's include (relative to dir), define and
// target_env (vulkan1.1 where it gives none).
func (sc Case) CompileOptions(dir string) CompileOptions {
	o := CompileOptions{Defines: sc.Defines(), TargetEnv: sc.TargetEnv}
	if o.TargetEnv == "" {
		o.TargetEnv = "vulkan1.1"
	}
	for _, inc := range sc.Include {
		o.Includes = append(o.Includes, sc.path(dir, inc))
	}
	return o
}
