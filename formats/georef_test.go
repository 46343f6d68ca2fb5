package formats

import "testing"

// TestSameCRS: projections compare by their authority code (the EPSG:4326
// date among EPSG:32720 ones that stack accepted), by text without one.
func TestSameCRS(t *testing.T) {
	utm20s := `PROJCRS["WGS 84 / UTM zone 20S",BASEGEOGCRS["WGS 84",DATUM["World Geodetic System 1984",ELLIPSOID["WGS 84",6378137,298.257223563,LENGTHUNIT["metre",1]]],ID["EPSG",4326]],CONVERSION["UTM zone 20S",METHOD["Transverse Mercator",ID["EPSG",9807]]],CS[Cartesian,2],LENGTHUNIT["metre",1],ID["EPSG",32720]]`
	utm20sWKT1 := `PROJCS["WGS 84 / UTM zone 20S",GEOGCS["WGS 84",AUTHORITY["EPSG","4326"]],UNIT["metre",1,AUTHORITY["EPSG","9001"]],AUTHORITY["EPSG","32720"]]`
	wgs84 := `GEOGCRS["WGS 84",DATUM["World Geodetic System 1984",ELLIPSOID["WGS 84",6378137,298.257223563]],CS[ellipsoidal,2],ID["EPSG",4326]]`
	local := `LOCAL_CS["radar", UNIT["metre",1]]`
	for _, c := range []struct {
		a, b  string
		same  bool
		nameB string
	}{
		{utm20s, utm20s, true, "EPSG:32720"},
		{utm20s, utm20sWKT1, true, "EPSG:32720"},
		{utm20s, wgs84, false, "EPSG:4326"},
		{utm20s, "", false, "no projection"},
		{"", "", true, "no projection"},
		{local, "LOCAL_CS[\"radar\",\n UNIT[\"metre\",1]]", true, "a projection without an authority code"},
		{local, `LOCAL_CS["other", UNIT["metre",1]]`, false, "a projection without an authority code"},
	} {
		same, _, nb := SameCRS(c.a, c.b)
		if same != c.same || nb != c.nameB {
			t.Errorf("SameCRS(%.30q, %.30q) = %v, %q; want %v, %q", c.a, c.b, same, nb, c.same, c.nameB)
		}
	}
}
