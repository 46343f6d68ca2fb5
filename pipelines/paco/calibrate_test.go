package paco

import (
	"context"
	"math"
	"slices"
	"testing"

	"github.com/vkstat/vkstat/pipelines/synth"
	"github.com/vkstat/vkstat/tensor"
)

// TestSmoothHand: the kernel mean and its standard error on three samples,
// by hand (NumPy for the digits). At s = 0 with h = 1 the weights are 1,
// w = e^−½ and w (samples at 0, 1 and −1) of values 1, 2 and 4: mean
// (1 + 6w)/(1 + 2w) = 2.0962744762447882; n_eff = (1 + 2w)²/(1 + 2w²) =
// 2.8216; the weighted variance Σw(v − mean)²/Σw, times n_eff/(n_eff − 1),
// over n_eff, is 0.9191209212309145².
func TestSmoothHand(t *testing.T) {
	m, e := smooth([]float64{0, 1, -1}, []float64{1, 2, 4}, 0, 1)
	if math.Abs(m-2.0962744762447882) > 1e-12 || math.Abs(e-0.9191209212309145) > 1e-12 {
		t.Fatalf("smooth = %.16g ± %.16g, want 2.0962744762447882 ± 0.9191209212309145", m, e)
	}
	// One sample: a mean, no error.
	if m, e := smooth([]float64{3}, []float64{0.5}, 10, 2); m != 0.5 || !math.IsNaN(e) {
		t.Fatalf("one sample: %g ± %g, want 0.5 ± NaN", m, e)
	}
}

// TestCalibratedContrast: on a small synth sequence without companions,
// fakes injected at the quick curve's limit (threshold × σ_flux) come back
// well below the threshold, which is why the curve is calibrated; at the
// calibrated curve's limit, fakes at other places (the contrast check)
// come back with a median SNR near the threshold. The calibrated limit is
// the quick one over a throughput in (0, 1) with a stated uncertainty.
func TestCalibratedContrast(t *testing.T) {
	cfg := synth.Default()
	cfg.H, cfg.W, cfg.Frames, cfg.RotationDeg, cfg.FWHM, cfg.Seed, cfg.DType = 64, 64, 40, 90, 3, 3, tensor.F64
	ds, err := synth.Generate(cfg)
	if err != nil {
		t.Fatal(err)
	}
	opt := DefaultOptions()
	opt.FWHM, opt.Radius, opt.ContrastCheck, opt.StarFlux = 3, 3, true, 1000
	median := func(res *Result) (float64, int) {
		var s []float64
		for _, r := range res.Checks {
			s = append(s, r.SNR)
		}
		slices.Sort(s)
		return s[len(s)/2], len(s)
	}
	ctx := context.Background()
	opt.QuickContrast = true
	quick, err := Run(ctx, nil, ADI{Cube: ds.Cube, Angles: ds.Angles}, opt)
	if err != nil {
		t.Fatal(err)
	}
	if quick.Calibration != nil || !math.IsNaN(quick.Contrast[0].Throughput) {
		t.Fatalf("QuickContrast calibrated the curve: %+v", quick.Contrast[0])
	}
	qm, qn := median(quick)
	opt.QuickContrast = false
	res, err := Run(ctx, nil, ADI{Cube: ds.Cube, Angles: ds.Angles}, opt)
	if err != nil {
		t.Fatal(err)
	}
	cm, cn := median(res)
	t.Logf("fakes at the quick limit: median SNR %.2f of %d; at the calibrated limit %.2f of %d; calibration %d fakes, median relative uncertainty %.3f",
		qm, qn, cm, cn, len(res.Calibration.Fakes), res.Calibration.MedianRelErr)
	if qm > 0.85*opt.Threshold {
		t.Errorf("fakes at the quick curve's limit came back at a median SNR of %.2f, not well below the threshold %g", qm, opt.Threshold)
	}
	if math.Abs(cm-opt.Threshold) > 0.15*opt.Threshold {
		t.Errorf("fakes at the calibrated curve's limit came back at a median SNR of %.2f, more than 15 %% from the threshold %g", cm, opt.Threshold)
	}
	if c := res.Calibration; len(c.Fakes) < 10 || !(c.MedianRelErr > 0 && c.MedianRelErr < 0.2) {
		t.Errorf("calibration: %d fakes, median relative uncertainty %g", len(c.Fakes), c.MedianRelErr)
	}
	for i, p := range res.Contrast {
		q := quick.Contrast[i]
		if p.Sep != q.Sep || p.FluxUncalibrated != q.Flux || !(p.Throughput > 0.1 && p.Throughput < 1) || !(p.ThroughputErr > 0) ||
			math.Abs(p.Flux-q.Flux/p.Throughput) > 1e-9*p.Flux || math.Abs(p.Mag-(-2.5*math.Log10(p.Flux/1000))) > 1e-9 {
			t.Errorf("separation %g: calibrated %+v against quick %+v", p.Sep, p, q)
		}
	}
}
