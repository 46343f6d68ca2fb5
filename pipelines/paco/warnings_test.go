package paco

import (
	"context"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/vkstat/vkstat/engine"
	"github.com/vkstat/vkstat/pipelines/synth"
)

// codes lists the warnings' codes.
func codes(ws []engine.Warning) []string {
	var c []string
	for _, w := range ws {
		c = append(c, w.Code)
	}
	return c
}

// TestRotationWarnings (issue 33, item 6), hand values: a companion at
// the inner working angle r moves r·Δθ (radians) across the sequence,
// which must reach one FWHM. 60° at r = 4, FWHM 4: 4·π/3/4 = 1.047 FWHM,
// no warning. 20°: 0.349 FWHM, and 1 FWHM at 4/(π/9) = 11.46 px. The
// same 60° given in radians (0 to 1.0472 over 30 frames): 0.01828 FWHM,
// 1 FWHM at 218.8 px, and, read as radians, 60°. Five such frames are
// too few to call radians; angles past 2π are not radians.
func TestRotationWarnings(t *testing.T) {
	lin := func(n int, to float64) []float64 { return synth.Angles(n, 0, to) }
	for _, c := range []struct {
		name   string
		angles []float64
		want   []string
		data   map[string]float64
	}{
		{"60 deg", lin(30, 60), nil, nil},
		{"20 deg", lin(30, 20), []string{WarnRotation}, map[string]float64{"motion_fwhm": 0.3491, "separation_1fwhm_px": 11.46, "rotation_deg": 20}},
		{"radians", lin(30, math.Pi/3), []string{WarnRotation, WarnRadians}, map[string]float64{"motion_fwhm": 0.01828, "separation_1fwhm_px": 218.8, "rotation_if_radians_deg": 60}},
		{"5 frames", lin(5, math.Pi/3), []string{WarnRotation}, nil},
		{"near 180", []float64{176, 179, -178, -175, -172}, []string{WarnRotation}, map[string]float64{"rotation_deg": 12}},
		{"still", lin(30, 0), nil, nil},
	} {
		ws := rotationWarnings(c.angles, 4, 4, 300)
		if !slices.Equal(codes(ws), c.want) {
			t.Errorf("%s: warnings %v, want %v", c.name, codes(ws), c.want)
			continue
		}
		for k, v := range c.data {
			got := math.NaN()
			for _, w := range ws {
				if x, ok := w.Data[k]; ok {
					got = x
				}
			}
			if math.Abs(got-v) > 1e-3*math.Abs(v) {
				t.Errorf("%s: %s = %g, want %g", c.name, k, got, v)
			}
		}
	}
	// 1 FWHM beyond the frame is said so.
	if ws := rotationWarnings(lin(30, math.Pi/3), 4, 4, 100); len(ws) == 0 || !strings.Contains(ws[0].Message, "nowhere in the frame") {
		t.Errorf("1 FWHM at 219 px in a frame reaching 100 px: %v", ws)
	}
}

// TestFWHMWarnings: a FWHM below a pixel (VIP's 0.108″ given as --fwhm:
// at 0.0272″/px that is 3.97 px), a stamp whose PSF is more than half its
// side, and a PSF wider than the patch each warn; a 4-px PSF in a 21-px
// stamp with patch radius 4 does not.
func TestFWHMWarnings(t *testing.T) {
	ws := fwhmWarnings(0.108, false, 3, 4, 0.0272)
	if !slices.Equal(codes(ws), []string{WarnFWHMPixel}) || math.Abs(ws[0].Data["fwhm_if_arcsec_px"]-3.9706) > 1e-3 || !strings.Contains(ws[0].Message, "3.97 px") {
		t.Errorf("FWHM 0.108 px: %+v", ws)
	}
	for _, c := range []struct {
		n    int
		fwhm float64
		r    int
		want []string
	}{{21, 4, 4, nil}, {21, 12, 4, []string{WarnFWHMStamp}}, {41, 12, 4, []string{WarnFWHMPatch}}, {41, 12, 6, nil}, {21, 0.6, 4, []string{WarnFWHMPixel}}} {
		f := stampFWHM(gaussPSF(c.n, c.fwhm))
		if c.fwhm >= 1 && math.Abs(f-c.fwhm) > 0.05*c.fwhm {
			t.Fatalf("stamp %d, FWHM %g: measured %g", c.n, c.fwhm, f)
		}
		if ws := fwhmWarnings(f, true, c.n, c.r, 0); !slices.Equal(codes(ws), c.want) {
			t.Errorf("stamp %d, FWHM %g, radius %d: %v, want %v", c.n, c.fwhm, c.r, codes(ws), c.want)
		}
	}
}

// TestRunWarnsAngles: Run warns of angles in radians and of an FWHM below
// a pixel, and returns the warnings as values; negated angles are a
// rotation like any other, which only a truth file (TruthAngleWarnings)
// shows.
func TestRunWarnsAngles(t *testing.T) {
	ds, err := synth.Generate(synth.Config{H: 32, W: 32, Frames: 12, RotationDeg: 60, FWHM: 3, Seed: 5})
	if err != nil {
		t.Fatal(err)
	}
	run := func(angles []float64, fwhm float64) []string {
		var heard []string
		res, err := Run(context.Background(), nil, ADI{Cube: ds.Cube, Angles: angles}, Options{FWHM: fwhm, Radius: 2, PixelScale: 0.0272, Threshold: 5,
			Center: CenterGiven, CenterYX: [2]float64{16, 16}, Warn: func(w engine.Warning) { heard = append(heard, w.Code) }})
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(heard, codes(res.Warnings)) {
			t.Errorf("Warn heard %v, the result has %v", heard, codes(res.Warnings))
		}
		return heard
	}
	rad := make([]float64, len(ds.Angles))
	neg := make([]float64, len(ds.Angles))
	for i, a := range ds.Angles {
		rad[i], neg[i] = a*math.Pi/180, -a
	}
	if got := run(ds.Angles, 3); len(got) != 0 {
		t.Errorf("degrees: %v", got)
	}
	if got := run(rad, 3); !slices.Equal(got, []string{WarnRotation, WarnRadians}) {
		t.Errorf("radians: %v", got)
	}
	if got := run(neg, 3); len(got) != 0 {
		t.Errorf("negated: %v", got)
	}
	if got := run(ds.Angles, 0.108); !slices.Contains(got, WarnFWHMPixel) {
		t.Errorf("FWHM 0.108: %v", got)
	}
	truth := ds.TruthFile("test", "", nil)
	for _, c := range []struct {
		name   string
		angles []float64
		want   string
	}{{"same", ds.Angles, ""}, {"negated", neg, "negated"}, {"radians", rad, "in radians"}, {"other", ds.Angles[:len(ds.Angles)-1], ""}} {
		ws := TruthAngleWarnings(&truth, c.angles)
		if c.want == "" && len(ws) != 0 || c.want != "" && (len(ws) != 1 || ws[0].Code != WarnTruthAngles || !strings.Contains(ws[0].Message, c.want)) {
			t.Errorf("%s: %+v, want %q", c.name, ws, c.want)
		}
	}
	other := slices.Clone(ds.Angles)
	other[3] += 1
	if ws := TruthAngleWarnings(&truth, other); len(ws) != 1 || !strings.Contains(ws[0].Message, "not the truth file's") {
		t.Errorf("other angles: %+v", ws)
	}
}
