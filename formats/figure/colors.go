package figure

import (
	"image/color"
	"math"
)

// Colors maps f in [0, 1] to a colour.
type Colors func(f float64) color.RGBA

// Viridis is matplotlib's viridis at 11 evenly spaced points, interpolated
// linearly in between: perceptually uniform, readable in grey and by
// colour-blind readers.
func Viridis(f float64) color.RGBA { return ramp(viridis[:], f) }

// Diverging is ColorBrewer's RdBu: blue (0), white (0.5), red (1).
func Diverging(f float64) color.RGBA { return ramp(rdbu[:], f) }

var viridis = [...]color.RGBA{
	{0x44, 0x01, 0x54, 0xff}, {0x48, 0x24, 0x75, 0xff}, {0x41, 0x44, 0x87, 0xff}, {0x35, 0x5f, 0x8d, 0xff},
	{0x2a, 0x78, 0x8e, 0xff}, {0x21, 0x91, 0x8c, 0xff}, {0x22, 0xa8, 0x84, 0xff}, {0x44, 0xbf, 0x70, 0xff},
	{0x7a, 0xd1, 0x51, 0xff}, {0xbd, 0xdf, 0x26, 0xff}, {0xfd, 0xe7, 0x25, 0xff},
}

var rdbu = [...]color.RGBA{
	{0x21, 0x66, 0xac, 0xff}, {0x67, 0xa9, 0xcf, 0xff}, {0xd1, 0xe5, 0xf0, 0xff}, {0xf7, 0xf7, 0xf7, 0xff},
	{0xfd, 0xdb, 0xc7, 0xff}, {0xef, 0x8a, 0x62, 0xff}, {0xb2, 0x18, 0x2b, 0xff},
}

var (
	// NaNColor is the colour of NaN pixels.
	NaNColor = color.RGBA{0xa0, 0xa0, 0xa0, 0xff}
	// MarkColor circles marks (detections).
	MarkColor = color.RGBA{0xff, 0x20, 0x20, 0xff}
)

// ramp interpolates stops linearly at f in [0, 1] (clamped; NaN is 0).
func ramp(stops []color.RGBA, f float64) color.RGBA {
	if !(f > 0) {
		return stops[0]
	}
	if f >= 1 {
		return stops[len(stops)-1]
	}
	x := f * float64(len(stops)-1)
	i := int(x)
	t := x - float64(i)
	a, b := stops[i], stops[i+1]
	mix := func(p, q uint8) uint8 { return uint8(math.Round(float64(p) + t*(float64(q)-float64(p)))) }
	return color.RGBA{mix(a.R, b.R), mix(a.G, b.G), mix(a.B, b.B), 0xff}
}
