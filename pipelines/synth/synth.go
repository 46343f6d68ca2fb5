// Package synth generates synthetic angular differential imaging (ADI)
// sequences for PACO, as ../shared/PACO.md's "Synthetic ADI data" section
// specifies: a cube of T frames of H×W pixels whose background is stationary
// in time at every pixel, the parallactic angles, the PSF stamp, and
// companions injected at known sky positions and fluxes. It is deterministic
// for a seed. Users (`vkstat synth paco`) and tests share it.
//
// # Model
//
// Frame l (l = 0..T−1) at pixel (y, x), at distance r from the star centre
// (c_y, c_x) = (H/2, W/2) (integer division), is
//
//	Y_l(y, x) = halo(r) + speckle(y, x) + temporal_l(y, x) + white_l(y, x) + companions_l(y, x)
//
// where
//
//   - halo(r) = Halo / (1 + (r/FWHM)²)^1.5: the star's halo, static in the frame.
//   - speckle(y, x) = Speckle · e(r) · |E(y, x)|²: quasi-static speckles, fixed
//     in the frame. E = (a + ib)/√2 where a and b are independent white
//     Gaussian fields smoothed by a Gaussian of the PSF's FWHM and scaled to
//     unit variance, so |E|² is exponentially distributed with mean 1: the
//     speckles' mean and spatial standard deviation are Speckle · e(r).
//   - temporal_l(y, x) = Temporal · e(r) · G_l(y, x): G_l is a white Gaussian
//     field smoothed to the PSF scale with unit variance, drawn
//     independently for every frame.
//   - white_l(y, x) = White · N(0, 1), independent for every pixel and frame.
//   - e(r) = 1 / (1 + (r/Scale)²) is the radial envelope (Scale defaults to
//     5·FWHM: the speckle and temporal amplitudes halve at 5·FWHM).
//
// So at every pixel the background is Gaussian and identically distributed in
// every frame (mean halo + speckle, variance (Temporal·e(r))² + White²,
// correlated over about a PSF width with its neighbours), which is exactly
// PACO's model: its per-location statistics learnt from all T frames are the
// true ones up to sampling noise. Units are arbitrary data units (counts).
//
// # Companions
//
// A companion at separation r (pixels) and position angle θ0 (degrees,
// measured from the +x axis towards +y, the angle atan2(dy, dx) of PACO.md;
// not the astronomical north-through-east angle) sits at sky position
// y0 = c_y + r sin θ0, x0 = c_x + r cos θ0, in the frame whose parallactic
// angle is 0. In frame l it appears at angle θ0 − θ_l:
//
//	y_l = c_y + r sin(θ0 − θ_l),  x_l = c_x + r cos(θ0 − θ_l)
//
// where it adds Flux × the PSF evaluated at that sub-pixel position: the PSF
// is a circular Gaussian of the given FWHM integrated over each pixel (so a
// shift by a fraction of a pixel moves the light, not a rounded copy of the
// stamp), on a StampSize × StampSize window centred on the nearest pixel and
// normalised to unit sum over that window. The injected light therefore sums
// to Flux (less what falls outside the image), and Flux is in the units PACO
// estimates fluxes in: the total of the unit-sum PSF stamp. The PSF stamp
// returned is the same function at zero offset.
package synth

import (
	"errors"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"runtime"
	"sync"

	"github.com/vkstat/vkstat/tensor"
)

// Companion is a point source on the sky.
type Companion struct {
	SepPx    float64 // separation from the star, pixels
	ThetaDeg float64 // map angle, degrees from +x towards +y (atan2(dy, dx)); see PA
	Flux     float64 // total flux (PSF stamp sum × Flux), data units
}

// PA is c's astronomical position angle, degrees east of north in [0, 360),
// in the derotated frame the cube is made in: north up (+y), east left
// (−x), so PA = θ − 90°. It is the angle vkstat paco reports.
func (c Companion) PA() float64 { return ThetaToPA(c.ThetaDeg) }

// ThetaToPA turns a map angle (degrees from +x towards +y) into a position
// angle east of north in [0, 360), north up and east left; PAToTheta is its
// inverse.
func ThetaToPA(theta float64) float64 { return wrap360(theta - 90) }

// PAToTheta turns a position angle east of north into the map angle from
// +x towards +y, in [0, 360).
func PAToTheta(pa float64) float64 { return wrap360(pa + 90) }

func wrap360(a float64) float64 {
	a = math.Mod(a, 360)
	if a < 0 {
		a += 360
	}
	return a
}

// Noise sets the background's amplitudes, in data units. Zero turns a
// component off.
//
// The fields' param tags describe them (engine.Describe) to vkstat synth
// paco's flags.
type Noise struct {
	Halo     float64 `json:"halo" param:"halo" help:"static stellar halo at the centre"`
	Speckle  float64 `json:"speckle" param:"speckle" help:"quasi-static speckle mean and standard deviation at the centre"`
	Temporal float64 `json:"temporal" param:"temporal" help:"standard deviation of the per-frame smoothed noise at the centre"`
	White    float64 `json:"white" param:"white" help:"standard deviation of the white noise"` // everywhere
	// Scale is the radius in pixels where the speckle and temporal
	// amplitudes fall to half; 0 means 5·FWHM.
	Scale float64 `json:"scale" param:"noise_scale" help:"radius (pixels) where speckle and temporal noise halve; 0 means 5·FWHM"`
}

// DefaultNoise is the background used when Config.Noise is nil.
func DefaultNoise() Noise {
	return Noise{Halo: 100, Speckle: 10, Temporal: 3, White: 1}
}

// Config describes a synthetic sequence. The param tags describe the
// sequence's shape and PSF (engine.Describe) to vkstat synth paco's flags.
type Config struct {
	H, W   int // frame size in pixels
	Frames int `param:"frames" help:"number of frames T (at least 2)"` // T ≥ 2
	// RotationDeg is the total field rotation over the sequence: θ_l =
	// StartDeg + RotationDeg·l/(T−1).
	RotationDeg float64 `param:"rotation" help:"total field rotation over the sequence, degrees"`
	StartDeg    float64 `param:"start_angle" help:"parallactic angle of the first frame, degrees"`
	FWHM        float64 `param:"fwhm" help:"PSF full width at half maximum, pixels"`
	// StampSize is the PSF stamp's side (odd); 0 means DefaultStampSize(FWHM).
	StampSize  int `param:"stamp" help:"PSF stamp side (odd); 0 means 2·ceil(3·FWHM)+1"`
	Companions []Companion
	Seed       uint64
	Noise      *Noise       // nil means DefaultNoise()
	DType      tensor.DType // the cube's type: tensor.F32 (the zero value) or tensor.F64
	// Star is the star's sub-pixel centre (y, x), 0-based: the halo,
	// speckle envelope and companions' rotation centre. nil means
	// (H/2, W/2) by integer division, PACO.md's geometric default.
	Star *[2]float64
}

// CubeBytes is the size of the cube c makes: Frames × H × W values of
// DType.
func (c Config) CubeBytes() uint64 {
	return uint64(c.Frames) * uint64(c.H) * uint64(c.W) * uint64(c.DType.Size())
}

// Default returns a 100×100, 252-frame, 60° sequence with FWHM 4 and the
// default noise, without companions.
func Default() Config {
	n := DefaultNoise()
	return Config{H: 100, W: 100, Frames: 252, RotationDeg: 60, FWHM: 4, Seed: 1, Noise: &n}
}

// Truth is an injected companion and its sky position (the frame whose
// parallactic angle is 0), in pixels.
type Truth struct {
	Companion
	Y, X float64
}

// Dataset is a generated sequence.
type Dataset struct {
	Cube   *tensor.Tensor // (T, H, W), Config.DType
	Angles []float64      // T parallactic angles, degrees
	PSF    *tensor.Tensor // (S, S) float64, S odd, unit sum, centred on its middle pixel
	Truth  []Truth        // one per companion, in Config order
	CY, CX int            // the star centre rounded to a pixel ((H/2, W/2) unless Config.Star)
	StarY  float64        // the star centre, sub-pixel (Config.Star, or CY)
	StarX  float64        // likewise x
	Config Config         // the configuration with defaults filled in
}

// Limits on what Generate accepts.
const (
	MaxSide     = 1 << 14 // H and W
	MaxElements = 1 << 31 // T·H·W
	MaxStamp    = 1025
)

// DefaultStampSize is the PSF stamp side for a FWHM: 2·⌈3·FWHM⌉ + 1, about
// six FWHM (±7σ), so that the truncated Gaussian loses nothing measurable.
func DefaultStampSize(fwhm float64) int {
	return 2*int(math.Ceil(3*fwhm)) + 1
}

// Center is the star centre PACO.md uses: (H/2, W/2) by integer division.
func Center(h, w int) (cy, cx int) { return h / 2, w / 2 }

// SkyPosition is where a companion at (sepPx, paDeg) lies in the sky frame.
func SkyPosition(cy, cx int, sepPx, paDeg float64) (y, x float64) {
	return FramePosition(cy, cx, sepPx, paDeg, 0)
}

// FramePosition is where a companion at (sepPx, paDeg) appears in a frame of
// parallactic angle angleDeg: at angle θ0 − θ_l.
func FramePosition(cy, cx int, sepPx, paDeg, angleDeg float64) (y, x float64) {
	a := (paDeg - angleDeg) * math.Pi / 180
	return float64(cy) + sepPx*math.Sin(a), float64(cx) + sepPx*math.Cos(a)
}

// starCenter is cfg's star centre, sub-pixel.
func (cfg Config) starCenter() (y, x float64) {
	if cfg.Star != nil {
		return cfg.Star[0], cfg.Star[1]
	}
	cy, cx := Center(cfg.H, cfg.W)
	return float64(cy), float64(cx)
}

// framePositionF is FramePosition about a sub-pixel centre.
func framePositionF(cy, cx, sepPx, paDeg, angleDeg float64) (y, x float64) {
	a := (paDeg - angleDeg) * math.Pi / 180
	return cy + sepPx*math.Sin(a), cx + sepPx*math.Cos(a)
}

// Angles returns T angles linear from start to start+rotation (degrees).
func Angles(t int, startDeg, rotationDeg float64) []float64 {
	a := make([]float64, t)
	for l := range a {
		if t > 1 {
			a[l] = startDeg + rotationDeg*float64(l)/float64(t-1)
		} else {
			a[l] = startDeg
		}
	}
	return a
}

// profile fills p with a Gaussian of standard deviation sigma, centred at
// offset mu from p's middle element, integrated over each unit pixel and
// normalised to unit sum.
func profile(p []float64, sigma, mu float64) {
	half := len(p) / 2
	s := 1 / (sigma * math.Sqrt2)
	sum := 0.0
	for j := range p {
		d := float64(j-half) - mu
		p[j] = 0.5 * (math.Erf((d+0.5)*s) - math.Erf((d-0.5)*s))
		sum += p[j]
	}
	for j := range p {
		p[j] /= sum
	}
}

// PSFStamp returns the size×size PSF stamp (size odd) for a FWHM: a Gaussian
// integrated over each pixel, centred on the middle pixel, unit sum.
func PSFStamp(size int, fwhm float64) (*tensor.Tensor, error) {
	if size < 1 || size%2 == 0 || size > MaxStamp {
		return nil, fmt.Errorf("PSF stamp size %d: want an odd number from 1 to %d", size, MaxStamp)
	}
	if !(fwhm > 0) || math.IsInf(fwhm, 0) {
		return nil, fmt.Errorf("FWHM %g: want a positive number of pixels", fwhm)
	}
	p := make([]float64, size)
	profile(p, fwhm/(2*math.Sqrt(2*math.Ln2)), 0)
	t := tensor.New(tensor.F64, size, size)
	for i := range p {
		for j := range p {
			t.F64[i*size+j] = p[i] * p[j]
		}
	}
	return t, nil
}

// PSF is the PSF stamp Generate injects for a FWHM, at the default stamp
// size: PSFStamp(DefaultStampSize(fwhm), fwhm). It is PACO's Gaussian PSF
// model too (paco.Options.FWHM without a stamp), so that a companion synth
// injects is the source PACO looks for.
func PSF(fwhm float64) (*tensor.Tensor, error) {
	if !(fwhm > 0) || fwhm > MaxStamp/6 {
		return nil, fmt.Errorf("FWHM %g: want a positive number of pixels below %d", fwhm, MaxStamp/6)
	}
	return PSFStamp(DefaultStampSize(fwhm), fwhm)
}

// resolve fills in defaults and checks cfg.
func (cfg Config) resolve() (Config, error) {
	if cfg.Noise == nil {
		n := DefaultNoise()
		cfg.Noise = &n
	} else {
		n := *cfg.Noise // keep the caller's copy untouched
		cfg.Noise = &n
	}
	if cfg.StampSize == 0 && cfg.FWHM > 0 && cfg.FWHM < MaxStamp/6 {
		cfg.StampSize = DefaultStampSize(cfg.FWHM)
	}
	cfg.Companions = append([]Companion(nil), cfg.Companions...)
	finite := func(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }
	switch {
	case cfg.H < 1 || cfg.W < 1 || cfg.H > MaxSide || cfg.W > MaxSide:
		return cfg, fmt.Errorf("frame size %d×%d: want 1 to %d pixels a side", cfg.H, cfg.W, MaxSide)
	case cfg.Frames < 2:
		return cfg, fmt.Errorf("%d frames: an ADI sequence needs at least 2", cfg.Frames)
	case int64(cfg.Frames)*int64(cfg.H)*int64(cfg.W) > MaxElements:
		return cfg, fmt.Errorf("%d frames of %d×%d pixels is more than %d elements", cfg.Frames, cfg.H, cfg.W, int64(MaxElements))
	case !finite(cfg.StartDeg) || !finite(cfg.RotationDeg):
		return cfg, fmt.Errorf("angles: start %g°, rotation %g°: want finite numbers", cfg.StartDeg, cfg.RotationDeg)
	case !(cfg.FWHM > 0) || !finite(cfg.FWHM) || cfg.FWHM > float64(max(cfg.H, cfg.W)):
		return cfg, fmt.Errorf("FWHM %g: want a positive number of pixels, at most the frame size", cfg.FWHM)
	case cfg.StampSize < 1 || cfg.StampSize%2 == 0 || cfg.StampSize > MaxStamp:
		return cfg, fmt.Errorf("PSF stamp size %d: want an odd number from 1 to %d", cfg.StampSize, MaxStamp)
	case cfg.DType != tensor.F32 && cfg.DType != tensor.F64:
		return cfg, fmt.Errorf("unsupported dtype %v", cfg.DType)
	}
	n := cfg.Noise
	for _, a := range []struct {
		name string
		v    float64
	}{{"halo", n.Halo}, {"speckle", n.Speckle}, {"temporal", n.Temporal}, {"white", n.White}, {"scale", n.Scale}} {
		if !(a.v >= 0) || !finite(a.v) {
			return cfg, fmt.Errorf("noise %s amplitude %g: want a finite number ≥ 0", a.name, a.v)
		}
	}
	if n.Scale == 0 {
		n.Scale = 5 * cfg.FWHM
	}
	if s := cfg.Star; s != nil && (!finite(s[0]) || !finite(s[1]) || s[0] < 0 || s[1] < 0 || s[0] > float64(cfg.H-1) || s[1] > float64(cfg.W-1)) {
		return cfg, fmt.Errorf("star centre (%g, %g) is outside the %d×%d image", s[0], s[1], cfg.H, cfg.W)
	}
	cy, cx := cfg.starCenter()
	angles := Angles(cfg.Frames, cfg.StartDeg, cfg.RotationDeg)
	for i, c := range cfg.Companions {
		if !(c.SepPx >= 0) || !finite(c.SepPx) || !finite(c.ThetaDeg) || !finite(c.Flux) {
			return cfg, fmt.Errorf("companion %d (sep %g px, pa %g°, flux %g): want a finite separation ≥ 0, angle and flux",
				i+1, c.SepPx, c.ThetaDeg, c.Flux)
		}
		for l, a := range angles {
			y, x := framePositionF(cy, cx, c.SepPx, c.ThetaDeg, a)
			if y < 0 || x < 0 || y > float64(cfg.H-1) || x > float64(cfg.W-1) {
				return cfg, fmt.Errorf("companion %d (sep %g px, pa %g°) is outside the %d×%d image in frame %d (angle %.4g°, at y=%.2f, x=%.2f); "+
					"with the star at (%g, %g) a separation of at most %d px stays inside",
					i+1, c.SepPx, c.ThetaDeg, cfg.H, cfg.W, l, a, y, x, cy, cx, int(math.Floor(min(cy, cx, float64(cfg.H-1)-cy, float64(cfg.W-1)-cx))))
			}
		}
	}
	return cfg, nil
}

// Generate builds the sequence cfg describes. The same cfg gives the same
// bytes on every run and machine; adding or changing companions leaves the
// background unchanged, so a companion-free run with the same seed is the
// exact background of one with companions.
func Generate(cfg Config) (*Dataset, error) {
	cfg, err := cfg.resolve()
	if err != nil {
		return nil, err
	}
	T, H, W := cfg.Frames, cfg.H, cfg.W
	cy, cx := cfg.starCenter()
	n := *cfg.Noise
	sigma := cfg.FWHM / (2 * math.Sqrt(2*math.Ln2))
	env := make([]float64, H*W) // e(r)
	static := make([]float64, H*W)
	for y := 0; y < H; y++ {
		for x := 0; x < W; x++ {
			dy, dx := float64(y)-cy, float64(x)-cx
			r2 := dy*dy + dx*dx
			env[y*W+x] = 1 / (1 + r2/(n.Scale*n.Scale))
			static[y*W+x] = n.Halo * math.Pow(1+r2/(cfg.FWHM*cfg.FWHM), -1.5)
		}
	}
	sm := newSmoother(H, W, sigma)
	if n.Speckle > 0 {
		a := sm.field(newRand(cfg.Seed, streamSpeckle, 0))
		b := sm.field(newRand(cfg.Seed, streamSpeckle, 1))
		for i := range static {
			static[i] += n.Speckle * env[i] * 0.5 * (a[i]*a[i] + b[i]*b[i])
		}
	}

	ds := &Dataset{
		Cube:   tensor.New(cfg.DType, T, H, W),
		Angles: Angles(T, cfg.StartDeg, cfg.RotationDeg),
		CY:     int(math.Round(cy)), CX: int(math.Round(cx)),
		StarY: cy, StarX: cx,
		Config: cfg,
	}
	ds.PSF, err = PSFStamp(cfg.StampSize, cfg.FWHM)
	if err != nil {
		return nil, err
	}
	for _, c := range cfg.Companions {
		y, x := framePositionF(cy, cx, c.SepPx, c.ThetaDeg, 0)
		ds.Truth = append(ds.Truth, Truth{Companion: c, Y: y, X: x})
	}

	// Frames are independent: each has its own random streams, so the
	// result does not depend on how they are spread over goroutines.
	var wg sync.WaitGroup
	next := make(chan int)
	for range min(runtime.GOMAXPROCS(0), T) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			fs := newSmoother(H, W, sigma)
			frame := make([]float64, H*W)
			py := make([]float64, cfg.StampSize)
			px := make([]float64, cfg.StampSize)
			for l := range next {
				copy(frame, static)
				rng := newRand(cfg.Seed, streamFrame, uint64(l))
				if n.Temporal > 0 {
					g := fs.field(rng)
					for i := range frame {
						frame[i] += n.Temporal * env[i] * g[i]
					}
				}
				if n.White > 0 {
					for i := range frame {
						frame[i] += n.White * rng.NormFloat64()
					}
				}
				for _, c := range cfg.Companions {
					y, x := framePositionF(cy, cx, c.SepPx, c.ThetaDeg, ds.Angles[l])
					inject(frame, H, W, y, x, c.Flux, sigma, py, px)
				}
				if cfg.DType == tensor.F64 {
					copy(ds.Cube.F64[l*H*W:], frame)
				} else {
					out := ds.Cube.F32[l*H*W : (l+1)*H*W]
					for i, v := range frame {
						out[i] = float32(v)
					}
				}
			}
		}()
	}
	for l := range T {
		next <- l
	}
	close(next)
	wg.Wait()
	return ds, nil
}

// inject adds flux × the pixel-integrated Gaussian centred at (y, x) to the
// H×W frame, on a len(py)×len(px) window around the nearest pixel.
func inject(frame []float64, H, W int, y, x, flux, sigma float64, py, px []float64) {
	iy, ix := math.Round(y), math.Round(x)
	profile(py, sigma, y-iy)
	profile(px, sigma, x-ix)
	half := len(py) / 2
	for j, vy := range py {
		yy := int(iy) + j - half
		if yy < 0 || yy >= H {
			continue
		}
		row := frame[yy*W : (yy+1)*W]
		for k, vx := range px {
			xx := int(ix) + k - half
			if xx < 0 || xx >= W {
				continue
			}
			row[xx] += flux * vy * vx
		}
	}
}

// Random streams: every field draws from its own generator, derived from
// the seed, a stream kind and an index.
const (
	streamSpeckle = 1
	streamFrame   = 2
)

// splitmix64 scrambles x (Steele, Lea and Flood's SplitMix64 finaliser).
func splitmix64(x uint64) uint64 {
	x += 0x9e3779b97f4a7c15
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9
	x = (x ^ (x >> 27)) * 0x94d049bb133111eb
	return x ^ (x >> 31)
}

func newRand(seed uint64, kind, index uint64) *rand.Rand {
	return rand.New(rand.NewPCG(splitmix64(seed^splitmix64(kind)), splitmix64(index+kind<<56)))
}

// smoother turns white noise into a unit-variance Gaussian random field
// smoothed by a Gaussian kernel, stationary up to the edges: the noise is
// drawn on a grid padded by the kernel's half-width and the valid part kept.
type smoother struct {
	h, w, m int
	kernel  []float64 // 2m+1 taps, normalised so the smoothed field has unit variance
	white   []float64 // (h+2m) × (w+2m)
	rows    []float64 // (h+2m) × w: after the horizontal pass
	out     []float64 // h × w
}

func newSmoother(h, w int, sigma float64) *smoother {
	m := max(1, int(math.Ceil(4*sigma)))
	k := make([]float64, 2*m+1)
	sum2 := 0.0
	for i := range k {
		d := float64(i - m)
		k[i] = math.Exp(-d * d / (2 * sigma * sigma))
		sum2 += k[i] * k[i]
	}
	// The 2-d field Σ k_i k_j n has variance (Σ k²)²: scale each 1-d kernel by
	// 1/√(Σ k²).
	for i := range k {
		k[i] /= math.Sqrt(sum2)
	}
	return &smoother{h: h, w: w, m: m, kernel: k,
		white: make([]float64, (h+2*m)*(w+2*m)),
		rows:  make([]float64, (h+2*m)*w),
		out:   make([]float64, h*w)}
}

// field draws a new field; the slice is reused by the next call.
func (s *smoother) field(rng *rand.Rand) []float64 {
	pw := s.w + 2*s.m
	for i := range s.white {
		s.white[i] = rng.NormFloat64()
	}
	for y := 0; y < s.h+2*s.m; y++ {
		src := s.white[y*pw : (y+1)*pw]
		dst := s.rows[y*s.w : (y+1)*s.w]
		for x := range dst {
			acc := 0.0
			for i, k := range s.kernel {
				acc += k * src[x+i]
			}
			dst[x] = acc
		}
	}
	for y := 0; y < s.h; y++ {
		dst := s.out[y*s.w : (y+1)*s.w]
		for x := range dst {
			dst[x] = 0
		}
		for i, k := range s.kernel {
			src := s.rows[(y+i)*s.w : (y+i+1)*s.w]
			for x := range dst {
				dst[x] += k * src[x]
			}
		}
	}
	return s.out
}

// Background returns the dataset's expected background at every pixel (the
// temporal mean halo + speckle, without noise or companions) and the
// background's per-pixel temporal standard deviation, each (H, W) float64.
// Tests use them to check stationarity and PACO's statistics.
func (d *Dataset) Background() (mean, std *tensor.Tensor, err error) {
	if d == nil || d.Cube == nil {
		return nil, nil, errors.New("synth: empty dataset")
	}
	cfg := d.Config
	zero := Noise{Halo: cfg.Noise.Halo, Speckle: cfg.Noise.Speckle, Scale: cfg.Noise.Scale}
	c := cfg
	c.Noise, c.Companions, c.Frames, c.DType = &zero, nil, 2, tensor.F64
	b, err := Generate(c)
	if err != nil {
		return nil, nil, err
	}
	H, W := cfg.H, cfg.W
	mean = tensor.FromF64(append([]float64(nil), b.Cube.F64[:H*W]...), H, W)
	std = tensor.New(tensor.F64, H, W)
	scale := cfg.Noise.Scale // resolved: never 0
	for y := 0; y < H; y++ {
		for x := 0; x < W; x++ {
			r2 := float64((y-d.CY)*(y-d.CY) + (x-d.CX)*(x-d.CX))
			e := 1 / (1 + r2/(scale*scale))
			std.F64[y*W+x] = math.Hypot(cfg.Noise.Temporal*e, cfg.Noise.White)
		}
	}
	return mean, std, nil
}

// SurveyTarget is target k's (from 0) configuration in a synthetic survey
// (vkstat synth survey) made from base: seed base.Seed + k and one
// companion whose separation, angle and flux vary with k, deterministic,
// every one inside the frame with room for the patches.
func SurveyTarget(base Config, k int) Config {
	h, w, fwhm := base.H, base.W, base.FWHM
	maxSep := float64(min(h, w))/2 - 3*fwhm - 2
	minSep := min(3*fwhm+2, maxSep)
	span := maxSep - minSep
	sep := minSep + span*float64((k*7)%11)/10
	base.Companions = []Companion{{
		SepPx:    math.Round(sep*10) / 10,
		ThetaDeg: float64((k * 73) % 360),
		Flux:     float64(150 + 50*(k%5)),
	}}
	base.Seed += uint64(k)
	return base
}

// SurveyName is target k's (from 0) name in a survey of n targets: t01,
// t02, ... with as many digits as n has, at least two.
func SurveyName(k, n int) string {
	return fmt.Sprintf("t%0*d", max(len(fmt.Sprint(n)), 2), k+1)
}

// WriteSummary writes what vkstat synth paco prints of ds, written to
// dir: its files, the star and each companion where it lies on the sky.
func (ds *Dataset) WriteSummary(w io.Writer, dir string) {
	cfg := ds.Config
	fmt.Fprintf(w, "wrote %s: cube (%d, %d, %d) %s, %d angles %g..%g°, PSF %d×%d (FWHM %g px), truth.json\n",
		dir, cfg.Frames, cfg.H, cfg.W, cfg.DType, len(ds.Angles), ds.Angles[0], ds.Angles[len(ds.Angles)-1],
		cfg.StampSize, cfg.StampSize, cfg.FWHM)
	fmt.Fprintf(w, "star at (y, x) = (%d, %d)\n", ds.CY, ds.CX)
	for i, t := range ds.Truth {
		fmt.Fprintf(w, "companion %d: sep %g px, PA %g° east of north (θ %g° from +x), flux %g at sky (y, x) = (%.2f, %.2f)\n",
			i+1, t.SepPx, ThetaToPA(t.ThetaDeg), t.ThetaDeg, t.Flux, t.Y, t.X)
	}
}
