package paco

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/vkstat/vkstat/pipelines/synth"
	"github.com/vkstat/vkstat/tensor"
)

// TestEstimateCenterSynth: a synthetic sequence whose star sits off the
// geometric centre by a sub-pixel amount is centred within 0.1 px (issue
// 14, must-show 2), and a centred one at its geometric centre. The star's
// core is 1000 (synth's default halo is 100) against speckles of 10: a
// star 100× its speckles, as an unsaturated star is at least; several
// seeds, so that the speckle pattern differs. The uncertainty covers the
// error and stays below 0.5 px, so that the measurement rules out the
// geometric centre when the star is 0.7 px or more from it, and only then.
func TestEstimateCenterSynth(t *testing.T) {
	for i, star := range [][2]float64{{51.3, 48.6}, {50, 50}, {47.75, 52.2}, {49.5, 50.45}} {
		cfg := synth.Default()
		cfg.H, cfg.W, cfg.Frames, cfg.Seed = 100, 100, 30, uint64(i+1)
		n := synth.DefaultNoise()
		n.Halo = 1000
		cfg.Noise = &n
		cfg.Star = &[2]float64{star[0], star[1]}
		cfg.Companions = []synth.Companion{{SepPx: 20, ThetaDeg: 30, Flux: 200}}
		ds, err := synth.Generate(cfg)
		if err != nil {
			t.Fatal(err)
		}
		est, err := EstimateCenter(ds.Cube, FWHMOfStamp(ds.PSF))
		if err != nil {
			t.Fatal(err)
		}
		e := math.Hypot(est.Y-star[0], est.X-star[1])
		t.Logf("star (%.2f, %.2f): estimated (%.4f, %.4f), error %.4f px (±%.3f, 95 %%), %s, %d frames", star[0], star[1], est.Y, est.X, e, est.Uncertainty, est.Method, est.Frames)
		if e > est.Uncertainty || est.Uncertainty > 0.5 {
			t.Errorf("uncertainty %.3f px for an error of %.3f: want at least the error and at most 0.5", est.Uncertainty, e)
		}
		if math.Abs(est.Y-star[0]) > 0.1 || math.Abs(est.X-star[1]) > 0.1 {
			t.Errorf("star (%g, %g): estimated (%.3f, %.3f), more than 0.1 px off", star[0], star[1], est.Y, est.X)
		}
		if est.Method != "star" {
			t.Errorf("method %q, want star", est.Method)
		}
		if got, want := est.Rounded(), [2]int{int(math.Round(star[0])), int(math.Round(star[1]))}; got != want && math.Abs(math.Mod(star[0], 1)) != 0.5 {
			t.Errorf("rounded centre %v, want %v", got, want)
		}
		off := math.Hypot(star[0]-50, star[1]-50)
		if rules := est.RulesOut(50, 50); off >= 0.7 && !rules || off == 0 && rules {
			t.Errorf("the star %.2f px from (50, 50): RulesOut(50, 50) = %v", off, rules)
		}
	}
}

// TestEstimateCenterFaintStar: synth's default star (core 100, speckles
// 10) cannot be centred to better than about a pixel; the estimate says
// so, and does not rule out the geometric centre where the star is.
func TestEstimateCenterFaintStar(t *testing.T) {
	cfg := synth.Default()
	cfg.Frames = 10
	ds, err := synth.Generate(cfg)
	if err != nil {
		t.Fatal(err)
	}
	est, err := EstimateCenter(ds.Cube, FWHMOfStamp(ds.PSF))
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("estimated (%.3f, %.3f) ± %.3f (95 %%) for (50, 50)", est.Y, est.X, est.Uncertainty)
	if est.Uncertainty < 0.5 || est.RulesOut(50, 50) {
		t.Errorf("uncertainty %.3f px, want 0.5 or more for a star only 10× its speckles, not ruling out (50, 50)", est.Uncertainty)
	}
}

// TestEstimateCenterCoverage (issue 25, defect 13): the uncertainty is
// honest, a radius that holds the true error on at least 95 % of
// synthetic stars, here 24: stars 10×, 30× and 100× their speckles (synth
// halo 100, 300, 1000 against speckles of 10), FWHM 3 and 4, on and off
// the pixel grid, a seed each. The rough 1-σ it replaced, 2·FWHM·σ_ring/
// (core − ring), was 0.20 px for an error of 0.73 on synth survey's t01
// and covered 70 % of 40 faint stars.
func TestEstimateCenterCoverage(t *testing.T) {
	covered, n := 0, 0
	for i := range 24 {
		halo := []float64{100, 300, 1000}[i%3]
		fwhm := []float64{3, 4}[(i/3)%2]
		star := [2]float64{32, 32}
		if i%4 >= 2 {
			star = [2]float64{31.6 + 0.05*float64(i%7), 32.45 - 0.07*float64(i%5)}
		}
		cfg := synth.Default()
		cfg.H, cfg.W, cfg.Frames, cfg.Seed, cfg.FWHM, cfg.RotationDeg = 64, 64, 20, uint64(100+i), fwhm, 90
		nz := synth.DefaultNoise()
		nz.Halo = halo
		cfg.Noise = &nz
		cfg.Star = &star
		ds, err := synth.Generate(cfg)
		if err != nil {
			t.Fatal(err)
		}
		est, err := EstimateCenter(ds.Cube, FWHMOfStamp(ds.PSF))
		if err != nil {
			t.Fatalf("cube %d: %v", i, err)
		}
		n++
		e := math.Hypot(est.Y-star[0], est.X-star[1])
		if e <= est.Uncertainty {
			covered++
		} else {
			t.Logf("cube %d (halo %g, FWHM %g, star (%.2f, %.2f)): error %.3f px beyond ±%.3f", i, halo, fwhm, star[0], star[1], e, est.Uncertainty)
		}
	}
	t.Logf("the uncertainty covered the error on %d of %d cubes", covered, n)
	if covered*100 < 95*n {
		t.Errorf("the uncertainty covered the error on %d of %d cubes, want at least 95 %%", covered, n)
	}
}

// TestEstimateCenterSurveyT01 (issue 25, defect 13): synth survey's t01
// (160×160, 150 frames, FWHM 3, its star at (80, 80), 10× its speckles):
// its star is measured at (80.73, 79.97), which had replaced (80, 80)
// with "± 0.20 px" and moved the companion to 12.04 px at PA 265°; the
// uncertainty now covers the 0.73 px error and does not rule out (80, 80).
func TestEstimateCenterSurveyT01(t *testing.T) {
	n := synth.DefaultNoise()
	cfg := synth.Config{H: 160, W: 160, Frames: 150, RotationDeg: 90, FWHM: 3, Seed: 1, Noise: &n,
		Companions: []synth.Companion{{SepPx: 11, ThetaDeg: 0, Flux: 150}}}
	ds, err := synth.Generate(cfg)
	if err != nil {
		t.Fatal(err)
	}
	est, err := EstimateCenter(ds.Cube, FWHMOfStamp(ds.PSF))
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("t01: measured (%.3f, %.3f) ± %.3f px (95 %%)", est.Y, est.X, est.Uncertainty)
	if math.Abs(est.Y-80.732) > 0.01 || math.Abs(est.X-79.966) > 0.01 {
		t.Errorf("measured (%.3f, %.3f), not the issue's (80.73, 79.97): a different cube", est.Y, est.X)
	}
	if e := math.Hypot(est.Y-80, est.X-80); e > est.Uncertainty || est.RulesOut(80, 80) {
		t.Errorf("error %.3f px beyond ±%.3f, or (80, 80) ruled out", e, est.Uncertainty)
	}
}

// TestEstimateCenterCoronagraph: a dark hole (an inverted Gaussian in a
// bright ring-shaped halo) is found as a coronagraph's centre.
func TestEstimateCenterCoronagraph(t *testing.T) {
	const T, H, W = 5, 64, 64
	cy, cx := 30.4, 33.3
	c := tensor.New(tensor.F64, T, H, W)
	for l := 0; l < T; l++ {
		for y := 0; y < H; y++ {
			for x := 0; x < W; x++ {
				r2 := (float64(y)-cy)*(float64(y)-cy) + (float64(x)-cx)*(float64(x)-cx)
				c.F64[(l*H+y)*W+x] = 100 - 80*math.Exp(-r2/(2*2*2)) + 0.01*float64((l*7+y*3+x*5)%11)
			}
		}
	}
	est, err := EstimateCenter(c, 4.7)
	if err != nil {
		t.Fatal(err)
	}
	if est.Method != "coronagraph" || math.Abs(est.Y-cy) > 0.1 || math.Abs(est.X-cx) > 0.1 {
		t.Errorf("got (%.3f, %.3f) %s, want (%g, %g) coronagraph", est.Y, est.X, est.Method, cy, cx)
	}
}

// TestEstimateCenterNoStar: white noise and a constant cube have no star:
// the estimate fails (the caller keeps the geometric centre).
func TestEstimateCenterNoStar(t *testing.T) {
	const T, H, W = 8, 40, 40
	noise := tensor.New(tensor.F64, T, H, W)
	for i := range noise.F64 {
		noise.F64[i] = math.Sin(float64(i)*12.9898) * 43758.5453
		noise.F64[i] -= math.Floor(noise.F64[i])
	}
	flat := tensor.New(tensor.F64, T, H, W)
	for name, c := range map[string]*tensor.Tensor{"noise": noise, "flat": flat} {
		if est, err := EstimateCenter(c, 4); err == nil {
			t.Errorf("%s: estimated a centre %+v, want an error", name, est)
		}
	}
}

// TestFWHMOfStamp: the Gaussian stamp's FWHM is read back from its peak.
func TestFWHMOfStamp(t *testing.T) {
	psf, err := synth.PSFStamp(25, 4)
	if err != nil {
		t.Fatal(err)
	}
	if f := FWHMOfStamp(psf); math.Abs(f-4) > 0.2 {
		t.Errorf("FWHM %g, want about 4", f)
	}
}

// TestSelectMedian: the selection gives the median a sort gives
// (sortedMedian), on slices of every length to 60, with and without ties,
// even lengths averaging the two middle values.
func TestSelectMedian(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for it := range 30000 {
		v := make([]float64, 1+rng.IntN(60))
		for i := range v {
			switch it % 3 {
			case 0:
				v[i] = rng.NormFloat64()
			case 1:
				v[i] = float64(rng.IntN(4)) // many ties
			default:
				v[i] = float64(len(v) - i) // descending
			}
		}
		if want, got := sortedMedian(slices.Clone(v)), selectMedian(slices.Clone(v)); got != want {
			t.Fatalf("%v: selected %v, sorted %v", v, got, want)
		}
	}
	if got := selectMedian(nil); !math.IsNaN(got) {
		t.Errorf("empty: %v, want NaN", got)
	}
}
