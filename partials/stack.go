package partials

import (
	"encoding/json"
	"fmt"
	"strconv"

	"github.com/vkstat/vkstat/formats"
	"github.com/vkstat/vkstat/pipelines/stack"
	"github.com/vkstat/vkstat/tensor"
)

// Stack is the header (workload stack, the output's size and the dates'
// grid as settings, the number of dates and their files as the part) and
// the arrays of p, a partial of the dates files of grid g. The caller adds
// the settings of its own.
func Stack(p *stack.Partial, g StackGrid, files []string) (Header, map[string]*tensor.Tensor, error) {
	grid, err := json.Marshal(g)
	if err != nil {
		return Header{}, nil, err
	}
	h := Header{Workload: "stack",
		Settings: map[string]string{"out-shape": tensor.ShapeString([]int{p.H, p.W}), "grid": string(grid)},
		Part:     map[string]any{"dates": p.Dates, "files": files}}
	arr := func(v []float64) *tensor.Tensor { return tensor.FromF64(v, p.H, p.W) }
	return h, map[string]*tensor.Tensor{"count": arr(p.Count), "mean": arr(p.Mean), "m2": arr(p.M2), "min": arr(p.Min), "max": arr(p.Max),
		"samples": arr(p.Samples)}, nil
}

// StackPartial reads s back as a stack.Partial.
func StackPartial(s *Shard) (*stack.Partial, error) {
	h := s.Header
	if h.Workload != "stack" {
		return nil, fmt.Errorf("%s: a partial of %s, not of stack", s.Dir, h.Workload)
	}
	dates, ok := h.Part["dates"].(float64)
	if !ok || dates < 1 || dates != float64(int(dates)) {
		return nil, fmt.Errorf("%s: the header's dates (%v) is not a count", s.Dir, h.Part["dates"])
	}
	c, ok := s.Arrays["count"]
	if !ok || len(c.Shape) != 2 {
		return nil, fmt.Errorf("%s: no 2-d array count in the partial", s.Dir)
	}
	if got := tensor.ShapeString(c.Shape); got != h.Settings["out-shape"] {
		return nil, fmt.Errorf("%s: count.npy has shape %s, the header %s", s.Dir, got, h.Settings["out-shape"])
	}
	p := &stack.Partial{H: c.Shape[0], W: c.Shape[1], Dates: int(dates)}
	var err error
	for _, a := range []struct {
		name string
		to   *[]float64
	}{{"count", &p.Count}, {"mean", &p.Mean}, {"m2", &p.M2}, {"min", &p.Min}, {"max", &p.Max}, {"samples", &p.Samples}} {
		if *a.to, err = s.Array(a.name, p.H*p.W); err != nil {
			return nil, err
		}
	}
	return p, nil
}

// Strings is the header's list of strings under key of Part (a JSON
// array of strings), or an error naming the shard.
func (s *Shard) Strings(key string) ([]string, error) {
	raw, ok := s.Header.Part[key].([]any)
	if !ok {
		return nil, fmt.Errorf("%s: the header has no list %s", s.Dir, key)
	}
	out := make([]string, len(raw))
	for i, v := range raw {
		if out[i], ok = v.(string); !ok {
			return nil, fmt.Errorf("%s: %s[%d] = %s is not a string", s.Dir, key, i, strconv.Quote(fmt.Sprint(v)))
		}
	}
	return out, nil
}

// StackGrid is what a stack's dates share, kept as the setting "grid" (in
// JSON) for a merge to check and use.
type StackGrid struct {
	Columns, Rows int
	Complex       bool
	Type          string
	Georef        formats.Georef
}

// MergeStack merges stack's shards (stack.Merge): the merged partial, the
// shards' dates in order, and the grid of their settings. A date in two
// shards is refused.
func MergeStack(shards []*Shard) (*stack.Partial, []string, StackGrid, error) {
	var g StackGrid
	parts := make([]*stack.Partial, len(shards))
	seen := map[string]string{}
	var files []string
	for i, s := range shards {
		p, err := StackPartial(s)
		if err != nil {
			return nil, nil, g, err
		}
		parts[i] = p
		fs, err := s.Strings("files")
		if err != nil {
			return nil, nil, g, err
		}
		for _, f := range fs {
			if q, ok := seen[f]; ok {
				return nil, nil, g, fmt.Errorf("date %s is in two partials (%s and %s): each date must be in one shard", f, q, s.Dir)
			}
			seen[f] = s.Dir
		}
		files = append(files, fs...)
	}
	m, err := stack.Merge(parts...)
	if err != nil {
		return nil, nil, g, err
	}
	if err := json.Unmarshal([]byte(shards[0].Header.Settings["grid"]), &g); err != nil {
		return nil, nil, g, fmt.Errorf("%s: grid: %w", shards[0].Dir, err)
	}
	return m, files, g, nil
}
