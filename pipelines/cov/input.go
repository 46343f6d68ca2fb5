package cov

import (
	"fmt"
	"github.com/vkstat/vkstat/engine"
	"math"

	"github.com/vkstat/vkstat/tensor"
)

// Input errors read after the input's name: "x has shape (4,); want ...".

// Sets checks x as Run's sample sets: (N, T, P), or one set (T, P), which
// it returns as (1, T, P) with single true (Result.Squeeze undoes it).
// Every set needs samples, variables, and more samples than ddof.
func Sets(x *tensor.Tensor, ddof int) (sets *tensor.Tensor, single bool, err error) {
	given := x.Shape
	switch len(x.Shape) {
	case 2:
		single = true
		x = &tensor.Tensor{Shape: []int{1, x.Shape[0], x.Shape[1]}, DType: x.DType, F32: x.F32, F64: x.F64, U16: x.U16}
	case 3:
	default:
		return nil, false, fmt.Errorf("shape %s; want sample sets (N, T, P) or one set (T, P)", tensor.ShapeString(x.Shape))
	}
	if x.Shape[1] < 1 || x.Shape[2] < 1 {
		return nil, false, fmt.Errorf("shape %s: no samples or no variables", tensor.ShapeString(given))
	}
	if x.Shape[1]-ddof < 1 {
		return nil, false, fmt.Errorf("%d sample(s) per set; ddof %d needs at least %d", x.Shape[1], ddof, ddof+1)
	}
	return x, single, nil
}

// CubePatches is the Gather (Options.Gather) over a cube of shape (T, H, W):
// the patches of radius r (PatchOffsets) at every location whose patch
// lies inside the frame. The cube needs more frames than ddof.
func CubePatches(shape []int, r, ddof int) (Gather, error) {
	var g Gather
	if len(shape) != 3 {
		return g, fmt.Errorf("shape %s; want a (T, H, W) cube", tensor.ShapeString(shape))
	}
	if shape[0]-ddof < 1 {
		return g, fmt.Errorf("%d frame(s); ddof %d needs at least %d", shape[0], ddof, ddof+1)
	}
	if err := CheckPatchRadius(r, shape[1], shape[2]); err != nil {
		return g, fmt.Errorf("%d×%d frames: %w", shape[1], shape[2], err)
	}
	g.Offsets = PatchOffsets(r)
	g.Locations = ValidLocations(shape[1], shape[2], g.Offsets)
	if len(g.Locations) == 0 {
		return g, fmt.Errorf("no location of its %d×%d frames that holds a patch of radius %d", shape[1], shape[2], r)
	}
	return g, nil
}

// CheckRadius refuses a patch radius below 0, as a *engine.FieldError.
func CheckRadius(r int) error {
	if r < 0 {
		return engine.Fieldf("radius", " must be 0 or more, got %d", r)
	}
	return nil
}

// CheckPatchRadius refuses a patch radius r (0 or more) whose patch, 2r+1
// pixels each way, does not fit an h×w frame: before anything is built
// from it, whatever its size (a radius of 5,000 listed some 78 million
// offsets first). PACO's patches are the same.
func CheckPatchRadius(r, h, w int) error {
	if err := CheckRadius(r); err != nil {
		return err
	}
	if most := (min(h, w) - 1) / 2; r > most {
		need := "2·radius+1"
		if r < 1<<30 {
			need = fmt.Sprintf("%d×%d", 2*r+1, 2*r+1)
		}
		return fmt.Errorf("patch radius %d needs at least %s pixels (the largest radius that fits is %d)", r, need, most)
	}
	return nil
}

// Squeeze gives the result of one set (Sets' single) that set's shapes:
// mean (P), covariance (P, P) and a scalar shrinkage.
func (r *Result) Squeeze() {
	p := r.Mean.Shape[1]
	r.Mean.Shape, r.Cov.Shape, r.Rho.Shape = []int{p}, []int{p, p}, []int{}
}

// Spread summarises a result of n sets of p variables: how many sets
// have a NaN mean, and the mean, least and largest of the finite
// shrinkage intensities (Rho; Finite 0 when none is).
type Spread struct {
	NaNSets                 int
	RhoMean, RhoMin, RhoMax float64
	Finite                  int
}

// Spread is r's Spread over its n sets of p variables.
func (r *Result) Spread(n, p int) Spread {
	mean, rho := r.Mean.Float64s(), r.Rho.Float64s()
	s := Spread{RhoMin: math.Inf(1), RhoMax: math.Inf(-1)}
	for k := 0; k < n; k++ {
		for _, v := range mean[k*p : (k+1)*p] {
			if math.IsNaN(v) {
				s.NaNSets++
				break
			}
		}
	}
	for _, v := range rho {
		if !math.IsNaN(v) {
			s.RhoMin, s.RhoMax, s.RhoMean, s.Finite = min(s.RhoMin, v), max(s.RhoMax, v), s.RhoMean+v, s.Finite+1
		}
	}
	if s.Finite > 0 {
		s.RhoMean /= float64(s.Finite)
	}
	return s
}

// Words is the line that tells what was estimated, for n sets of t
// samples of p variables under est: the sizes, ρ's range and how many
// sets had NaNs.
func (s Spread) Words(n, t, p int, est Estimator) string {
	line := fmt.Sprintf("cov: %d sample set(s) of %d samples × %d variables, estimator %s", n, t, p, est)
	if est != None && s.Finite > 0 {
		line += fmt.Sprintf(", ρ mean %.4g (min %.4g, max %.4g)", s.RhoMean, s.RhoMin, s.RhoMax)
	}
	return line + fmt.Sprintf("; %d set(s) with NaN", s.NaNSets)
}
