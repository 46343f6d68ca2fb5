package paco

import (
	"context"
	"math"
	"testing"

	"github.com/vkstat/vkstat/device/testdev"
	"github.com/vkstat/vkstat/pipelines/synth"
	"github.com/vkstat/vkstat/tensor"
)

// quadrantCompanion is a synthetic companion placed by its astronomical
// position angle (north up, east left: PACO.md's "orientation").
type quadrantCompanion struct {
	name     string
	sep, pa  float64 // px; degrees east of north, the quadrant's middle
	lo, hi   float64 // the quadrant's PA range
	flux     float64
	angleCCW float64 // PACO.md's θ0 = PA + 90°, what synth places by
}

// quadrantData is a 64×64, 48-frame, 90° sequence with one companion in each
// quadrant of the sky (N-E, S-E, S-W, N-W), at different separations so
// that no trajectory crosses another's patches, bright enough for SNR ≥ 8.
func quadrantData(t *testing.T) (*synth.Dataset, []quadrantCompanion) {
	t.Helper()
	comps := []quadrantCompanion{
		{name: "north-east", sep: 10, pa: 45, lo: 0, hi: 90, flux: 180},
		{name: "south-east", sep: 16, pa: 135, lo: 90, hi: 180, flux: 120},
		{name: "south-west", sep: 22, pa: 225, lo: 180, hi: 270, flux: 80},
		{name: "north-west", sep: 27, pa: 315, lo: 270, hi: 360, flux: 120},
	}
	cfg := synth.Default()
	cfg.H, cfg.W, cfg.Frames, cfg.RotationDeg, cfg.FWHM, cfg.Seed = 64, 64, 48, 90, 3, 9
	for i := range comps {
		comps[i].angleCCW = math.Mod(comps[i].pa+90, 360)
		cfg.Companions = append(cfg.Companions, synth.Companion{SepPx: comps[i].sep, ThetaDeg: comps[i].angleCCW, Flux: comps[i].flux})
	}
	cfg.DType = tensor.F64
	ds, err := synth.Generate(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return ds, comps
}

// TestInjectedTruth holds every path (the float64 reference, the CPU path,
// which runs on every machine, and each Vulkan device present) to the
// injected truth, not to another path (PACO.md, "Checks"):
//   - each companion is detected within 1 px of its true position, with SNR
//     above a fixed floor of 8 (so a run with no or too few detections fails);
//   - no detection above the threshold lies anywhere else;
//   - each detection's separation is within 1 px of the injected one and its
//     position angle (east of north) lies in the quadrant the companion was
//     placed in, within atan(1 px / separation) of the injected PA.
func TestInjectedTruth(t *testing.T) {
	ds, comps := quadrantData(t)
	in := Input{Cube: ds.Cube, Angles: ds.Angles, PSF: ds.PSF, Radius: 3}
	check := func(t *testing.T, m *Maps) {
		t.Helper()
		const threshold, floor = 5.0, 8.0
		dets := Detect(m, threshold, ds.CY, ds.CX, 6)
		if len(dets) < len(comps) {
			t.Errorf("%d detections above SNR %g for %d injected companions", len(dets), threshold, len(comps))
		}
		used := make([]bool, len(dets))
		for i, c := range comps {
			tr := ds.Truth[i]
			found := -1
			for j, d := range dets {
				if math.Hypot(float64(d.Y)-tr.Y, float64(d.X)-tr.X) <= 1 {
					found, used[j] = j, true
					break
				}
			}
			if found < 0 {
				t.Errorf("%s companion (sep %g, PA %g°) at (%.2f, %.2f): no detection within 1 px", c.name, c.sep, c.pa, tr.Y, tr.X)
				continue
			}
			d := dets[found]
			t.Logf("%s: injected (%.2f, %.2f) sep %g PA %g°; detected (%d, %d) sep %.2f PA %.2f° SNR %.2f flux %.1f", c.name,
				tr.Y, tr.X, c.sep, c.pa, d.Y, d.X, d.Sep, d.PAEastOfNorth, d.SNR, d.Flux)
			if d.SNR < floor {
				t.Errorf("%s companion: SNR %.2f, below the floor %g", c.name, d.SNR, floor)
			}
			if math.Abs(d.Sep-c.sep) > 1 {
				t.Errorf("%s companion: separation %.2f px, injected %g", c.name, d.Sep, c.sep)
			}
			if !(d.PAEastOfNorth > c.lo && d.PAEastOfNorth < c.hi) {
				t.Errorf("%s companion: PA %.2f° is outside its quadrant [%g°, %g°]", c.name, d.PAEastOfNorth, c.lo, c.hi)
			}
			tol := math.Atan(1/c.sep)*180/math.Pi + 1e-9
			if dpa := math.Abs(math.Remainder(d.PAEastOfNorth-c.pa, 360)); dpa > tol {
				t.Errorf("%s companion: PA %.2f°, injected %g° (tolerance %.2f°)", c.name, d.PAEastOfNorth, c.pa, tol)
			}
			if da := math.Abs(math.Remainder(d.AngleCCWFromX-c.angleCCW, 360)); da > tol {
				t.Errorf("%s companion: angle from +x %.2f°, injected %g°", c.name, d.AngleCCWFromX, c.angleCCW)
			}
		}
		for j, d := range dets {
			if !used[j] {
				t.Errorf("false detection at (%d, %d), SNR %.2f", d.Y, d.X, d.SNR)
			}
		}
	}
	t.Run("reference", func(t *testing.T) {
		m, err := Reference(in)
		if err != nil {
			t.Fatal(err)
		}
		check(t, m)
	})
	t.Run("cpu", func(t *testing.T) {
		m, err := cpuOf(context.Background(), in)
		if err != nil {
			t.Fatal(err)
		}
		check(t, m)
	})
	t.Run("vulkan", func(t *testing.T) {
		for _, dev := range testdev.Devices(t) {
			t.Run(dev.Info.Name, func(t *testing.T) {
				for _, dt := range []tensor.DType{tensor.F32, tensor.F64} {
					if dt == tensor.F64 && !dev.Info.Float64 {
						continue
					}
					in := in
					in.Cube = ds.Cube.As(dt)
					m, err := vulkanOf(context.Background(), dev, in)
					if err != nil {
						t.Fatal(err)
					}
					check(t, m)
				}
			})
		}
	})
}

// TestDetectPlantedPeaks: an SNR map of zeros with peaks planted at known
// pixels around the star at (15, 15). Detect must return exactly the peaks
// above the threshold, strongest first, with their separation, angles,
// flux and σ; a weaker peak within minSep of a stronger one, the second
// pixel of a plateau, a shoulder of a peak, a value equal to the threshold
// and one below it are not detections; NaN neighbours and the frame's edge
// do not stop a peak.
func TestDetectPlantedPeaks(t *testing.T) {
	const H, W, cy, cx = 31, 31, 15, 15
	m := &Maps{H: H, W: W, SNR: make([]float64, H*W), Flux: make([]float64, H*W), Sigma: make([]float64, H*W)}
	set := func(y, x int, snr float64) { m.SNR[y*W+x] = snr }
	set(25, 15, 9)   // A: due north, sep 10
	set(24, 15, 8.5) // shoulder of A
	set(25, 17, 8)   // E: a local maximum 2 px from A: dropped
	set(15, 7, 7)    // B: due east, sep 8
	set(5, 15, 6)    // C: due south, sep 10
	set(5, 16, math.NaN())
	set(15, 27, 12)  // D: due west, sep 12
	set(10, 10, 6.5) // plateau: the first pixel in row-major order is kept
	set(10, 11, 6.5)
	set(0, 30, 5.5) // on the frame's corner: south-west
	set(20, 5, 5)   // equal to the threshold: not above it
	set(20, 20, 4.9)
	for i := range m.SNR {
		m.Flux[i], m.Sigma[i] = 2*m.SNR[i]+float64(i), 0.5+float64(i)
	}
	type want struct {
		y, x       int
		snr, sep   float64
		pa, angleX float64
	}
	wants := []want{
		{15, 27, 12, 12, 270, 0},
		{25, 15, 9, 10, 0, 90},
		{15, 7, 7, 8, 90, 180},
		{10, 10, 6.5, math.Sqrt(50), 135, 225},
		{5, 15, 6, 10, 180, 270},
		{0, 30, 5.5, math.Sqrt(450), 225, 315},
	}
	dets := Detect(m, 5, cy, cx, 4)
	if len(dets) != len(wants) {
		t.Fatalf("%d detections, want %d: %+v", len(dets), len(wants), dets)
	}
	for i, w := range wants {
		d := dets[i]
		if d.Y != w.y || d.X != w.x || d.SNR != w.snr {
			t.Errorf("detection %d at (%d, %d) SNR %g, want (%d, %d) SNR %g", i+1, d.Y, d.X, d.SNR, w.y, w.x, w.snr)
			continue
		}
		k := w.y*W + w.x
		if math.Abs(d.Sep-w.sep) > 1e-12 || math.Abs(d.PAEastOfNorth-w.pa) > 1e-9 || math.Abs(d.AngleCCWFromX-w.angleX) > 1e-9 {
			t.Errorf("detection %d at (%d, %d): sep %g PA %g θ %g, want %g, %g, %g", i+1, d.Y, d.X, d.Sep, d.PAEastOfNorth, d.AngleCCWFromX, w.sep, w.pa, w.angleX)
		}
		if d.Flux != m.Flux[k] || d.SigmaFlux != m.Sigma[k] {
			t.Errorf("detection %d: flux %g σ %g, the maps hold %g, %g", i+1, d.Flux, d.SigmaFlux, m.Flux[k], m.Sigma[k])
		}
	}
	if got := Detect(m, 20, cy, cx, 4); len(got) != 0 {
		t.Errorf("threshold 20: %d detections, want none", len(got))
	}
}
