package suite

import (
	"context"
	"testing"

	"github.com/vkstat/vkstat/tensor"
)

// TestLatentBenchStatistics (issue 32): bench times latent's corr, lagcorr
// and pca one at a time through latent-corr's cases of those notes; each
// computes its own statistic, and only it, and matches its float64
// reference, on a case of the bench's notes at a verify-sized shape, on
// the CPU path and (without -short) every device.
func TestLatentBenchStatistics(t *testing.T) {
	var op Op
	for _, o := range Ops() {
		if o.Name == "latent-corr" {
			op = o
		}
	}
	want := map[string][]string{"corr": {"corr"}, "lagcorr": {"frame_corr", "lagcorr"}, "pca": {"pca_values", "pca_ratio"}}
	for _, bc := range op.Bench[Small] {
		names := want[bc.Note]
		if names == nil {
			t.Fatalf("bench case %s: no statistic", bc.Label())
		}
		c := Case{Shape: []int{2, 5, 4, 8, 8}, Note: bc.Note}
		p := Prepare(op, c, tensor.F32)
		for _, dev := range devices(t) {
			r := p.Verify(context.Background(), dev)
			if r.Status != Pass {
				t.Errorf("%s on %s: %s (%s)", c.Label(), devName(dev), r.Status, r.Detail)
			}
		}
		outs, _, err := op.Run(context.Background(), nil, c, p.In)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, o := range outs {
			got = append(got, o.Name)
		}
		if len(got) != len(names) || len(p.Ref) != len(names) || got[0] != names[0] || got[len(got)-1] != names[len(names)-1] {
			t.Errorf("%s: outputs %v, reference %d, want %v", c.Label(), got, len(p.Ref), names)
		}
	}
}
