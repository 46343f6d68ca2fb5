package paco

import (
	"math"
	"sort"
)

// Detection is a local maximum of the SNR map above the threshold.
type Detection struct {
	Y         int     `json:"y"`
	X         int     `json:"x"`
	Sep       float64 `json:"separation_px"`
	PA        float64 `json:"position_angle_deg"` // atan2(dy, dx) in [0, 360), PACO.md's θ0
	SNR       float64 `json:"snr"`
	Flux      float64 `json:"flux"`
	SigmaFlux float64 `json:"sigma_flux"`
}

// Detect lists the local maxima of the SNR map (at least as large as each
// finite 8-neighbour) above threshold, strongest first, dropping any that
// lies within minSep pixels of a stronger one. (cy, cx) is the star.
func Detect(m *Maps, threshold float64, cy, cx int, minSep float64) []Detection {
	var cand []Detection
	for y := 0; y < m.H; y++ {
		for x := 0; x < m.W; x++ {
			s := m.SNR[y*m.W+x]
			if !(s > threshold) {
				continue
			}
			peak := true
			for dy := -1; dy <= 1 && peak; dy++ {
				for dx := -1; dx <= 1; dx++ {
					yy, xx := y+dy, x+dx
					if (dy == 0 && dx == 0) || yy < 0 || yy >= m.H || xx < 0 || xx >= m.W {
						continue
					}
					if n := m.SNR[yy*m.W+xx]; n > s {
						peak = false
						break
					}
				}
			}
			if !peak {
				continue
			}
			ry, rx := float64(y-cy), float64(x-cx)
			pa := math.Atan2(ry, rx) * 180 / math.Pi
			if pa < 0 {
				pa += 360
			}
			i := y*m.W + x
			cand = append(cand, Detection{Y: y, X: x, Sep: math.Hypot(ry, rx), PA: pa, SNR: s, Flux: m.Flux[i], SigmaFlux: m.Sigma[i]})
		}
	}
	sort.SliceStable(cand, func(i, j int) bool { return cand[i].SNR > cand[j].SNR })
	var out []Detection
	for _, c := range cand {
		keep := true
		for _, o := range out {
			if math.Hypot(float64(c.Y-o.Y), float64(c.X-o.X)) < minSep {
				keep = false
				break
			}
		}
		if keep {
			out = append(out, c)
		}
	}
	return out
}
