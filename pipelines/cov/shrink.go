package cov

import "math"

// moments are the sums the shrinkage weights are computed from, all taken
// from S with the 1/T normalisation.
type moments struct {
	tr  float64 // tr(S)
	fro float64 // Σ_ij S_ij² = tr(S²)
	dsq float64 // Σ_i S_ii²
	q4  float64 // Σ_t ‖x_t‖⁴ over the centred samples (Ledoit-Wolf only)
}

// shrinkage is ρ for estimator e with p variables and t samples. The
// shaders (cov.comp) compute the same expressions; keep them in step.
func shrinkage(e Estimator, p, t int, m moments) float64 {
	if e == None || p == 1 {
		return 0
	}
	if math.IsNaN(m.tr) || math.IsNaN(m.fro) || math.IsNaN(m.dsq) || math.IsNaN(m.q4) {
		return math.NaN()
	}
	P, T := float64(p), float64(t)
	var r float64
	switch e {
	case PACO:
		num := m.fro + m.tr*m.tr - 2*m.dsq
		den := (T + 1) * (m.fro - m.dsq)
		if den == 0 {
			r = 1
		} else {
			r = num / den
		}
	case OAS:
		alpha := m.fro / (P * P)
		mu := m.tr / P
		num := alpha + mu*mu
		den := (T + 1) * (alpha - mu*mu/P)
		if den == 0 {
			r = 1
		} else {
			r = num / den
		}
	case LedoitWolf:
		mu := m.tr / P
		delta := (m.fro - 2*mu*m.tr + P*mu*mu) / P
		beta := (m.q4/T - m.fro) / (P * T)
		beta = math.Min(beta, delta)
		if beta == 0 || delta <= 0 {
			r = 0
		} else {
			r = beta / delta
		}
	}
	return clip01(r)
}

func clip01(r float64) float64 {
	switch {
	case math.IsNaN(r):
		return r
	case r < 0:
		return 0
	case r > 1:
		return 1
	}
	return r
}
