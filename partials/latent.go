package partials

import (
	"encoding/json"
	"fmt"

	"github.com/vkstat/vkstat/pipelines/latent"
	"github.com/vkstat/vkstat/tensor"
)

// Latent is the header (workload latent; the work type and the sample
// shape as settings; the partial's facts, latent.PartialFacts, as the
// part) and the arrays of p. The caller adds the settings of its own.
func Latent(p *latent.Partial) (Header, map[string]*tensor.Tensor, error) {
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
		Part:     map[string]any{"latent": facts}}
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
