package paco

import (
	"context"
	"math"
	"testing"

	"github.com/vkstat/vkstat/pipelines/synth"
	"github.com/vkstat/vkstat/tensor"
)

// TestInjectHandValues places a fake companion in four frames turned by
// 0°, 90°, 180° and 270° about (16, 16): sky (16, 20), 4 px along +x, lands
// at (16, 20), (12, 16), (16, 12) and (20, 16) (PACO.md's rotation, worked
// by hand), where each frame must gain flux × the unit-sum stamp exactly,
// and nothing anywhere else.
func TestInjectHandValues(t *testing.T) {
	const T, H, W, flux = 4, 33, 33, 10.0
	cube := tensor.New(tensor.F64, T, H, W)
	for i := range cube.F64 {
		cube.F64[i] = 1
	}
	psf := tensor.New(tensor.F64, 3, 3)
	copy(psf.F64, []float64{1, 2, 1, 2, 4, 2, 1, 2, 1}) // sums to 16
	in := Input{Cube: cube, Angles: []float64{0, 90, 180, 270}, PSF: psf, Radius: 2}
	out, err := injectOf(in, []Source{{Y: 16, X: 20, Flux: flux}})
	if err != nil {
		t.Fatal(err)
	}
	want := tensor.New(tensor.F64, T, H, W)
	for i := range want.F64 {
		want.F64[i] = 1
	}
	for tt, c := range [][2]int{{16, 20}, {12, 16}, {16, 12}, {20, 16}} {
		for dy := -1; dy <= 1; dy++ {
			for dx := -1; dx <= 1; dx++ {
				want.F64[tt*H*W+(c[0]+dy)*W+c[1]+dx] += flux * psf.F64[(dy+1)*3+dx+1] / 16
			}
		}
	}
	for i, v := range out.F64 {
		if math.Abs(v-want.F64[i]) > 1e-9 {
			tt, y, x := i/(H*W), i/W%H, i%W
			t.Fatalf("frame %d pixel (%d, %d) = %.12g, want %.12g", tt, y, x, v, want.F64[i])
		}
	}
	if cube.F64[16*W+20] != 1 {
		t.Fatal("Inject changed the input cube")
	}
}

// TestInjectMatchesSynth checks the sub-pixel placement against the
// synthetic generator's own, independent injection (a pixel-integrated
// Gaussian evaluated at the exact position): the same sequence generated
// with and without a companion differs by the companion alone, which
// Inject must reproduce from the PSF stamp to within the cubic
// interpolation's error, a few per cent of the peak.
func TestInjectMatchesSynth(t *testing.T) {
	cfg := synth.Default()
	cfg.H, cfg.W, cfg.Frames, cfg.RotationDeg, cfg.FWHM, cfg.Seed, cfg.DType = 40, 40, 12, 70, 3, 5, tensor.F64
	bare, err := synth.Generate(cfg)
	if err != nil {
		t.Fatal(err)
	}
	const sep, angle, flux = 11.3, 37.0, 200.0
	cfg.Companions = []synth.Companion{{SepPx: sep, ThetaDeg: angle, Flux: flux}}
	with, err := synth.Generate(cfg)
	if err != nil {
		t.Fatal(err)
	}
	tr := with.Truth[0]
	out, err := injectOf(Input{Cube: bare.Cube, Angles: bare.Angles, PSF: bare.PSF, Radius: 3}, []Source{{Y: tr.Y, X: tr.X, Flux: flux}})
	if err != nil {
		t.Fatal(err)
	}
	var peak, worst float64
	for i, v := range out.F64 {
		d := with.Cube.F64[i] - bare.Cube.F64[i]
		peak = math.Max(peak, d)
		worst = math.Max(worst, math.Abs(v-with.Cube.F64[i]))
	}
	if peak < flux/20 {
		t.Fatalf("synth's companion peaks at %g; the comparison needs a visible source", peak)
	}
	if worst > 0.03*peak {
		t.Fatalf("Inject differs from synth's injection by %g, %.1f%% of the peak %g", worst, 100*worst/peak, peak)
	}
}

// TestInjectionRecovery runs the whole check on a sequence without
// companions: the contrast curve from its σ map, fakes at three times the limit
// placed by FakePlan, the maps of the injected cube. Every fake must come
// back near its position, its SNR there well above the empty sequence's
// (which has no detection there); the fast estimate keeps part of the
// flux (PACO.md's self-subtraction), never more than a noise excursion
// above all of it. Close in, where the arc is short, it keeps so little
// that fakes at three times the limit fall below it: what the check is for.
func TestInjectionRecovery(t *testing.T) {
	cfg := synth.Default()
	cfg.H, cfg.W, cfg.Frames, cfg.RotationDeg, cfg.FWHM, cfg.Seed, cfg.DType = 64, 64, 40, 90, 3, 3, tensor.F64
	ds, err := synth.Generate(cfg)
	if err != nil {
		t.Fatal(err)
	}
	in := Input{Cube: ds.Cube, Angles: ds.Angles, PSF: ds.PSF, Radius: 3}
	ctx := context.Background()
	m, err := cpuOf(ctx, in)
	if err != nil {
		t.Fatal(err)
	}
	const threshold = 5.0
	curve := ContrastCurve(m.Sigma, m.H, m.W, ds.CY, ds.CX, threshold, 0)
	gap := float64(2*3 + 1 + 2*3) // a patch and two FWHM
	plan, err := FakePlan(curve, float64(ds.CY), float64(ds.CX), m.H, m.W, 6, gap, cfg.RotationDeg, 2, 0, 3)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for r, srcs := range plan {
		// Apart by the gap in separation, or at one separation s by the
		// rotation's arc and gap/s radians in angle.
		for i, a := range srcs {
			for _, b := range srcs[i+1:] {
				sa, sb := math.Hypot(a.Y-float64(ds.CY), a.X-float64(ds.CX)), math.Hypot(b.Y-float64(ds.CY), b.X-float64(ds.CX))
				turn := math.Abs(math.Remainder(math.Atan2(a.Y-float64(ds.CY), a.X-float64(ds.CX))-math.Atan2(b.Y-float64(ds.CY), b.X-float64(ds.CX)), 2*math.Pi))
				switch {
				case math.Abs(sa-sb) < 1e-9:
					if turn < cfg.RotationDeg*math.Pi/180+gap/sa-1e-9 {
						t.Fatalf("run %d: fakes %v and %v at separation %g are %g rad apart, less than the rotation and gap/sep", r, a, b, sa, turn)
					}
				case math.Abs(sa-sb) < gap-1e-9:
					t.Fatalf("run %d: fakes %v and %v are %g px apart in separation, less than the gap %g", r, a, b, math.Abs(sa-sb), gap)
				}
			}
		}
		inj := in
		if inj.Cube, err = injectOf(in, srcs); err != nil {
			t.Fatal(err)
		}
		mi, err := cpuOf(ctx, inj)
		if err != nil {
			t.Fatal(err)
		}
		for i, rec := range Recover(mi, srcs, threshold) {
			n++
			empty := Recover(m, srcs[i:i+1], threshold)[0]
			t.Logf("run %d fake at (%.1f, %.1f) flux %.3g: SNR %.2f (without it %.2f), throughput %.2f", r, rec.Y, rec.X, rec.Injected, rec.SNR, empty.SNR, rec.Throughput)
			if rec.SNR-empty.SNR < 3 || empty.Detected {
				t.Errorf("fake at (%.1f, %.1f): SNR %.2f with it, %.2f without; want 3 more with it, and below %g without", rec.Y, rec.X, rec.SNR, empty.SNR, threshold)
			}
			if rec.Throughput < 0.2 || rec.Throughput > 1.3 {
				t.Errorf("fake at (%.1f, %.1f): throughput %.2f outside (0.2, 1.3)", rec.Y, rec.X, rec.Throughput)
			}
		}
	}
	if n < 3 {
		t.Fatalf("only %d fakes planned on a 64×64 frame", n)
	}
}

func TestFakePlanRejects(t *testing.T) {
	curve := []ContrastPoint{{Sep: 1, Flux: math.NaN()}, {Sep: 2, Flux: math.NaN()}}
	if _, err := FakePlan(curve, 10, 10, 21, 21, 1, 5, 0, 1, 0, 1); err == nil {
		t.Fatal("a curve without a finite limit gave a plan")
	}
	if _, err := FakePlan(curve, 10, 10, 21, 21, 1, 0, 0, 1, 0, 1); err == nil {
		t.Fatal("a zero gap gave a plan")
	}
}
