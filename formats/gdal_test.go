//go:build !nogdal

package formats

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/vkstat/vkstat/tensor"
)

// needTool returns the path of a GDAL command-line tool, skipping the test
// without it, except under CI=true, where gdal-bin must be installed
// (scripts/deps.sh test installs it).
func needTool(t *testing.T, name string) string {
	t.Helper()
	p, err := exec.LookPath(name)
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("%s not found: CI must have gdal-bin (scripts/deps.sh test)", name)
		}
		t.Skipf("%s not found (install gdal-bin)", name)
	}
	return p
}

func runTool(t *testing.T, name string, args ...string) string {
	t.Helper()
	out, err := exec.Command(needTool(t, name), args...).CombinedOutput()
	if err != nil {
		t.Fatalf("%s %s: %v\n%s", name, strings.Join(args, " "), err, out)
	}
	return string(out)
}

// rawENVI writes data as an ENVI file by hand (header text and raw
// little-endian samples), independently of GDAL: ENVI data type 6 is
// complex float32, 2 int16, 4 float32.
func rawENVI(t *testing.T, path string, w, h, enviType int, data any) {
	t.Helper()
	var buf bytes.Buffer
	if err := binary.Write(&buf, binary.LittleEndian, data); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	hdr := "ENVI\nsamples = " + strconv.Itoa(w) + "\nlines = " + strconv.Itoa(h) + "\nbands = 1\nheader offset = 0\n" +
		"file type = ENVI Standard\ndata type = " + strconv.Itoa(enviType) + "\ninterleave = bsq\nbyte order = 0\n"
	if err := os.WriteFile(strings.TrimSuffix(path, filepath.Ext(path))+".hdr", []byte(hdr), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestGDALReadsGdalTranslate: CInt16, CFloat32, Float32 and Int16 GeoTIFFs
// made by gdal_translate (with a geotransform, a projection and a nodata
// value) read back sample for sample, windows included.
func TestGDALReadsGdalTranslate(t *testing.T) {
	needTool(t, "gdal_translate")
	dir := t.TempDir()
	const w, h = 7, 5
	re := make([]int16, 2*w*h)
	for i := range re {
		re[i] = int16((i*37)%201 - 100)
	}
	// ENVI has no complex int16 type: the samples go in as CFloat32
	// (small integers, exact) and gdal_translate converts to CInt16.
	cf := make([]float32, 2*w*h)
	for i := range cf {
		cf[i] = float32(re[i])
	}
	rawC := filepath.Join(dir, "slcf.bin")
	rawENVI(t, rawC, w, h, 6, cf)
	geo := []string{"-a_srs", "EPSG:32719", "-a_ullr", "300000", "6000050", "300070", "6000000"}
	cases := []struct {
		name, ot string
		complex  bool
	}{{"cint16", "CInt16", true}, {"cfloat32", "CFloat32", true}}
	for _, c := range cases {
		tif := filepath.Join(dir, c.name+".tif")
		runTool(t, "gdal_translate", append([]string{"-q", "-of", "GTiff", "-ot", c.ot, "-a_nodata", "-100"}, append(geo, rawC, tif)...)...)
		r, err := OpenRaster(tif)
		if err != nil {
			t.Fatal(err)
		}
		if r.Width != w || r.Height != h || r.Bands != 1 || r.Type != c.ot || !r.Complex() || r.Driver != "GTiff" {
			t.Errorf("%s: got %d×%d, %d bands, %s, complex %v, %s", c.name, r.Width, r.Height, r.Bands, r.Type, r.Complex(), r.Driver)
		}
		if nd, ok := r.NoData(1); !ok || nd != -100 {
			t.Errorf("%s: nodata %v %v", c.name, nd, ok)
		}
		g := r.Georef()
		want := [6]float64{300000, 10, 0, 6000050, 0, -10}
		if !g.HasTransform || g.Transform != want || !strings.Contains(g.Projection, "32719") && !strings.Contains(g.Projection, "UTM zone 19S") {
			t.Errorf("%s: georef %+v", c.name, g)
		}
		got := make([]float32, 2*w*h)
		if err := r.ReadComplex(1, 0, 0, w, h, got); err != nil {
			t.Fatal(err)
		}
		for i := range got {
			if got[i] != cf[i] {
				t.Fatalf("%s: sample %d: %v, want %v", c.name, i, got[i], cf[i])
			}
		}
		win := make([]float32, 2*3*2)
		if err := r.ReadComplex(1, 2, 1, 3, 2, win); err != nil {
			t.Fatal(err)
		}
		for y := 0; y < 2; y++ {
			for x := 0; x < 3; x++ {
				for k := 0; k < 2; k++ {
					if win[2*(y*3+x)+k] != cf[2*((y+1)*w+x+2)+k] {
						t.Fatalf("%s: window (%d,%d) differs", c.name, y, x)
					}
				}
			}
		}
		if err := r.ReadComplex(1, 5, 0, 3, 1, win); err == nil || !strings.Contains(err.Error(), tif) {
			t.Errorf("window outside: %v", err)
		}
		r.Close()
	}
	// Real: Float32 intensity and Int16.
	fr := make([]float32, w*h)
	for i := range fr {
		fr[i] = float32(i) * 0.5
	}
	rawR := filepath.Join(dir, "int.bin")
	rawENVI(t, rawR, w, h, 4, fr)
	for _, ot := range []string{"Float32", "Int16", "UInt16", "Float64"} {
		tif := filepath.Join(dir, "r"+ot+".tif")
		runTool(t, "gdal_translate", "-q", "-ot", ot, "-scale", "0", "1", "0", "2", rawR, tif)
		r, err := OpenRaster(tif)
		if err != nil {
			t.Fatal(err)
		}
		if r.Type != ot || r.Complex() {
			t.Errorf("%s: type %s complex %v", ot, r.Type, r.Complex())
		}
		got := make([]float32, w*h)
		if err := r.ReadReal(1, 0, 0, w, h, got); err != nil {
			t.Fatal(err)
		}
		for i := range got {
			if got[i] != float32(i) {
				t.Fatalf("%s: sample %d = %v", ot, i, got[i])
			}
		}
		r.Close()
	}
	// The hand-written ENVI file reads directly too.
	r, err := OpenRaster(rawC)
	if err != nil {
		t.Fatal(err)
	}
	if r.Driver != "ENVI" || r.Type != "CFloat32" {
		t.Errorf("ENVI: %s %s", r.Driver, r.Type)
	}
	r.Close()
}

// TestGDALWriteRoundTrip: a GeoTIFF and an ENVI file written by
// EncodeRaster/WriteRaster read back through gdalinfo with the same
// georeferencing, and through gdal_translate with the same samples.
func TestGDALWriteRoundTrip(t *testing.T) {
	needTool(t, "gdalinfo")
	dir := t.TempDir()
	const w, h = 5, 3
	mean := make([]float32, w*h)
	std := make([]float32, w*h)
	for i := range mean {
		mean[i], std[i] = float32(i)+0.25, float32(math.NaN())
	}
	nan := math.NaN()
	g := Georef{Transform: [6]float64{500000, 20, 0, 4000000, 0, -20}, HasTransform: true}
	{
		src, err := OpenRaster(writeGeoTIFFProj(t, dir))
		if err != nil {
			t.Fatal(err)
		}
		g.Projection = src.Georef().Projection
		src.Close()
	}
	tif := filepath.Join(dir, "stats.tif")
	if err := WriteRaster(tif, RasterSpec{Driver: "GTiff", Type: "Float32", Width: w, Height: h, Georef: g, NoData: &nan},
		[]RasterBand{{Data: mean, Desc: "mean"}, {Data: std, Desc: "std"}}); err != nil {
		t.Fatal(err)
	}
	var info struct {
		GeoTransform []float64 `json:"geoTransform"`
		CRS          struct {
			WKT string `json:"wkt"`
		} `json:"coordinateSystem"`
		Bands []struct {
			Description string `json:"description"`
			Type        string `json:"type"`
		} `json:"bands"`
		Size []int `json:"size"`
	}
	if err := json.Unmarshal([]byte(runTool(t, "gdalinfo", "-json", tif)), &info); err != nil {
		t.Fatal(err)
	}
	if len(info.GeoTransform) != 6 || info.GeoTransform[0] != 500000 || info.GeoTransform[1] != 20 || info.GeoTransform[5] != -20 {
		t.Errorf("gdalinfo geotransform %v", info.GeoTransform)
	}
	if !strings.Contains(info.CRS.WKT, "32633") && !strings.Contains(info.CRS.WKT, "UTM zone 33N") {
		t.Errorf("gdalinfo projection %q", info.CRS.WKT)
	}
	if len(info.Bands) != 2 || info.Bands[0].Description != "mean" || info.Bands[1].Type != "Float32" || info.Size[0] != w {
		t.Errorf("gdalinfo bands %+v size %v", info.Bands, info.Size)
	}
	// gdal_translate to raw ENVI: the bytes are ours.
	out := filepath.Join(dir, "back.bin")
	runTool(t, "gdal_translate", "-q", "-of", "ENVI", "-b", "1", tif, out)
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	for i := range mean {
		if v := math.Float32frombits(binary.LittleEndian.Uint32(b[4*i:])); v != mean[i] {
			t.Fatalf("sample %d: %v, want %v", i, v, mean[i])
		}
	}
	// ENVI complex: header beside the data, read back by GDAL.
	cplx := make([]float32, 2*w*h)
	for i := range cplx {
		cplx[i] = float32(i) - 7
	}
	envi := filepath.Join(dir, "slc.bin")
	if err := WriteRaster(envi, RasterSpec{Driver: "ENVI", Type: "CFloat32", Width: w, Height: h, Georef: g},
		[]RasterBand{{Data: cplx}}); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, "slc.hdr")); err != nil {
		t.Fatalf("no ENVI header beside the data: %v", err)
	}
	if s := runTool(t, "gdalinfo", envi); !strings.Contains(s, "Type=CFloat32") || !strings.Contains(s, "500000") {
		t.Errorf("gdalinfo on ENVI:\n%s", s)
	}
	r, err := OpenRaster(envi)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	got := make([]float32, 2*w*h)
	if err := r.ReadComplex(1, 0, 0, w, h, got); err != nil {
		t.Fatal(err)
	}
	for i := range got {
		if got[i] != cplx[i] {
			t.Fatalf("ENVI sample %d: %v want %v", i, got[i], cplx[i])
		}
	}
}

// writeGeoTIFFProj makes a tiny GeoTIFF in UTM 33N with gdal_translate, for
// its projection WKT.
func writeGeoTIFFProj(t *testing.T, dir string) string {
	raw := filepath.Join(dir, "proj.bin")
	rawENVI(t, raw, 1, 1, 4, []float32{1})
	tif := filepath.Join(dir, "proj.tif")
	runTool(t, "gdal_translate", "-q", "-a_srs", "EPSG:32633", "-a_ullr", "0", "1", "1", "0", raw, tif)
	return tif
}

// TestGDALErrors: missing and corrupt files give errors naming the file.
func TestGDALErrors(t *testing.T) {
	dir := t.TempDir()
	missing := filepath.Join(dir, "missing.tif")
	if _, err := OpenRaster(missing); err == nil || !strings.Contains(err.Error(), missing) {
		t.Errorf("missing: %v", err)
	}
	bad := filepath.Join(dir, "bad.tif")
	os.WriteFile(bad, append([]byte("II*\x00"), bytes.Repeat([]byte{0xff}, 64)...), 0o644)
	if _, err := OpenRaster(bad); err == nil || !strings.Contains(err.Error(), bad) {
		t.Errorf("corrupt: %v", err)
	}
	if v := GDALVersion(); v == "" {
		t.Error("no GDAL version")
	}
	// ENVI has no CInt16: GDAL would write Byte; we refuse.
	err := WriteRaster(filepath.Join(dir, "x.bin"), RasterSpec{Driver: "ENVI", Type: "CInt16", Width: 2, Height: 1},
		[]RasterBand{{Data: make([]float32, 4)}})
	if err == nil || !strings.Contains(err.Error(), "cannot write CInt16") {
		t.Errorf("ENVI CInt16: %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "x.bin")); err == nil {
		t.Error("ENVI CInt16: a file was written")
	}
}

// TestArrayFaceGeoTIFF: WriteArray and ReadArray agree on .tif, .npy and .fits.
func TestArrayFaceGeoTIFF(t *testing.T) {
	dir := t.TempDir()
	a := tensor.FromF32([]float32{1, 2, 3, 4, 5, float32(math.NaN())}, 2, 3)
	for _, name := range []string{"a.tif", "a.npy", "a.fits"} {
		p := filepath.Join(dir, name)
		if err := WriteArray(p, a); err != nil {
			t.Fatal(err)
		}
		b, err := ReadArray(p)
		if err != nil {
			t.Fatal(err)
		}
		if !tensor.SameShape(a.Shape, b.Shape) {
			t.Fatalf("%s: shape %v", name, b.Shape)
		}
		for i, v := range b.Float64s() {
			w := float64(a.F32[i])
			if v != w && !(math.IsNaN(v) && math.IsNaN(w)) {
				t.Fatalf("%s: element %d = %v, want %v", name, i, v, w)
			}
		}
	}
	if err := WriteArray(filepath.Join(dir, "a.xyz"), a); err == nil {
		t.Error("unknown extension accepted")
	}
}

// TestGDALLoadFailure: GDAL is loaded at first use, so a missing or wrong
// library is an error of that operation, naming what failed, never a crash
// at start-up. Runs itself again with VKSTAT_GDAL_LIB pointing at a file
// that is not a library and at a library that is not GDAL (libm): each
// process loads GDAL once.
func TestGDALLoadFailure(t *testing.T) {
	if lib := os.Getenv("VKSTAT_TEST_GDAL_LIB"); lib != "" {
		os.Setenv("VKSTAT_GDAL_LIB", lib)
		_, err := OpenRaster(filepath.Join(t.TempDir(), "a.tif"))
		if !errors.Is(err, ErrNoGDAL) {
			t.Fatalf("OpenRaster: %v, want ErrNoGDAL", err)
		}
		if GDALVersion() != "" {
			t.Error("a GDAL version without GDAL")
		}
		os.Stdout.WriteString("ERR " + err.Error() + "\n")
		return
	}
	notLib := filepath.Join(t.TempDir(), "libgdal.so")
	if err := os.WriteFile(notLib, []byte("not a library"), 0o644); err != nil {
		t.Fatal(err)
	}
	for lib, want := range map[string]string{notLib: notLib, "libm.so.6": "CPLQuietErrorHandler: missing"} {
		cmd := exec.Command(os.Args[0], "-test.run=^TestGDALLoadFailure$", "-test.count=1")
		cmd.Env = append(os.Environ(), "VKSTAT_TEST_GDAL_LIB="+lib)
		out, err := cmd.CombinedOutput()
		if err != nil || !strings.Contains(string(out), "ERR ") || !strings.Contains(string(out), want) {
			t.Errorf("VKSTAT_GDAL_LIB=%s: %v\n%s\n(want the error to name %q)", lib, err, out, want)
		}
	}
}

// TestOpenENVIAsGDAL: vkstat's own ENVI reader (what vkstat stack reads
// ENVI dates with when no output needs GDAL) gives what GDAL gives on the
// same files, written by hand: the samples of whole lines and of windows
// (complex float32 read straight in, int16 converted), the geotransform of
// a "map info" whose reference pixel is not (1, 1), and the nodata value of
// "data ignore value"; a rotated grid is left to GDAL.
func TestOpenENVIAsGDAL(t *testing.T) {
	dir := t.TempDir()
	const w, h = 7, 5
	cf := make([]float32, 2*w*h)
	for i := range cf {
		cf[i] = float32(i)*0.25 - 4
	}
	i16 := make([]int16, w*h)
	for i := range i16 {
		i16[i] = int16(i*37 - 500)
	}
	extra := "description = {\n  made by hand}\nmap info = {UTM, 2.5, 3, 400000, 6300000, 10, 20, 20, South, WGS-84, units=Meters}\ndata ignore value = -9999\n"
	write := func(name string, typ int, data any, more string) string {
		var buf bytes.Buffer
		binary.Write(&buf, binary.LittleEndian, data)
		p := filepath.Join(dir, name+".bin")
		os.WriteFile(p, buf.Bytes(), 0o644)
		hdr := "ENVI\nsamples = " + strconv.Itoa(w) + "\nlines = " + strconv.Itoa(h) + "\nbands = 1\nheader offset = 0\n" +
			"file type = ENVI Standard\ndata type = " + strconv.Itoa(typ) + "\ninterleave = bsq\nbyte order = 0\n" + more
		os.WriteFile(filepath.Join(dir, name+".hdr"), []byte(hdr), 0o644)
		return p
	}
	for _, p := range []string{write("c", 6, cf, extra), write("i", 2, i16, extra)} {
		g, err := OpenRaster(p)
		if err != nil {
			t.Fatal(err)
		}
		e, err := OpenENVI(p)
		if err != nil {
			t.Fatal(err)
		}
		if e.Width != g.Width || e.Height != g.Height || e.Type != g.Type || e.Complex() != g.Complex() {
			t.Errorf("%s: %d×%d %s, GDAL %d×%d %s", p, e.Width, e.Height, e.Type, g.Width, g.Height, g.Type)
		}
		if eg, gg := e.Georef(), g.Georef(); eg.HasTransform != gg.HasTransform || eg.Transform != gg.Transform {
			t.Errorf("%s: geotransform %v, GDAL's %v", p, eg.Transform, gg.Transform)
		}
		ev, eok := e.NoData(1)
		gv, gok := g.NoData(1)
		if ev != gv || eok != gok || !eok {
			t.Errorf("%s: nodata %v %v, GDAL's %v %v", p, ev, eok, gv, gok)
		}
		for _, win := range [][4]int{{0, 0, w, h}, {0, 1, w, 3}, {2, 1, 4, 3}} {
			for per, read := range map[int][2]func(b, x0, y0, w, h int, dst []float32) error{
				1: {e.ReadReal, g.ReadReal}, 2: {e.ReadComplex, g.ReadComplex}} {
				n := win[2] * win[3] * per
				a, b := make([]float32, n), make([]float32, n)
				if err := read[0](1, win[0], win[1], win[2], win[3], a); err != nil {
					t.Fatal(err)
				}
				if err := read[1](1, win[0], win[1], win[2], win[3], b); err != nil {
					t.Fatal(err)
				}
				if !reflect.DeepEqual(a, b) {
					t.Errorf("%s window %v per %d: %v, GDAL %v", p, win, per, a, b)
				}
			}
		}
		e.Close()
		g.Close()
	}
	rot := write("r", 6, cf, "map info = {UTM, 1, 1, 400000, 6300000, 10, 10, 20, South, WGS-84, units=Meters, rotation=30}\n")
	if _, err := OpenENVI(rot); err == nil || !strings.Contains(err.Error(), "rotated") {
		t.Errorf("rotated grid: %v, want a refusal", err)
	}
}
