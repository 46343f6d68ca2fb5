// Package tune is vkstat's one home for per-device tuning: each tunable
// pipeline has a tune file (defaults/<pipeline>.json, embedded) that names
// its parameters (workgroup sizes, chunking, kernel variants), their
// built-in defaults and the rules that change them for a device, matched
// against the device report (vendor id, device type, name, subgroup size
// and operations, shared memory). `vkstat bench --tune` measures the
// candidates on the present device and stores the winners in the user's
// cache directory (CachePath); those values win over the built-in rules.
// Resolve gives the parameters a pipeline runs with, and where each one
// came from, which `vkstat devices` prints.
package tune

import (
	"context"
	"embed"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/vkstat/vkstat/engine"
	"github.com/vkstat/vkstat/internal/smallfile"
)

//go:embed defaults/*.json
var defaultsFS embed.FS

// ErrBad marks a malformed tune or cache file, or a value out of range.
var ErrBad = errors.New("bad tuning")

// Param declares one parameter of a pipeline: its default, and the values
// it may take (choices for a string; min, max and pow2 for an integer).
type Param struct {
	Default any      `json:"default"`
	Choices []string `json:"choices,omitempty"`
	Min     *int     `json:"min,omitempty"`
	Max     *int     `json:"max,omitempty"`
	Pow2    bool     `json:"pow2,omitempty"`
	Doc     string   `json:"doc"`
}

// Match selects devices by their report; every field given must match.
type Match struct {
	VendorID        []uint32 `json:"vendor_id,omitempty"`
	Type            []string `json:"type,omitempty"`          // cpu, discrete, integrated, virtual
	NameContains    string   `json:"name_contains,omitempty"` // in the name or driver, any case
	SubgroupSizeMin uint32   `json:"subgroup_size_min,omitempty"`
	SubgroupSizeMax uint32   `json:"subgroup_size_max,omitempty"`
	SubgroupOps     []string `json:"subgroup_ops,omitempty"` // all of these
	SharedMemoryMin uint32   `json:"shared_memory_min,omitempty"`
}

// Rule sets parameters on the devices it matches. Why says what it rests
// on and where that was measured.
type Rule struct {
	Match Match          `json:"match"`
	Set   map[string]any `json:"set"`
	Why   string         `json:"why"`
}

// File is one pipeline's tune file.
type File struct {
	Pipeline string           `json:"pipeline"`
	Doc      string           `json:"doc"`
	Params   map[string]Param `json:"params"`
	Rules    []Rule           `json:"rules"`
}

func (m Match) matches(d engine.DeviceInfo) bool {
	if len(m.VendorID) > 0 && !slices.Contains(m.VendorID, d.VendorID) {
		return false
	}
	if len(m.Type) > 0 && !slices.Contains(m.Type, d.Type) {
		return false
	}
	if m.NameContains != "" && !strings.Contains(strings.ToLower(d.Name+" "+d.Driver), strings.ToLower(m.NameContains)) {
		return false
	}
	if m.SubgroupSizeMin > 0 && d.SubgroupSize < m.SubgroupSizeMin || m.SubgroupSizeMax > 0 && d.SubgroupSize > m.SubgroupSizeMax {
		return false
	}
	for _, op := range m.SubgroupOps {
		if !slices.Contains(d.SubgroupOps, op) {
			return false
		}
	}
	return m.SharedMemoryMin == 0 || d.MaxSharedMemory >= m.SharedMemoryMin
}

// check normalises v (an int, or a string) against p: JSON numbers become
// int.
func (p Param) check(v any) (any, error) {
	switch x := v.(type) {
	case string:
		if len(p.Choices) == 0 {
			return nil, fmt.Errorf("%q: want an integer", x)
		}
		if !slices.Contains(p.Choices, x) {
			return nil, fmt.Errorf("%q: want one of %s", x, strings.Join(p.Choices, ", "))
		}
		return x, nil
	case float64, int:
		if len(p.Choices) > 0 {
			return nil, fmt.Errorf("%v: want one of %s", x, strings.Join(p.Choices, ", "))
		}
		f, ok := x.(float64)
		if !ok {
			f = float64(x.(int))
		}
		if f != math.Trunc(f) || math.Abs(f) > 1<<31 {
			return nil, fmt.Errorf("%v: want an integer", x)
		}
		n := int(f)
		if p.Min != nil && n < *p.Min || p.Max != nil && n > *p.Max {
			return nil, fmt.Errorf("%d: want %d to %d", n, deref(p.Min), deref(p.Max))
		}
		if p.Pow2 && n&(n-1) != 0 {
			return nil, fmt.Errorf("%d: want a power of two", n)
		}
		return n, nil
	}
	return nil, fmt.Errorf("%v: want a number or a string", v)
}

func deref(p *int) int {
	if p == nil {
		return 0
	}
	return *p
}

var (
	loadOnce sync.Once
	files    map[string]*File
	loadErr  error
)

func load() {
	files = map[string]*File{}
	ents, err := defaultsFS.ReadDir("defaults")
	if err != nil {
		loadErr = err
		return
	}
	for _, e := range ents {
		path := "defaults/" + e.Name()
		b, err := defaultsFS.ReadFile(path)
		if err != nil {
			loadErr = err
			return
		}
		f, err := parseFile(path, b)
		if err != nil {
			loadErr = err
			return
		}
		files[f.Pipeline] = f
	}
}

// parseFile reads and checks a tune file: every default and every rule's
// values must be valid values of declared parameters.
func parseFile(name string, b []byte) (*File, error) {
	var f File
	dec := json.NewDecoder(strings.NewReader(string(b)))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&f); err != nil {
		return nil, fmt.Errorf("tune file %s: %w: %w", name, ErrBad, err)
	}
	if f.Pipeline == "" {
		return nil, fmt.Errorf("tune file %s: %w: no \"pipeline\"", name, ErrBad)
	}
	for k, p := range f.Params {
		v, err := p.check(p.Default)
		if err != nil {
			return nil, fmt.Errorf("tune file %s: %w: %s default %w", name, ErrBad, k, err)
		}
		p.Default = v
		f.Params[k] = p
	}
	for i, r := range f.Rules {
		if _, err := f.checkSet(r.Set); err != nil {
			return nil, fmt.Errorf("tune file %s: rule %d: %w", name, i+1, err)
		}
	}
	return &f, nil
}

// checkSet normalises a set of values against f's parameters.
func (f *File) checkSet(set map[string]any) (map[string]any, error) {
	out := make(map[string]any, len(set))
	for k, v := range set {
		p, ok := f.Params[k]
		if !ok {
			return nil, fmt.Errorf("%w: %s has no parameter %q (it has %s)", ErrBad, f.Pipeline, k, strings.Join(keys(f.Params), ", "))
		}
		n, err := p.check(v)
		if err != nil {
			return nil, fmt.Errorf("%w: %s.%s = %w", ErrBad, f.Pipeline, k, err)
		}
		out[k] = n
	}
	return out, nil
}

func keys[V any](m map[string]V) []string {
	ks := make([]string, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return ks
}

// Pipelines lists the tunable pipelines.
func Pipelines() []string {
	loadOnce.Do(load)
	return keys(files)
}

// Spec returns a pipeline's tune file.
func Spec(pipeline string) (*File, error) {
	loadOnce.Do(load)
	if loadErr != nil {
		return nil, loadErr
	}
	f, ok := files[pipeline]
	if !ok {
		return nil, fmt.Errorf("tune: no tune file for pipeline %q", pipeline)
	}
	return f, nil
}

// Params are a pipeline's resolved parameters.
type Params struct {
	Pipeline string
	values   map[string]any
	sources  map[string]string
}

// Int returns an integer parameter (0 when it is not one).
func (p Params) Int(name string) int { n, _ := p.values[name].(int); return n }

// Str returns a string parameter ("" when it is not one).
func (p Params) Str(name string) string { s, _ := p.values[name].(string); return s }

// Value returns a parameter's value, an int or a string.
func (p Params) Value(name string) any { return p.values[name] }

// Source says where a parameter's value came from: "default", "rule: …",
// "cache <file>" or "override".
func (p Params) Source(name string) string { return p.sources[name] }

// Names lists the parameters, sorted.
func (p Params) Names() []string { return keys(p.values) }

// Errorf is an error about parameter name that says where its value came
// from, e.g. a workgroup size the device cannot run.
func (p Params) Errorf(name, format string, args ...any) error {
	return fmt.Errorf("tune: %s.%s = %v (from %s): %w: %s", p.Pipeline, name, p.values[name], p.sources[name], ErrBad, fmt.Sprintf(format, args...))
}

type overrideKey struct{ pipeline string }

// WithOverride returns a context under which Resolve gives set's values for
// pipeline, over every other source: `vkstat bench --tune` times its
// candidates so, and tests force kernels so.
func WithOverride(ctx context.Context, pipeline string, set map[string]any) context.Context {
	return context.WithValue(ctx, overrideKey{pipeline}, set)
}

// Builtin returns pipeline's built-in parameters on the device info
// describes: the defaults, then each matching rule in order.
func Builtin(pipeline string, info engine.DeviceInfo) (Params, error) {
	f, err := Spec(pipeline)
	if err != nil {
		return Params{}, err
	}
	p := Params{Pipeline: pipeline, values: map[string]any{}, sources: map[string]string{}}
	for k, d := range f.Params {
		p.values[k], p.sources[k] = d.Default, "default"
	}
	for i, r := range f.Rules {
		if r.Match.matches(info) {
			set, _ := f.checkSet(r.Set) // checked by parseFile
			for k, v := range set {
				p.values[k], p.sources[k] = v, fmt.Sprintf("rule %d of the built-in %s tune file", i+1, pipeline)
			}
		}
	}
	return p, nil
}

// Resolve returns pipeline's parameters on the device info describes: the
// defaults, then each matching rule in order, then the user's cache file
// (CachePath) when it has this pipeline, then an override in ctx. A
// malformed cache file is an error that names it.
func Resolve(ctx context.Context, pipeline string, info engine.DeviceInfo) (Params, error) {
	p, err := Builtin(pipeline, info)
	if err != nil {
		return Params{}, err
	}
	f, _ := Spec(pipeline)
	apply := func(set map[string]any, src string) {
		for k, v := range set {
			p.values[k], p.sources[k] = v, src
		}
	}
	if path, ok := CachePath(info); ok {
		c, err := ReadCache(path)
		switch {
		case errors.Is(err, os.ErrNotExist):
		case err != nil:
			return Params{}, err
		default:
			if set, ok := c.Pipelines[pipeline]; ok {
				set, err := f.checkSet(set)
				if err != nil {
					return Params{}, fmt.Errorf("tune cache %s: %w", path, err)
				}
				apply(set, "cache "+path)
			}
		}
	}
	if set, ok := ctx.Value(overrideKey{pipeline}).(map[string]any); ok {
		set, err := f.checkSet(set)
		if err != nil {
			return Params{}, fmt.Errorf("tune override: %w", err)
		}
		apply(set, "override")
	}
	return p, nil
}

// Cache is a tuning cache file: the winners of `vkstat bench --tune` on one
// device, per pipeline, and the table they won.
type Cache struct {
	Device    string                    `json:"device"`
	Key       string                    `json:"key"`
	Measured  string                    `json:"measured"`
	Version   string                    `json:"vkstat_version"`
	Pipelines map[string]map[string]any `json:"pipelines"`
	Tables    map[string][]string       `json:"tables,omitempty"`
}

// DeviceKey names a device in the cache: vendor id, device id and driver
// version, so that a new driver is tuned again.
func DeviceKey(info engine.DeviceInfo) string {
	drv := strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '.' || r == '_' {
			return r
		}
		return '_'
	}, info.DriverVersion)
	return fmt.Sprintf("%04x-%04x-%s", info.VendorID, info.DeviceID, drv)
}

// Dir is the tuning cache folder: $VKSTAT_TUNE_DIR, else
// os.UserCacheDir()/vkstat/tune. VKSTAT_TUNE_DIR=off turns the cache off
// (built-in values only); ok is false then, or when there is no cache dir.
func Dir() (string, bool) {
	d := smallfile.CacheDir("VKSTAT_TUNE_DIR", "tune")
	return d, d != ""
}

// CachePath is the cache file of a device: Dir()/<DeviceKey>.json.
func CachePath(info engine.DeviceInfo) (string, bool) {
	d, ok := Dir()
	if !ok {
		return "", false
	}
	return filepath.Join(d, DeviceKey(info)+".json"), true
}

// ReadCache reads and checks a cache file; a missing file's error wraps
// os.ErrNotExist, a malformed one's names the file.
func ReadCache(path string) (*Cache, error) {
	b, err := smallfile.Read(path, 16<<20) // a few KB per device
	if err != nil {
		return nil, err
	}
	var c Cache
	dec := json.NewDecoder(strings.NewReader(string(b)))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&c); err != nil {
		return nil, fmt.Errorf("tune cache %s: %w: %w (delete it, or tune the device again to rewrite it)", path, ErrBad, err)
	}
	for name, set := range c.Pipelines {
		f, err := Spec(name)
		if err != nil {
			return nil, fmt.Errorf("tune cache %s: %w: %w", path, ErrBad, err)
		}
		if _, err := f.checkSet(set); err != nil {
			return nil, fmt.Errorf("tune cache %s: %w", path, err)
		}
	}
	return &c, nil
}

// WriteCache stores c at path (its folder made when missing), replacing it
// atomically.
func WriteCache(path string, c *Cache) error {
	if err := writeJSON(path, c); err != nil {
		return fmt.Errorf("tune cache: %w", err)
	}
	return nil
}

// writeJSON stores v as indented JSON at path, atomically
// (smallfile.Write).
func writeJSON(path string, v any) error {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	return smallfile.Write(path, append(b, '\n'))
}

// DeviceReport is a device's tuning as vkstat devices reports it: the
// tune cache it reads and every pipeline's parameters with their sources.
type DeviceReport struct {
	Device int    `json:"device"`
	Name   string `json:"name"`
	Cache  string `json:"cache"` // the tune cache file it reads, "" when off
	// CacheState is "off", "absent", "present" or the error reading it.
	CacheState string                            `json:"cache_state"`
	Pipelines  map[string]map[string]ParamReport `json:"pipelines"`
}

// ParamReport is a tuned parameter's value and where it comes from.
type ParamReport struct {
	Value  any    `json:"value"`
	Source string `json:"source"`
}

// Report is d's DeviceReport: Resolve's parameters for every pipeline
// (Builtin's where Resolve fails).
func Report(ctx context.Context, d engine.DeviceInfo) DeviceReport {
	dt := DeviceReport{Device: d.Index, Name: d.Name, CacheState: "off", Pipelines: map[string]map[string]ParamReport{}}
	if path, ok := CachePath(d); ok {
		dt.Cache, dt.CacheState = path, "present"
		if _, err := ReadCache(path); errors.Is(err, os.ErrNotExist) {
			dt.CacheState = "absent"
		} else if err != nil {
			dt.CacheState = err.Error()
		}
	}
	for _, name := range Pipelines() {
		p, err := Resolve(ctx, name, d)
		if err != nil {
			p, _ = Builtin(name, d)
		}
		m := map[string]ParamReport{}
		for _, k := range p.Names() {
			m[k] = ParamReport{p.Value(k), p.Source(k)}
		}
		dt.Pipelines[name] = m
	}
	return dt
}
