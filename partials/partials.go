// Package partials writes and reads the partial results of vkstat's
// workloads (a shard's mergeable state: package reduce's, stack's and
// latent's Partial) as a folder of NPY files with a JSON header saying how
// they were made, and checks that shards to be merged were made alike.
// The command line's --partial writes them and vkstat merge reads them.
package partials

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/vkstat/vkstat/formats"
	"github.com/vkstat/vkstat/tensor"
)

// Format names the layout of a partial's header and arrays.
const Format = "vkstat-partial/1"

// HeaderName is the header's file name in a partial's folder.
const HeaderName = "partial.json"

// Facts are the settings of a partial that no option names, what its
// input made of it (Reduce's, Stack's and Latent's).
var Facts = map[string]bool{"dtype": true, "out-shape": true, "grid": true, "sample-shape": true}

// Header says how a partial was made: the workload, the settings every
// shard of one result must share (by name, as the workload's options
// spell them), this shard's own facts (its input, its extent), and the
// arrays beside it.
type Header struct {
	Format   string            `json:"format"`
	Workload string            `json:"workload"`
	Version  string            `json:"version"`
	Settings map[string]string `json:"settings"`
	Part     map[string]any    `json:"part"`
	Arrays   []string          `json:"arrays"`
}

// Shard is a partial read back: its folder, header and arrays by name.
type Shard struct {
	Dir    string
	Header Header
	Arrays map[string]*tensor.Tensor
}

// Write writes the partial (header h, arrays by name) into dir, which
// workload by then owns (formats.Outputs.OwnDir): one NAME.npy per array
// and the header, all or none.
func Write(ctx context.Context, dir, workload string, h Header, arrays map[string]*tensor.Tensor) error {
	outs := formats.Outputs{Ctx: ctx}
	defer outs.Abort()
	outs.OwnDir(dir, workload)
	h.Format = Format
	h.Arrays = h.Arrays[:0]
	for name := range arrays {
		h.Arrays = append(h.Arrays, name)
	}
	sort.Strings(h.Arrays)
	for _, name := range h.Arrays {
		t := arrays[name]
		outs.Add(filepath.Join(dir, name+".npy"), func(w io.Writer) error { return formats.EncodeNPY(w, t) })
	}
	outs.Add(filepath.Join(dir, HeaderName), func(w io.Writer) error {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(h)
	})
	return outs.Commit()
}

// Read reads the partial in dir (a folder, or its header file).
func Read(dir string) (*Shard, error) {
	if filepath.Base(dir) == HeaderName {
		dir = filepath.Dir(dir)
	}
	p := filepath.Join(dir, HeaderName)
	b, err := os.ReadFile(p)
	if err != nil {
		if os.IsNotExist(err) {
			return nil, fmt.Errorf("%s: no %s: not the folder of a partial", dir, HeaderName)
		}
		return nil, err
	}
	s := &Shard{Dir: dir, Arrays: map[string]*tensor.Tensor{}}
	dec := json.NewDecoder(strings.NewReader(string(b)))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&s.Header); err != nil {
		return nil, fmt.Errorf("%s: not a partial's header: %w", p, err)
	}
	if s.Header.Format != Format {
		return nil, fmt.Errorf("%s: format %q, want %q (written by another vkstat: run that shard again)", p, s.Header.Format, Format)
	}
	for _, name := range s.Header.Arrays {
		if name == "" || strings.ContainsAny(name, `/\`) || name != filepath.Clean(name) {
			return nil, fmt.Errorf("%s: array name %q is not a file name", p, name)
		}
		t, err := formats.ReadNPY(filepath.Join(dir, name+".npy"))
		if err != nil {
			return nil, fmt.Errorf("%s: %w", dir, err)
		}
		if t.DType != tensor.F64 {
			return nil, fmt.Errorf("%s: %s.npy holds %s values; a partial's are float64", dir, name, t.DType)
		}
		s.Arrays[name] = t
	}
	return s, nil
}

// Array is the shard's array name of n values, or an error naming it.
func (s *Shard) Array(name string, n int) ([]float64, error) {
	t, ok := s.Arrays[name]
	if !ok {
		return nil, fmt.Errorf("%s: no array %s in the partial", s.Dir, name)
	}
	if len(t.F64) != n {
		return nil, fmt.Errorf("%s: %s.npy holds %d values, the header's shapes %d", s.Dir, name, len(t.F64), n)
	}
	return t.F64, nil
}

// SettingsError is Check's error for shards made with different settings.
type SettingsError struct {
	Key    string   // the first setting that differs
	Values []string // its values, the first shard's first
	Dirs   []string // a shard with each value
}

// Format is the message with each value worded by name(key, value).
func (e *SettingsError) Format(name func(key, value string) string) string {
	var sides []string
	for i, v := range e.Values {
		w := "not set"
		if v != "\x00" {
			w = name(e.Key, v)
		}
		sides = append(sides, fmt.Sprintf("%s in %s", w, e.Dirs[i]))
	}
	return fmt.Sprintf("the partials were made with different settings: %s: make them again with the same settings", strings.Join(sides, "; "))
}

func (e *SettingsError) Error() string {
	return e.Format(func(k, v string) string { return k + " " + v })
}

// Check refuses shards of different workloads or settings, and a folder
// given twice.
func Check(shards []*Shard) error {
	if len(shards) == 0 {
		return fmt.Errorf("no partials to merge")
	}
	f := shards[0]
	keys := map[string]bool{}
	seen := map[string]string{}
	for _, s := range shards {
		if s.Header.Workload != f.Header.Workload {
			return fmt.Errorf("%s is a partial of %s but %s of %s: merge the partials of one workload", f.Dir, f.Header.Workload, s.Dir, s.Header.Workload)
		}
		abs, _ := filepath.Abs(s.Dir)
		if q, ok := seen[abs]; ok {
			return fmt.Errorf("%s is given twice (%s): each shard must be merged once", s.Dir, q)
		}
		seen[abs] = s.Dir
		for k := range s.Header.Settings {
			keys[k] = true
		}
	}
	sorted := make([]string, 0, len(keys))
	for k := range keys {
		sorted = append(sorted, k)
	}
	sort.Strings(sorted)
	for _, k := range sorted {
		e := &SettingsError{Key: k}
		for _, s := range shards {
			v, ok := s.Header.Settings[k]
			if !ok {
				v = "\x00"
			}
			if !slices.Contains(e.Values, v) {
				e.Values = append(e.Values, v)
				e.Dirs = append(e.Dirs, s.Dir)
			}
		}
		if len(e.Values) > 1 {
			return e
		}
	}
	return nil
}
