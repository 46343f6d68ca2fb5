package paco

import (
	"math"
	"testing"

	"github.com/vkstat/vkstat/pipelines/synth"
)

// TestMatchTruth: a detection 1.46 px from a companion is it, one 1.52 px
// away is not; the maps are read at the companion's rounded pixel, NaN
// outside them; the detection left over is unmatched.
func TestMatchTruth(t *testing.T) {
	m := &Maps{H: 4, W: 5, SNR: make([]float64, 20), Flux: make([]float64, 20)}
	m.SNR[2*5+3], m.Flux[2*5+3] = 7, 70
	truth := []synth.TruthCompanion{{Y: 2.4, X: 2.6}, {Y: 9, X: 9}}
	dets := []Detection{{Y: 0, X: 0}, {Y: 1, X: 3}} // (1, 3) is 1.46 px from (2.4, 2.6)
	got, unmatched := MatchTruth(truth, dets, m)
	if len(got) != 2 || got[0].Detection != 1 || got[0].SNR != 7 || got[0].Flux != 70 ||
		got[1].Detection != -1 || !math.IsNaN(got[1].SNR) || len(unmatched) != 1 || unmatched[0] != 0 {
		t.Errorf("MatchTruth = %+v, unmatched %v", got, unmatched)
	}
	if got, _ := MatchTruth(truth[:1], []Detection{{Y: 1, X: 2}}, m); got[0].Detection != -1 { // 1.52 px away
		t.Errorf("a detection 1.66 px away matched: %+v", got)
	}
}

// TestCenterInfoString holds each source's wording to hand-written lines.
func TestCenterInfoString(t *testing.T) {
	for _, c := range []struct {
		i    CenterInfo
		want string
	}{
		{CenterInfo{Source: "option", Used: [2]int{3, 4}}, "(3, 4), option"},
		{CenterInfo{Source: "header", Y: 3.25, X: 4, Used: [2]int{3, 4}}, "(3, 4), header CRPIX (3.250, 4.000) 0-based"},
		{CenterInfo{Source: "estimated", Y: 5.5, X: 6.25, Used: [2]int{6, 6}, Estimate: &CenterMeasurement{Method: "radial", Uncertainty: 0.2, Frames: 9}},
			"(6, 6), estimated radial centre (5.500, 6.250) ± 0.20 px (95 %) over 9 frames, which rules out (H/2, W/2)"},
		{CenterInfo{Source: "geometric", Used: [2]int{8, 8}}, "(8, 8), geometric (H/2, W/2); no star to measure"},
	} {
		if got := c.i.String(); got != c.want {
			t.Errorf("String() = %q\nwant       %q", got, c.want)
		}
	}
}
