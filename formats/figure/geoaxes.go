package figure

import "strings"

// GeoAxes are a map's axes in the coordinates of a north-up geotransform
// t (GDAL's: x origin, pixel width, 0, y origin, 0, pixel height) under
// projection (WKT): easting and northing with a scale bar in metres for a
// projected CRS in metres, longitude and latitude for a geographic one,
// else map units. ok is false when t is not north-up (rotated, or a zero
// pixel size): the caller then labels pixels.
func GeoAxes(t [6]float64, projection string) (x, y Axis, bar *ScaleBar, ok bool) {
	if t[2] != 0 || t[4] != 0 || t[1] == 0 || t[5] == 0 {
		return Axis{}, Axis{}, nil, false
	}
	wkt := strings.TrimSpace(projection)
	switch {
	case (strings.HasPrefix(wkt, "PROJCS[") || strings.HasPrefix(wkt, "PROJCRS[")) && (strings.Contains(wkt, `"metre"`) || strings.Contains(wkt, `"meter"`)):
		return Axis{Label: "easting (m)", Origin: t[0], Step: t[1]}, Axis{Label: "northing (m)", Origin: t[3], Step: t[5]}, &ScaleBar{Unit: "m"}, true
	case strings.HasPrefix(wkt, "GEOGCS[") || strings.HasPrefix(wkt, "GEOGCRS["):
		return Axis{Label: "longitude (°)", Origin: t[0], Step: t[1]}, Axis{Label: "latitude (°)", Origin: t[3], Step: t[5]}, nil, true
	}
	return Axis{Label: "x (map units)", Origin: t[0], Step: t[1]}, Axis{Label: "y (map units)", Origin: t[3], Step: t[5]}, nil, true
}
