package synth

import (
	"bytes"
	"strings"
	"testing"

	"github.com/vkstat/vkstat/engine"
	"github.com/vkstat/vkstat/tensor"
)

// TestCompanions: a repeated flag's values, one companion each, in
// order; a malformed one is refused and leaves the list as it was.
func TestCompanions(t *testing.T) {
	var l Companions
	for _, s := range []string{"sep=20,pa=45,flux=50", "sep=10, theta=0, flux=3"} {
		if err := l.Set(s); err != nil {
			t.Fatal(err)
		}
	}
	if err := l.Set("sep=10,pa=x"); err == nil || len(l) != 2 {
		t.Errorf("a malformed companion: %v, %d companions", err, len(l))
	}
	if got, want := l.String(), "sep=20,pa=45,flux=50 sep=10,pa=270,flux=3"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
	if (*Companions)(nil).String() != "" {
		t.Error("a nil list is not empty")
	}
}

// TestWriteSummary: a 32×32 sequence of 4 frames over 30°, FWHM 2 (a
// 13-pixel stamp, 2·⌈6⌉+1), one companion 10 px north of the star at
// (16, 16): pa 0 is θ 90°, on the sky at (26, 16).
func TestWriteSummary(t *testing.T) {
	ds, err := Generate(Config{H: 32, W: 32, Frames: 4, RotationDeg: 30, FWHM: 2, DType: tensor.F32, Seed: 1,
		Companions: []Companion{{SepPx: 10, ThetaDeg: 90, Flux: 5}}})
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	ds.WriteSummary(&b, "d")
	lines := strings.Split(b.String(), "\n")
	if len(lines) != 4 || !strings.HasPrefix(lines[0], "wrote d: cube (4, 32, 32) float32, 4 angles 0..") ||
		!strings.HasSuffix(lines[0], "°, PSF 13×13 (FWHM 2 px), truth.json") ||
		lines[1] != "star at (y, x) = (16, 16)" ||
		lines[2] != "companion 1: sep 10 px, PA 0° east of north (θ 90° from +x), flux 5 at sky (y, x) = (26.00, 16.00)" {
		t.Errorf("got\n%s", b.String())
	}
}

// TestParams: the sequence's and the noise's parameters, as vkstat synth
// paco's flags list them, in that order, with Default's and
// DefaultNoise's values.
func TestParams(t *testing.T) {
	for _, tc := range []struct {
		opt      any
		names    []string
		defaults []any
	}{
		{Default(), []string{"frames", "rotation", "start_angle", "fwhm", "stamp"}, []any{252, 60.0, 0.0, 4.0, 0}},
		{DefaultNoise(), []string{"halo", "speckle", "temporal", "white", "noise_scale"}, []any{100.0, 10.0, 3.0, 1.0, 0.0}},
	} {
		ps := engine.Describe(tc.opt)
		if len(ps) != len(tc.names) {
			t.Fatalf("%d parameters, want %v", len(ps), tc.names)
		}
		for i, p := range ps {
			if p.Name != tc.names[i] || p.Default != tc.defaults[i] || p.Help == "" {
				t.Errorf("parameter %d: %s = %v (%q), want %s = %v", i, p.Name, p.Default, p.Help, tc.names[i], tc.defaults[i])
			}
		}
	}
}

// TestRandomSetDist: the two names, and another refused naming dist.
func TestRandomSetDist(t *testing.T) {
	var r Random
	if err := r.SetDist("normal"); err != nil || !r.Normal {
		t.Errorf("normal: %+v, %v", r, err)
	}
	if err := r.SetDist("uniform"); err != nil || r.Normal {
		t.Errorf("uniform: %+v, %v", r, err)
	}
	if err := r.SetDist("Normal"); err == nil || err.Error() != `dist: want uniform or normal, got "Normal"` {
		t.Errorf("Normal: %v", err)
	}
}
