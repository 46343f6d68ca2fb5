package paco

import (
	"context"
	"math"
	"testing"

	"github.com/vkstat/vkstat/internal/testdev"
	"github.com/vkstat/vkstat/pipelines/synth"
)

// checksData is the seeds' scenario (100×100 pixels, 252 frames, 0–60°,
// FWHM 4, R = 4) with a bright companion and three faint ones far enough
// out that their trajectories sweep well past the patches.
func checksData(t *testing.T) *synth.Dataset {
	t.Helper()
	cfg := synth.Default()
	cfg.Seed = 5
	cfg.Companions = []synth.Companion{
		{SepPx: 15, PADeg: 45, Flux: 150},
		{SepPx: 35, PADeg: 160, Flux: 15},
		{SepPx: 40, PADeg: 280, Flux: 12},
		{SepPx: 30, PADeg: 340, Flux: 18},
	}
	ds, err := synth.Generate(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return ds
}

// TestPACOChecks runs the checks of PACO.md on every path: the reference,
// the CPU path and every Vulkan device.
//   - every companion whose reference SNR is ≥ 8 is detected within 1.5 px;
//   - no detection above the threshold lies anywhere else;
//   - the paths' fluxes agree with the reference's, and faint companions
//     (reference SNR 5–15) are within 30 % of the injected flux.
func TestPACOChecks(t *testing.T) {
	if testing.Short() {
		t.Skip("100×100×252 reference: skipped under -short")
	}
	ds := checksData(t)
	in := Input{Cube: ds.Cube, Angles: ds.Angles, PSF: ds.PSF}
	ref, err := Reference(in)
	if err != nil {
		t.Fatal(err)
	}
	at := func(m *Maps, tr synth.Truth) int { return int(math.Round(tr.Y))*m.W + int(math.Round(tr.X)) }
	for _, tr := range ds.Truth {
		i := at(ref, tr)
		snr, flux := ref.SNR[i], ref.Flux[i]
		t.Logf("companion sep %.0f pa %.0f flux %.0f: reference SNR %.2f, flux %.2f (%.0f %%)", tr.SepPx, tr.PADeg, tr.Flux, snr, flux, 100*flux/tr.Flux)
		if snr >= 5 && snr <= 15 && math.Abs(flux-tr.Flux) > 0.3*tr.Flux {
			t.Errorf("faint companion at sep %.0f: flux %.2f is not within 30 %% of %.0f", tr.SepPx, flux, tr.Flux)
		}
	}

	paths := map[string]*Maps{"reference": ref}
	if paths["cpu"], err = CPU(context.Background(), in); err != nil {
		t.Fatal(err)
	}
	for _, dev := range testdev.Devices(t) {
		if paths[dev.Info.Name], err = Vulkan(context.Background(), dev, in); err != nil {
			t.Fatal(err)
		}
	}
	for name, m := range paths {
		dets := Detect(m, 5, ds.CY, ds.CX, 8)
		for _, tr := range ds.Truth {
			if ref.SNR[at(ref, tr)] < 8 {
				continue
			}
			found := false
			for _, d := range dets {
				if math.Hypot(float64(d.Y)-tr.Y, float64(d.X)-tr.X) <= 1.5 {
					found = true
				}
			}
			if !found {
				t.Errorf("%s: companion at (%.1f, %.1f) with reference SNR %.1f not detected within 1.5 px", name, tr.Y, tr.X, ref.SNR[at(ref, tr)])
			}
			// Flux at the companion agrees with the reference's.
			if d := math.Abs(m.Flux[at(m, tr)] - ref.Flux[at(ref, tr)]); d > 1e-3*math.Abs(ref.Flux[at(ref, tr)]) {
				t.Errorf("%s: flux %.4f at the companion, reference %.4f", name, m.Flux[at(m, tr)], ref.Flux[at(ref, tr)])
			}
		}
		for _, d := range dets {
			near := false
			for _, tr := range ds.Truth {
				if math.Hypot(float64(d.Y)-tr.Y, float64(d.X)-tr.X) <= 1.5 {
					near = true
				}
			}
			if !near {
				t.Errorf("%s: false detection at (%d, %d), SNR %.2f", name, d.Y, d.X, d.SNR)
			}
		}
		t.Logf("%s: %d detections, %d invalid pixels", name, len(dets), m.InvalidPixels)
	}
}
