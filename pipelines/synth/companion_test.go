package synth_test

import (
	"testing"

	"github.com/vkstat/vkstat/pipelines/synth"
)

func TestParseCompanion(t *testing.T) {
	// pa is east of north: θ = PA + 90° (PA −30° is θ 60°); theta is θ.
	c, err := synth.ParseCompanion(" SEP=1.5e1 , pa = -30 ;flux=2")
	if err != nil || c != (synth.Companion{SepPx: 15, ThetaDeg: 60, Flux: 2}) || c.PA() != 330 {
		t.Errorf("got %+v (PA %g), %v", c, c.PA(), err)
	}
	c, err = synth.ParseCompanion("sep=3,theta=-30,flux=2")
	if err != nil || c != (synth.Companion{SepPx: 3, ThetaDeg: -30, Flux: 2}) || c.PA() != 240 {
		t.Errorf("theta: got %+v (PA %g), %v", c, c.PA(), err)
	}
	if got := (synth.Companion{SepPx: 15, ThetaDeg: 60, Flux: 2}).String(); got != "sep=15,pa=330,flux=2" {
		t.Errorf("String: %q, want sep=15,pa=330,flux=2", got)
	}
	for _, s := range []string{"", "sep=1,pa=2,flux=inf", "sep=1,pa=NaN,flux=1", "sep,pa,flux", "sep=1,pa=2,theta=92,flux=1", "sep=1,flux=1"} {
		if _, err := synth.ParseCompanion(s); err == nil {
			t.Errorf("%q: no error", s)
		}
	}
}
