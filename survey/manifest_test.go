package survey

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/vkstat/vkstat/engine"
	"github.com/vkstat/vkstat/pipelines/paco"
)

func writeText(t *testing.T, path, text string) string {
	t.Helper()
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// the defaults (survey run's flags), then paco's.
func TestSurveyManifestCSVAndJSON(t *testing.T) {
	dir := t.TempDir()
	csvPath := writeText(t, filepath.Join(dir, "m.csv"), "# a comment line\n"+
		"name,cube,angles,psf,fwhm,Radius,center,pixel_scale,threshold,unbiased\n"+
		"a,a/cube.fits,a/angles.txt,a/psf.fits,,3,\"51.5,48\",0.0272,6,true\n"+
		"b,/abs/cube.npy,b/angles.fits,,4.5,,auto,,,\n")
	jsonPath := writeText(t, filepath.Join(dir, "m.json"), `{"targets": [
		{"name": "a", "cube": "a/cube.fits", "angles": "a/angles.txt", "psf": "a/psf.fits", "radius": 3,
		 "center": [51.5, 48], "pixel-scale": 0.0272, "threshold": 6, "unbiased": true},
		{"name": "b", "cube": "/abs/cube.npy", "angles": "b/angles.fits", "fwhm": 4.5, "center": "auto", "psf_norm": null}]}`)
	defaults := Defaults{"threshold": "7", "min-sep": "9"}
	var targets [][]Target
	for _, p := range []string{csvPath, jsonPath} {
		m, err := ReadManifest(p, defaults)
		if err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		if len(m.Targets) != 2 || m.Targets[0].Name != "a" || m.Targets[1].Index != 2 || len(m.SHA256) != 64 {
			t.Fatalf("%s: targets %+v", p, m.Targets)
		}
		var ts []Target
		for _, tg := range m.Targets {
			if tg.Err != nil {
				t.Fatalf("%s: %s: %v", p, tg.Name, tg.Err)
			}
			tg.Index, tg.Where = 0, ""
			ts = append(ts, tg)
		}
		targets = append(targets, ts)
	}
	if !reflect.DeepEqual(targets[0], targets[1]) {
		t.Errorf("CSV and JSON manifests differ:\n%+v\n%+v", targets[0], targets[1])
	}
	a, b := targets[0][0], targets[0][1]
	want := Target{Name: "a", Cube: filepath.Join(dir, "a/cube.fits"), Angles: filepath.Join(dir, "a/angles.txt"), PSF: filepath.Join(dir, "a/psf.fits"),
		Format: "fits", Options: paco.Options{PSFNorm: "sum", Radius: 3, StarFluxScale: 1, Center: paco.CenterGiven, CenterYX: [2]float64{51.5, 48}, Threshold: 6, MinSep: 9,
			PixelScale: 0.0272, Unbiased: true}}
	if !reflect.DeepEqual(a, want) {
		t.Errorf("target a:\n got %+v\nwant %+v", a, want)
	}
	if b.Cube != "/abs/cube.npy" || b.PSF != "" || b.Options.FWHM != 4.5 || b.Options.Radius != 4 || b.Options.Threshold != 7 || b.Options.Center != paco.CenterAuto || b.Options.PixelScale != 0 {
		t.Errorf("target b: %+v (want the absolute cube kept, fwhm 4.5, paco's radius 4, the default threshold 7)", b)
	}
}

// TestSurveyManifestErrors: structural mistakes fail the manifest and name
// the column, key, line or target; bad values fail only their target.
func TestSurveyManifestErrors(t *testing.T) {
	dir := t.TempDir()
	cases := []struct{ name, file, text, want string }{
		{"unknown column", "m.csv", "name,cube,angles,psf,radiu\na,c,a,p,3\n", `unknown column "radiu"`},
		{"unknown key", "m.json", `[{"name": "a", "cube": "c", "angles": "a", "fwhm": 3, "treshold": 5}]`, `target 1: unknown key "treshold"`},
		{"unknown top-level key", "m.json", `{"targets": [], "defaults": {}}`, `unknown key "defaults"`},
		{"no name column", "m.csv", "cube,angles,psf\nc,a,p\n", `no "name" column`},
		{"empty name", "m.csv", "name,cube,angles,psf\na,c,a,p\n,c,a,p\n", "line 3 has no name"},
		{"name twice", "m.csv", "name,cube,angles,psf\na,c,a,p\nb,c,a,p\na,c,a,p\n", `line 4: name "a" is already the name of line 2`},
		{"name with a slash", "m.json", `[{"name": "../up", "cube": "c", "angles": "a", "fwhm": 3}]`, `target 1: name "../up"`},
		{"reserved name", "m.csv", "name,cube,angles,psf\nsurvey.csv,c,a,p\n", `name "survey.csv"`},
		{"column twice", "m.csv", "name,pixel-scale,pixel_scale\na,1,2\n", `column "pixel_scale" given twice`},
		{"short row", "m.csv", "name,cube,angles,psf\na,c,a\n", "line 2"},
		{"bad JSON value", "m.json", `[{"name": "a", "cube": "c", "angles": "a", "radius": {"r": 3}}]`, "target 1: radius"},
		{"no targets", "m.csv", "name,cube,angles,psf\n", "no targets"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			p := writeText(t, filepath.Join(dir, tc.file), tc.text)
			_, err := ReadManifest(p, nil)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("got %v, want an error containing %q", err, tc.want)
			}
		})
	}
	if _, err := ReadManifest(filepath.Join(dir, "none.csv"), nil); err == nil || !strings.Contains(err.Error(), "none.csv") {
		t.Errorf("missing manifest: %v", err)
	}

	// Bad values: the manifest reads, the target carries its error.
	p := writeText(t, filepath.Join(dir, "values.csv"), "name,cube,angles,psf,fwhm,radius,center\n"+
		"ok,c,a,p,,,\n"+
		"radius,c,a,p,,three,\n"+
		"centre,c,a,p,,,middle\n"+
		"both,c,a,p,3,,\n"+
		"nopsf,c,a,,,,\n"+
		"nocube,,a,p,,,\n")
	m, err := ReadManifest(p, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"ok": "", "radius": `radius: want a whole number`, "centre": `center: want y,x`,
		"both": "give psf or fwhm, not both", "nopsf": "give psf (the off-axis PSF stamp) or fwhm", "nocube": "cube: not given"}
	for _, tg := range m.Targets {
		w := want[tg.Name]
		switch {
		case w == "" && tg.Err != nil:
			t.Errorf("%s: %v", tg.Name, tg.Err)
		case w != "" && (tg.Err == nil || !strings.Contains(tg.Err.Error(), w)):
			t.Errorf("%s: got %v, want %q", tg.Name, tg.Err, w)
		}
	}
	// A default (survey run flag) supplies what the cells lack.
	m, err = ReadManifest(p, Defaults{"fwhm": "4"})
	if err != nil {
		t.Fatal(err)
	}
	if tg := m.Targets[4]; tg.Err != nil || tg.Options.FWHM != 4 {
		t.Errorf("nopsf with --fwhm 4: %v, %+v", tg.Err, tg)
	}
}

// TestManifestValuesArePacosContract: a manifest's values out of range are
// refused by paco's own check (Target.CheckOptions), worded with the
// manifest's column; survey run's defaults by the same check, worded with
// its flags, before the manifest is read.
func TestManifestValuesArePacosContract(t *testing.T) {
	cells := map[string]string{
		"radius": "0", "psf-norm": "peek", "fwhm": "200", "pixel-scale": "3600", "min-sep": "-1", "star-flux": "-2",
		"star-flux-scale": "-1",
	}
	want := map[string]string{
		"radius":          "radius must be at least 1, got 0",
		"psf-norm":        `psf-norm: want sum, peak or none, got "peek"`,
		"fwhm":            "fwhm must be between 0 and 100 pixels, got 200",
		"pixel-scale":     "pixel-scale: want arcseconds per pixel, a number above 0, got 3600",
		"min-sep":         "min-sep: want a distance in pixels of 0 (2×radius) or more, got -1",
		"star-flux":       "star-flux must be a finite number ≥ 0, got -2",
		"star-flux-scale": "star-flux-scale must be a finite number above 0 (the stamp's exposure or neutral-density ratio to the cube's), got -1",
	}
	for col, v := range cells {
		psf := "p.fits"
		if col == "fwhm" {
			psf = ""
		}
		text := "name,cube,angles,psf," + col + "\na,c,a," + psf + "," + v + "\n"
		m, err := ParseManifest("m.csv", []byte(text), nil)
		if err != nil {
			t.Fatal(err)
		}
		tg := m.Targets[0]
		if tg.Err != nil {
			t.Errorf("%s %s: the manifest refused it (%v); paco's check is the one", col, v, tg.Err)
			continue
		}
		if err := tg.CheckOptions(); err == nil || err.Error() != want[col] {
			t.Errorf("%s %s: %v, want %q", col, v, err, want[col])
		}
		flag := func(f string) string { return "--" + ColumnName(f) }
		if err := CheckDefaults(Defaults{col: v}, flag); err == nil || err.Error() != "--"+want[col] {
			t.Errorf("default --%s %s: %v", col, v, err)
		}
	}
	if err := CheckDefaults(Defaults{"radius": "3"}, ColumnName); err != nil {
		t.Errorf("defaults without a PSF (the cells give it): %v", err)
	}
	if err := CheckDefaults(Defaults{"fwhm": "0"}, ColumnName); err == nil {
		t.Errorf("a default fwhm of 0 passed")
	}
	if err := CheckDefaults(Defaults{"psf": "p.fits", "fwhm": "3"}, ColumnName); err == nil || !strings.HasPrefix(err.Error(), "give psf or fwhm, not both") {
		t.Errorf("a default stamp and FWHM: %v", err)
	}
	// The star's flux from the stamp, scaled; not from a Gaussian of fwhm.
	m, err := ParseManifest("m.csv", []byte("name,cube,angles,psf,fwhm,star-flux,star-flux-scale\na,c,a,p.fits,,psf,100\nb,c,a,,3,psf,\n"), nil)
	if err != nil {
		t.Fatal(err)
	}
	if a := m.Targets[0]; a.Err != nil || !a.Options.StarFluxPSF || a.Options.StarFluxScale != 100 || a.CheckOptions() != nil {
		t.Errorf("star-flux psf, star-flux-scale 100: %v %+v", a.Err, a.Options)
	}
	if err := m.Targets[1].CheckOptions(); err == nil || !strings.Contains(err.Error(), "star-flux psf: the star's flux from the PSF stamp needs a stamp") {
		t.Errorf("star-flux psf with fwhm: %v", err)
	}
}

// TestSurveyShards: shards are numbered from 1; every target is in
// exactly one shard, also when N does not divide the count; shard I holds
// manifest positions I, I+N, I+2N, ...
func TestSurveyShards(t *testing.T) {
	for _, bad := range []struct{ in, want string }{
		{"0/4", "numbered from 1"}, {"5/4", "numbered from 1 to 4"}, {"1/0", "want I/N"}, {"2", "want I/N"}, {"a/b", "want I/N"},
	} {
		if _, err := ParseShard(bad.in); err == nil || !strings.Contains(err.Error(), bad.want) {
			t.Errorf("--shard %s: got %v, want %q", bad.in, err, bad.want)
		}
	}
	const count = 10
	for _, n := range []int{1, 3, 4, 10, 12} {
		in := make([]int, count+1)
		for i := 1; i <= n; i++ {
			s, err := ParseShard(strconv.Itoa(i) + "/" + strconv.Itoa(n))
			if err != nil {
				t.Fatal(err)
			}
			var got []int
			for k := 1; k <= count; k++ {
				if s.Has(k) {
					got = append(got, k)
					in[k]++
				}
			}
			if i <= count && (len(got) == 0 || got[0] != i) {
				t.Errorf("shard %d/%d holds %v: want it to start at position %d", i, n, got, i)
			}
			if want := (count - i + n) / n; len(got) != max(want, 0) {
				t.Errorf("shard %d/%d holds %d targets %v, want %d", i, n, len(got), got, want)
			}
		}
		for k := 1; k <= count; k++ {
			if in[k] != 1 {
				t.Errorf("N=%d: target %d is in %d shards", n, k, in[k])
			}
		}
	}
}

// TestDatasetManifest: the manifest synth survey writes reads back, as
// CSV and as JSON, as the targets it names, their files in their folders;
// Count counts them in all and in shards.
func TestDatasetManifest(t *testing.T) {
	csvFile, jsonFile := datasetManifest([]string{"t01", "t02"})
	for _, c := range []struct {
		name  string
		write func(w io.Writer) error
	}{{"manifest.csv", csvFile}, {"manifest.json", jsonFile}} {
		var b bytes.Buffer
		if err := c.write(&b); err != nil {
			t.Fatal(err)
		}
		m, err := ParseManifest(filepath.Join("/data", c.name), b.Bytes(), Defaults{})
		if err != nil {
			t.Fatalf("%s: %v\n%s", c.name, err, b.String())
		}
		if len(m.Targets) != 2 || m.Count(nil) != 2 || m.Count(&Shard{I: 2, N: 2}) != 1 || m.Count(&Shard{I: 3, N: 3}) != 0 {
			t.Fatalf("%s: %d targets, counted %d, %d in shard 2/2, %d in 3/3", c.name, len(m.Targets), m.Count(nil), m.Count(&Shard{I: 2, N: 2}), m.Count(&Shard{I: 3, N: 3}))
		}
		for i, tg := range m.Targets {
			n := []string{"t01", "t02"}[i]
			if tg.Err != nil || tg.Name != n || tg.Cube != "/data/"+n+"/cube.fits" || tg.Angles != "/data/"+n+"/angles.fits" ||
				tg.PSF != "/data/"+n+"/psf.fits" || tg.Truth != "/data/"+n+"/truth.json" {
				t.Errorf("%s: target %d = %+v", c.name, i, tg)
			}
		}
	}
}

// TestFormatExts: each map format ParseFormat gives names its files'
// extensions, FITS first.
func TestFormatExts(t *testing.T) {
	for in, want := range map[string][]string{"fits": {".fits"}, "npy": {".npy"}, "npy,fits": {".fits", ".npy"}, "both": {".fits", ".npy"}} {
		f, err := ParseFormat(in)
		if err != nil {
			t.Fatal(err)
		}
		if got := FormatExts(f); !slices.Equal(got, want) {
			t.Errorf("%s: %v, want %v", in, got, want)
		}
	}
}

// TestParseDefaults: the columns given are the defaults, as given; one
// its column cannot read is an error naming the column.
func TestParseDefaults(t *testing.T) {
	given := map[string]string{"radius": "3", "unbiased": "true", "fwhm": "4.5"}
	lookup := func(col string) (string, bool) { v, ok := given[col]; return v, ok }
	d, err := ParseDefaults(lookup)
	if err != nil || len(d) != 3 || d["radius"] != "3" || d["unbiased"] != "true" || d["fwhm"] != "4.5" {
		t.Errorf("defaults %v, %v", d, err)
	}
	given["radius"] = "three"
	_, err = ParseDefaults(lookup)
	var fe *engine.FieldError
	if !errors.As(err, &fe) || fe.Field != "radius" || !strings.HasPrefix(err.Error(), "radius: ") {
		t.Errorf("a bad radius: %v", err)
	}
}

// TestManifestDescribe: targets at positions 1..5; shard 2/2 holds
// positions 2 and 4.
func TestManifestDescribe(t *testing.T) {
	m := &Manifest{Path: "m.csv"}
	for k := range 5 {
		m.Targets = append(m.Targets, Target{Index: k})
	}
	if got := m.Describe(nil); got != "m.csv, 5 targets (all)" {
		t.Errorf("got %q", got)
	}
	if got := m.Describe(&Shard{I: 2, N: 2}); got != "m.csv, 2 targets (shard 2/2)" {
		t.Errorf("got %q", got)
	}
}
