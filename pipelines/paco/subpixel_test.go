package paco

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/vkstat/vkstat/device/testdev"
	"github.com/vkstat/vkstat/pipelines/synth"
	"github.com/vkstat/vkstat/tensor"
)

// runSubpixelAgreement holds impl's sub-pixel map against the reference's
// (the stamp interpolated by summing the kernel over every stamp pixel, one
// gonum solve per frame) on the agreement cubes, both compat modes.
func runSubpixelAgreement(t *testing.T, impl implFunc, dt tensor.DType, tol float64) {
	for _, c := range []struct {
		T, H, W, R int
		compat     Compat
		center     *[2]int
	}{
		{20, 23, 25, 2, CompatNone, nil},
		{30, 25, 25, 4, CompatNone, nil},
		{24, 24, 22, 3, CompatVIP, nil},
		{16, 21, 21, 1, CompatNone, &[2]int{9, 11}},
	} {
		t.Run(fmt.Sprintf("T%d_%dx%d_R%d_compat%d_%s", c.T, c.H, c.W, c.R, c.compat, dt), func(t *testing.T) {
			cube, ang := testCube(dt, c.T, c.H, c.W, 50, uint64(c.T), [3]float64{6, 30, 40})
			in := Input{Cube: cube, Angles: ang, PSF: gaussPSF(9, 2), Radius: c.R, Compat: c.compat, Center: c.center, Placement: PlacementSubpixel}
			ref, err := Reference(in)
			if err != nil {
				t.Fatal(err)
			}
			got, err := impl(in)
			if err != nil {
				t.Fatal(err)
			}
			checkAgainst(t, "subpixel vs reference", got, ref, tol)
			if ref.InvalidPixels == len(ref.SNR) {
				t.Fatal("every pixel invalid: the test cube is too small")
			}
			in.Placement = PlacementNearest
			near, err := Reference(in)
			if err != nil {
				t.Fatal(err)
			}
			// The placement must change the map by far more than the
			// tolerance (the angles are not multiples of 90°, so most
			// positions are fractional; 1.05–2.6 in SNR on these cubes),
			// so that a path computing the nearest map cannot pass.
			if d, _ := maxDiff(near.SNR, ref.SNR); d < 0.5 {
				t.Errorf("sub-pixel and nearest maps differ by %.3g at most: the placement is not applied", d)
			}
		})
	}
}

// TestSubpixelCPUAgreesWithReference: the CPU path's sub-pixel map (basis
// solves, Gram matrices, Keys weights) equals the reference's.
func TestSubpixelCPUAgreesWithReference(t *testing.T) {
	runSubpixelAgreement(t, cpuImpl, tensor.F64, 1e-9)
	runSubpixelAgreement(t, cpuImpl, tensor.F32, 1e-6)
}

// TestSubpixelVulkanAgreesWithReference: the device kernels' sub-pixel
// variants (paco_solve_sub, paco_detect_sub) equal the reference within
// PACO.md's tolerances (float64 where the device has it, float32, and
// float32 without float64, whose positions come from the host's table),
// in one block of frames and in several.
func TestSubpixelVulkanAgreesWithReference(t *testing.T) {
	for _, dev := range testdev.Devices(t) {
		t.Run(dev.Info.Name, func(t *testing.T) {
			for _, blocks := range []int{0, 7} {
				impl := func(in Input) (*Maps, error) {
					in.test = &testOptions{maxBlockFrames: blocks}
					return vulkanOf(context.Background(), dev, in)
				}
				if dev.Info.Float64 {
					runSubpixelAgreement(t, impl, tensor.F64, 1e-3)
				}
				runSubpixelAgreement(t, impl, tensor.F32, 2e-2)
			}
		})
	}
}

// TestSubpixelZeroOffsetIsNearest: with rotations by multiples of 90° every
// trajectory position is a whole pixel (δ = 0), where Keys' kernel is 1 at
// 0 and 0 at the other integers: the sub-pixel map is the nearest-pixel
// map, on the reference and on the CPU path. (Not with CompatVIP: its
// truncation takes 9.999999999999998, cos 90° being 6e-17, to pixel 9 with
// δ ≈ 1, where the sub-pixel model rightly puts the PSF a pixel further.)
func TestSubpixelZeroOffsetIsNearest(t *testing.T) {
	const T = 16
	cube, _ := testCube(tensor.F64, T, 25, 25, 0, 4, [3]float64{6, 30, 40})
	ang := make([]float64, T)
	for l := range ang {
		ang[l] = float64(90 * (l % 4))
	}
	for _, compat := range []Compat{CompatNone} {
		in := Input{Cube: cube, Angles: ang, PSF: gaussPSF(9, 2), Radius: 2, Compat: compat}
		for _, impl := range []struct {
			name string
			f    implFunc
		}{{"reference", Reference}, {"cpu", cpuImpl}} {
			in.Placement = PlacementNearest
			near, err := impl.f(in)
			if err != nil {
				t.Fatal(err)
			}
			in.Placement = PlacementSubpixel
			sub, err := impl.f(in)
			if err != nil {
				t.Fatal(err)
			}
			checkAgainst(t, fmt.Sprintf("%s compat %d: δ = 0", impl.name, compat), sub, near, 1e-12)
		}
	}
}

// TestSubpixelHalfPixelByHand: Keys' weights at δ = ½ are K(−1.5), K(−0.5),
// K(0.5), K(1.5), K(2.5) = −1/16, 9/16, 9/16, −1/16, 0 (1.5·⅛ − 2.5·¼ + 1 =
// 9/16; −0.5·27/8 + 2.5·9/4 − 6 + 2 = −1/16). A separable stamp with
// column profile p = (0, 1, 2, 4, 2, 1, 0) (centre 3) moved down by half a
// pixel has, on the rows o = 0 and o = 1 either side of the new centre,
// −p[1]/16 + 9(p[2] + p[3])/16 − p[4]/16 = 3.1875 times the row profile
// (equal, the profile being symmetric), and on o = −1, 2 the value
// −p[0]/16 + 9(p[1] + p[2])/16 − p[3]/16 = 1.4375. Both the fast basis
// combination and the reference's interpolation must give that.
func TestSubpixelHalfPixelByHand(t *testing.T) {
	var w [5]float64
	BasisWeights(&w, 0.5)
	if want := [5]float64{-1.0 / 16, 9.0 / 16, 9.0 / 16, -1.0 / 16, 0}; w != want {
		t.Errorf("weights at δ = ½: %v, want %v", w, want)
	}
	BasisWeights(&w, 0)
	if want := [5]float64{0, 0, 1, 0, 0}; w != want {
		t.Errorf("weights at δ = 0: %v, want %v", w, want)
	}
	p := []float64{0, 1, 2, 4, 2, 1, 0}
	const n = 7
	st := tensor.New(tensor.F64, n, n)
	for y := 0; y < n; y++ {
		for x := 0; x < n; x++ {
			st.F64[y*n+x] = p[y] * p[x]
		}
	}
	rowWant := map[int]float64{-1: 1.4375, 0: 3.1875, 1: 3.1875, 2: 1.4375}
	cube, ang := testCube(tensor.F64, 4, 11, 11, 10, 1)
	in := Input{Cube: cube, Angles: ang, PSF: st, PSFNorm: "none", Radius: 2, Placement: PlacementSubpixel}
	pr, err := prepare(in)
	if err != nil {
		t.Fatal(err)
	}
	var wy, wx [5]float64
	BasisWeights(&wy, 0.5)
	BasisWeights(&wx, 0)
	fast := make([]float64, pr.P())
	for j := range wy {
		for i := range wx {
			for q, v := range pr.Basis[j*5+i] {
				fast[q] += wy[j] * wx[i] * v
			}
		}
	}
	ref := refShiftedPSF(st.F64, n, "none", refMask(2), 0.5, 0)
	for q, o := range pr.Offsets {
		want := rowWant[o[0]] * p[3+o[1]]
		if o[0] == -2 { // the row at stamp row 0.5: −p[−1]/16 + 9(p[0] + p[1])/16 − p[2]/16, p[−1] = 0
			want = (9*(p[0]+p[1])/16 - p[2]/16) * p[3+o[1]]
		}
		if math.Abs(fast[q]-want) > 1e-12 || math.Abs(ref[q]-want) > 1e-12 {
			t.Errorf("offset %v: basis combination %g, reference %g, by hand %g", o, fast[q], ref[q], want)
		}
	}
}

// subpixelGainData is a 64×64, 60-frame, 60° sequence (FWHM 3) with four
// faint companions at separations and angles that put them off the pixel
// grid in the sky frame and everywhere along their trajectories.
func subpixelGainData(t *testing.T, seed uint64) *synth.Dataset {
	t.Helper()
	cfg := synth.Default()
	cfg.H, cfg.W, cfg.Frames, cfg.RotationDeg, cfg.FWHM, cfg.Seed = 64, 64, 60, 60, 3, seed
	cfg.Companions = []synth.Companion{
		{SepPx: 12.37, ThetaDeg: 33, Flux: 60},
		{SepPx: 17.61, ThetaDeg: 152, Flux: 40},
		{SepPx: 22.45, ThetaDeg: 251, Flux: 30},
		{SepPx: 26.83, ThetaDeg: 318, Flux: 30},
	}
	cfg.DType = tensor.F64
	ds, err := synth.Generate(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return ds
}

// peakNear is the largest finite SNR within 1.5 px of (y, x).
func peakNear(m *Maps, y, x float64) float64 {
	best := math.Inf(-1)
	for yy := int(math.Floor(y - 1.5)); yy <= int(math.Ceil(y+1.5)); yy++ {
		for xx := int(math.Floor(x - 1.5)); xx <= int(math.Ceil(x+1.5)); xx++ {
			if yy < 0 || yy >= m.H || xx < 0 || xx >= m.W || math.Hypot(float64(yy)-y, float64(xx)-x) > 1.5 {
				continue
			}
			if v := m.SNR[yy*m.W+xx]; !math.IsNaN(v) && v > best {
				best = v
			}
		}
	}
	return best
}

// TestSubpixelRaisesSNR: on synthetic companions at non-integer positions
// (four per sequence, three noise seeds) the peak SNR with sub-pixel
// placement is higher than with nearest-pixel placement for at least 10 of
// the 12, and higher on average; both maps still detect every companion and
// nothing else (PACO.md's checks, as TestInjectedTruth).
func TestSubpixelRaisesSNR(t *testing.T) {
	wins, n := 0, 0
	var sumRatio float64
	for _, seed := range []uint64{3, 4, 5} {
		ds := subpixelGainData(t, seed)
		in := Input{Cube: ds.Cube, Angles: ds.Angles, PSF: ds.PSF, Radius: 3}
		maps := map[Placement]*Maps{}
		for _, pl := range []Placement{PlacementNearest, PlacementSubpixel} {
			in.Placement = pl
			m, err := cpuOf(context.Background(), in)
			if err != nil {
				t.Fatal(err)
			}
			maps[pl] = m
			dets := Detect(m, 5, ds.CY, ds.CX, 5)
			used := make([]bool, len(dets))
			for _, tr := range ds.Truth {
				found := false
				for j, d := range dets {
					if math.Hypot(float64(d.Y)-tr.Y, float64(d.X)-tr.X) <= 1.5 {
						found, used[j] = true, true
					}
				}
				if !found {
					t.Errorf("seed %d %s: companion at (%.2f, %.2f) not detected", seed, pl, tr.Y, tr.X)
				}
			}
			for j, d := range dets {
				if !used[j] {
					t.Errorf("seed %d %s: false detection at (%d, %d), SNR %.2f", seed, pl, d.Y, d.X, d.SNR)
				}
			}
		}
		for _, tr := range ds.Truth {
			sn, ss := peakNear(maps[PlacementNearest], tr.Y, tr.X), peakNear(maps[PlacementSubpixel], tr.Y, tr.X)
			t.Logf("seed %d companion (%.2f, %.2f) flux %g: peak SNR nearest %.3f, subpixel %.3f (%+.1f %%)", seed, tr.Y, tr.X, tr.Flux, sn, ss, 100*(ss/sn-1))
			n++
			sumRatio += ss / sn
			if ss > sn {
				wins++
			}
		}
	}
	t.Logf("sub-pixel higher for %d of %d companions, mean SNR ratio %.4f", wins, n, sumRatio/float64(n))
	if wins < n-2 || !(sumRatio/float64(n) > 1) {
		t.Errorf("sub-pixel placement raised the SNR of %d of %d companions (mean ratio %.4f): want at least %d and a mean above 1", wins, n, sumRatio/float64(n), n-2)
	}
}

// whiteNoise is a cube of independent N(0, 1) pixels.
func whiteNoise(T, H, W int, seed uint64) (*tensor.Tensor, []float64) {
	rng := rand.New(rand.NewPCG(seed, 11))
	c := tensor.New(tensor.F64, T, H, W)
	for i := range c.F64 {
		c.F64[i] = rng.NormFloat64()
	}
	ang := make([]float64, T)
	for l := range ang {
		ang[l] = 90 * float64(l) / float64(T-1)
	}
	return c, ang
}

// TestSubpixelWhiteNoise: on white noise there is nothing to detect. PACO's
// SNR is then close to N(0, 1) (b is a sum of whitened residuals whose
// variance a estimates; slightly below 1 because each frame is one of the T
// samples of its own statistics), whatever the PSF model: the sub-pixel
// map's standard deviation must be within 0.8–1.1 and within 5 % of the
// nearest-pixel map's, its mean within 0.1 of 0, and no pixel above the
// default threshold of 5 (PACO.md: no detection where there is no source).
func TestSubpixelWhiteNoise(t *testing.T) {
	cube, ang := whiteNoise(100, 40, 40, 1)
	in := Input{Cube: cube, Angles: ang, PSF: gaussPSF(9, 3), Radius: 3}
	stats := map[Placement][2]float64{}
	for _, pl := range []Placement{PlacementNearest, PlacementSubpixel} {
		in.Placement = pl
		m, err := cpuOf(context.Background(), in)
		if err != nil {
			t.Fatal(err)
		}
		var s, s2, mx float64
		cnt := 0
		for _, v := range m.SNR {
			if math.IsNaN(v) {
				continue
			}
			s += v
			s2 += v * v
			mx = math.Max(mx, math.Abs(v))
			cnt++
		}
		mean := s / float64(cnt)
		sd := math.Sqrt(s2/float64(cnt) - mean*mean)
		stats[pl] = [2]float64{mean, sd}
		t.Logf("%s: %d pixels, SNR mean %.4f, std %.4f, max |SNR| %.2f", pl, cnt, mean, sd, mx)
		if cnt < 300 {
			t.Fatalf("%s: only %d valid pixels", pl, cnt)
		}
		if math.Abs(mean) > 0.1 || sd < 0.8 || sd > 1.1 {
			t.Errorf("%s: SNR mean %.3f, std %.3f on white noise: want |mean| ≤ 0.1, std in [0.8, 1.1]", pl, mean, sd)
		}
		if mx > 5 {
			t.Errorf("%s: |SNR| reaches %.2f on white noise (threshold 5)", pl, mx)
		}
	}
	if r := stats[PlacementSubpixel][1] / stats[PlacementNearest][1]; math.Abs(r-1) > 0.05 {
		t.Errorf("white-noise SNR spread: sub-pixel/nearest = %.3f, want within 5 %%", r)
	}
}

// TestSubpixelMatchesAlgorithm3: Algorithm 3's first evaluation (α = 0:
// statistics learnt from the data as they are) uses the same sub-pixel PSF
// model, interpolated its own way (psfAt on the stamp, its own statistics
// and factor): at whole sky pixels its b/√a is the sub-pixel map's SNR.
func TestSubpixelMatchesAlgorithm3(t *testing.T) {
	cube, ang := testCube(tensor.F64, 24, 27, 27, 50, 2, [3]float64{7, 30, 60})
	in := Input{Cube: cube, Angles: ang, PSF: gaussPSF(9, 2), Radius: 3, Placement: PlacementSubpixel}
	m, err := cpuOf(context.Background(), in)
	if err != nil {
		t.Fatal(err)
	}
	p, err := prepare(in)
	if err != nil {
		t.Fatal(err)
	}
	u, err := newUnbiasedCtx(p, false)
	if err != nil {
		t.Fatal(err)
	}
	checked := 0
	for _, px := range [][2]int{{13 + 4, 13 + 6}, {13 - 5, 13 + 3}, {10, 9}, {16, 18}} {
		pos, loc := u.trajectory(float64(px[0]), float64(px[1]))
		st, err := u.learn(loc, 0, pos)
		if err != nil {
			t.Fatal(err)
		}
		a, b, ok := u.ab(pos, loc, st)
		want := m.SNR[px[0]*m.W+px[1]]
		if !ok || math.IsNaN(want) {
			continue
		}
		checked++
		if got := b / math.Sqrt(a); math.Abs(got-want) > 1e-8*math.Max(1, math.Abs(want)) {
			t.Errorf("pixel %v: Algorithm 3 at α = 0 gives SNR %.12g, the sub-pixel map %.12g", px, got, want)
		}
	}
	if checked < 3 {
		t.Fatalf("only %d pixels compared", checked)
	}
}

// TestVulkanLongSequences: llvmpipe (lavapipe) silently ends an
// invocation's loops after 65,535 iterations in all. The sub-pixel
// detection kernel loops about 16·P + 160 times a frame, so on 252 frames
// it lost every frame past the 127th and still wrote a finite map (SNR off
// by 2.2 on this cube) until the host split the frames over dispatches;
// the nearest-pixel kernel (P + 1 a frame) did the same past about 10,900
// frames at R = 1 (SNR off by 23 here), or 1,300 at R = 4. Both against
// the reference, on every device.
func TestVulkanLongSequences(t *testing.T) {
	for _, c := range []struct {
		T, H, R int
		pl      Placement
	}{
		{252, 25, 3, PlacementSubpixel},
		{11000, 13, 1, PlacementNearest},
	} {
		cube, ang := testCube(tensor.F64, c.T, c.H, c.H, 60, 3, [3]float64{4, 30, 60})
		in := Input{Cube: cube, Angles: ang, PSF: gaussPSF(9, 3), Radius: c.R, Placement: c.pl}
		ref, err := Reference(in)
		if err != nil {
			t.Fatal(err)
		}
		if ref.InvalidPixels == len(ref.SNR) {
			t.Fatalf("T = %d: every pixel invalid", c.T)
		}
		for _, dev := range testdev.Devices(t) {
			for _, dt := range []tensor.DType{tensor.F32, tensor.F64} {
				if dt == tensor.F64 && !dev.Info.Float64 {
					continue
				}
				in := in
				in.Cube = cube.As(dt)
				got, err := vulkanOf(context.Background(), dev, in)
				if err != nil {
					t.Fatal(err)
				}
				tol := map[tensor.DType]float64{tensor.F32: 2e-2, tensor.F64: 1e-3}[dt]
				checkAgainst(t, fmt.Sprintf("%s, %d frames, %s, %s", dev.Info.Name, c.T, c.pl, dt), got, ref, tol)
			}
		}
	}
}
