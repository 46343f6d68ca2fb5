// Package cov computes batched means and covariance matrices with shrinkage:
// for N sample sets of T samples of P variables, the mean (N, P), the
// covariance (N, P, P) and the shrinkage weight ρ (N), on a Vulkan device or
// on the CPU.
//
// The sample sets come either from an (N, T, P) array, or are gathered from
// a (T, H, W) cube at N locations with a fixed list of (dy, dx) offsets (the
// PACO patch, see PACO.md), so that patches are never materialised on the
// host, or lie anywhere in an array at explicit set bases, variable offsets
// and a sample stride (Strided: the transposed views of vkstat latent),
// read without a transposed copy.
//
// With centred samples x_t = r_t − m (t = 1..T), the sample covariance is
//
//	S = (1/T) Σ_t x_t x_tᵀ
//
// and the estimators are
//
//	None        C = S, ρ = 0
//	PACO        C = (1−ρ) S + ρ diag(S),
//	            ρ = [tr(S²) + tr(S)² − 2 Σ_i S_ii²] / [(T+1)(tr(S²) − Σ_i S_ii²)]
//	LedoitWolf  C = (1−ρ) S + ρ μ I, μ = tr(S)/P, ρ as scikit-learn's ledoit_wolf
//	OAS         C = (1−ρ) S + ρ μ I, ρ as scikit-learn's oas
//
// ρ is clipped to [0, 1]. The degenerate cases follow scikit-learn: ρ = 0
// when P = 1 (the target equals S); for PACO and OAS ρ = 1 when the
// denominator is zero (S already equals its target up to scale, e.g. a
// diagonal or zero S); for Ledoit-Wolf ρ = 0 when its β is zero. NaN samples
// give NaN outputs for their sample set (ρ included).
//
// Options.DDof = 1 rescales the output covariance by T/(T−1) (the unbiased
// sample covariance when the estimator is None); ρ is always computed from
// the 1/T statistics, as the formulas above define it.
package cov

import (
	"context"
	"fmt"
	"strings"

	"github.com/vkstat/vkstat/engine"
	"github.com/vkstat/vkstat/tensor"
)

// Estimator selects the covariance estimate.
type Estimator int

// The estimators.
const (
	// None is the sample covariance S.
	None Estimator = iota
	// PACO shrinks S towards diag(S) (Flasseur et al. 2018; PACO.md).
	PACO
	// LedoitWolf shrinks S towards μI with scikit-learn's ledoit_wolf weight.
	LedoitWolf
	// OAS shrinks S towards μI with scikit-learn's oas weight.
	OAS
	// Shrunk shrinks S towards μI with a weight the caller gives
	// (Options.Shrinkage; 0.1 by default), scikit-learn's
	// shrunk_covariance and ShrunkCovariance.
	Shrunk
)

var estimatorNames = [...]string{"none", "paco", "ledoit-wolf", "oas", "shrunk"}

// String returns the estimator's name as ParseEstimator accepts it.
func (e Estimator) String() string {
	if e < 0 || int(e) >= len(estimatorNames) {
		return fmt.Sprintf("Estimator(%d)", int(e))
	}
	return estimatorNames[e]
}

// UnmarshalText is ParseEstimator, for engine.Param.SetText.
func (e *Estimator) UnmarshalText(b []byte) (err error) {
	*e, err = ParseEstimator(string(b))
	return err
}

// Choices are the estimators' names.
func (Estimator) Choices() []string { return estimatorNames[:] }

// ParseEstimator accepts none (or sample), paco, ledoit-wolf (or lw,
// ledoitwolf), oas and shrunk.
func ParseEstimator(s string) (Estimator, error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "none", "sample", "":
		return None, nil
	case "paco":
		return PACO, nil
	case "ledoit-wolf", "ledoitwolf", "ledoit_wolf", "lw":
		return LedoitWolf, nil
	case "oas":
		return OAS, nil
	case "shrunk":
		return Shrunk, nil
	}
	return 0, fmt.Errorf("unknown estimator %q (want one of %s)", s, strings.Join(estimatorNames[:], ", "))
}

// Options describe a covariance estimate. The zero value is the default
// (Defaults): the sample covariance with 1/T, no shrinkage. Check refuses
// what no estimate can use, as an *engine.FieldError naming the parameter
// (the `param` tags).
type Options struct {
	Estimator Estimator `param:"estimator" help:"none, paco, ledoit-wolf, oas or shrunk"`
	// DDof is 0 (S with 1/T, the default) or 1 (the output covariance is
	// rescaled by T/(T−1)).
	DDof int `param:"ddof" help:"0: S with 1/T; 1: the covariance rescaled by T/(T−1)"`
	// Shrinkage is Shrunk's weight ρ, in [0, 1] (nil: scikit-learn's 0.1);
	// the other estimators estimate theirs.
	Shrinkage *float64
	// Centered takes the samples as centred already (scikit-learn's
	// assume_centered): S = (1/T) Σ_t r_t r_tᵀ, the means 0, and ρ from
	// that S (Ledoit-Wolf's from the uncentred samples' ‖r_t‖⁴ too, which
	// needs an (N, T, P) array: not Gather or Strided).
	Centered bool `param:"assume_centered" help:"take the samples as centred: S = (1/T) Σ r rᵀ, means 0 (scikit-learn's assume_centered)"`
	// Out gives the results their memory (nil: Go memory), named mean,
	// cov and rho.
	Out *tensor.Outputs
	// Gather, when set, has Run take the sample sets from x, a (T, H, W)
	// cube, at the patches it lists (CubePatches), rather than from an
	// (N, T, P) x.
	Gather *Gather
	// Strided, when set, has Run take the sample sets where it places them
	// in x's data (the sets of a transposed view, without the copy): the
	// same outputs as on the (N, T, P) copy of those sets.
	Strided *Strided

	// test steers the Vulkan path in tests; nil is what runs otherwise.
	// (A pointer, so that Options stay comparable.)
	test *testOptions
	// ctx is Run's, for the CPU path to stop at (nil: never).
	ctx context.Context
}

// context is o's context for the CPU path: Run's, else Background.
func (o Options) context() context.Context {
	if o.ctx == nil {
		return context.Background()
	}
	return o.ctx
}

// Defaults are the zero Options by parameter name (engine.Defaults).
func Defaults() map[string]any { return engine.Defaults(Options{}) }

// Params describe the options every front end takes (engine.Describe),
// with the zero Options' defaults.
func Params() []engine.Param { return engine.Describe(Options{}) }

// Check refuses an estimator or ddof no estimate can use.
func (o Options) Check() error {
	if o.Estimator < None || o.Estimator > Shrunk {
		return engine.Fieldf("estimator", ": unknown estimator %d", int(o.Estimator))
	}
	if r := o.Shrinkage; r != nil && o.Estimator != Shrunk {
		return engine.Fieldf("shrinkage", " %g is given, but estimator %s estimates its own: give estimator shrunk (scikit-learn's ShrunkCovariance)", *r, o.Estimator)
	}
	if r := o.Shrinkage; r != nil && !(*r >= 0 && *r <= 1) {
		return engine.Fieldf("shrinkage", " must be in [0, 1], got %g", *r)
	}
	if o.DDof != 0 && o.DDof != 1 {
		return engine.Fieldf("ddof", " must be 0 or 1, got %d", o.DDof)
	}
	return nil
}

// check is Check for t samples per set, by an implementation (CPU,
// Vulkan, ...): Shrunk and Centered are Run's (runOnHost), on their S.
func (o Options) check(t int) error {
	if err := o.Check(); err != nil {
		return err
	}
	if o.Estimator == Shrunk || o.Centered {
		return fmt.Errorf("cov: estimator shrunk and centred samples are served by Run, not by an implementation")
	}
	if t-o.DDof < 1 {
		return fmt.Errorf("cov: %d sample(s) with ddof %d: need at least %d", t, o.DDof, o.DDof+1)
	}
	return nil
}

// scale is the factor applied to the output covariance.
func (o Options) scale(t int) float64 {
	return float64(t) / float64(t-o.DDof)
}

// Result holds the outputs of a covariance estimate, in the input's dtype
// (float32 for float16 and bfloat16 inputs; float64 for Reference).
type Result struct {
	Mean *tensor.Tensor // (N, P)
	Cov  *tensor.Tensor // (N, P, P), symmetric
	Rho  *tensor.Tensor // (N,), 0 for the estimator None
	// Timing is what the call cost.
	Timing engine.Timing
}

// Run estimates the covariance of each sample set of x, an (N, T, P)
// array (or the sets that opt.Gather or opt.Strided takes from x), on dev,
// or on the CPU when dev is nil.
func Run(ctx context.Context, dev *engine.Device, x *tensor.Tensor, opt Options) (*Result, error) {
	if opt.Centered || opt.Estimator == Shrunk {
		return runOnHost(ctx, dev, x, opt)
	}
	opt.ctx = ctx
	switch g, s := opt.Gather, opt.Strided; {
	case g != nil && s != nil:
		return nil, fmt.Errorf("cov: sample sets both gathered and strided: set one of Options.Gather and Options.Strided")
	case g != nil && dev == nil:
		return timed(engine.TimeCPU(func() (*Result, error) { return CPUGather(x, *g, opt) }))
	case g != nil:
		return timed(VulkanGather(ctx, dev, x, *g, opt))
	case s != nil && dev == nil:
		return timed(engine.TimeCPU(func() (*Result, error) { return CPUStrided(x, *s, opt) }))
	case s != nil:
		return timed(VulkanStrided(ctx, dev, x, *s, opt))
	case dev == nil:
		return timed(engine.TimeCPU(func() (*Result, error) { return CPU(x, opt) }))
	}
	return timed(Vulkan(ctx, dev, x, opt))
}

// timed puts tm on r.
func timed(r *Result, tm engine.Timing, err error) (*Result, error) {
	if err != nil {
		return nil, err
	}
	r.Timing = tm
	return r, nil
}

// outType is the dtype of the outputs for an input of type dt: float32 for
// the 16-bit storage types.
func outType(dt tensor.DType) tensor.DType {
	if dt.Is16() {
		return tensor.F32
	}
	return dt
}

// newResult allocates the outputs of n sets of p variables through out.
func newResult(out *tensor.Outputs, dt tensor.DType, n, p int) *Result {
	return &Result{Mean: out.New("mean", dt, n, p), Cov: out.New("cov", dt, n, p, p), Rho: out.New("rho", dt, n)}
}

// Gather places N sample sets in a (T, H, W) cube: sample t of variable i of
// set n is cube[t, y_n+dy_i, x_n+dx_i], with (y_n, x_n) = Locations[n] and
// (dy_i, dx_i) = Offsets[i]. Every patch must lie inside the frame.
type Gather struct {
	Locations [][2]int
	Offsets   [][2]int
}

// LocationArray is the (N, 2) float64 array of g's (y, x) locations.
func (g Gather) LocationArray() *tensor.Tensor {
	t := tensor.New(tensor.F64, len(g.Locations), 2)
	for i, l := range g.Locations {
		t.F64[2*i], t.F64[2*i+1] = float64(l[0]), float64(l[1])
	}
	return t
}

// Check validates g against a cube shape.
func (g Gather) Check(shape []int) error {
	if len(shape) != 3 {
		return fmt.Errorf("cov: the cube must be 3-d (T, H, W), got shape %s", tensor.ShapeString(shape))
	}
	t, h, w := shape[0], shape[1], shape[2]
	if t < 1 || h < 1 || w < 1 {
		return fmt.Errorf("cov: empty cube of shape %s", tensor.ShapeString(shape))
	}
	if len(g.Offsets) == 0 {
		return fmt.Errorf("cov: no patch offsets given")
	}
	dy0, dy1, dx0, dx1 := g.bounds()
	for n, l := range g.Locations {
		if l[0]+dy0 < 0 || l[0]+dy1 >= h || l[1]+dx0 < 0 || l[1]+dx1 >= w {
			return fmt.Errorf("cov: location %d (y=%d, x=%d): the patch (dy %d..%d, dx %d..%d) leaves the %d×%d frame",
				n, l[0], l[1], dy0, dy1, dx0, dx1, h, w)
		}
	}
	return nil
}

func (g Gather) bounds() (dy0, dy1, dx0, dx1 int) {
	dy0, dy1, dx0, dx1 = g.Offsets[0][0], g.Offsets[0][0], g.Offsets[0][1], g.Offsets[0][1]
	for _, o := range g.Offsets[1:] {
		dy0, dy1 = min(dy0, o[0]), max(dy1, o[0])
		dx0, dx1 = min(dx0, o[1]), max(dx1, o[1])
	}
	return
}

// PatchOffsets returns the PACO patch mask of radius r: the offsets (dy, dx)
// with dy² + dx² ≤ r², row-major (dy, then dx). r = 1, 2, 3, 4, 5, 6 give
// P = 5, 13, 29, 49, 81, 113.
func PatchOffsets(r int) [][2]int {
	var out [][2]int
	for dy := -r; dy <= r; dy++ {
		for dx := -r; dx <= r; dx++ {
			if dy*dy+dx*dx <= r*r {
				out = append(out, [2]int{dy, dx})
			}
		}
	}
	return out
}

// ValidLocations lists, row-major, every location of an h×w frame whose
// patch lies inside the frame.
func ValidLocations(h, w int, offsets [][2]int) [][2]int {
	if len(offsets) == 0 {
		return nil
	}
	g := Gather{Offsets: offsets}
	dy0, dy1, dx0, dx1 := g.bounds()
	var out [][2]int
	for y := -dy0; y+dy1 < h; y++ {
		for x := -dx0; x+dx1 < w; x++ {
			out = append(out, [2]int{y, x})
		}
	}
	return out
}

// source describes where sample t of variable i of set s lies in a flat
// array: base(s) + t*tstride + off[i].
type source struct {
	n, t, p int
	tstride int
	off     []int
	bases   []int // gather: one per set; nil: s*nstride
	nstride int
	in      *tensor.Tensor
	runs    bool // strided (Strided): the CPU packs each set variable by variable
}

func (s *source) base(k int) int {
	if s.bases != nil {
		return s.bases[k]
	}
	return k * s.nstride
}

func checkData(t *tensor.Tensor, what string) error {
	if t == nil {
		return fmt.Errorf("cov: nil %s", what)
	}
	n := t.Len()
	if !t.HasData() {
		return fmt.Errorf("cov: %s of shape %s needs %d values", what, tensor.ShapeString(t.Shape), n)
	}
	return nil
}

// arraySource checks an (N, T, P) array.
func arraySource(x *tensor.Tensor, opt Options) (*source, error) {
	if err := checkData(x, "input"); err != nil {
		return nil, err
	}
	if len(x.Shape) != 3 {
		return nil, fmt.Errorf("cov: the samples must be a 3-d array (N, T, P), got shape %s", tensor.ShapeString(x.Shape))
	}
	n, t, p := x.Shape[0], x.Shape[1], x.Shape[2]
	if t < 1 || p < 1 {
		return nil, fmt.Errorf("cov: samples of shape %s: need T >= 1 and P >= 1", tensor.ShapeString(x.Shape))
	}
	if err := opt.check(t); err != nil {
		return nil, err
	}
	off := make([]int, p)
	for i := range off {
		off[i] = i
	}
	return &source{n: n, t: t, p: p, tstride: p, off: off, nstride: t * p, in: x}, nil
}

// gatherSource checks a cube and its gather.
func gatherSource(cube *tensor.Tensor, g Gather, opt Options) (*source, error) {
	if err := checkData(cube, "cube"); err != nil {
		return nil, err
	}
	if err := g.Check(cube.Shape); err != nil {
		return nil, err
	}
	t, w := cube.Shape[0], cube.Shape[2]
	if err := opt.check(t); err != nil {
		return nil, err
	}
	off := make([]int, len(g.Offsets))
	for i, o := range g.Offsets {
		off[i] = o[0]*w + o[1]
	}
	bases := make([]int, len(g.Locations))
	for k, l := range g.Locations {
		bases[k] = l[0]*w + l[1]
	}
	return &source{n: len(g.Locations), t: t, p: len(off), tstride: cube.Shape[1] * w, off: off, bases: bases, in: cube}, nil
}
