package paco

import (
	"context"
	"math"
	"testing"

	"github.com/vkstat/vkstat/device/testdev"
	"github.com/vkstat/vkstat/pipelines/synth"
	"github.com/vkstat/vkstat/tensor"
)

// unbiasedDeviceCase is a short sequence whose companion Algorithm 2
// underestimates, at a sub-pixel position, with an odd patch count (R = 3:
// 29 pixels, 58 moments per frame, 1711 triangle entries: not a multiple
// of the workgroup) and 13 frames (not a multiple of the shader's tile).
func unbiasedDeviceCase(t *testing.T, dt tensor.DType) (Input, Source) {
	t.Helper()
	cfg := synth.Default()
	cfg.H, cfg.W, cfg.Frames, cfg.RotationDeg, cfg.FWHM, cfg.Seed, cfg.DType = 32, 32, 13, 40, 3, 3, dt
	cfg.Companions = []synth.Companion{{SepPx: 9.3, ThetaDeg: 70, Flux: 150}}
	ds, err := synth.Generate(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return Input{Cube: ds.Cube, Angles: ds.Angles, PSF: ds.PSF, Radius: 3}, Source{Y: ds.Truth[0].Y, X: ds.Truth[0].X, Flux: 30}
}

// TestUnbiasedVulkanAgainstReference: one evaluation with the moments from
// each device (a and b at a sub-pixel position for several α) equals the
// straightforward float64 evaluation, which shares no code with either
// (unbiasedABRef), on the same cube values.
func TestUnbiasedVulkanAgainstReference(t *testing.T) {
	for _, dev := range testdev.Devices(t) {
		t.Run(dev.Info.Name, func(t *testing.T) {
			dts := []tensor.DType{tensor.F32}
			if dev.Info.Float64 {
				dts = append(dts, tensor.F64)
			}
			for _, dt := range dts {
				in, src := unbiasedDeviceCase(t, dt)
				p, err := prepare(in)
				if err != nil {
					t.Fatal(err)
				}
				u, err := newUnbiasedCtx(p, false)
				if err != nil {
					t.Fatal(err)
				}
				release, err := u.useDevice(context.Background(), dev)
				if err != nil {
					t.Fatal(err)
				}
				// float64 accumulation leaves only the order of the sums;
				// float32 accumulation (devices without float64) about 1e-6
				// relative per moment, amplified by the solve.
				tol := 1e-9
				if !dev.Info.Float64 {
					tol = 2e-3
				}
				for _, alpha := range []float64{0, 40, 150} {
					pos, loc := u.trajectory(src.Y, src.X)
					st, err := u.learn(loc, alpha, pos)
					if err != nil {
						t.Fatal(err)
					}
					a, b, ok := u.ab(pos, loc, st)
					ra, rb := unbiasedABRef(in, src.Y, src.X, alpha)
					t.Logf("%s α %g: a %.12g b %.12g; reference a %.12g b %.12g", dt, alpha, a, b, ra, rb)
					if !ok || !(math.Abs(a-ra) <= tol*math.Abs(ra)) || !(math.Abs(b-rb) <= tol*math.Abs(rb)) {
						t.Errorf("%s α %g: a %.12g b %.12g, reference a %.12g b %.12g (relative tolerance %g)", dt, alpha, a, b, ra, rb, tol)
					}
				}
				release()
			}
		})
	}
}

// TestUnbiasedVulkanAgreesWithCPU: the whole of Algorithm 3 (iteration and
// position refinement) on a device ends where it ends on the host.
func TestUnbiasedVulkanAgreesWithCPU(t *testing.T) {
	in, src := unbiasedDeviceCase(t, tensor.F32)
	want, err := unbiasedOf(context.Background(), nil, in, []Source{src}, true)
	if err != nil {
		t.Fatal(err)
	}
	w := want[0]
	if !w.Converged || math.Abs(w.FluxUnbiased/150-1) > 0.15 {
		t.Fatalf("host: flux %.2f for 150 injected, converged %v: the case does not exercise the algorithm", w.FluxUnbiased, w.Converged)
	}
	for _, dev := range testdev.Devices(t) {
		got, err := unbiasedOf(context.Background(), dev, in, []Source{src}, true)
		if err != nil {
			t.Fatalf("%s: %v", dev.Info.Name, err)
		}
		g := got[0]
		t.Logf("%s: flux %.6f σ %.6f at (%.2f, %.2f), %d iterations; host %.6f σ %.6f at (%.2f, %.2f)",
			dev.Info.Name, g.FluxUnbiased, g.SigmaUnbiased, g.YRefined, g.XRefined, g.Iterations, w.FluxUnbiased, w.SigmaUnbiased, w.YRefined, w.XRefined)
		tol := 1e-7
		if !dev.Info.Float64 {
			tol = 5e-3
		}
		if !g.Converged || !(math.Abs(g.FluxUnbiased-w.FluxUnbiased) <= tol*w.FluxUnbiased) || !(math.Abs(g.SigmaUnbiased-w.SigmaUnbiased) <= tol*w.SigmaUnbiased) ||
			!(math.Hypot(g.YRefined-w.YRefined, g.XRefined-w.XRefined) <= 1e-9) {
			t.Errorf("%s: flux %.8g σ %.8g at (%g, %g) converged %v; host flux %.8g σ %.8g at (%g, %g)", dev.Info.Name,
				g.FluxUnbiased, g.SigmaUnbiased, g.YRefined, g.XRefined, g.Converged, w.FluxUnbiased, w.SigmaUnbiased, w.YRefined, w.XRefined)
		}
	}
}

// TestUnbiasedVulkanLongSequence: thousands of frames (more loop iterations
// per invocation than lavapipe runs in one dispatch, 65,535: paco_detect
// hit it) give the same moments on the device as on the host.
func TestUnbiasedVulkanLongSequence(t *testing.T) {
	if testing.Short() {
		t.Skip("long sequence")
	}
	cfg := synth.Default()
	cfg.H, cfg.W, cfg.Frames, cfg.RotationDeg, cfg.FWHM, cfg.Seed, cfg.DType = 17, 17, 9000, 90, 2, 4, tensor.F32
	cfg.Companions = []synth.Companion{{SepPx: 5.2, ThetaDeg: 20, Flux: 40}}
	ds, err := synth.Generate(cfg)
	if err != nil {
		t.Fatal(err)
	}
	in := Input{Cube: ds.Cube, Angles: ds.Angles, PSF: ds.PSF, Radius: 1}
	src := Source{Y: ds.Truth[0].Y, X: ds.Truth[0].X, Flux: 10}
	host, err := unbiasedOf(context.Background(), nil, in, []Source{src}, false)
	if err != nil {
		t.Fatal(err)
	}
	for _, dev := range testdev.Devices(t) {
		got, err := unbiasedOf(context.Background(), dev, in, []Source{src}, false)
		if err != nil {
			t.Fatalf("%s: %v", dev.Info.Name, err)
		}
		tol := 1e-6
		if !dev.Info.Float64 {
			tol = 5e-3
		}
		g, w := got[0], host[0]
		t.Logf("%s: flux %.6f σ %.6f; host %.6f σ %.6f", dev.Info.Name, g.FluxUnbiased, g.SigmaUnbiased, w.FluxUnbiased, w.SigmaUnbiased)
		if !(math.Abs(g.FluxUnbiased-w.FluxUnbiased) <= tol*math.Abs(w.FluxUnbiased)) || !(math.Abs(g.SigmaUnbiased-w.SigmaUnbiased) <= tol*w.SigmaUnbiased) {
			t.Errorf("%s: flux %.8g σ %.8g; host flux %.8g σ %.8g", dev.Info.Name, g.FluxUnbiased, g.SigmaUnbiased, w.FluxUnbiased, w.SigmaUnbiased)
		}
	}
}
