// Package paco implements PACO (Flasseur et al. 2018), exoplanet detection
// in angular differential imaging, as docs/paco.md ("The method") specifies: per
// location a Gaussian background model (mean, shrunk covariance) learnt from
// all frames, then for every sky pixel the likelihood-ratio SNR of a source
// following the field rotation. Fast PACO (Algorithm 2) precomputes
// u_k = C_k⁻¹h and α_k = hᵀu_k per location.
//
// Run is the whole analysis on arrays in memory, as `vkstat paco` does it:
// an ADI sequence (a cube (T, H, W) and T parallactic angles) and Options
// (the PSF stamp or a FWHM, patch radius, centre, threshold, Algorithm 3,
// contrast check, ...) in, a Result out (the SNR, flux and σ maps, the
// detections, the centre chosen, the contrast curve and its check, the
// Timing). A nil *engine.Device runs it on the CPU, a device opened with
// package engine on that device; the context's engine.Progress hears of
// the maps' stages. Its
// stages are exported too: EstimateCenter, RunMaps (the maps), Detect,
// UnbiasedFlux (Algorithm 3), ContrastCurve, Inject and Recover.
//
// Three implementations share the maps' Input → Maps API: the float64
// reference (the direct formulas), the CPU path and the Vulkan path, which
// both build each location's covariance from lagged products of the centred
// cube.
package paco

import (
	"context"
	"fmt"
	"math"

	"github.com/vkstat/vkstat/engine"
	"github.com/vkstat/vkstat/internal/linalg"
	"github.com/vkstat/vkstat/internal/par"
	"github.com/vkstat/vkstat/pipelines/cov"
	"github.com/vkstat/vkstat/tensor"
)

// Compat selects numerics.
type Compat int

const (
	// CompatNone computes PACO.md's formulas.
	CompatNone Compat = iota
	// CompatVIP reproduces VIP/PynPoint: S scaled by 1/(2T), their ρ
	// numerator, truncated positions.
	CompatVIP
)

// Placement is where the PSF model of frame l sits in its patch.
type Placement int

const (
	// PlacementNearest centres the PSF on k_l, the pixel the trajectory
	// position rounds to (PACO.md's Algorithm 2; VIP's
	// use_subpixel_psf_astrometry=False). The default.
	PlacementNearest Placement = iota
	// PlacementSubpixel places the PSF at the exact (unrounded) trajectory
	// position: the stamp interpolated by Keys cubic convolution (a = −½,
	// as Algorithm 3) at the offset (y_l − k_l,y, x_l − k_l,x), sampled on
	// the patch around k_l, so a_l = h_δᵀC⁻¹h_δ and b_l = h_δᵀC⁻¹(r_l − m).
	PlacementSubpixel
)

// String is the placement's name on the command line.
func (pl Placement) String() string {
	switch pl {
	case PlacementNearest:
		return "nearest"
	case PlacementSubpixel:
		return "subpixel"
	}
	return fmt.Sprintf("Placement(%d)", int(pl))
}

// ParsePlacement reads "nearest" or "subpixel".
func ParsePlacement(s string) (Placement, error) {
	switch s {
	case "nearest":
		return PlacementNearest, nil
	case "subpixel":
		return PlacementSubpixel, nil
	}
	return 0, fmt.Errorf("unknown PSF placement %q (want nearest or subpixel)", s)
}

// UnmarshalText is ParsePlacement, for engine.Param.SetText.
func (pl *Placement) UnmarshalText(b []byte) (err error) {
	*pl, err = ParsePlacement(string(b))
	return err
}

// Choices are the placements' names.
func (Placement) Choices() []string { return []string{"nearest", "subpixel"} }

// ADI is an angular differential imaging sequence: a cube (T, H, W) and
// its T parallactic angles in degrees.
type ADI struct {
	Cube   *tensor.Tensor
	Angles []float64
}

// Run is the whole PACO analysis of an ADI sequence, on dev, or on the CPU
// when dev is nil: the star centre, the maps (Algorithm 2), the
// detections, Algorithm 3 for each (Options.Unbiased), the contrast curve
// and its injection check (Options.ContrastCheck). Warnings (a NaN or
// constant cube, a field that does not rotate, a centre away from
// (H/2, W/2)) do not stop it. ctx's Progress (engine.WithProgress) hears
// of the maps' stages ("statistics", "detection map") and how far each
// is; it may be called from several goroutines at once.
func Run(ctx context.Context, dev *engine.Device, in ADI, opt Options) (*Result, error) {
	m := engine.Begin(dev)
	res, err := run(ctx, dev, in, opt)
	if err != nil {
		return nil, err
	}
	account(m, &res.Timing)
	return res, nil
}

// account ends the call begun at mark into t, one account of its wall:
// t's Wall and Counts become the call's, and its phases stay the steps
// that timed it (the engine's own, allocation, submits, waits, ..., happen
// within them and are left out).
func account(mark engine.Mark, t *engine.Timing) {
	var call engine.Timing
	mark.End(&call)
	t.Wall, t.Counts = call.Wall, call.Counts
}

// Input is one PACO run.
type Input struct {
	Cube   *tensor.Tensor // (T, H, W)
	Angles []float64      // parallactic angles θ_l in degrees, T of them
	PSF    *tensor.Tensor // odd square stamp centred on its middle pixel
	// PSFNorm is "sum" (default: unit total sum), "peak" or "none".
	PSFNorm string
	Radius  int // patch radius R in pixels, at least 1 (DefaultRadius)
	// Center is the star (y, x); nil means (H/2, W/2).
	Center *[2]int
	Compat Compat
	// Placement is where the PSF model sits in each frame's patch:
	// nearest pixel (the default) or the exact sub-pixel position.
	Placement Placement
	// test steers the Vulkan path in tests; nil is what runs otherwise.
	test *testOptions
}

// Stage is the time one stage of the maps took on the device (Maps'
// Stages: uploads, kernels, downloads), in engine.Timing's PhaseTime.
type Stage = engine.PhaseTime

// Maps are PACO's outputs, in the sky frame (θ = 0), shape (H, W).
type Maps struct {
	// Timing is the maps' uploads, kernels and downloads (their Stages,
	// folded) and in Phases their steps in wall-clock time, adding up to
	// the Wall: on the CPU path its stages; on a device the host's set-up
	// (tables, buffers, pipelines), the device's run (uploads, kernels and
	// downloads, waited on, which Stages splits) and the maps' readback;
	// from RunMaps, Prepare's steps before them, and the call's Wall and
	// Counts.
	Timing           engine.Timing
	H, W             int
	SNR, Flux, Sigma []float64
	InvalidPixels    int // map pixels that are NaN
	InvalidLocations int // locations whose patch is outside the image or whose covariance is not positive definite
	// Stages are the maps' stages: on the CPU path each step's wall
	// time (as Timing's Phases), on a device the upload, each kernel's
	// GPU time, the download and the device's wall time ("total
	// (device)").
	Stages            []Stage
	Device, Precision string
	// Passes is the number of passes over bands of location rows that the
	// device memory budget asked for (Vulkan; 1 when everything fit).
	Passes int
}

// Prepared is an analysis made ready for the maps, the one door to every
// stage (Prepare): the Input the maps run on (the cube in the maps' type,
// the angles, the PSF stamp, the patch radius, the centre, the numerics)
// and what every implementation derives from it, with what Run reports of
// the preparation (the centre's choice, the PSF's width, the cube's NaNs).
// Later stages (the maps, Algorithm 3, injection, the contrast curve's
// calibration and check) take it; a run on another cube of the same shape
// (fakes injected) takes withCube's copy.
type Prepared struct {
	Input
	T, H, W int
	CY, CX  int
	Offsets [][2]int  // mask (dy, dx), row-major
	Hvec    []float64 // PSF sampled at the offsets
	Cos     []float64 // cos θ_l
	Sin     []float64 // sin θ_l
	// With PlacementSubpixel the basis of the shifted PSF:
	// Basis[(j+2)·5 + (i+2)] is the normalised stamp sampled on the mask
	// moved by (j, i) pixels, j, i ∈ −2…2 (zero beyond the stamp), so the
	// stamp interpolated at offset δ is Σ K(j+δy)·K(i+δx)·Basis[j, i]
	// (BasisWeights), exactly.
	Basis [][]float64
	// Star is how the centre was chosen (Prepare; the zero value from an
	// Input alone); FWHM the PSF's in pixels and InnerWorkingAngle where
	// the contrast curve starts; NaNs the cube's NaN values.
	Star                    CenterInfo
	FWHM, InnerWorkingAngle float64
	NaNs                    int
	// Phases are Prepare's steps in wall-clock time ("scan cube", "star
	// centre", "prepare").
	Phases []engine.PhaseTime
	// convert is Options.Convert: the maps' type was asked for, which the
	// CPU path refuses unless it is float64.
	convert bool
	// head is the CPU path's first stages of the maps, run by Prepare
	// alongside the star centre's measurement (mapsHead); CPU takes it.
	head *mapsHead
}

// withCube is p on cube, of p's shape (the cube with fakes injected).
func (p *Prepared) withCube(cube *tensor.Tensor) *Prepared {
	q := *p
	q.Cube = cube
	return &q
}

// NBasis is the number of basis vectors of the sub-pixel PSF model: Keys'
// kernel reaches two pixels either way, so shifts of −2…2 per axis.
const NBasis = 25

// P is the number of pixels in a patch.
func (p *Prepared) P() int { return len(p.Offsets) }

// prepare checks in and derives the mask, h and the rotation table (the
// part of Prepare that needs only an Input). What it refuses is an
// *engine.FieldError naming the input or option at fault ("cube",
// "angles", "psf", "radius", "center", ...).
func prepare(in Input) (*Prepared, error) {
	bad := engine.Fieldf
	c := in.Cube
	if c == nil || len(c.Shape) != 3 {
		shape := "none"
		if c != nil {
			shape = tensor.ShapeString(c.Shape)
		}
		return nil, bad("cube", " must be 3-D (T, H, W); got shape %s", shape)
	}
	T, H, W := c.Shape[0], c.Shape[1], c.Shape[2]
	if T < 2 {
		return nil, bad("cube", " has %d frame(s); PACO needs at least 2", T)
	}
	if len(in.Angles) != T {
		return nil, bad("angles", ": %d angles for %d frames: there must be one parallactic angle per frame", len(in.Angles), T)
	}
	r := in.Radius
	if r < 1 {
		return nil, radiusError(r)
	}
	if 2*r+1 > H || 2*r+1 > W {
		return nil, bad("radius", " %d needs at least %d×%d pixels; the frames are %d×%d", r, 2*r+1, 2*r+1, H, W)
	}
	p := &Prepared{Input: in, T: T, H: H, W: W, CY: H / 2, CX: W / 2, Offsets: cov.PatchOffsets(r)}
	if in.Center != nil {
		p.CY, p.CX = in.Center[0], in.Center[1]
	}
	if p.CY < 0 || p.CX < 0 || p.CY >= H || p.CX >= W {
		return nil, bad("center", " (%d, %d) is outside the %d×%d frame", p.CY, p.CX, H, W)
	}
	var err error
	if p.Hvec, err = psfVector(in.PSF, in.PSFNorm, p.Offsets); err != nil {
		return nil, err
	}
	switch in.Placement {
	case PlacementNearest:
	case PlacementSubpixel:
		moved := make([][2]int, len(p.Offsets))
		for j := -2; j <= 2; j++ {
			for i := -2; i <= 2; i++ {
				for q, o := range p.Offsets {
					moved[q] = [2]int{o[0] + j, o[1] + i}
				}
				v, err := psfVector(in.PSF, in.PSFNorm, moved)
				if err != nil {
					return nil, err
				}
				p.Basis = append(p.Basis, v)
			}
		}
	default:
		return nil, bad("placement", ": unknown PSF placement %d", in.Placement)
	}
	for i, a := range in.Angles {
		if math.IsNaN(a) || math.IsInf(a, 0) {
			return nil, bad("angles", ": angle %d is %v", i, a)
		}
		rad := a * math.Pi / 180
		p.Cos = append(p.Cos, math.Cos(rad))
		p.Sin = append(p.Sin, math.Sin(rad))
	}
	return p, nil
}

func psfVector(psf *tensor.Tensor, norm string, offsets [][2]int) ([]float64, error) {
	if psf == nil {
		return nil, engine.Fieldf("psf", ": none given")
	}
	if len(psf.Shape) != 2 || psf.Shape[0] != psf.Shape[1] || psf.Shape[0]%2 == 0 {
		return nil, engine.Fieldf("psf", ": the stamp must be square with an odd size, centred on its middle pixel; got shape %s", tensor.ShapeString(psf.Shape))
	}
	n := psf.Shape[0]
	v := psf.Float64s()
	var sum, peak float64
	for _, x := range v {
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return nil, engine.Fieldf("psf", ": the stamp contains NaN or Inf")
		}
		sum += x
		peak = math.Max(peak, x)
	}
	scale := 1.0
	switch norm {
	case "", "sum":
		if sum <= 0 {
			return nil, engine.Fieldf("psf", ": the stamp sums to %g; it cannot be normalised to unit sum", sum)
		}
		scale = 1 / sum
	case "peak":
		if peak <= 0 {
			return nil, engine.Fieldf("psf", ": the stamp's peak is %g; it cannot be normalised to unit peak", peak)
		}
		scale = 1 / peak
	case "none":
	default:
		return nil, engine.Fieldf("psf_norm", ": unknown PSF normalisation %q (want sum, peak or none)", norm)
	}
	c := n / 2
	h := make([]float64, len(offsets))
	for i, o := range offsets {
		y, x := c+o[0], c+o[1]
		if y >= 0 && y < n && x >= 0 && x < n {
			h[i] = v[y*n+x] * scale
		}
	}
	return h, nil
}

// roundHalfAway rounds half away from zero (PACO.md), or truncates in the
// VIP compatibility mode.
func (p *Prepared) round(v float64) int {
	if p.Compat == CompatVIP {
		return int(v)
	}
	return int(math.Round(v))
}

// Position returns k_l, the integer pixel where sky pixel (y0, x0) lies in
// frame l. Every implementation uses this formula:
// y_l = c_y + dy·cos θ_l − dx·sin θ_l, x_l = c_x + dx·cos θ_l + dy·sin θ_l,
// which is PACO.md's r·sin(θ0 − θ_l), r·cos(θ0 − θ_l) expanded.
func (p *Prepared) Position(y0, x0, l int) (int, int) {
	yl, xl := p.exactPosition(y0, x0, l)
	return p.round(yl), p.round(xl)
}

// exactPosition is sky pixel (y0, x0)'s unrounded position in frame l
// (Position's formula).
func (p *Prepared) exactPosition(y0, x0, l int) (float64, float64) {
	dy, dx := float64(y0-p.CY), float64(x0-p.CX)
	yl := float64(p.CY) + (dy*p.Cos[l] - dx*p.Sin[l])
	xl := float64(p.CX) + (dx*p.Cos[l] + dy*p.Sin[l])
	return yl, xl
}

// SubpixelPosition is Position with the fractional offset of the exact
// position from k_l: δ = (y_l − k_l,y, x_l − k_l,x), in [−½, ½] when
// rounding, [0, 1) when truncating (CompatVIP) inside the frame.
func (p *Prepared) SubpixelPosition(y0, x0, l int) (ky, kx int, dy, dx float64) {
	yl, xl := p.exactPosition(y0, x0, l)
	ky, kx = p.round(yl), p.round(xl)
	return ky, kx, yl - float64(ky), xl - float64(kx)
}

// BasisWeights fills w with K(j + δ) for j = −2…2, Keys' cubic-convolution
// kernel (a = −½): the weights of the basis shifts along one axis for a PSF
// offset by δ (|δ| < 1). δ = 0 gives (0, 0, 1, 0, 0) exactly.
func BasisWeights(w *[5]float64, d float64) {
	for j := range w {
		w[j] = keys(float64(j-2) + d)
	}
}

// Trajectories fills dst (nt·H·W entries, frame-major) with k_l = y·W + x
// of every sky pixel in frames l0 … l0+nt−1, or −1 where the position
// falls outside the frame: the table the Vulkan kernels without float64
// read instead of rounding positions in float32.
func (p *Prepared) Trajectories(l0, nt int, dst []int32) {
	n := p.H * p.W
	par.Range(n, 4096, func(lo, hi int) {
		for l := 0; l < nt; l++ {
			row := dst[l*n : (l+1)*n]
			for q := lo; q < hi; q++ {
				y, x := p.Position(q/p.W, q%p.W, l0+l)
				k := int32(-1)
				if y >= 0 && y < p.H && x >= 0 && x < p.W {
					k = int32(y*p.W + x)
				}
				row[q] = k
			}
		}
	})
}

// Inside reports whether the patch around (y, x) lies inside the frame.
func (p *Prepared) Inside(y, x int) bool {
	r := p.Radius
	return y-r >= 0 && y+r < p.H && x-r >= 0 && x+r < p.W
}

// Shrink turns the sample covariance S (P×P, row-major, full) into the
// shrunk C in place and returns ρ (PACO.md; VIP's numerator with CompatVIP),
// with internal/linalg's weight and shrunk entries (the one Go
// implementation).
func Shrink(s []float64, P int, T int, compat Compat) float64 {
	var tr, fro, dsq float64
	for i := 0; i < P; i++ {
		d := s[i*P+i]
		tr += d
		dsq += d * d
		for j := 0; j < P; j++ {
			fro += s[i*P+j] * s[i*P+j]
		}
	}
	rho := linalg.RhoPACO(tr, fro, dsq, T, compat == CompatVIP)
	for i := 0; i < P; i++ {
		for j := 0; j < P; j++ {
			if i != j {
				s[i*P+j] = linalg.ShrunkOff(s[i*P+j], rho)
			} else {
				s[i*P+i] = linalg.ShrunkDiagPACO(s[i*P+i], rho)
			}
		}
	}
	return rho
}

// newMaps allocates NaN maps.
func newMaps(p *Prepared) *Maps {
	m := &Maps{H: p.H, W: p.W, SNR: make([]float64, p.H*p.W), Flux: make([]float64, p.H*p.W), Sigma: make([]float64, p.H*p.W)}
	return m
}

// foldStages folds the stages into the upload/kernel/download split that
// engine.Timing reports (and --time prints), in m.Timing, whose Wall is
// its phases' (the maps' steps, wall-clock).
func (m *Maps) foldStages() {
	t := &m.Timing
	t.Upload, t.Kernel, t.Download = 0, 0, 0
	for _, st := range m.Stages {
		switch st.Name {
		case "upload":
			t.Upload += st.Time
		case "download":
			t.Download += st.Time
		case "total (device)":
		default:
			t.Kernel += st.Time
		}
	}
	t.Wall = t.Named()
	t.GPUTimed = m.Device != "cpu" && m.Device != "reference"
}

// Tensors returns the maps as (H, W) float64 tensors.
func (m *Maps) Tensors() (snr, flux, sigma *tensor.Tensor) {
	return tensor.FromF64(m.SNR, m.H, m.W), tensor.FromF64(m.Flux, m.H, m.W), tensor.FromF64(m.Sigma, m.H, m.W)
}
