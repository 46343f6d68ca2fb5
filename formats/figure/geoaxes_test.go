package figure

import "testing"

// TestGeoAxes holds the axes to hand-written geotransforms and WKT: a UTM
// CRS in metres, a geographic CRS, a projected CRS in feet (map units),
// and a rotated transform, which has none.
func TestGeoAxes(t *testing.T) {
	north := [6]float64{500000, 20, 0, 4600000, 0, -20}
	for _, c := range []struct {
		wkt, x, y string
		bar       bool
	}{
		{`PROJCS["WGS 84 / UTM zone 33N",GEOGCS["WGS 84"],UNIT["metre",1]]`, "easting (m)", "northing (m)", true},
		{`  PROJCRS["x",LENGTHUNIT["meter",1]]`, "easting (m)", "northing (m)", true},
		{`GEOGCS["WGS 84",DATUM["WGS_1984"]]`, "longitude (°)", "latitude (°)", false},
		{`PROJCS["NAD83 / x (ftUS)",UNIT["US survey foot",0.3048]]`, "x (map units)", "y (map units)", false},
	} {
		x, y, bar, ok := GeoAxes(north, c.wkt)
		if !ok || x.Label != c.x || y.Label != c.y || (bar != nil) != c.bar || x.Origin != 500000 || x.Step != 20 || y.Origin != 4600000 || y.Step != -20 {
			t.Errorf("%s: %+v %+v bar %v ok %v", c.wkt, x, y, bar, ok)
		}
		if c.bar && bar.Unit != "m" {
			t.Errorf("%s: bar unit %q", c.wkt, bar.Unit)
		}
	}
	if _, _, _, ok := GeoAxes([6]float64{0, 20, 1, 0, 0, -20}, `GEOGCS["WGS 84"]`); ok {
		t.Error("a rotated transform gave map axes")
	}
	if _, _, _, ok := GeoAxes([6]float64{0, 0, 0, 0, 0, -20}, `GEOGCS["WGS 84"]`); ok {
		t.Error("a zero pixel width gave map axes")
	}
}
