package chol

import (
	"flag"
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

// cholImpl is the API every implementation (CPU, Vulkan) offers.
type cholImpl func(r Request) (*Result, error)

// Tolerances: relative in the Frobenius norm per matrix; float32 on
// matrices whose condition number is at most 10⁴.
var tolFor = map[tensor.DType]float64{tensor.F64: 1e-10, tensor.F32: 1e-3}

var suiteP = []int{1, 5, 13, 29, 49, 64, 81, 113, 128}

// conds are the condition numbers the SPD test matrices cycle through.
var conds = []float64{1, 10, 1e2, 1e3, 1e4}

// spd writes a random SPD matrix with condition number cond and scale
// (largest eigenvalue) scale: eigenvalues log-spaced from scale/cond to
// scale, in random order (withEigen).
func spd(a []float64, p int, cond, scale float64, rng *rand.Rand) {
	eig := inputs.LogSpaced(p, cond, scale)
	rng.Shuffle(p, func(i, j int) { eig[i], eig[j] = eig[j], eig[i] })
	withEigen(a, eig, rng)
}

// withEigen writes U·diag(eig)·Uᵀ to a (p×p), U a product of three random
// Householder reflections (inputs.WithEigen), rounded to float32 so that
// float32 and float64 runs see the same matrix.
func withEigen(a []float64, eig []float64, rng *rand.Rand) {
	inputs.WithEigen(a, eig, 3, rng)
	inputs.Round32(a)
}

// planted kinds of matrices that must fail (or, for upperNaN, must not).
type planted int

const (
	good        planted = iota
	negDef              // −SPD: info 1
	zero                // info 1
	diagNaN             // NaN at (j, j): info j+1
	lowerNaN            // NaN at (i, j), i > j: info i+1
	ldlNegative         // M·D·Mᵀ, M unit lower, D_jj < 0: info j+1 exactly
	upperNaN            // NaN above the diagonal only: not read, succeeds
	negEigen            // U·D·Uᵀ with one negative eigenvalue (float64 only)
	numPlanted
)

// testCase is one batch: matrices, right-hand sides, and what to expect.
type testCase struct {
	a, b     *tensor.Tensor // float64, float32-representable
	kinds    []planted
	wantInfo map[int]int32 // exact info codes known by construction
}

// makeCase builds n matrices of size p with k right-hand sides (vecB: B is
// (N, P)). With plant, every 7th matrix from the 3rd on is a planted case.
func makeCase(n, p, k int, vecB, plant, f64 bool, seed uint64) *testCase {
	rng := rand.New(rand.NewPCG(seed, 0x63686f6c))
	c := &testCase{a: tensor.New(tensor.F64, n, p, p), kinds: make([]planted, n), wantInfo: map[int]int32{}}
	if vecB {
		c.b = tensor.New(tensor.F64, n, p)
	} else {
		c.b = tensor.New(tensor.F64, n, p, k)
	}
	for i := range c.b.F64 {
		c.b.F64[i] = float64(float32(rng.NormFloat64()))
	}
	kind := good + 1
	for m := 0; m < n; m++ {
		a := c.a.F64[m*p*p : (m+1)*p*p]
		scale := math.Pow(10, 4*rng.Float64()-2)
		spd(a, p, conds[m%len(conds)], scale, rng)
		if !plant || m%7 != 3 {
			continue
		}
		kd := kind
		kind++
		if kind == numPlanted {
			kind = good + 1
		}
		if kd == negEigen && !f64 {
			kd = negDef
		}
		c.kinds[m] = kd
		j := rng.IntN(p)
		switch kd {
		case negDef:
			for i := range a {
				a[i] = -a[i]
			}
			c.wantInfo[m] = 1
		case zero:
			clear(a)
			c.wantInfo[m] = 1
		case diagNaN:
			a[j*p+j] = math.NaN()
			c.wantInfo[m] = int32(j + 1)
		case lowerNaN:
			if p == 1 {
				a[0] = math.NaN()
				c.wantInfo[m] = 1
				break
			}
			i := 1 + rng.IntN(p-1)
			a[i*p+rng.IntN(i)] = math.NaN()
			c.wantInfo[m] = int32(i + 1)
		case ldlNegative:
			// A = M·D·Mᵀ, M unit lower triangular with small entries:
			// Cholesky's pivots are D's, so pivot j is −scale.
			d := make([]float64, p)
			for i := range d {
				d[i] = scale * (0.5 + rng.Float64())
			}
			d[j] = -scale
			mm := make([]float64, p*p)
			for i := 0; i < p; i++ {
				mm[i*p+i] = 1
				for l := 0; l < i; l++ {
					mm[i*p+l] = float64(float32(0.3 * rng.NormFloat64()))
				}
			}
			for r := 0; r < p; r++ {
				for s := 0; s <= r; s++ {
					var v float64
					for l := 0; l <= s; l++ {
						v += mm[r*p+l] * d[l] * mm[s*p+l]
					}
					v = float64(float32(v))
					a[r*p+s], a[s*p+r] = v, v
				}
			}
			c.wantInfo[m] = int32(j + 1)
		case upperNaN:
			if p > 1 {
				i := 1 + rng.IntN(p-1)
				a[rng.IntN(i)*p+i] = math.NaN()
			}
			c.wantInfo[m] = 0
		case negEigen:
			eig := make([]float64, p)
			for i := range eig {
				eig[i] = scale * (0.1 + rng.Float64())
			}
			eig[j] = -scale
			withEigen(a, eig, rng)
		}
	}
	return c
}

func (c *testCase) request(dt tensor.DType) Request {
	return Request{Input: Input{A: c.a.As(dt), B: c.b.As(dt)}, Options: Options{L: true, Inverse: true, LogDet: true, Quad: true}}
}

var refCache sync.Map

// logErrors logs the worst error of every comparison:
// go test -v -run X ./pipelines/chol -args -errors
var logErrors = flag.Bool("errors", false, "log the worst error of every comparison")

// reference returns Reference for c, once per test binary and key.
func (c *testCase) reference(t *testing.T, key string) *Result {
	if r, ok := refCache.Load(key); ok {
		return r.(*Result)
	}
	r, err := Reference(c.request(tensor.F64))
	if err != nil {
		t.Fatal(err)
	}
	for m, want := range c.wantInfo {
		if r.Info[m] != want {
			t.Fatalf("the reference gives info %d for planted matrix %d (%d), want %d", r.Info[m], m, c.kinds[m], want)
		}
	}
	refCache.Store(key, r)
	return r
}

// runCholSuite holds impl against Reference on every P of suiteP, for N of
// 1, 63, 64 and 65 (and 10⁴ for P = 49 in float32), float64 and float32, with one or
// several right-hand sides, and planted failures in the larger batches;
// then checks the refusals.
func runCholSuite(t *testing.T, impl cholImpl) {
	t.Helper()
	type size struct{ p, n int }
	var sizes []size
	for _, p := range suiteP {
		for _, n := range []int{1, 63, 64, 65} {
			sizes = append(sizes, size{p, n})
		}
	}
	for _, dt := range []tensor.DType{tensor.F64, tensor.F32} {
		sizes := sizes
		if dt == tensor.F32 {
			sizes = append(sizes, size{49, 10000})
		}
		for si, s := range sizes {
			k := 1 + si%3
			vecB := si%4 == 1
			if vecB {
				k = 1
			}
			key := fmt.Sprintf("P%d/N%d/K%d/vec%v/%v", s.p, s.n, k, vecB, dt == tensor.F64)
			t.Run(fmt.Sprintf("%s/P%d/N%d/K%d", dt, s.p, s.n, k), func(t *testing.T) {
				c := makeCase(s.n, s.p, k, vecB, s.n >= 63, dt == tensor.F64, uint64(s.p*100000+s.n*10+k))
				want := c.reference(t, key)
				got, err := impl(c.request(dt))
				testdev.SkipNoFloat64(t, err)
				if err != nil {
					t.Fatal(err)
				}
				checkCholResult(t, got, want, dt, c.request(dt))
			})
		}
	}
	t.Run("subsets", func(t *testing.T) {
		// Each output alone, so that an implementation that computes them
		// in one pass is seen to honour every combination.
		c := makeCase(20, 13, 2, false, true, true, 99)
		want := c.reference(t, "subsets")
		for _, dt := range []tensor.DType{tensor.F64, tensor.F32} {
			full := c.request(dt)
			for _, r := range []Request{
				{Input: Input{A: full.A}, Options: Options{L: true}},
				{Input: Input{A: full.A}, Options: Options{Inverse: true}},
				{Input: Input{A: full.A}, Options: Options{LogDet: true}},
				{Input: Input{A: full.A, B: full.B}},
				{Input: Input{A: full.A, B: full.B}, Options: Options{Quad: true, LogDet: true}},
				{Input: Input{A: full.A}},
			} {
				got, err := impl(r)
				testdev.SkipNoFloat64(t, err)
				if err != nil {
					t.Fatal(err)
				}
				checkCholResult(t, got, want, dt, r)
			}
		}
	})
	t.Run("refusals", func(t *testing.T) {
		a := tensor.New(tensor.F64, 3, 4, 4)
		bad := []struct {
			name string
			r    Request
		}{
			{"nil", Request{}},
			{"rank2", Request{Input: Input{A: tensor.New(tensor.F64, 4, 4)}}},
			{"non-square", Request{Input: Input{A: tensor.New(tensor.F64, 3, 4, 5)}}},
			{"empty", Request{Input: Input{A: tensor.New(tensor.F64, 3, 0, 0)}}},
			{"short-data", Request{Input: Input{A: tensor.FromF64(make([]float64, 47), 3, 4, 4)}}},
			{"b-dtype", Request{Input: Input{A: a, B: tensor.New(tensor.F32, 3, 4, 2)}}},
			{"b-rows", Request{Input: Input{A: a, B: tensor.New(tensor.F64, 3, 5, 2)}}},
			{"b-count", Request{Input: Input{A: a, B: tensor.New(tensor.F64, 2, 4, 2)}}},
			{"b-rank", Request{Input: Input{A: a, B: tensor.New(tensor.F64, 3, 4, 2, 1)}}},
			{"quad-without-b", Request{Input: Input{A: a}, Options: Options{Quad: true}}},
		}
		for _, c := range bad {
			if _, err := impl(c.r); err == nil {
				t.Errorf("%s: got no error", c.name)
			} else {
				t.Logf("%s: %v", c.name, err)
			}
		}
	})
}

// checkCholResult compares got with want (float64) for the outputs r asked
// for: info exactly; L, X, inverse per matrix in relative Frobenius norm;
// log-det and the quadratic form relative to max(1, |want|); NaN exactly
// where want has NaN (the failed matrices).
func checkCholResult(t *testing.T, got, want *Result, dt tensor.DType, r Request) {
	t.Helper()
	n := len(want.Info)
	if len(got.Info) != n {
		t.Fatalf("info has %d codes, want %d", len(got.Info), n)
	}
	bad := 0
	for m := range want.Info {
		if got.Info[m] != want.Info[m] {
			if bad < 5 {
				t.Errorf("matrix %d: info %d, want %d", m, got.Info[m], want.Info[m])
			}
			bad++
		}
	}
	if bad > 0 {
		t.Errorf("%d of %d info codes differ", bad, n)
	}
	tol := tolFor[dt]
	outs := []struct {
		what      string
		asked     bool
		got, want *tensor.Tensor
		floor     bool
	}{
		{"L", r.L, got.L, want.L, false},
		{"X", r.B != nil, got.X, want.X, false},
		{"inverse", r.Inverse, got.Inverse, want.Inverse, false},
		{"logdet", r.LogDet, got.LogDet, want.LogDet, true},
		{"quad", r.Quad, got.Quad, want.Quad, true},
	}
	for _, o := range outs {
		if !o.asked {
			if o.got != nil {
				t.Errorf("%s was not asked for but is set", o.what)
			}
			continue
		}
		if o.got == nil {
			t.Errorf("%s was asked for but is nil", o.what)
			continue
		}
		if o.got.DType != dt {
			t.Errorf("%s is %s, want %s", o.what, o.got.DType, dt)
		}
		if !tensor.SameShape(o.got.Shape, o.want.Shape) {
			t.Errorf("%s has shape %s, want %s", o.what, tensor.ShapeString(o.got.Shape), tensor.ShapeString(o.want.Shape))
			continue
		}
		checkBlocks(t, o.what, o.got.Float64s(), o.want.F64, n, tol, o.floor)
	}
}

// checkBlocks compares n matrices with checks.Blocks, relative to
// max(1, ‖want‖) when floor, and logs the worst error under -errors.
func checkBlocks(t testing.TB, what string, got, want []float64, n int, tol float64, floor bool) {
	t.Helper()
	norm := checks.Relative
	if floor {
		norm = checks.RelativeFloor
	}
	worst := checks.Blocks(t, what, got, want, n, tol, norm)
	if *logErrors {
		t.Logf("%s: worst error %.3g over %d matrices", what, worst, n)
	}
}
