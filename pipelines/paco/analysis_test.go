package paco

import (
	"context"
	"errors"
	"math"
	"testing"
	"time"

	"github.com/vkstat/vkstat/engine"
	"github.com/vkstat/vkstat/pipelines/synth"
	"github.com/vkstat/vkstat/tensor"
)

// TestDefaultPSFIsSynths: without a stamp, the PSF Run uses for a FWHM is
// bit for bit the stamp synth injects companions with for that FWHM (a
// Gaussian integrated over each pixel), not a Gaussian sampled at pixel
// centres: so that PACO looks for the source synth puts in.
func TestDefaultPSFIsSynths(t *testing.T) {
	for _, fwhm := range []float64{1, 2.5, 4, 7.3} {
		ds, err := synth.Generate(synth.Config{H: 24, W: 24, Frames: 4, RotationDeg: 30, FWHM: fwhm, Seed: 2})
		if err != nil {
			t.Fatal(err)
		}
		res, err := Run(context.Background(), nil, ADI{Cube: ds.Cube, Angles: ds.Angles}, Options{FWHM: fwhm, Radius: 2, Center: CenterGiven, CenterYX: [2]float64{12, 12}})
		if err != nil {
			t.Fatal(err)
		}
		got, want := res.PSF, ds.PSF
		if !tensor.SameShape(got.Shape, want.Shape) {
			t.Fatalf("FWHM %g: paco's PSF is %v, synth's %v", fwhm, got.Shape, want.Shape)
		}
		for i := range want.F64 {
			if math.Float64bits(got.F64[i]) != math.Float64bits(want.F64[i]) {
				t.Fatalf("FWHM %g: paco's PSF[%d] = %v, synth's %v", fwhm, i, got.F64[i], want.F64[i])
			}
		}
		// A sampled Gaussian's centre is 1/(2πσ²) of its sum: the pixel
		// integral's is lower, most for the narrowest PSF.
		n := got.Shape[0]
		sigma := fwhm / (2 * math.Sqrt(2*math.Ln2))
		if c, sampled := got.F64[n*n/2], 1/(2*math.Pi*sigma*sigma); !(c < sampled) {
			t.Errorf("FWHM %g: centre %v, not below the sampled Gaussian's %v", fwhm, c, sampled)
		}
	}
}

// TestRunRefuses: bad options are *OptionError naming the field, float32
// on the CPU path and the header's centre of a cube without one are the
// errors callers reword.
func TestRunRefuses(t *testing.T) {
	ds, err := synth.Generate(synth.Config{H: 20, W: 20, Frames: 6, RotationDeg: 40, FWHM: 2, Seed: 3})
	if err != nil {
		t.Fatal(err)
	}
	run := func(o Options) error {
		_, err := Run(context.Background(), nil, ADI{Cube: ds.Cube, Angles: ds.Angles}, o)
		return err
	}
	with := func(set func(*Options)) Options {
		o := DefaultOptions()
		o.FWHM = 2
		set(&o)
		return o
	}
	for field, o := range map[string]Options{
		"fwhm":         with(func(o *Options) { o.FWHM = 0 }),
		"psf_norm":     with(func(o *Options) { o.PSFNorm = "max" }),
		"radius":       with(func(o *Options) { o.Radius = 0 }),
		"min_sep":      with(func(o *Options) { o.MinSep = math.NaN() }),
		"pixel_scale":  with(func(o *Options) { o.PixelScale = -1 }),
		"north_offset": with(func(o *Options) { o.NorthOffset = math.Inf(1) }),
		"star_flux":    with(func(o *Options) { o.StarFlux = -2 }),
		"threshold":    with(func(o *Options) { o.Threshold = -1 }),
		"placement":    with(func(o *Options) { o.Placement = 7 }),
	} {
		var fe *engine.FieldError
		if err := run(o); !errors.As(err, &fe) || fe.Field != field {
			t.Errorf("%+v: %v, want a FieldError for %s", o, err, field)
		}
	}
	if err := run(with(func(o *Options) { o.Convert, o.DType = true, tensor.F32 })); !errors.Is(err, ErrCPUFloat64) {
		t.Errorf("float32 on the CPU path: %v", err)
	}
	if err := run(with(func(o *Options) { o.Center = CenterHeader })); !errors.Is(err, ErrNoHeaderCenter) {
		t.Errorf("the header's centre without one: %v", err)
	}
	res, err := Run(context.Background(), nil, ADI{Cube: ds.Cube, Angles: ds.Angles}, with(func(o *Options) { o.Center, o.HeaderCenter = CenterHeader, &[2]float64{9.4, 11.6} }))
	if err != nil || res.Center.Source != "header" || res.Center.Used != [2]int{9, 12} {
		t.Errorf("the header's centre (9.4, 11.6): %+v, %v; want (9, 12) from the header", res.Center, err)
	}
}

func TestParseCenter(t *testing.T) {
	for s, want := range map[string]CenterChoice{"": CenterDefault, " AUTO": CenterAuto, "header": CenterHeader, "51.5, 48": CenterGiven} {
		c, yx, err := ParseCenter(s)
		if err != nil || c != want || (c == CenterGiven && yx != [2]float64{51.5, 48}) {
			t.Errorf("ParseCenter(%q) = %v, %v, %v", s, c, yx, err)
		}
	}
	for _, s := range []string{"51", "a,b", "nan,1", "1,2,3"} {
		if _, _, err := ParseCenter(s); err == nil {
			t.Errorf("ParseCenter(%q): no error", s)
		}
	}
}

// TestScanCube: the NaN count and the range of the other values, for each
// storage type and across the pieces the scan splits a large cube into
// (values placed by hand in the first, a middle and the last piece).
func TestScanCube(t *testing.T) {
	nan, inf := math.NaN(), math.Inf(1)
	vals := []float64{nan, 3, -2, inf, nan, 0.5}
	f32 := tensor.New(tensor.F32, 1, 2, 3)
	f16 := tensor.New(tensor.F16, 1, 2, 3)
	for i, v := range vals {
		f32.F32[i] = float32(v)
		f16.U16[i] = tensor.Float32ToHalf(float32(v))
	}
	f64 := tensor.FromF64(vals, 1, 2, 3)
	big := tensor.New(tensor.F32, 3, 1024, 1025) // 3.0 pieces of 2^20
	big.F32[0], big.F32[1<<20+7], big.F32[len(big.F32)-1] = float32(nan), -5, 9
	for _, c := range []struct {
		name   string
		cube   *tensor.Tensor
		nans   int
		lo, hi float64
	}{
		{"float32", f32, 2, -2, inf}, {"float64", f64, 2, -2, inf}, {"float16", f16, 2, -2, inf},
		{"pieces", big, 1, -5, 9},
		{"all NaN", tensor.FromF64([]float64{nan, nan}, 2, 1, 1), 2, inf, -inf},
	} {
		n, lo, hi := scanCube(c.cube)
		if n != c.nans || lo != c.lo || hi != c.hi {
			t.Errorf("%s: %d NaNs, range [%g, %g]; want %d, [%g, %g]", c.name, n, lo, hi, c.nans, c.lo, c.hi)
		}
	}
}

// TestRunMapsAlongsideTheCentre: on the CPU path Run computes the maps'
// first stages (mapsHead) alongside the star centre's measurement. Its
// maps are those of CPU on Prepare's Prepared (which runs nothing
// alongside) bit for bit, with the star at the geometric centre and with
// it measured away from it (the maps then on the measured centre); its
// phases name the head's stages once each, the star centre's is what is
// left of the measurement (not negative), and they add up to at most the
// wall. A context cancelled before the run stops it with its error.
func TestRunMapsAlongsideTheCentre(t *testing.T) {
	ctx := context.Background()
	for _, star := range [][2]float64{{24, 24}, {21.4, 26.3}} {
		cfg := synth.Default()
		cfg.H, cfg.W, cfg.Frames, cfg.Seed, cfg.FWHM, cfg.RotationDeg = 48, 48, 16, 7, 3, 60
		cfg.Star = &star
		ds, err := synth.Generate(cfg)
		if err != nil {
			t.Fatal(err)
		}
		in := ADI{Cube: ds.Cube, Angles: ds.Angles}
		opt := Options{FWHM: 3, Radius: 2, Threshold: 5, QuickContrast: true}
		res, err := Run(ctx, nil, in, opt)
		if err != nil {
			t.Fatal(err)
		}
		p, err := Prepare(in, opt)
		if err != nil {
			t.Fatal(err)
		}
		if p.head != nil {
			t.Fatalf("star %v: Prepare ran the maps' first stages alongside the centre", star)
		}
		want, err := CPU(ctx, p)
		if err != nil {
			t.Fatal(err)
		}
		moved := res.Center.Used != [2]int{24, 24}
		if moved != (star != [2]float64{24, 24}) || res.Center.Used != p.Star.Used {
			t.Errorf("star %v: the maps on %v (Prepare's %v)", star, res.Center.Used, p.Star.Used)
		}
		for name, pair := range map[string][2][]float64{"snr": {res.Maps.SNR, want.SNR}, "flux": {res.Maps.Flux, want.Flux}, "sigma": {res.Maps.Sigma, want.Sigma}} {
			for i := range pair[1] {
				if a, b := pair[0][i], pair[1][i]; math.Float64bits(a) != math.Float64bits(b) && !(math.IsNaN(a) && math.IsNaN(b)) {
					t.Fatalf("star %v: %s[%d] %v alongside the centre, %v after it", star, name, i, a, b)
				}
			}
		}
		count := map[string]int{}
		var sum time.Duration
		for _, ph := range res.Timing.Phases {
			count[ph.Name]++
			sum += ph.Time
			if ph.Time < 0 {
				t.Errorf("star %v: phase %q %v", star, ph.Name, ph.Time)
			}
		}
		for _, n := range []string{"star centre", "centre", "lagged products", "statistics", "detection map"} {
			if count[n] != 1 {
				t.Errorf("star %v: phase %q listed %d times: %v", star, n, count[n], res.Timing.Phases)
			}
		}
		if sum > res.Timing.Wall {
			t.Errorf("star %v: phases %v add up to more than the wall %v: %v", star, sum, res.Timing.Wall, res.Timing.Phases)
		}
		done, cancel := context.WithCancel(ctx)
		cancel()
		if _, err := Run(done, nil, in, opt); !errors.Is(err, context.Canceled) {
			t.Errorf("star %v: a cancelled run: %v", star, err)
		}
	}
}
