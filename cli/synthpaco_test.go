package cli

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vkstat/vkstat/formats"

	"github.com/vkstat/vkstat/pipelines/synth"
	"github.com/vkstat/vkstat/tensor"
)

func TestSynthPaco(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "adi")
	code, stdout, stderr := run(t, "synth", "paco", "--size", "48,56", "--frames", "12", "--rotation", "40",
		"--start-angle", "-5", "--fwhm", "3", "--companion", "sep=12,theta=30,flux=40",
		"--companion", "flux=7.5; theta=-100; sep=9.5", "--seed", "3", "--format", "both", "--out-dir", dir)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if !strings.Contains(stdout, "companion 2: sep 9.5 px") || strings.Contains(stdout, "companion 3") {
		t.Errorf("summary: %q", stdout)
	}
	want, err := synth.Generate(synth.Config{H: 48, W: 56, Frames: 12, StartDeg: -5, RotationDeg: 40, FWHM: 3, Seed: 3,
		Companions: []synth.Companion{{SepPx: 12, ThetaDeg: 30, Flux: 40}, {SepPx: 9.5, ThetaDeg: -100, Flux: 7.5}}})
	if err != nil {
		t.Fatal(err)
	}

	cubeFITS, hdr, err := formats.ReadFITSHeader(filepath.Join(dir, "cube.fits"))
	if err != nil {
		t.Fatal(err)
	}
	cubeNPY, err := formats.ReadNPY(filepath.Join(dir, "cube.npy"))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []*tensor.Tensor{cubeFITS, cubeNPY} {
		if !tensor.SameShape(c.Shape, []int{12, 48, 56}) || c.DType != tensor.F32 || !bytes.Equal(c.Raw(), want.Cube.Raw()) {
			t.Fatalf("cube %v %v differs from synth.Generate's", c.Shape, c.DType)
		}
	}
	cards := map[string]any{}
	for _, c := range hdr {
		cards[c.Key] = c.Value
	}
	if cards["SEED"] != 3 || cards["FWHM"] != 3.0 || cards["NCOMP"] != 2 || cards["C2FLUX"] != 7.5 || cards["CENTERX"] != 28 {
		t.Errorf("cube header: %v", cards)
	}
	for _, name := range []string{"angles.fits", "angles.npy"} {
		a, err := formats.ReadVector(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		if len(a) != 12 || a[0] != -5 || a[11] != 35 {
			t.Errorf("%s: %v", name, a)
		}
	}
	for _, name := range []string{"psf.fits", "psf.npy"} {
		p, err := formats.ReadArray(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		if !tensor.SameShape(p.Shape, []int{19, 19}) || !bytes.Equal(p.Raw(), want.PSF.Raw()) {
			t.Errorf("%s: shape %v or values differ", name, p.Shape)
		}
	}

	b, err := os.ReadFile(filepath.Join(dir, "truth.json"))
	if err != nil {
		t.Fatal(err)
	}
	var truth synth.TruthFile
	if err := json.Unmarshal(b, &truth); err != nil {
		t.Fatal(err)
	}
	noise := synth.DefaultNoise()
	noise.Scale = 15 // resolved: 5·FWHM
	if truth.Config.Height != 48 || truth.Config.Width != 56 || truth.Config.Seed != 3 || truth.Config.StampSize != 19 ||
		truth.Center != (synth.TruthPoint{Y: 24, X: 28}) || len(truth.Companions) != 2 || truth.Config.Noise != noise {
		t.Errorf("truth: %+v", truth)
	}
	for i, c := range truth.Companions {
		w := want.Truth[i]
		if c.Sep != w.SepPx || c.Theta != w.ThetaDeg || c.PA != synth.ThetaToPA(w.ThetaDeg) || c.Flux != w.Flux || math.Abs(c.Y-w.Y) > 1e-12 || math.Abs(c.X-w.X) > 1e-12 {
			t.Errorf("truth companion %d: %+v, want %+v", i, c, w)
		}
	}
	if len(truth.Files["cube"]) != 2 {
		t.Errorf("truth files: %v", truth.Files)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 8 {
		t.Errorf("out-dir holds %d entries, want 7 and %s (no temporary files)", len(entries), formats.OutputsList)
	}
}

func TestSynthPacoNPYOnly(t *testing.T) {
	dir := t.TempDir()
	code, _, stderr := run(t, "synth", "paco", "--size", "32", "--frames", "4", "--format", "npy", "--dtype", "f64", "--out-dir", dir)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	c, err := formats.ReadNPY(filepath.Join(dir, "cube.npy"))
	if err != nil || c.DType != tensor.F64 || !tensor.SameShape(c.Shape, []int{4, 32, 32}) {
		t.Fatalf("cube.npy: %v %v", c, err)
	}
	if _, err := os.Stat(filepath.Join(dir, "cube.fits")); err == nil {
		t.Error("--format npy wrote FITS")
	}
}

// TestSynthPacoBadInput: mistakes on the command line exit 2 with a clear
// message; nothing is written.
func TestSynthPacoBadInput(t *testing.T) {
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"--companion", "sep=20,pa=45"}, "no flux"},
		{[]string{"--companion", "20,45,3"}, "not key=value"},
		{[]string{"--companion", "sep=20,pa=45,flux=x"}, "not a finite number"},
		{[]string{"--companion", "sep=20,pa=45,flux=1,sep=3"}, "sep given twice"},
		{[]string{"--companion", "sep=20,pa=45,flux=1,mass=3"}, `unknown key "mass"`},
		{[]string{"--companion", "sep=-2,pa=45,flux=1"}, "negative separation"},
		{[]string{"--companion", "sep=70,pa=45,flux=1"}, "outside the 100×100 image"},
		{[]string{"--frames", "1"}, "at least 2 frames"},
		{[]string{"--frames", "many"}, "-frames"},
		{[]string{"--size", "0"}, "--size"},
		{[]string{"--size", "10,20,30"}, "--size"},
		{[]string{"--fwhm", "-1"}, "FWHM"},
		{[]string{"--stamp", "10"}, "odd"},
		{[]string{"--format", "png"}, "--format"},
		{[]string{"--dtype", "f16"}, "--dtype"},
		{[]string{"--white", "-1"}, "white"},
		{[]string{"extra-argument"}, "unexpected argument"},
	}
	for _, c := range cases {
		dir := filepath.Join(t.TempDir(), "out")
		args := append([]string{"synth", "paco", "--out-dir", dir}, c.args...)
		code, _, stderr := run(t, args...)
		if code != ExitUsage || !strings.Contains(stderr, c.want) {
			t.Errorf("%v: exit %d, stderr %q; want exit 2 and %q", c.args, code, stderr, c.want)
		}
		if _, err := os.Stat(dir); err == nil {
			t.Errorf("%v: the output directory was created", c.args)
		}
	}
	if code, _, stderr := run(t, "synth", "paco"); code != ExitUsage || !strings.Contains(stderr, "--out-dir") {
		t.Errorf("no --out-dir: exit %d, %q", code, stderr)
	}
}

// TestSynthPacoAllOrNothing: when one output cannot be written, none is.
func TestSynthPacoAllOrNothing(t *testing.T) {
	dir := t.TempDir()
	if err := os.Mkdir(filepath.Join(dir, "truth.json"), 0o755); err != nil {
		t.Fatal(err)
	}
	code, _, stderr := run(t, "synth", "paco", "--size", "32", "--frames", "4", "--out-dir", dir)
	if code != ExitError || !strings.Contains(stderr, "truth.json") {
		t.Fatalf("exit %d, %q", code, stderr)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		t.Errorf("left in the directory: %v", entries)
	}
	file := filepath.Join(dir, "file")
	os.WriteFile(file, nil, 0o644)
	if code, _, stderr := run(t, "synth", "paco", "--size", "32", "--frames", "4", "--out-dir", file); code != ExitError || !strings.Contains(stderr, "not a directory") {
		t.Errorf("out-dir is a file: exit %d, %q", code, stderr)
	}
}

// TestParseSize: N, H,W and HxW (either case; an empty part ignored),
// and the refusals, by hand.
func TestParseSize(t *testing.T) {
	for s, want := range map[string][2]int{"100": {100, 100}, "96,128": {96, 128}, "96X128": {96, 128}, " 7 x 9": {7, 9}, "100,": {100, 100}} {
		if h, w, err := parseSize(s); err != nil || h != want[0] || w != want[1] {
			t.Errorf("%q: %d, %d, %v", s, h, w, err)
		}
	}
	for _, s := range []string{"", "0", "1,2,3", "a,b", "-4"} {
		if _, _, err := parseSize(s); err == nil || err.Error() != fmt.Sprintf("%q: want N or H,W in pixels, e.g. 100 or 96,128", s) {
			t.Errorf("%q: %v", s, err)
		}
	}
}
