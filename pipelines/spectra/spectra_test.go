package spectra

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vkstat/vkstat/device/testdev"
	"github.com/vkstat/vkstat/engine"
	"github.com/vkstat/vkstat/internal/checks"
	"github.com/vkstat/vkstat/tensor"
)

func TestMain(m *testing.M) { testdev.Main(m) }

// impl is one path under test, with the error it is held to relative to
// the largest value of the spectrum it computes.
type impl struct {
	name string
	opt  Options
	tol  float64
}

// impls is the CPU path and, on every test device, VkFFT in float32 and,
// where the device has float64, in float64.
func impls(t *testing.T) []impl {
	out := []impl{{name: "cpu", tol: 1e-12}}
	if testing.Short() {
		return out
	}
	for _, d := range testdev.Devices(t) {
		out = append(out, impl{name: d.Info.Name + "/f32", opt: Options{Device: d}, tol: 1e-5})
		if d.Info.Float64 {
			out = append(out, impl{name: d.Info.Name + "/f64", opt: Options{Device: d, Double: true}, tol: 1e-12})
		}
	}
	return out
}

var sizes = [][2]int{{8, 8}, {12, 15}, {15, 12}, {16, 16}, {17, 16}, {16, 17}, {64, 64}, {8, 64}, {1, 12},
	// both axes odd: the real-to-complex layouts differ for odd lengths
	{9, 15}, {13, 17}, {1, 9},
	// a single column (VkFFT plans no axis of 1) and a single value
	{12, 1}, {1, 1}}

// TestTone2D: a cosine at wavenumber (ky, kx) has its power, ¼ at (ky, kx)
// and ¼ at (−ky, −kx) (½ at a Nyquist-only or self-conjugate frequency),
// and nothing elsewhere; its radial power is in bin round(r) alone.
func TestTone2D(t *testing.T) {
	for _, im := range impls(t) {
		for _, hw := range sizes {
			h, w := hw[0], hw[1]
			for _, k := range [][2]int{{0, 1}, {1, 0}, {h / 3, w / 4}, {h / 2, 0}, {0, w / 2}, {h - 2, 3}} {
				ky, kx := k[0]%h, k[1]%w
				if ky == 0 && kx == 0 {
					continue
				}
				t.Run(fmt.Sprintf("%s/%dx%d/k=%d,%d", im.name, h, w, ky, kx), func(t *testing.T) {
					x := make([]float64, h*w)
					for y := 0; y < h; y++ {
						for j := 0; j < w; j++ {
							x[y*w+j] = 3 + math.Cos(2*math.Pi*(float64(ky*y)/float64(h)+float64(kx*j)/float64(w)))
						}
					}
					p, err := Power2D(context.Background(), x, 1, h, w, im.opt)
					testdev.SkipNoFloat64(t, err)
					if err != nil {
						t.Fatal(err)
					}
					my, mx := (h-ky)%h, (w-kx)%w
					want := make([]float64, h*w)
					want[ky*w+kx] += 0.25
					want[my*w+mx] += 0.25
					if my == ky && mx == kx {
						// its own negative (0 or Nyquist on each axis): the
						// tone alternates ±1, variance 1, in this one bin.
						want[ky*w+kx] = 1
					}
					for i := range p {
						if math.Abs(p[i]-want[i]) > im.tol {
							t.Fatalf("P[%d, %d] = %.3g, want %.3g", i/w, i%w, p[i], want[i])
						}
					}
					s, _, err := SpatialSpectra(context.Background(), x, 1, h, w, im.opt)
					if err != nil {
						t.Fatal(err)
					}
					m := float64(min(h, w))
					fy, fx := fftfreq(ky, h), fftfreq(kx, w)
					bin := int(math.Round(m * math.Hypot(fy, fx)))
					for r, v := range s.Radial {
						if r != bin && math.Abs(v) > im.tol {
							t.Errorf("radial bin %d = %.3g, want the tone in bin %d alone", r, v, bin)
						}
						if r == bin && v <= 0 {
							t.Errorf("radial bin %d = %.3g, want the tone there", r, v)
						}
					}
				})
			}
		}
	}
}

// TestTone1D: a cosine at frequency k of F frames has power ½ at k (1 at
// Nyquist) in the one-sided spectrum and nothing elsewhere.
func TestTone1D(t *testing.T) {
	for _, im := range impls(t) {
		for _, f := range []int{2, 3, 5, 8, 9, 12, 15, 16, 17, 33, 64} {
			for _, k := range []int{1, 2, f / 3, f / 2} {
				if k < 1 || 2*k > f {
					continue
				}
				t.Run(fmt.Sprintf("%s/F=%d/k=%d", im.name, f, k), func(t *testing.T) {
					x := make([]float64, 2*f)
					for j := 0; j < f; j++ {
						x[j] = -1 + math.Cos(2*math.Pi*float64(k*j)/float64(f))
						x[f+j] = 5 + 2*math.Sin(2*math.Pi*float64(k*j)/float64(f)+0.3)
					}
					s, _, err := TemporalSpectra(context.Background(), x, 2, f, im.opt)
					testdev.SkipNoFloat64(t, err)
					if err != nil {
						t.Fatal(err)
					}
					for b, amp := range []float64{1, 2} {
						want := amp * amp / 2
						if 2*k == f {
							want = amp * amp * nyquistMeanSq(b)
						}
						for j := 0; j < s.K; j++ {
							v := s.Spectrum[b*s.K+j]
							w := 0.0
							if j == k {
								w = want
							}
							if math.Abs(v-w) > im.tol*amp*amp {
								t.Errorf("series %d: S[%d] = %.4g, want %.4g", b, j, v, w)
							}
						}
					}
				})
			}
		}
	}
}

// nyquistMeanSq is the variance over amp² of the test's series b at the
// Nyquist frequency: cos(πj) = (−1)^j (variance 1); sin(πj + 0.3) =
// (−1)^j·sin(0.3) (variance sin²(0.3)).
func nyquistMeanSq(b int) float64 {
	if b == 0 {
		return 1
	}
	return math.Sin(0.3) * math.Sin(0.3)
}

func randomFrames(b, h, w int, seed uint64) []float64 {
	r := rand.New(rand.NewPCG(seed, 15))
	x := make([]float64, b*h*w)
	for i := range x {
		x[i] = 4 + r.NormFloat64()*(1+float64(i%7))
	}
	return x
}

// TestParseval: Σ P is the frame's population variance, and Σ S the series'.
func TestParseval(t *testing.T) {
	for _, im := range impls(t) {
		for _, hw := range sizes {
			h, w := hw[0], hw[1]
			x := randomFrames(3, h, w, uint64(h*100+w))
			s, _, err := SpatialSpectra(context.Background(), x, 3, h, w, im.opt)
			testdev.SkipNoFloat64(t, err)
			if err != nil {
				t.Fatal(err)
			}
			for b := 0; b < 3; b++ {
				v := variance(x[b*h*w : (b+1)*h*w])
				if math.Abs(s.Total[b]-v) > im.tol*v*10 {
					t.Errorf("%s %dx%d frame %d: Σ P = %.15g, variance %.15g", im.name, h, w, b, s.Total[b], v)
				}
			}
			ts, _, err := TemporalSpectra(context.Background(), x, 3*h, w, im.opt)
			if err != nil {
				t.Fatal(err)
			}
			for b := 0; b < 3*h; b++ {
				v := variance(x[b*w : (b+1)*w])
				if math.Abs(ts.Total[b]-v) > im.tol*v*10 {
					t.Errorf("%s F=%d series %d: Σ S = %.15g, variance %.15g", im.name, w, b, ts.Total[b], v)
				}
			}
		}
	}
}

func variance(v []float64) float64 {
	var m, s float64
	for _, e := range v {
		m += e
	}
	m /= float64(len(v))
	for _, e := range v {
		s += (e - m) * (e - m)
	}
	return s / float64(len(v))
}

// TestAgainstReference holds every path's full spectra, radial spectra and
// summaries to the plain-DFT reference on random frames and series.
func TestAgainstReference(t *testing.T) {
	for _, im := range impls(t) {
		for _, hw := range sizes {
			h, w := hw[0], hw[1]
			b := 5
			x := randomFrames(b, h, w, uint64(h*1000+w))
			t.Run(fmt.Sprintf("%s/%dx%d", im.name, h, w), func(t *testing.T) {
				r, err := Run(context.Background(), im.opt.Device, tensor.FromF64(x, b, h, w), im.opt)
				testdev.SkipNoFloat64(t, err)
				if err != nil {
					t.Fatal(err)
				}
				got := r.Spatial
				ref := Reference(x, b, h, w)
				p, err := Power2D(context.Background(), x, b, h, w, im.opt)
				if err != nil {
					t.Fatal(err)
				}
				closeTo(t, "P", p, ReferencePower2D(x, b, h, w), im.tol)
				closeTo(t, "radial", got.Radial, ref.Radial, im.tol)
				for i := range got.Count {
					if got.Count[i] != ref.Count[i] {
						t.Fatalf("bin %d holds %d frequencies, reference %d", i, got.Count[i], ref.Count[i])
					}
				}
				closeTo(t, "radius", got.Radius, ref.Radius, 1e-12)
				closeTo(t, "centroid", Centroid(got.NuSum, got.Total), Centroid(ref.NuSum, ref.Total), 10*im.tol)
				closeTo(t, "high fraction", HighFraction(got.HighSum, got.Total), HighFraction(ref.HighSum, ref.Total), 10*im.tol)

				rt, err := Run(context.Background(), im.opt.Device, tensor.FromF64(x, b*h, w), im.opt)
				if err != nil {
					t.Fatal(err)
				}
				tg := rt.Temporal
				tr := ReferenceTemporal(x, b*h, w)
				closeTo(t, "temporal", tg.Spectrum, tr.Spectrum, im.tol)
				closeTo(t, "temporal centroid", Centroid(tg.NuSum, tg.Total), Centroid(tr.NuSum, tr.Total), 10*im.tol)
				closeTo(t, "temporal high fraction", HighFraction(tg.HighSum, tg.Total), HighFraction(tr.HighSum, tr.Total), 10*im.tol)
			})
		}
	}
}

// closeTo fails when some |got − want| exceeds tol times want's largest
// magnitude, or NaN or ±Inf are not at the same places (checks.Compare's
// max error).
func closeTo(t *testing.T, what string, got, want []float64, tol float64) {
	t.Helper()
	e, err := checks.Compare(got, want)
	if err != nil || e.Mismatches > 0 || e.MaxErr > tol {
		t.Fatalf("%s: max error %.3g (tolerance %.3g), %d NaN/Inf mismatches, worst [%d] = %.15g, want %.15g %v",
			what, e.MaxErr, tol, e.Mismatches, e.Worst, e.Got, e.Want, err)
	}
}

func readNPY(t *testing.T, name string) ([]float64, []int) {
	return checks.ReadNPY(t, filepath.Join("..", "..", "testdata", "spectra", name))
}

// TestNumPy holds every path to np.fft.fft2 and np.fft.rfft
// (testdata/spectra/make_spectra.py).
func TestNumPy(t *testing.T) {
	for _, im := range impls(t) {
		for _, s := range [][3]int{{3, 12, 15}, {2, 17, 16}, {2, 8, 64}} {
			base := fmt.Sprintf("fft2_%dx%dx%d", s[0], s[1], s[2])
			x, shape := readNPY(t, base+"_x.npy")
			want, _ := readNPY(t, base+"_p.npy")
			if len(shape) != 3 || shape[0] != s[0] || shape[1] != s[1] || shape[2] != s[2] {
				t.Fatalf("%s: shape %v", base, shape)
			}
			p, err := Power2D(context.Background(), x, s[0], s[1], s[2], im.opt)
			testdev.SkipNoFloat64(t, err)
			if err != nil {
				t.Fatal(err)
			}
			closeTo(t, im.name+" "+base, p, want, im.tol)
		}
		for _, s := range [][2]int{{4, 9}, {3, 16}} {
			base := fmt.Sprintf("rfft_%dx%d", s[0], s[1])
			x, _ := readNPY(t, base+"_x.npy")
			want, _ := readNPY(t, base+"_s.npy")
			ts, _, err := TemporalSpectra(context.Background(), x, s[0], s[1], im.opt)
			testdev.SkipNoFloat64(t, err)
			if err != nil {
				t.Fatal(err)
			}
			closeTo(t, im.name+" "+base, ts.Spectrum, want, im.tol)
		}
	}
}

// TestVulkanLargeBatch: more transforms in one plan than llvmpipe lets one
// invocation loop (65,535, docs/crossvendor.md): 70,000 series of 16
// frames and 1,100 frames of 64×64 (70,400 rows of 64) match the CPU path,
// so VkFFT spreads a batch over workgroups rather than looping over it,
// and so does the reduction to bins (70,000 invocations).
func TestVulkanLargeBatch(t *testing.T) {
	if testing.Short() {
		t.Skip("short")
	}
	ctx := context.Background()
	series := randomFrames(70000, 1, 16, 3)
	frames := randomFrames(1100, 64, 64, 4)
	want1, _, err := TemporalSpectra(ctx, series, 70000, 16, Options{})
	if err != nil {
		t.Fatal(err)
	}
	want2, err := Power2D(ctx, frames, 1100, 64, 64, Options{})
	if err != nil {
		t.Fatal(err)
	}
	want3, _, err := SpatialSpectra(ctx, frames, 1100, 64, 64, Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range testdev.Devices(t) {
		got1, _, err := TemporalSpectra(ctx, series, 70000, 16, Options{Device: d})
		if err != nil {
			t.Fatal(err)
		}
		closeTo(t, d.Info.Name+" temporal", got1.Spectrum, want1.Spectrum, 1e-5)
		got2, err := Power2D(ctx, frames, 1100, 64, 64, Options{Device: d})
		if err != nil {
			t.Fatal(err)
		}
		closeTo(t, d.Info.Name+" spatial", got2, want2, 1e-5)
		got3, _, err := SpatialSpectra(ctx, frames, 1100, 64, 64, Options{Device: d})
		if err != nil {
			t.Fatal(err)
		}
		closeTo(t, d.Info.Name+" radial", got3.Radial, want3.Radial, 1e-5)
		closeTo(t, d.Info.Name+" total", got3.Total, want3.Total, 1e-5)
		closeTo(t, d.Info.Name+" temporal total", got1.Total, want1.Total, 1e-5)
	}
}

// TestVulkanLayouts: real data goes through VkFFT's real-to-complex
// transform (odd axes included), and an odd length VkFFT 1.2.26 cannot do
// real-to-complex (19,683 = 3⁹ frames, longer than one upload) falls back
// to the complex transform; both match the CPU path.
func TestVulkanLayouts(t *testing.T) {
	if testing.Short() {
		t.Skip("short")
	}
	ctx := context.Background()
	frames := randomFrames(3, 13, 17, 5)
	const long = 19683
	series := randomFrames(2, 1, long, 6)
	want2, err := Power2D(ctx, frames, 3, 13, 17, Options{})
	if err != nil {
		t.Fatal(err)
	}
	want1, _, err := TemporalSpectra(ctx, series, 2, long, Options{})
	if err != nil {
		t.Fatal(err)
	}
	// kernels names the VkFFT steps that ran (timestamps give the names).
	kernels := func(tm []engine.Step) string {
		var s []string
		for _, st := range tm {
			if strings.HasPrefix(st.Name, "vkfft") {
				s = append(s, st.Name)
			}
		}
		return strings.Join(s, "; ")
	}
	for _, d := range testdev.Devices(t) {
		_, tm, err := SpatialSpectra(ctx, frames, 3, 13, 17, Options{Device: d})
		if err != nil {
			t.Fatal(err)
		}
		p, err := Power2D(ctx, frames, 3, 13, 17, Options{Device: d})
		if err != nil {
			t.Fatal(err)
		}
		closeTo(t, d.Info.Name+" 13×17", p, want2, 1e-5)
		t.Logf("%s: 13×17: %s", d.Info.Name, kernels(tm.Steps))
		if k := kernels(tm.Steps); tm.GPUTimed && !strings.Contains(k, "vkfft r2c") {
			t.Errorf("%s: 13×17 frames ran %q, want VkFFT's real-to-complex transform", d.Info.Name, k)
		}
		got1, tm, err := TemporalSpectra(ctx, series, 2, long, Options{Device: d})
		if err != nil {
			t.Fatal(err)
		}
		closeTo(t, fmt.Sprintf("%s F=%d", d.Info.Name, long), got1.Spectrum, want1.Spectrum, 1e-5)
		t.Logf("%s: F=%d: %s", d.Info.Name, long, kernels(tm.Steps))
		if k := kernels(tm.Steps); tm.GPUTimed && !strings.Contains(k, "vkfft c2c") {
			t.Errorf("%s: F=%d ran %q, want the complex transform", d.Info.Name, long, k)
		}
	}
}
