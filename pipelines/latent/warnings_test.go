package latent

import (
	"testing"

	"github.com/vkstat/vkstat/engine"
)

// TestWarnings: the ddof at least the values each moment reduces (2×3 over
// axes -2,-1 of (4, 2, 3): 6) and a batch over the samples that fit are
// warnings with their figures, said in the library's words and in a
// caller's; one value more, or an automatic batch, is none.
func TestWarnings(t *testing.T) {
	opt := Options{Moments: true, Axes: []int{-2, -1}, DDof: 6}
	ws := opt.Warnings([]int{4, 2, 3})
	if len(ws) != 1 || ws[0].Code != WarnDDof || ws[0].Data["n"] != 6 || ws[0].Data["ddof"] != 6 {
		t.Fatalf("ddof 6 over 6 values: %+v", ws)
	}
	if got, want := ws[0].Message, "ddof 6 with 6 value(s) over axes -2,-1: var and std are NaN (they divide by n − ddof)"; got != want {
		t.Errorf("message %q, want %q", got, want)
	}
	flag := func(field, value string) string { return "--" + field + "=" + value }
	if got, want := ws[0].Words(flag), "--ddof=6 with 6 value(s) over --axes=-2,-1: var and std are NaN (they divide by n − ddof)"; got != want {
		t.Errorf("words %q, want %q", got, want)
	}
	opt.DDof = 5
	if ws := opt.Warnings([]int{4, 2, 3}); len(ws) != 0 {
		t.Errorf("ddof 5 over 6 values: %+v", ws)
	}
	p := Plan{Batch: 64, Fit: 12, Budget: engine.MemoryBudget{Bytes: 1 << 30, Source: "a test"}}
	ws = p.Warnings()
	if len(ws) != 1 || ws[0].Code != WarnBatch || ws[0].Data["batch"] != 64 || ws[0].Data["fit"] != 12 {
		t.Fatalf("batch 64 over 12: %+v", ws)
	}
	if got, want := ws[0].Message, "batch 64 is more than the 12 samples estimated to fit (1.0 GiB (a test)); it may run out of memory"; got != want {
		t.Errorf("message %q, want %q", got, want)
	}
	p.Auto = true
	if ws := p.Warnings(); len(ws) != 0 {
		t.Errorf("an automatic batch: %+v", ws)
	}
}
