package synth

import (
	"bytes"
	"context"
	"math"
	"strings"
	"testing"

	"github.com/vkstat/vkstat/tensor"
)

func small() Config {
	c := Default()
	c.H, c.W, c.Frames = 64, 72, 40
	return c
}

func TestDeterministic(t *testing.T) {
	cfg := small()
	cfg.Companions = []Companion{{SepPx: 15, ThetaDeg: 30, Flux: 200}}
	a, err := Generate(cfg)
	if err != nil {
		t.Fatal(err)
	}
	b, err := Generate(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(a.Cube.Raw(), b.Cube.Raw()) || !bytes.Equal(a.PSF.Raw(), b.PSF.Raw()) {
		t.Fatal("two runs with the same seed differ")
	}
	cfg.Seed++
	c, err := Generate(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Equal(a.Cube.Raw(), c.Cube.Raw()) {
		t.Fatal("different seeds give the same cube")
	}
	if !tensor.SameShape(a.Cube.Shape, []int{40, 64, 72}) || a.Cube.DType != tensor.F32 {
		t.Fatalf("cube %v %v", a.Cube.Shape, a.Cube.DType)
	}
	if a.CY != 32 || a.CX != 36 {
		t.Fatalf("centre (%d, %d), want (32, 36)", a.CY, a.CX)
	}
}

func TestAnglesAndPSF(t *testing.T) {
	cfg := small()
	cfg.StartDeg, cfg.RotationDeg = -10, 45
	d, err := Generate(cfg)
	if err != nil {
		t.Fatal(err)
	}
	T := cfg.Frames
	if len(d.Angles) != T || d.Angles[0] != -10 || d.Angles[T-1] != 35 {
		t.Fatalf("angles %v", d.Angles)
	}
	for l := 1; l < T; l++ {
		if step := d.Angles[l] - d.Angles[l-1]; math.Abs(step-45.0/float64(T-1)) > 1e-12 {
			t.Fatalf("angle step %d = %g", l, step)
		}
	}
	S := DefaultStampSize(4)
	if S != 25 || !tensor.SameShape(d.PSF.Shape, []int{S, S}) {
		t.Fatalf("PSF shape %v, want (25, 25)", d.PSF.Shape)
	}
	sum, peak := 0.0, 0.0
	for i, v := range d.PSF.F64 {
		sum += v
		if v > peak {
			peak = v
		}
		y, x := i/S, i%S
		if mirror := d.PSF.F64[(S-1-y)*S+(S-1-x)]; math.Abs(mirror-v) > 1e-15 {
			t.Fatalf("PSF not symmetric at (%d, %d)", y, x)
		}
		if transposed := d.PSF.F64[x*S+y]; math.Abs(transposed-v) > 1e-15 {
			t.Fatalf("PSF not circular at (%d, %d)", y, x)
		}
	}
	if math.Abs(sum-1) > 1e-12 || d.PSF.F64[(S/2)*S+S/2] != peak {
		t.Fatalf("PSF sum %g, centre %g, peak %g", sum, d.PSF.F64[(S/2)*S+S/2], peak)
	}
	// Half maximum: the pixel-integrated Gaussian is a Gaussian convolved
	// with a unit box; its profile along a row crosses half its peak near
	// FWHM/2 from the centre.
	row := d.PSF.F64[(S/2)*S : (S/2+1)*S]
	half := 0.0
	for k := S / 2; k < S-1; k++ {
		if row[k+1] < row[S/2]/2 {
			f := (row[k] - row[S/2]/2) / (row[k] - row[k+1])
			half = float64(k-S/2) + f
			break
		}
	}
	if math.Abs(2*half-4) > 0.25 {
		t.Fatalf("measured FWHM %.3f, want about 4", 2*half)
	}
}

// TestCompanionPositions: the light a companion adds (the cube minus the
// companion-free cube of the same seed) is centred within 0.1 px of where
// PACO.md's convention puts it in every frame, and sums to its flux.
func TestCompanionPositions(t *testing.T) {
	cfg := small()
	cfg.DType = tensor.F64
	cfg.RotationDeg = 90
	comps := []Companion{{SepPx: 17.3, ThetaDeg: 37, Flux: 500}, {SepPx: 9.6, ThetaDeg: 200, Flux: 80}}
	bg, err := Generate(cfg)
	if err != nil {
		t.Fatal(err)
	}
	T, H, W := cfg.Frames, cfg.H, cfg.W
	for ci, c := range comps {
		cfg.Companions = []Companion{c}
		d, err := Generate(cfg)
		if err != nil {
			t.Fatal(err)
		}
		tr := d.Truth[0]
		wy := float64(d.CY) + c.SepPx*math.Sin(c.ThetaDeg*math.Pi/180)
		wx := float64(d.CX) + c.SepPx*math.Cos(c.ThetaDeg*math.Pi/180)
		if math.Abs(tr.Y-wy) > 1e-12 || math.Abs(tr.X-wx) > 1e-12 {
			t.Fatalf("truth (%g, %g), want (%g, %g)", tr.Y, tr.X, wy, wx)
		}
		for _, l := range []int{0, 1, T / 3, T / 2, T - 1} {
			th := d.Angles[l] * math.Pi / 180
			a := c.ThetaDeg*math.Pi/180 - th
			py := float64(d.CY) + c.SepPx*math.Sin(a)
			px := float64(d.CX) + c.SepPx*math.Cos(a)
			var s, sy, sx float64
			for y := 0; y < H; y++ {
				for x := 0; x < W; x++ {
					i := (l*H+y)*W + x
					v := d.Cube.F64[i] - bg.Cube.F64[i]
					s += v
					sy += v * float64(y)
					sx += v * float64(x)
				}
			}
			cy, cx := sy/s, sx/s
			if math.Hypot(cy-py, cx-px) > 0.1 {
				t.Errorf("companion %d frame %d: centroid (%.3f, %.3f), predicted (%.3f, %.3f)", ci, l, cy, cx, py, px)
			}
			if math.Abs(s-c.Flux) > 1e-9*c.Flux {
				t.Errorf("companion %d frame %d: injected %g, want %g", ci, l, s, c.Flux)
			}
		}
		// Frame 0 has angle 0: the companion is at its sky position there.
		if l0y, l0x := FramePosition(d.CY, d.CX, c.SepPx, c.ThetaDeg, d.Angles[0]); l0y != tr.Y || l0x != tr.X {
			t.Errorf("frame 0 position (%g, %g) differs from the sky position", l0y, l0x)
		}
	}
}

// TestStationary: with no companion, every pixel's background has the same
// distribution in the first and second half of the sequence: the per-pixel
// means of the halves differ by no more than their noise, and the temporal
// standard deviation is the model's.
func TestStationary(t *testing.T) {
	cfg := small()
	cfg.Frames = 200
	cfg.DType = tensor.F64
	d, err := Generate(cfg)
	if err != nil {
		t.Fatal(err)
	}
	mean, std, err := d.Background()
	if err != nil {
		t.Fatal(err)
	}
	T, H, W := cfg.Frames, cfg.H, cfg.W
	half := T / 2
	var zs, zs2, ratio, sm float64
	maxZ := 0.0
	n := 0
	for i := 0; i < H*W; i++ {
		var m1, m2, all, all2 float64
		for l := 0; l < T; l++ {
			v := d.Cube.F64[l*H*W+i]
			if l < half {
				m1 += v
			} else {
				m2 += v
			}
			all += v
			all2 += v * v
		}
		m1 /= float64(half)
		m2 /= float64(T - half)
		mu := all / float64(T)
		sd := std.F64[i]
		z := (m1 - m2) / (sd * math.Sqrt(1/float64(half)+1/float64(T-half)))
		zs += z
		zs2 += z * z
		maxZ = max(maxZ, math.Abs(z))
		ratio += math.Sqrt((all2/float64(T)-mu*mu)*float64(T)/float64(T-1)) / sd
		sm += (mu - mean.F64[i]) / (sd / math.Sqrt(float64(T)))
		n++
	}
	zMean, zStd := zs/float64(n), math.Sqrt(zs2/float64(n))
	t.Logf("half-mean difference z: mean %.3f, rms %.3f, max |z| %.2f; temporal std / model %.3f; mean offset %.3f σ/√T",
		zMean, zStd, maxZ, ratio/float64(n), sm/float64(n))
	// Neighbouring pixels are correlated over a PSF width, so the n values
	// are fewer independent draws than n; the bounds allow for that.
	if math.Abs(zMean) > 0.15 || zStd < 0.85 || zStd > 1.15 || maxZ > 5.5 {
		t.Errorf("the halves differ: z mean %.3f, rms %.3f, max %.2f", zMean, zStd, maxZ)
	}
	if r := ratio / float64(n); math.Abs(r-1) > 0.03 {
		t.Errorf("temporal std is %.3f × the model's", r)
	}
	if o := sm / float64(n); math.Abs(o) > 0.15 {
		t.Errorf("temporal means are off the model's by %.3f σ/√T on average", o)
	}
}

func TestSpeckleFallsWithRadius(t *testing.T) {
	cfg := Default()
	cfg.Frames = 2
	cfg.Noise = &Noise{Speckle: 10}
	cfg.DType = tensor.F64
	d, err := Generate(cfg)
	if err != nil {
		t.Fatal(err)
	}
	H, W := cfg.H, cfg.W
	// Mean speckle level in rings: it follows Speckle·e(r).
	for _, r := range []float64{5, 20, 40} {
		var s float64
		var k int
		for y := 0; y < H; y++ {
			for x := 0; x < W; x++ {
				rr := math.Hypot(float64(y-d.CY), float64(x-d.CX))
				if math.Abs(rr-r) < 1.5 {
					s += d.Cube.F64[y*W+x]
					k++
				}
			}
		}
		want := 10 / (1 + r*r/400)
		if got := s / float64(k); math.Abs(got-want) > 0.35*want {
			t.Errorf("ring r=%g: mean speckle %.3f, want about %.3f", r, got, want)
		}
	}
	for _, v := range d.Cube.F64 {
		if v < 0 {
			t.Fatal("a speckle intensity is negative")
		}
	}
}

func TestInvalidConfig(t *testing.T) {
	bad := []struct {
		edit func(*Config)
		want string
	}{
		{func(c *Config) { c.H = 0 }, "frame size"},
		{func(c *Config) { c.W = -3 }, "frame size"},
		{func(c *Config) { c.Frames = 1 }, "at least 2"},
		{func(c *Config) { c.H, c.W, c.Frames = 16384, 16384, 100 }, "elements"},
		{func(c *Config) { c.FWHM = 0 }, "FWHM"},
		{func(c *Config) { c.FWHM = math.NaN() }, "FWHM"},
		{func(c *Config) { c.StampSize = 20 }, "odd"},
		{func(c *Config) { c.RotationDeg = math.Inf(1) }, "finite"},
		{func(c *Config) { c.Noise = &Noise{White: -1} }, "white"},
		{func(c *Config) { c.DType = 7 }, "dtype"},
		{func(c *Config) { c.Companions = []Companion{{SepPx: 60, Flux: 1}} }, "outside"},
		{func(c *Config) { c.Companions = []Companion{{SepPx: 10, Flux: math.NaN()}} }, "finite"},
		{func(c *Config) { c.Companions = []Companion{{SepPx: -1, Flux: 1}} }, "separation"},
	}
	for _, b := range bad {
		c := small()
		b.edit(&c)
		_, err := Generate(c)
		if err == nil || !strings.Contains(err.Error(), b.want) {
			t.Errorf("error %v, want one saying %q", err, b.want)
		}
	}
	// A companion on the edge of the inscribed circle is accepted; one whose
	// circle leaves the image in some frame is not, even if its sky position
	// is inside.
	c := small() // 64×72, star at (32, 36)
	c.Companions = []Companion{{SepPx: 31, ThetaDeg: 0, Flux: 1}}
	if _, err := Generate(c); err != nil {
		t.Errorf("sep 31: %v", err)
	}
	c.Companions = []Companion{{SepPx: 34, ThetaDeg: -60, Flux: 1}} // sky (2.6, 53), frame 20 at y < 0
	if _, err := Generate(c); err == nil || !strings.Contains(err.Error(), "in frame") {
		t.Errorf("sep 34 at pa -60 rotating 60°: %v", err)
	}
}

func BenchmarkGenerateDefault(b *testing.B) {
	cfg := Default()
	cfg.Companions = []Companion{{SepPx: 20, ThetaDeg: 45, Flux: 100}}
	for b.Loop() {
		if _, err := Generate(cfg); err != nil {
			b.Fatal(err)
		}
	}
}

// TestStarOffCentre: Config.Star moves the halo's peak and the companions'
// rotation centre to a sub-pixel position; outside the image it is an
// error.
func TestStarOffCentre(t *testing.T) {
	cfg := Default()
	cfg.H, cfg.W, cfg.Frames = 40, 40, 3
	cfg.Noise = &Noise{Halo: 100}
	cfg.Star = &[2]float64{22.3, 17.6}
	cfg.Companions = []Companion{{SepPx: 10, ThetaDeg: 90, Flux: 1}}
	ds, err := Generate(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if ds.CY != 22 || ds.CX != 18 || ds.StarY != 22.3 || ds.StarX != 17.6 {
		t.Errorf("centre (%d, %d), star (%g, %g)", ds.CY, ds.CX, ds.StarY, ds.StarX)
	}
	// pa 90 from +x towards +y: 10 px below the star in y.
	if tr := ds.Truth[0]; math.Abs(tr.Y-32.3) > 1e-9 || math.Abs(tr.X-17.6) > 1e-9 {
		t.Errorf("companion at (%g, %g), want (32.3, 17.6)", tr.Y, tr.X)
	}
	best, by, bx := math.Inf(-1), 0, 0
	for y := 0; y < 40; y++ {
		for x := 0; x < 40; x++ {
			if v := float64(ds.Cube.F32[y*40+x]); v > best {
				best, by, bx = v, y, x
			}
		}
	}
	if by != 22 || bx != 18 {
		t.Errorf("halo peak at (%d, %d), want (22, 18)", by, bx)
	}
	cfg.Star = &[2]float64{-1, 5}
	if _, err := Generate(cfg); err == nil || !strings.Contains(err.Error(), "outside") {
		t.Errorf("star outside the image: %v", err)
	}
}

// TestSurveyName: two digits at least, else as many as the count has.
func TestSurveyName(t *testing.T) {
	for _, c := range []struct {
		k, n int
		want string
	}{{0, 1, "t01"}, {8, 9, "t09"}, {9, 10, "t10"}, {0, 100, "t001"}, {99, 100, "t100"}, {41, 12345, "t00042"}} {
		if got := SurveyName(c.k, c.n); got != c.want {
			t.Errorf("SurveyName(%d, %d) = %s, want %s", c.k, c.n, got, c.want)
		}
	}
}

// TestRandomCheck: a negative scale is refused, by Check and by Draw,
// naming the parameter; 0 (a constant array at Loc) is taken.
func TestRandomCheck(t *testing.T) {
	r := Random{Loc: 3, Scale: -1}
	want := "scale: want a width (uniform) or a standard deviation (normal) of 0 or more, got -1"
	if err := r.Check(); err == nil || err.Error() != want {
		t.Errorf("Check: %v", err)
	}
	if _, err := r.Draw(context.Background(), tensor.F64, 4); err == nil || err.Error() != want {
		t.Errorf("Draw: %v", err)
	}
	r.Scale = 0
	if x, err := r.Draw(context.Background(), tensor.F64, 4); err != nil || x.F64[0] != 3 || x.F64[3] != 3 {
		t.Errorf("scale 0: %v, %v", x, err)
	}
}

// TestCubeBytes: 3 frames of 4×5 float64 are 480 bytes, float32 (the zero
// DType) half that.
func TestCubeBytes(t *testing.T) {
	c := Config{Frames: 3, H: 4, W: 5, DType: tensor.F64}
	if got := c.CubeBytes(); got != 480 {
		t.Errorf("float64: %d bytes, want 480", got)
	}
	if c.DType = 0; c.CubeBytes() != 240 {
		t.Errorf("float32: %d bytes, want 240", c.CubeBytes())
	}
}
