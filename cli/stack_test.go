package cli

import (
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vkstat/vkstat/formats"
	"github.com/vkstat/vkstat/pipelines/stack"
)

// synthStack writes a small synthetic stack with vkstat synth stack.
func synthStack(t *testing.T, dir string, args ...string) {
	t.Helper()
	if !formats.HaveGDAL {
		t.Skip("built without GDAL (-tags nogdal)")
	}
	code, _, stderr := run(t, append([]string{"synth", "stack", "--out-dir", dir}, args...)...)
	if code != 0 {
		t.Fatalf("synth stack %v: exit %d: %s", args, code, stderr)
	}
}

// refStack computes the float64 reference from the dates as GDAL reads them.
func refStack(t *testing.T, paths []string, cfg stack.Config) (*stack.Plan, *stack.RefResult) {
	t.Helper()
	var dates []stack.RefDate
	var g stack.Grid
	for _, p := range paths {
		r, err := formats.OpenRaster(p)
		if err != nil {
			t.Fatal(err)
		}
		g = stack.Grid{Width: r.Width, Height: r.Height, Complex: r.Complex()}
		per := 1
		if g.Complex {
			per = 2
		}
		buf := make([]float32, per*r.Width*r.Height)
		if g.Complex {
			err = r.ReadComplex(1, 0, 0, r.Width, r.Height, buf)
		} else {
			err = r.ReadReal(1, 0, 0, r.Width, r.Height, buf)
		}
		if err != nil {
			t.Fatal(err)
		}
		d := stack.RefDate{Data: make([]float64, len(buf))}
		for i, v := range buf {
			d.Data[i] = float64(v)
		}
		d.NoData, d.HasNoData = r.NoData(1)
		r.Close()
		dates = append(dates, d)
	}
	p, err := stack.NewPlan(cfg, g)
	if err != nil {
		t.Fatal(err)
	}
	return p, stack.Reference(p, dates)
}

func checkStat(t *testing.T, what string, got []float64, want []float64, tol float64) {
	t.Helper()
	scale := 0.0
	for _, v := range want {
		if !math.IsNaN(v) {
			scale = max(scale, math.Abs(v))
		}
	}
	if len(got) != len(want) {
		t.Fatalf("%s: %d values, want %d", what, len(got), len(want))
	}
	for i := range want {
		if math.IsNaN(got[i]) != math.IsNaN(want[i]) || math.Abs(got[i]-want[i]) > tol*scale {
			t.Fatalf("%s[%d] = %v, want %v", what, i, got[i], want[i])
		}
	}
}

// TestStackCommand: synthetic CInt16 GeoTIFF (nodata border, a change) and
// Float32 ENVI stacks through vkstat stack on every device, against the
// float64 reference; the GeoTIFF outputs carry the crop's georeferencing.
func TestStackCommand(t *testing.T) {
	dir := t.TempDir()
	tif := filepath.Join(dir, "tif")
	synthStack(t, tif, "--dates", "4", "--shape", "37,29", "--change", "3", "--nodata-border", "2")
	envi := filepath.Join(dir, "envi")
	synthStack(t, envi, "--dates", "3", "--shape", "20,17", "--type", "float32", "--format", "envi", "--seed", "7")
	cases := []struct {
		name  string
		files []string
		args  []string
		cfg   stack.Config
	}{
		{"cint16-ml", []string{"@" + filepath.Join(tif, "dates.txt")}, []string{"--looks", "3x2", "--window", "4,3,0,27"},
			stack.Config{LooksAz: 3, LooksRg: 2, Window: stack.Window{X: 4, Y: 3, H: 27}}},
		{"cint16-lee-amp", []string{filepath.Join(tif, "date_*.tif")}, []string{"--looks", "2", "--filter", "lee", "--filter-size", "3", "--quantity", "amplitude", "--ddof", "1"},
			stack.Config{LooksAz: 2, LooksRg: 2, Filter: stack.Filter{Kind: stack.Lee, Size: 3}, Quantity: stack.Amplitude, Ddof: 1}},
		{"cint16-refined", []string{"@" + filepath.Join(tif, "dates.txt")}, []string{"--looks", "1x1", "--filter", "refined-lee", "--filter-size", "7"},
			stack.Config{LooksAz: 1, LooksRg: 1, Filter: stack.Filter{Kind: stack.RefinedLee, Size: 7}}},
		{"envi-boxcar", []string{filepath.Join(envi, "date_001.bin"), filepath.Join(envi, "date_002.bin"), filepath.Join(envi, "date_003.bin")},
			[]string{"--looks", "1x3", "--filter", "boxcar", "--filter-size", "5"},
			stack.Config{LooksAz: 1, LooksRg: 3, Filter: stack.Filter{Kind: stack.Boxcar, Size: 5}}},
	}
	for _, c := range cases {
		var paths []string
		if strings.HasPrefix(c.files[0], "@") || strings.Contains(c.files[0], "*") {
			paths, _ = formats.ExpandDates(c.files)
		} else {
			paths = c.files
		}
		p, ref := refStack(t, paths, c.cfg)
		want := map[string][]float64{"mean": ref.Mean, "std": ref.Std, "cv": ref.CV, "min": ref.Min, "max": ref.Max, "count": ref.Count, "samples": ref.Samples}
		for _, d := range devicesUnderTest(t) {
			out := filepath.Join(dir, "out-"+c.name+"-"+d)
			args := append([]string{"--device", d, "--validate=" + boolStr(d != "cpu"), "stack", "--format", "tif,npy", "--png", "mean", "--out-dir", out}, c.args...)
			code, _, stderr := run(t, append(args, c.files...)...)
			if code != 0 {
				t.Fatalf("%s on %s: exit %d: %s", c.name, d, code, stderr)
			}
			for _, st := range stack.Stats {
				a, err := formats.ReadNPY(filepath.Join(out, st+".npy"))
				if err != nil {
					t.Fatal(err)
				}
				if a.Shape[0] != p.H || a.Shape[1] != p.W {
					t.Fatalf("%s: %s shape %v, want %d×%d", c.name, st, a.Shape, p.H, p.W)
				}
				checkStat(t, fmt.Sprintf("%s on %s: %s", c.name, d, st), a.Float64s(), want[st], 2e-5)
				b, err := formats.ReadArray(filepath.Join(out, st+".tif"))
				if err != nil {
					t.Fatal(err)
				}
				checkStat(t, fmt.Sprintf("%s on %s: %s.tif", c.name, d, st), b.Float64s(), a.Float64s(), 0)
			}
			if _, err := os.Stat(filepath.Join(out, "mean.png")); err != nil {
				t.Errorf("%s: no quicklook: %v", c.name, err)
			}
			if c.name == "cint16-ml" {
				r, err := formats.OpenRaster(filepath.Join(out, "mean.tif"))
				if err != nil {
					t.Fatal(err)
				}
				g := r.Georef()
				r.Close()
				// synth: origin (400000, 6300000), 10 m; crop row 1, column 2 of a 3×2 multilook.
				want := [6]float64{400000 + 2*2*10, 20, 0, 6300000 - 1*3*10, 0, -30}
				if g.Transform != want || !strings.Contains(g.Projection, "UTM zone 20S") {
					t.Errorf("georef %v %q, want %v in UTM 20S", g.Transform, g.Projection, want)
				}
			}
		}
	}
}

// TestStackGdalTranslateInputs: dates converted to GeoTIFF by gdal_translate
// (an independent writer) give the statistics the ENVI originals give.
func TestStackGdalTranslateInputs(t *testing.T) {
	if !formats.HaveGDAL {
		t.Skip("built without GDAL (-tags nogdal, as scripts/gpu-run.sh packs): reads no GeoTIFF")
	}
	gt, err := exec.LookPath("gdal_translate")
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("gdal_translate missing under CI (scripts/deps.sh test installs gdal-bin)")
		}
		t.Skip("gdal_translate not installed")
	}
	dir := t.TempDir()
	envi := filepath.Join(dir, "envi")
	synthStack(t, envi, "--dates", "3", "--shape", "16,12", "--type", "cfloat32", "--format", "envi")
	var tifs []string
	for i := 1; i <= 3; i++ {
		tif := filepath.Join(dir, fmt.Sprintf("d%d.tif", i))
		if out, err := exec.Command(gt, "-q", "-of", "GTiff", filepath.Join(envi, fmt.Sprintf("date_%03d.bin", i)), tif).CombinedOutput(); err != nil {
			t.Fatalf("gdal_translate: %v\n%s", err, out)
		}
		tifs = append(tifs, tif)
	}
	outs := []string{filepath.Join(dir, "a"), filepath.Join(dir, "b")}
	for i, files := range [][]string{{filepath.Join(envi, "date_*.bin")}, tifs} {
		code, _, stderr := run(t, append([]string{"--device", "cpu", "stack", "--looks", "2x2", "--format", "npy", "--out-dir", outs[i]}, files...)...)
		if code != 0 {
			t.Fatalf("exit %d: %s", code, stderr)
		}
	}
	for _, st := range stack.Stats {
		a, _ := formats.ReadNPY(filepath.Join(outs[0], st+".npy"))
		b, _ := formats.ReadNPY(filepath.Join(outs[1], st+".npy"))
		checkStat(t, st, b.Float64s(), a.Float64s(), 0)
	}
}

// TestStackBadInput: every bad input is a clear error naming the culprit,
// exit 1 or 2, and nothing written.
func TestStackBadInput(t *testing.T) {
	dir := t.TempDir()
	a := filepath.Join(dir, "a")
	synthStack(t, a, "--dates", "2", "--shape", "12,10")
	other := filepath.Join(dir, "other")
	synthStack(t, other, "--dates", "1", "--shape", "12,11")
	typ := filepath.Join(dir, "typ")
	synthStack(t, typ, "--dates", "1", "--shape", "12,10", "--type", "cfloat32")
	corrupt := filepath.Join(dir, "corrupt.tif")
	b, _ := os.ReadFile(filepath.Join(a, "date_001.tif"))
	os.WriteFile(corrupt, b[:len(b)/3], 0o644)
	junk := filepath.Join(dir, "junk.tif")
	os.WriteFile(junk, []byte("II*\x00 this is not a TIFF"), 0o644)
	d1, d2 := filepath.Join(a, "date_001.tif"), filepath.Join(a, "date_002.tif")
	// A date re-tagged in another coordinate system, on the same grid
	// numbers: GDAL's own tool writes it (independent of vkstat's writer).
	wgs84 := filepath.Join(dir, "wgs84.tif")
	if gt, err := exec.LookPath("gdal_translate"); err == nil {
		if out, err := exec.Command(gt, "-q", "-a_srs", "EPSG:4326", d2, wgs84).CombinedOutput(); err != nil {
			t.Fatalf("gdal_translate: %v\n%s", err, out)
		}
	} else if os.Getenv("CI") == "true" {
		t.Fatal("gdal_translate missing under CI (scripts/deps.sh test installs gdal-bin)")
	}
	for _, c := range []struct {
		name  string
		args  []string
		code  int
		words []string
	}{
		{"missing date", []string{d1, filepath.Join(a, "date_009.tif")}, 1, []string{"date_009.tif", "no such file"}},
		{"other size", []string{d1, filepath.Join(other, "date_001.tif")}, 1, []string{filepath.Join(other, "date_001.tif"), "10×12", "11×12"}},
		{"other type", []string{d1, d2, filepath.Join(typ, "date_001.tif")}, 1, []string{filepath.Join(typ, "date_001.tif"), "CFloat32", "CInt16"}},
		{"other crs", []string{d1, wgs84}, 1, []string{wgs84, "EPSG:4326", "EPSG:32720", "co-registered"}},
		{"corrupt", []string{d1, corrupt}, 1, []string{corrupt}},
		{"junk", []string{d1, junk}, 1, []string{junk}},
		{"glob", []string{filepath.Join(dir, "nothing*.tif")}, 1, []string{"nothing*.tif", "matches no file"}},
		{"list", []string{"@" + filepath.Join(dir, "nolist.txt")}, 1, []string{"nolist.txt"}},
		{"window", []string{"--looks", "2x2", "--window", "0,8,0,6", d1, d2}, 1, []string{"window 0,8,0,6", "outside", "(width×height) image"}},
		{"looks", []string{"--looks", "0x2", d1}, 2, []string{"--looks"}},
		{"filter", []string{"--filter", "lee", "--filter-size", "4", d1}, 2, []string{"odd"}},
		{"no files", nil, 2, []string{"no input files"}},
	} {
		out := filepath.Join(dir, "out-"+strings.ReplaceAll(c.name, " ", "-"))
		code, stdout, stderr := run(t, append([]string{"--device", "cpu", "stack", "--out-dir", out}, c.args...)...)
		if code != c.code {
			t.Errorf("%s: exit %d, want %d: %s", c.name, code, c.code, stderr)
		}
		for _, w := range c.words {
			if !strings.Contains(stderr, w) {
				t.Errorf("%s: stderr %q does not say %q", c.name, stderr, w)
			}
		}
		if stdout != "" {
			t.Errorf("%s: printed %q", c.name, stdout)
		}
		if _, err := os.Stat(out); err == nil {
			t.Errorf("%s: %s was created", c.name, out)
		}
	}
	// --precision f64 was silently ignored (float32 outputs): refused.
	code, stdout, stderr := run(t, "--device", "cpu", "--precision", "f64", "stack", "--out-dir", filepath.Join(dir, "out-f64"), d1, d2)
	if code != 2 || stdout != "" || !strings.Contains(stderr, "--precision f64: stack accumulates in float64 and writes float32") {
		t.Errorf("--precision f64: exit %d, stderr %q", code, stderr)
	}
	if _, err := os.Stat(filepath.Join(dir, "out-f64")); err == nil {
		t.Errorf("--precision f64: output written")
	}
	// A truncated file whose header is intact fails while reading: still
	// nothing written.
	code, _, stderr = run(t, "--device", "cpu", "stack", "--out-dir", filepath.Join(dir, "out-trunc"), d1, corrupt)
	if code == 0 {
		t.Errorf("truncated date accepted")
	}
	if _, err := os.Stat(filepath.Join(dir, "out-trunc")); err == nil {
		t.Errorf("truncated: output written (%s)", stderr)
	}
}

// TestStackHelp: the help has examples and the remainder rule.
func TestStackHelp(t *testing.T) {
	code, stdout, _ := run(t, "stack", "--help")
	if code != 0 || !strings.Contains(stdout, "Examples:") || !strings.Contains(stdout, "dropped, as ISCE and SNAP do") {
		t.Errorf("help: exit %d\n%s", code, stdout)
	}
}
