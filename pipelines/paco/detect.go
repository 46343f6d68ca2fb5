package paco

import (
	"math"
	"sort"
)

// PAConvention says how Detection.PAEastOfNorth is measured; the command
// line writes it beside the detections.
const PAConvention = "pa_east_of_north_deg: astronomical position angle in degrees, east of north, in [0, 360): " +
	"PA = (angle_ccw_from_x_deg - 90 + north_offset) mod 360, valid when the derotated (parallactic angle 0) frame " +
	"has north up (+y) and east left (-x); angle_ccw_from_x_deg is atan2(y - cy, x - cx) from +x towards +y"

// Detection is a local maximum of the SNR map above the threshold.
type Detection struct {
	Y   int     `json:"y"`
	X   int     `json:"x"`
	Sep float64 `json:"separation_px"`
	// SepArcsec is Sep times the pixel scale, when the caller knows it.
	SepArcsec float64 `json:"separation_arcsec,omitempty"`
	// PAEastOfNorth is the astronomical position angle (PositionAngle).
	PAEastOfNorth float64 `json:"pa_east_of_north_deg"`
	// AngleCCWFromX is atan2(dy, dx) in [0, 360), PACO.md's θ0: from +x
	// towards +y in the derotated frame. It is not a position angle.
	AngleCCWFromX float64 `json:"angle_ccw_from_x_deg"`
	SNR           float64 `json:"snr"`
	Flux          float64 `json:"flux"`
	SigmaFlux     float64 `json:"sigma_flux"`
	// Unbiased is Algorithm 3's estimate (AddUnbiased), beside the fields
	// above, which stay Algorithm 2's; nil when it was not run.
	*Unbiased
}

// AngleCCWFromX is atan2(dy, dx) in degrees, in [0, 360): the angle from
// +x towards +y of the offset (dy, dx) from the star (PACO.md's θ).
func AngleCCWFromX(dy, dx float64) float64 {
	a := math.Atan2(dy, dx) * 180 / math.Pi
	if a < 0 {
		a += 360
	}
	return a
}

// PositionAngle is the astronomical position angle, in degrees east of
// north in [0, 360), of the offset (dy, dx) from the star in the derotated
// frame (PACO.md, "orientation"): PA = (θ − 90° + northOffsetDeg) mod 360
// with θ = atan2(dy, dx). With north up (+y) and east left (−x), a source
// due north (dy > 0, dx = 0) has PA 0, due east (dx < 0) 90, due south 180
// and due west 270. northOffsetDeg is an instrument's true-north
// correction, added.
func PositionAngle(dy, dx, northOffsetDeg float64) float64 {
	pa := math.Mod(AngleCCWFromX(dy, dx)-90+northOffsetDeg, 360)
	if pa < 0 {
		pa += 360
	}
	if pa >= 360 { // −1e-15 + 360 rounds to 360
		pa -= 360
	}
	return pa
}

// Detect lists the local maxima of the SNR map (at least as large as each
// finite 8-neighbour) above threshold, strongest first, dropping any that
// lies within minSep pixels of a stronger one. (cy, cx) is the star; the
// position angles have no north offset.
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
			i := y*m.W + x
			cand = append(cand, Detection{Y: y, X: x, Sep: math.Hypot(ry, rx), PAEastOfNorth: PositionAngle(ry, rx, 0),
				AngleCCWFromX: AngleCCWFromX(ry, rx), SNR: s, Flux: m.Flux[i], SigmaFlux: m.Sigma[i]})
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
