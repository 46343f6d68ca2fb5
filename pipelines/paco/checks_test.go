package paco

import (
	"context"
	"math"
	"testing"

	"github.com/vkstat/vkstat/device/testdev"
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
		{SepPx: 15, ThetaDeg: 45, Flux: 150},
		{SepPx: 35, ThetaDeg: 160, Flux: 15},
		{SepPx: 40, ThetaDeg: 280, Flux: 12},
		{SepPx: 30, ThetaDeg: 340, Flux: 18},
	}
	ds, err := synth.Generate(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return ds
}

// checksFaint marks which of checksData's companions are faint (expected
// SNR between 5 and 15): fixed by the design of the data, not read from any
// path's output, so that no path can excuse itself. Every one of them is
// injected at a flux that gives SNR ≥ 8 (13, 11 and 13 for the faint ones,
// 22 for the bright one, on the reference).
var checksFaint = []bool{false, true, true, true}

// TestPACOChecks runs the checks of PACO.md against the injected truth on
// every path: the CPU path (always, under -short too, with or without a
// Vulkan device), the float64 reference and every Vulkan device (these two
// not under -short: 10 s and 5 s a device on lavapipe; the Vulkan subtest
// alone is skipped when there is no device):
//   - every companion is detected within 1.5 px of its true position with
//     SNR at least 8 (a fixed floor: a run with no detection fails);
//   - no detection above the threshold lies anywhere else;
//   - faint companions' fluxes are within 30 % of the injected flux;
//   - without -short, the flux at each companion agrees with the reference's.
func TestPACOChecks(t *testing.T) {
	ds := checksData(t)
	in := Input{Cube: ds.Cube, Angles: ds.Angles, PSF: ds.PSF, Radius: DefaultRadius}
	at := func(m *Maps, tr synth.Truth) int { return int(math.Round(tr.Y))*m.W + int(math.Round(tr.X)) }
	var ref *Maps
	if !testing.Short() {
		var err error
		if ref, err = Reference(in); err != nil {
			t.Fatal(err)
		}
	}
	check := func(t *testing.T, m *Maps) {
		t.Helper()
		const floor = 8.0
		dets := Detect(m, 5, ds.CY, ds.CX, 8)
		if len(dets) < len(ds.Truth) {
			t.Errorf("%d detections for %d injected companions", len(dets), len(ds.Truth))
		}
		for ci, tr := range ds.Truth {
			var found *Detection
			for i, d := range dets {
				if math.Hypot(float64(d.Y)-tr.Y, float64(d.X)-tr.X) <= 1.5 {
					found = &dets[i]
					break
				}
			}
			i := at(m, tr)
			t.Logf("companion sep %.0f θ0 %.0f flux %.0f: SNR %.2f, flux %.2f (%.0f %%) at its pixel", tr.SepPx, tr.ThetaDeg, tr.Flux, m.SNR[i], m.Flux[i], 100*m.Flux[i]/tr.Flux)
			if found == nil {
				t.Errorf("companion at (%.1f, %.1f) not detected within 1.5 px", tr.Y, tr.X)
			} else if found.SNR < floor {
				t.Errorf("companion at (%.1f, %.1f): detection SNR %.2f, below the floor %g", tr.Y, tr.X, found.SNR, floor)
			}
			if checksFaint[ci] && !(math.Abs(m.Flux[i]-tr.Flux) <= 0.3*tr.Flux) {
				t.Errorf("faint companion at sep %.0f: flux %.2f is not within 30 %% of %.0f", tr.SepPx, m.Flux[i], tr.Flux)
			}
			if ref != nil && m != ref {
				if d := math.Abs(m.Flux[i] - ref.Flux[i]); !(d <= 1e-3*math.Abs(ref.Flux[i])) {
					t.Errorf("flux %.4f at the companion, reference %.4f", m.Flux[i], ref.Flux[i])
				}
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
				t.Errorf("false detection at (%d, %d), SNR %.2f", d.Y, d.X, d.SNR)
			}
		}
		t.Logf("%d detections, %d invalid pixels", len(dets), m.InvalidPixels)
	}
	t.Run("cpu", func(t *testing.T) {
		m, err := cpuOf(context.Background(), in)
		if err != nil {
			t.Fatal(err)
		}
		check(t, m)
	})
	t.Run("reference", func(t *testing.T) {
		if ref == nil {
			t.Skip("100×100×252 reference: skipped under -short")
		}
		check(t, ref)
	})
	t.Run("vulkan", func(t *testing.T) {
		if testing.Short() {
			t.Skip("100×100×252 on lavapipe takes 5 s a device: skipped under -short (TestInjectedTruth holds Vulkan to the truth there)")
		}
		for _, dev := range testdev.Devices(t) {
			t.Run(dev.Info.Name, func(t *testing.T) {
				m, err := vulkanOf(context.Background(), dev, in)
				if err != nil {
					t.Fatal(err)
				}
				check(t, m)
			})
		}
	})
}
