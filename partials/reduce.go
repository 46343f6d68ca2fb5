package partials

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/vkstat/vkstat/pipelines/reduce"
	"github.com/vkstat/vkstat/tensor"
)

// Reduce is the header (workload reduce; the settings that p's merge
// needs: the input's type, the output shape, skip-nan, and opt's
// statistics and ddof; the rows along the axis) and the arrays of p. The
// caller adds the settings of its own.
func Reduce(p *reduce.Partial, opt reduce.Options) (Header, map[string]*tensor.Tensor) {
	h := Header{Workload: "reduce",
		Settings: map[string]string{"dtype": p.DType.String(), "out-shape": tensor.ShapeString(p.OutShape), "skip-nan": strconv.FormatBool(p.SkipNaN),
			"stat": strings.Join(reduce.Names(opt.Stats), ","), "ddof": strconv.Itoa(opt.DDof)},
		Part: map[string]any{"rows": p.Rows}}
	arr := func(v []float64) *tensor.Tensor { return tensor.FromF64(v, p.OutShape...) }
	return h, map[string]*tensor.Tensor{"count": arr(p.Count), "sum": arr(p.Sum), "m2": arr(p.M2), "min": arr(p.Min), "max": arr(p.Max)}
}

// ReducePartial reads s back as a reduce.Partial.
func ReducePartial(s *Shard) (*reduce.Partial, error) {
	h := s.Header
	if h.Workload != "reduce" {
		return nil, fmt.Errorf("%s: a partial of %s, not of reduce", s.Dir, h.Workload)
	}
	dt, err := tensor.ParseDType(h.Settings["dtype"])
	if err != nil {
		return nil, fmt.Errorf("%s: dtype: %w", s.Dir, err)
	}
	skip, err := strconv.ParseBool(h.Settings["skip-nan"])
	if err != nil {
		return nil, fmt.Errorf("%s: skip-nan: %w", s.Dir, err)
	}
	rows, ok := h.Part["rows"].(float64)
	if !ok || rows < 1 || rows != float64(int(rows)) {
		return nil, fmt.Errorf("%s: the header's rows (%v) is not a count", s.Dir, h.Part["rows"])
	}
	c, ok := s.Arrays["count"]
	if !ok {
		return nil, fmt.Errorf("%s: no array count in the partial", s.Dir)
	}
	p := &reduce.Partial{DType: dt, OutShape: c.Shape, SkipNaN: skip, Rows: int(rows)}
	if got := tensor.ShapeString(c.Shape); got != h.Settings["out-shape"] {
		return nil, fmt.Errorf("%s: count.npy has shape %s, the header %s", s.Dir, got, h.Settings["out-shape"])
	}
	n := tensor.NumElements(c.Shape)
	for _, a := range []struct {
		name string
		to   *[]float64
	}{{"count", &p.Count}, {"sum", &p.Sum}, {"m2", &p.M2}, {"min", &p.Min}, {"max", &p.Max}} {
		if *a.to, err = s.Array(a.name, n); err != nil {
			return nil, err
		}
	}
	return p, nil
}

// MergeReduce merges reduce's shards (reduce.Merge) and finishes the
// statistics their settings name with their ddof: the merged partial (its
// Rows the rows along the axis), the statistics in order and their arrays.
func MergeReduce(shards []*Shard) (*reduce.Partial, []reduce.Stat, map[reduce.Stat]*tensor.Tensor, error) {
	if len(shards) == 0 {
		return nil, nil, nil, fmt.Errorf("no partial to merge")
	}
	parts := make([]*reduce.Partial, len(shards))
	for i, s := range shards {
		p, err := ReducePartial(s)
		if err != nil {
			return nil, nil, nil, err
		}
		parts[i] = p
	}
	m, err := reduce.Merge(parts...)
	if err != nil {
		return nil, nil, nil, err
	}
	set := shards[0].Header.Settings
	stats, err := reduce.ParseStats(set["stat"])
	if err != nil {
		return nil, nil, nil, fmt.Errorf("%s: stat: %w", shards[0].Dir, err)
	}
	ddof, err := strconv.Atoi(set["ddof"])
	if err != nil {
		return nil, nil, nil, fmt.Errorf("%s: ddof %q: %w", shards[0].Dir, set["ddof"], err)
	}
	out, err := m.Finish(reduce.Options{DDof: ddof}, stats)
	return m, stats, out, err
}
