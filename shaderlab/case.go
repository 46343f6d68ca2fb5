package shaderlab

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"os"
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
