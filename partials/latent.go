package partials

import (
	"encoding/json"
	"fmt"

	"github.com/vkstat/vkstat/formats"
	"github.com/vkstat/vkstat/pipelines/latent"
	"github.com/vkstat/vkstat/tensor"
)

// Latent is the header (workload latent; the work type and the sample
// shape as settings; the partial's facts, latent.PartialFacts, and its
// input in (the file, of shape whole, LatentInput's) as the part) and the
// arrays of p. The caller adds the settings of its own.
func Latent(p *latent.Partial, in latent.Input, whole []int) (Header, map[string]*tensor.Tensor, error) {
	f, arrays := p.Store()
	raw, err := json.Marshal(f)
	if err != nil {
		return Header{}, nil, err
	}
	var facts map[string]any
	if err := json.Unmarshal(raw, &facts); err != nil {
		return Header{}, nil, err
	}
	h := Header{Workload: "latent",
		Settings: map[string]string{"dtype": p.DType.String(), "sample-shape": tensor.ShapeString(p.Shape[1:])},
		Part: map[string]any{"latent": facts, "input": in.Path, "input-shape": whole,
			"info": formats.TensorInfo{Format: in.Format, DType: in.DType, Name: in.Tensor}}}
	return h, arrays, nil
}

// LatentPartial reads s back as a latent.Partial.
func LatentPartial(s *Shard) (*latent.Partial, error) {
	if s.Header.Workload != "latent" {
		return nil, fmt.Errorf("%s: a partial of %s, not of latent", s.Dir, s.Header.Workload)
	}
	raw, err := json.Marshal(s.Header.Part["latent"])
	if err != nil {
		return nil, fmt.Errorf("%s: %w", s.Dir, err)
	}
	var f latent.PartialFacts
	if err := json.Unmarshal(raw, &f); err != nil || f.Shape == nil {
		return nil, fmt.Errorf("%s: the header's latent facts are missing or malformed (%v)", s.Dir, err)
	}
	p, err := latent.RestorePartial(f, s.Arrays)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", s.Dir, err)
	}
	return p, nil
}

// MergeLatent merges latent's shards (latent.Merge) and finishes the
// merged partial: the merged partial (its options those of the shards),
// the results, and the shard of the first samples, whose input is the
// merge's (LatentInput).
func MergeLatent(shards []*Shard) (*latent.Partial, *latent.Result, *Shard, error) {
	parts := make([]*latent.Partial, len(shards))
	for i, s := range shards {
		p, err := LatentPartial(s)
		if err != nil {
			return nil, nil, nil, err
		}
		parts[i] = p
	}
	m, err := latent.Merge(parts...)
	if err != nil {
		return nil, nil, nil, err
	}
	res, err := m.Finish()
	if err != nil {
		return nil, nil, nil, err
	}
	first := shards[0]
	for i, p := range parts { // the shard of the first samples
		if p.First == m.First {
			first = shards[i]
		}
	}
	return m, res, first, nil
}

// LatentInput is the input of m, merged from shards of which first holds
// the first samples: the file and its facts as first recorded them
// ("input" and "info" of its part), m's shape and work type.
func LatentInput(first *Shard, m *latent.Partial) latent.Input {
	in := latent.Input{Shape: m.Shape, ComputedAs: m.DType}
	in.Path, _ = first.Header.Part["input"].(string)
	var info formats.TensorInfo
	if raw, err := json.Marshal(first.Header.Part["info"]); err == nil {
		_ = json.Unmarshal(raw, &info)
	}
	in.Format, in.DType, in.Tensor = info.Format, info.DType, info.Name
	return in
}
