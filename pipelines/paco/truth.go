package paco

import (
	"math"

	"github.com/vkstat/vkstat/pipelines/synth"
)

// TruthMatch is an injected companion (synth's truth) set beside what a
// run found: the detection within MatchRadius pixels of it, if any, and
// the maps' SNR and flux at its pixel.
type TruthMatch struct {
	Companion synth.TruthCompanion
	// Detection is the index of the matching detection, -1 for none.
	Detection int
	// SNR and Flux are the maps' at the companion's pixel (rounded), NaN
	// outside the maps.
	SNR, Flux float64
}

// MatchRadius is how near (pixels) a detection must be to an injected
// companion to be it.
const MatchRadius = 1.5

// MatchTruth matches each injected companion with the first detection
// within MatchRadius of it; unmatched lists the detections that match no
// companion.
func MatchTruth(truth []synth.TruthCompanion, dets []Detection, m *Maps) (matches []TruthMatch, unmatched []int) {
	used := make([]bool, len(dets))
	for _, tc := range truth {
		mt := TruthMatch{Companion: tc, Detection: -1, SNR: math.NaN(), Flux: math.NaN()}
		for i, d := range dets {
			if math.Hypot(float64(d.Y)-tc.Y, float64(d.X)-tc.X) <= MatchRadius {
				mt.Detection, used[i] = i, true
				break
			}
		}
		if y, x := int(math.Round(tc.Y)), int(math.Round(tc.X)); y >= 0 && y < m.H && x >= 0 && x < m.W {
			mt.SNR, mt.Flux = m.SNR[y*m.W+x], m.Flux[y*m.W+x]
		}
		matches = append(matches, mt)
	}
	for i, u := range used {
		if !u {
			unmatched = append(unmatched, i)
		}
	}
	return matches, unmatched
}
