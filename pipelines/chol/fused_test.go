package chol

import (
	"fmt"
	"github.com/vkstat/vkstat/internal/testdev"
	"math"
	"math/rand/v2"
	"sync"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/vkstat/vkstat/pipelines/cov"
	"github.com/vkstat/vkstat/tensor"
)

// fusedImpl is the API of Fused's implementations.
type fusedImpl func(cube *tensor.Tensor, g cov.Gather, h []float64, opt cov.Options) (*FusedResult, error)

// fusedCube returns a (t, h, w) cube of float32-representable values:
// a static pattern plus noise correlated between neighbours, a dead
// (constant) 3×3 region at (dead, dead) and a NaN pixel at (nan, nan) in
// frame t/2.
func fusedCube(t, h, w, dead, nan int, seed uint64) *tensor.Tensor {
	rng := rand.New(rand.NewPCG(seed, 0x66757365))
	c := tensor.New(tensor.F64, t, h, w)
	base := make([]float64, h*w)
	for i := range base {
		base[i] = 100 + 30*rng.Float64()
	}
	for k := 0; k < t; k++ {
		f := c.F64[k*h*w : (k+1)*h*w]
		for i := range f {
			f[i] = rng.NormFloat64()
		}
		for y := 0; y < h; y++ {
			for x := w - 1; x > 0; x-- {
				f[y*w+x] += 0.6 * f[y*w+x-1]
			}
		}
		for y := h - 1; y > 0; y-- {
			for x := 0; x < w; x++ {
				f[y*w+x] += 0.4 * f[(y-1)*w+x]
			}
		}
		for i := range f {
			f[i] = float64(float32(base[i] + f[i]))
		}
		for y := dead - 1; y <= dead+1; y++ {
			for x := dead - 1; x <= dead+1; x++ {
				f[y*w+x] = 7
			}
		}
	}
	c.F64[((t/2)*h+nan)*w+nan] = math.NaN()
	return c
}

// psf is a Gaussian sampled at the offsets, normalised to unit sum.
func psf(offs [][2]int) []float64 {
	h := make([]float64, len(offs))
	var s float64
	for i, o := range offs {
		h[i] = math.Exp(-float64(o[0]*o[0]+o[1]*o[1]) / 4)
		s += h[i]
	}
	for i := range h {
		h[i] /= s
	}
	return h
}

// runFusedSuite holds impl against FusedReference on PACO patches of
// radius 0 to 6 and 8×8 and 8×16 blocks (P = 1 ... 128), T = max(2, P/2)
// and 252, PACO in both dtypes and the other estimators in turn, with dead
// and NaN pixels among the locations. float32 results
// are compared where C's condition number is at most 10⁴.
func runFusedSuite(t *testing.T, impl fusedImpl) {
	t.Helper()
	type patch struct {
		name string
		offs [][2]int
	}
	var patches []patch
	for r := 0; r <= 6; r++ {
		patches = append(patches, patch{fmt.Sprintf("R%d", r), paco(r)})
	}
	patches = append(patches, patch{"block8x8", block(8, 8)}, patch{"block8x16", block(8, 16)})
	for pi, pt := range patches {
		p := len(pt.offs)
		for _, T := range []int{max(2, p/2), 252} {
			cube := fusedCube(T, 28, 34, 9, 20, uint64(p*1000+T))
			locs := cov.ValidLocations(28, 34, pt.offs)
			rng := rand.New(rand.NewPCG(uint64(p), uint64(T)))
			rng.Shuffle(len(locs), func(i, j int) { locs[i], locs[j] = locs[j], locs[i] })
			locs = locs[:min(len(locs), 65)]
			locs = append(locs, [2]int{9, 9}, [2]int{20, 20}) // on the dead region, on the NaN
			g := cov.Gather{Locations: filterValid(locs, pt.offs), Offsets: pt.offs}
			h := psf(pt.offs)
			// PACO in both dtypes; one other estimator in one dtype,
			// rotating (None only where S is not singular: otherwise
			// whether its factorisation fails is a matter of rounding).
			others := []cov.Estimator{cov.LedoitWolf, cov.OAS}
			if T >= 2*p {
				others = append(others, cov.None)
			}
			other := others[(pi+T)%len(others)]
			for _, est := range []cov.Estimator{cov.PACO, other} {
				dts := []tensor.DType{tensor.F64, tensor.F32}
				if est != cov.PACO {
					dts = dts[(pi+T/2)%2 : (pi+T/2)%2+1]
				}
				opt := cov.Options{Estimator: est}
				key := fmt.Sprintf("%s/T%d/%s", pt.name, T, est)
				want, conds := fusedReference(t, key, cube, g, h, opt)
				for _, dt := range dts {
					t.Run(fmt.Sprintf("%s/T%d/%s/%s", pt.name, T, est, dt), func(t *testing.T) {
						got, err := impl(cube.As(dt), g, h, opt)
						testdev.SkipNoFloat64(t, err)
						if err != nil {
							t.Fatal(err)
						}
						checkFusedResult(t, got, want, conds, dt)
					})
				}
			}
		}
	}
	t.Run("refusals", func(t *testing.T) {
		cube := tensor.New(tensor.F64, 5, 10, 10)
		offs := paco(1)
		for _, c := range []struct {
			name string
			g    cov.Gather
			h    []float64
		}{
			{"h-length", cov.Gather{Locations: [][2]int{{5, 5}}, Offsets: offs}, []float64{1, 2}},
			{"outside", cov.Gather{Locations: [][2]int{{0, 5}}, Offsets: offs}, psf(offs)},
		} {
			if _, err := impl(cube, c.g, c.h, cov.Options{Estimator: cov.PACO}); err == nil {
				t.Errorf("%s: no error", c.name)
			}
		}
	})
}

func paco(r int) [][2]int { return cov.PatchOffsets(r) }

func block(hy, wx int) [][2]int {
	var o [][2]int
	for dy := 0; dy < hy; dy++ {
		for dx := 0; dx < wx; dx++ {
			o = append(o, [2]int{dy - hy/2, dx - wx/2})
		}
	}
	return o
}

func filterValid(locs [][2]int, offs [][2]int) [][2]int {
	var out [][2]int
	for _, l := range locs {
		if (cov.Gather{Locations: [][2]int{l}, Offsets: offs}).Check([]int{1, 28, 34}) == nil {
			out = append(out, l)
		}
	}
	return out
}

var fusedCache sync.Map

type fusedRef struct {
	want  *FusedResult
	conds []float64
}

// fusedReference returns FusedReference and the locations' condition
// numbers, once per test binary for a given key. Locations whose patch
// holds the NaN pixel (20, 20), or the dead region around (9, 9) where the
// factorisation fails, get condition −1: their outcome is exact.
func fusedReference(t *testing.T, key string, cube *tensor.Tensor, g cov.Gather, h []float64, opt cov.Options) (*FusedResult, []float64) {
	if r, ok := fusedCache.Load(key); ok {
		return r.(fusedRef).want, r.(fusedRef).conds
	}
	want, err := FusedReference(cube, g, h, opt)
	if err != nil {
		t.Fatal(err)
	}
	conds := fusedConds(t, cube, g, opt)
	for k, l := range g.Locations {
		for _, o := range g.Offsets {
			y, x := l[0]+o[0], l[1]+o[1]
			if (y == 20 && x == 20) || (y >= 8 && y <= 10 && x >= 8 && x <= 10 && want.Info[k] != 0) {
				conds[k] = -1
			}
		}
	}
	fusedCache.Store(key, fusedRef{want, conds})
	return want, conds
}

// fusedConds is the condition number (gonum's estimate) of each location's
// reference C; +Inf where it is not positive definite.
func fusedConds(t *testing.T, cube *tensor.Tensor, g cov.Gather, opt cov.Options) []float64 {
	c, err := cov.ReferenceGather(cube, g, opt)
	if err != nil {
		t.Fatal(err)
	}
	p := len(g.Offsets)
	out := make([]float64, len(g.Locations))
	for k := range out {
		a := mat.NewSymDense(p, append([]float64(nil), c.Cov.F64[k*p*p:(k+1)*p*p]...))
		var ch mat.Cholesky
		if ch.Factorize(a) {
			out[k] = ch.Cond()
		} else {
			out[k] = math.Inf(1)
		}
	}
	return out
}

func checkFusedResult(t *testing.T, got, want *FusedResult, conds []float64, dt tensor.DType) {
	t.Helper()
	n := len(want.Info)
	if len(got.Info) != n {
		t.Fatalf("%d info codes, want %d", len(got.Info), n)
	}
	tol := tolFor(dt)
	// Compared locations: those whose C is well enough conditioned for the
	// dtype (a numerically singular C fails or not by rounding), and those
	// marked with a negative condition, whose outcome is exact.
	keep := make([]bool, n)
	for k := range keep {
		keep[k] = (dt == tensor.F64 && conds[k] <= 1e12) || conds[k] <= 1e4
		if keep[k] && got.Info[k] != want.Info[k] {
			t.Errorf("location %d: info %d, want %d (cond %.3g)", k, got.Info[k], want.Info[k], conds[k])
		}
	}
	kept := 0
	for _, k := range keep {
		if k {
			kept++
		}
	}
	t.Logf("%d of %d locations compared", kept, n)
	sel := func(x *tensor.Tensor, w []float64) ([]float64, []float64, int) {
		bs := len(w) / n
		gx := x.Float64s()
		var a, b []float64
		m := 0
		for k := 0; k < n; k++ {
			if keep[k] {
				a = append(a, gx[k*bs:(k+1)*bs]...)
				b = append(b, w[k*bs:(k+1)*bs]...)
				m++
			}
		}
		return a, b, m
	}
	for _, o := range []struct {
		what      string
		got, want *tensor.Tensor
		floor     bool
		covTol    bool
	}{{"mean", got.Mean, want.Mean, false, true}, {"rho", got.Rho, want.Rho, true, true}, {"u", got.U, want.U, false, false}, {"alpha", got.Alpha, want.Alpha, false, false}} {
		if o.got.DType != dt {
			t.Errorf("%s is %s, want %s", o.what, o.got.DType, dt)
		}
		a, b, m := sel(o.got, o.want.F64)
		tl := tol
		if o.covTol && dt == tensor.F32 {
			tl = 1e-4
		}
		checkBlocks(t, o.what, a, b, m, tl, o.floor)
	}
}

func TestFusedCPU(t *testing.T) {
	runFusedSuite(t, FusedCPU)
}
