package cov

import (
	"fmt"
	"math"
	"math/rand/v2"
	"sync"
	"testing"

	"github.com/vkstat/vkstat/device/testdev"
	"github.com/vkstat/vkstat/internal/checks"
	"github.com/vkstat/vkstat/internal/inputs"

	"github.com/vkstat/vkstat/tensor"
)

// covImpl is the API every implementation of the estimate (CPU, Vulkan)
// offers: from an (N, T, P) array, and gathered from a (T, H, W) cube.
type covImpl struct {
	array  func(x *tensor.Tensor, opt Options) (*Result, error)
	gather func(cube *tensor.Tensor, g Gather, opt Options) (*Result, error)
}

// Tolerances, relative in the Frobenius norm per sample set (mean, cov) and
// absolute for ρ ∈ [0, 1]. float32 data are exactly representable in both
// runs, so the float32 paths only add their own roundings.
var tolFor = map[tensor.DType]float64{tensor.F64: 1e-10, tensor.F32: 1e-4}

// suiteSizes are the sizes: P of the PACO patches (1..6) and
// around, straddling workgroup edges.
var suiteP = []int{1, 5, 13, 29, 49, 64, 81, 113, 128}

func suiteT(p int) []int { return []int{max(2, p/2), 252} }

var allEstimators = []Estimator{None, PACO, LedoitWolf, OAS}

// runCovSuite holds impl against Reference: every P of suiteP, both T, N of
// 1, 63, 64 and 65 (every estimator in both dtypes over the two T), N = 10⁴ for P = 49, data with a large mean
// (centring matters), a constant set and a set with a NaN planted. Then the
// gather path on PACO patches and on block patches, and the refusals.
func runCovSuite(t *testing.T, impl covImpl) {
	t.Helper()
	for _, p := range suiteP {
		for _, tt := range suiteT(p) {
			for ni, n := range []int{64, 1, 63, 65} {
				x := sampleSets(n, tt, p, uint64(1000*p+10*tt+n), n >= 63)
				// Every estimator in both dtypes for each P, over the
				// two T: at N = 64 each estimator in one dtype, the
				// dtypes swapped between the two T; one each at the
				// other N.
				type run struct {
					est Estimator
					dt  tensor.DType
				}
				var runs []run
				flip := 0
				if tt == 252 {
					flip = 1
				}
				if n == 64 {
					for ei, est := range allEstimators {
						runs = append(runs, run{est, tensor.DType((ei + flip) % 2)})
					}
				} else {
					runs = []run{{allEstimators[ni], tensor.DType((ni + flip) % 2)}}
				}
				var ests []Estimator
				for _, r := range runs {
					ests = append(ests, r.est)
				}
				refs := referenceAll(fmt.Sprintf("P%d/T%d/N%d", p, tt, n), x, ests)
				for _, r := range runs {
					est, want := r.est, refs[r.est]
					for _, dt := range []tensor.DType{r.dt} {
						name := fmt.Sprintf("P%d/T%d/N%d/%s/%s", p, tt, n, est, dt)
						t.Run(name, func(t *testing.T) {
							got, err := impl.array(x.As(dt), Options{Estimator: est})
							testdev.SkipNoFloat64(t, err)
							if err != nil {
								t.Fatal(err)
							}
							checkResult(t, got, want, dt)
						})
					}
				}
			}
		}
	}
	t.Run("ddof1", func(t *testing.T) {
		x := sampleSets(9, 20, 7, 5, true)
		for _, est := range allEstimators {
			opt := Options{Estimator: est, DDof: 1}
			want, err := Reference(x, opt)
			if err != nil {
				t.Fatal(err)
			}
			for _, dt := range []tensor.DType{tensor.F64, tensor.F32} {
				got, err := impl.array(x.As(dt), opt)
				testdev.SkipNoFloat64(t, err)
				if err != nil {
					t.Fatal(err)
				}
				checkResult(t, got, want, dt)
			}
		}
	})
	t.Run("N10000/P49", func(t *testing.T) {
		x := sampleSets(10000, 24, 49, 77, true)
		refs := referenceAll("N10000/P49", x, []Estimator{PACO, LedoitWolf})
		for _, c := range []struct {
			est Estimator
			dt  tensor.DType
		}{{PACO, tensor.F32}, {LedoitWolf, tensor.F64}} {
			want := refs[c.est]
			got, err := impl.array(x.As(c.dt), Options{Estimator: c.est})
			testdev.SkipNoFloat64(t, err)
			if err != nil {
				t.Fatal(err)
			}
			checkResult(t, got, want, c.dt)
		}
	})
	t.Run("gather", func(t *testing.T) {
		cube := testCube(40, 23, 26, 9)
		patches := map[string][][2]int{}
		for r := 0; r <= 6; r++ {
			patches[fmt.Sprintf("R%d", r)] = PatchOffsets(r)
		}
		patches["block8x8"] = blockOffsets(8, 8)
		patches["block8x16"] = blockOffsets(8, 16)
		for name, offs := range patches {
			locs := ValidLocations(23, 26, offs)
			if len(locs) > 70 { // a sample keeps the test short; include both ends
				rng := rand.New(rand.NewPCG(uint64(len(offs)), 3))
				sub := [][2]int{locs[0], locs[len(locs)-1]}
				for len(sub) < 70 {
					sub = append(sub, locs[rng.IntN(len(locs))])
				}
				locs = sub
			}
			g := Gather{Locations: locs, Offsets: offs}
			for _, est := range allEstimators {
				want, err := ReferenceGather(cube, g, Options{Estimator: est})
				if err != nil {
					t.Fatal(err)
				}
				for _, dt := range []tensor.DType{tensor.F64, tensor.F32} {
					t.Run(fmt.Sprintf("%s/%s/%s", name, est, dt), func(t *testing.T) {
						got, err := impl.gather(cube.As(dt), g, Options{Estimator: est})
						testdev.SkipNoFloat64(t, err)
						if err != nil {
							t.Fatal(err)
						}
						checkResult(t, got, want, dt)
					})
				}
			}
		}
	})
	t.Run("gather-equals-array", func(t *testing.T) {
		// The same sets, gathered and materialised, give the same results.
		cube := testCube(30, 12, 14, 4)
		offs := PatchOffsets(2)
		g := Gather{Locations: ValidLocations(12, 14, offs), Offsets: offs}
		arr := materialise(cube, g)
		for _, dt := range []tensor.DType{tensor.F64, tensor.F32} {
			a, err := impl.array(arr.As(dt), Options{Estimator: PACO})
			testdev.SkipNoFloat64(t, err)
			if err != nil {
				t.Fatal(err)
			}
			b, err := impl.gather(cube.As(dt), g, Options{Estimator: PACO})
			if err != nil {
				t.Fatal(err)
			}
			checkResult(t, b, a.asF64(), dt)
		}
	})
	t.Run("refusals", func(t *testing.T) {
		bad := []struct {
			name string
			x    *tensor.Tensor
			opt  Options
		}{
			{"rank2", tensor.New(tensor.F64, 4, 5), Options{}},
			{"rank4", tensor.New(tensor.F64, 2, 3, 4, 5), Options{}},
			{"P0", tensor.New(tensor.F32, 2, 3, 0), Options{}},
			{"T0", tensor.New(tensor.F32, 2, 0, 3), Options{}},
			{"ddof2", tensor.New(tensor.F64, 2, 5, 3), Options{DDof: 2}},
			{"ddof1-T1", tensor.New(tensor.F64, 2, 1, 3), Options{DDof: 1}},
			{"estimator", tensor.New(tensor.F64, 2, 5, 3), Options{Estimator: 9}},
			{"short-data", tensor.FromF64(make([]float64, 5), 2, 1, 3), Options{}},
		}
		for _, c := range bad {
			if _, err := impl.array(c.x, c.opt); err == nil {
				t.Errorf("%s: got no error", c.name)
			} else {
				t.Logf("%s: %v", c.name, err)
			}
		}
		cube := tensor.New(tensor.F64, 5, 10, 10)
		offs := PatchOffsets(2)
		gbad := []struct {
			name string
			cube *tensor.Tensor
			g    Gather
		}{
			{"outside-top", cube, Gather{Locations: [][2]int{{1, 5}}, Offsets: offs}},
			{"outside-right", cube, Gather{Locations: [][2]int{{5, 8}}, Offsets: offs}},
			{"no-offsets", cube, Gather{Locations: [][2]int{{5, 5}}}},
			{"cube-rank", tensor.New(tensor.F64, 10, 10), Gather{Locations: [][2]int{{5, 5}}, Offsets: offs}},
		}
		for _, c := range gbad {
			if _, err := impl.gather(c.cube, c.g, Options{}); err == nil {
				t.Errorf("%s: got no error", c.name)
			} else {
				t.Logf("%s: %v", c.name, err)
			}
		}
	})
}

var refCache sync.Map // key → map[Estimator]*Result

// referenceAll returns the Reference estimates of x for the estimators ests
// (DDof 0), computed once per test binary for a given key.
func referenceAll(key string, x *tensor.Tensor, ests []Estimator) map[Estimator]*Result {
	key = fmt.Sprint(key, ests)
	if r, ok := refCache.Load(key); ok {
		return r.(map[Estimator]*Result)
	}
	n, t, p := x.Shape[0], x.Shape[1], x.Shape[2]
	res := referenceMulti(n, t, p, ests, 0, func(k, tt, i int) float64 { return x.F64[(k*t+tt)*p+i] })
	out := map[Estimator]*Result{}
	for i, e := range ests {
		out[e] = res[i]
	}
	refCache.Store(key, out)
	return out
}

// sampleSets returns n sets of t samples of p correlated variables with
// means around 100 (inputs.Sets, the registry's cov inputs), rounded to
// float32 so that float32 and float64 runs see the same data. With special, set 1 is
// constant (S = 0) and set 2 has one NaN sample.
func sampleSets(n, t, p int, seed uint64, special bool) *tensor.Tensor {
	x := tensor.New(tensor.F32, n, t, p)
	inputs.Sets(x.F32, n, t, p, seed, nil)
	x = x.As(tensor.F64)
	if special && n >= 3 {
		for i := 0; i < t*p; i++ {
			x.F64[t*p+i] = 3
		}
		x.F64[2*t*p+(t/2)*p+p/2] = math.NaN()
	}
	return x
}

// testCube returns a (t, h, w) cube of float32-representable values with a
// spatially varying mean and correlated neighbours.
func testCube(t, h, w int, seed uint64) *tensor.Tensor {
	rng := rand.New(rand.NewPCG(seed, 0x63756265))
	c := tensor.New(tensor.F64, t, h, w)
	base := make([]float64, h*w)
	for i := range base {
		base[i] = 50 + 20*rng.Float64()
	}
	for k := 0; k < t; k++ {
		f := c.F64[k*h*w : (k+1)*h*w]
		for i := range f {
			f[i] = base[i] + rng.NormFloat64()
		}
		for y := 0; y < h; y++ { // smooth along x: neighbours correlate
			for x := w - 1; x > 0; x-- {
				f[y*w+x] += 0.7 * f[y*w+x-1]
			}
		}
		for i := range f {
			f[i] = float64(float32(f[i]))
		}
	}
	return c
}

func blockOffsets(hy, wx int) [][2]int {
	var o [][2]int
	for dy := 0; dy < hy; dy++ {
		for dx := 0; dx < wx; dx++ {
			o = append(o, [2]int{dy - hy/2, dx - wx/2})
		}
	}
	return o
}

// materialise copies the gathered sets into an (N, T, P) array.
func materialise(cube *tensor.Tensor, g Gather) *tensor.Tensor {
	t, h, w := cube.Shape[0], cube.Shape[1], cube.Shape[2]
	n, p := len(g.Locations), len(g.Offsets)
	out := tensor.New(tensor.F64, n, t, p)
	for k, l := range g.Locations {
		for tt := 0; tt < t; tt++ {
			for i, o := range g.Offsets {
				out.F64[(k*t+tt)*p+i] = cube.F64[(tt*h+l[0]+o[0])*w+l[1]+o[1]]
			}
		}
	}
	return out
}

func (r *Result) asF64() *Result {
	return &Result{Mean: r.Mean.As(tensor.F64), Cov: r.Cov.As(tensor.F64), Rho: r.Rho.As(tensor.F64)}
}

// checkResult compares got with the float64 want: mean and cov per set in
// relative Frobenius norm, ρ absolutely, NaNs exactly where want has them.
func checkResult(t *testing.T, got, want *Result, dt tensor.DType) {
	t.Helper()
	if got == nil || got.Mean == nil || got.Cov == nil || got.Rho == nil {
		t.Fatalf("incomplete result %+v", got)
	}
	for _, c := range []struct {
		what      string
		got, want *tensor.Tensor
	}{{"mean", got.Mean, want.Mean}, {"cov", got.Cov, want.Cov}, {"rho", got.Rho, want.Rho}} {
		if c.got.DType != dt {
			t.Errorf("%s is %s, want %s", c.what, c.got.DType, dt)
		}
		if !tensor.SameShape(c.got.Shape, c.want.Shape) {
			t.Fatalf("%s has shape %s, want %s", c.what, tensor.ShapeString(c.got.Shape), tensor.ShapeString(c.want.Shape))
		}
	}
	n := want.Rho.Len()
	tol := tolFor[dt]
	checkBlocks(t, "mean", got.Mean.Float64s(), want.Mean.F64, n, tol, false)
	checkBlocks(t, "cov", got.Cov.Float64s(), want.Cov.F64, n, tol, false)
	checkBlocks(t, "rho", got.Rho.Float64s(), want.Rho.F64, n, tol, true)
}

// checkBlocks compares n sample sets' results with checks.Blocks:
// relative Frobenius error, or absolute when abs.
func checkBlocks(t testing.TB, what string, got, want []float64, n int, tol float64, abs bool) {
	t.Helper()
	norm := checks.Relative
	if abs {
		norm = checks.Absolute
	}
	checks.Blocks(t, what, got, want, n, tol, norm)
}
