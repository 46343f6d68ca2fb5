package cov

import "github.com/vkstat/vkstat/internal/linalg"

// moments are the sums the shrinkage weights are computed from, all taken
// from S with the 1/T normalisation.
type moments struct {
	tr  float64 // tr(S)
	fro float64 // Σ_ij S_ij² = tr(S²)
	dsq float64 // Σ_i S_ii²
	q4  float64 // Σ_t ‖x_t‖⁴ over the centred samples (Ledoit-Wolf only)
}

// shrinkage is ρ for estimator e with p variables and t samples, from
// internal/linalg (the one Go implementation; the shaders use its GLSL
// twin, shaders/include/linalg.glsl).
func shrinkage(e Estimator, p, t int, m moments) float64 {
	switch {
	case e == None || p == 1:
		return 0
	case e == PACO:
		return linalg.RhoPACO(m.tr, m.fro, m.dsq, t, false)
	case e == OAS:
		return linalg.RhoOAS(m.tr, m.fro, p, t)
	case e == LedoitWolf:
		return linalg.RhoLedoitWolf(m.tr, m.fro, m.q4, p, t)
	}
	return 0
}
