package eig

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/vkstat/vkstat/internal/inputs"
	"github.com/vkstat/vkstat/tensor"
)

// eigImpl is the API every fast implementation (CPU, Vulkan) offers.
type eigImpl func(a *tensor.Tensor, opt Options) (*Result, error)

// Tolerances, relative to max|λ| (values) or in the Frobenius norm
// (residual ‖AV − VΛ‖ over ‖A‖, orthogonality ‖VᵀV − I‖), by precision.
// Eigenvectors are compared up to sign, for eigenvalues whose gap to the
// others is at least minGap·max|λ|, to vecTol/gap. The orthogonality
// bound grows with n (orth·max(n, 8)): V accumulates about n rotations per
// column and sweep, each rounding its entries once; float32 on lavapipe
// measured 1.2e-5 at n = 128.
type tols struct{ values, resid, orth, vec float64 }

var tolsFor = map[tensor.DType]tols{
	tensor.F64: {values: 1e-12, resid: 1e-12, orth: 1e-14, vec: 1e-12},
	tensor.F32: {values: 1e-5, resid: 2e-5, orth: 5e-7, vec: 5e-5},
}

const minGap = 1e-2

var suiteN = []int{1, 2, 3, 31, 32, 33, 64, 65, 128}

// withSpectrum writes U·diag(lambda)·Uᵀ, U the product of n random
// Householder reflections (inputs.WithEigen), symmetrised and rounded to
// float32 (so that float32 and float64 runs decompose the same matrix),
// into dst.
func withSpectrum(dst []float64, lambda []float64, rng *rand.Rand) {
	inputs.WithEigen(dst, lambda, len(lambda), rng)
	inputs.Round32(dst)
}

// batch builds b matrices of order n with separated spectra.
func batch(b, n int, seed uint64) *tensor.Tensor {
	rng := rand.New(rand.NewPCG(seed, 99))
	t := tensor.New(tensor.F64, b, n, n)
	for m := range b {
		withSpectrum(t.F64[m*n*n:(m+1)*n*n], inputs.Separated(n, math.Pow(10, float64(m%3)-1), rng), rng)
	}
	return t
}

// check holds got against the reference of a (float64 from a's values)
// and the residual and orthogonality bounds, for the matrices whose Info
// is OK in both; Info must agree.
func check(t *testing.T, a *tensor.Tensor, got *Result, dt tensor.DType) {
	t.Helper()
	want, err := Reference(a)
	if err != nil {
		t.Fatal(err)
	}
	b, n := a.Shape[0], a.Shape[1]
	tl := tolsFor[dt]
	tl.orth *= float64(max(n, 8))
	av := a.Float64s()
	gv, gw := got.Values.Float64s(), got.Vectors.Float64s()
	worst := tols{}
	for m := range b {
		if got.Info[m] != want.Info[m] {
			t.Errorf("matrix %d: info %d, want %d", m, got.Info[m], want.Info[m])
			continue
		}
		if want.Info[m] != OK {
			for i := range n {
				if !math.IsNaN(gv[m*n+i]) {
					t.Errorf("matrix %d (info %d): value %d is %v, want NaN", m, want.Info[m], i, gv[m*n+i])
					break
				}
			}
			continue
		}
		wv := want.Values.F64[m*n : (m+1)*n]
		ww := want.Vectors.F64[m*n*n : (m+1)*n*n]
		lam := gv[m*n : (m+1)*n]
		vec := gw[m*n*n : (m+1)*n*n]
		A := av[m*n*n : (m+1)*n*n]
		scale := 0.0
		for _, x := range wv {
			scale = math.Max(scale, math.Abs(x))
		}
		if scale == 0 {
			scale = 1
		}
		// Descending order.
		for i := 1; i < n; i++ {
			if lam[i] > lam[i-1] {
				t.Errorf("matrix %d: values not descending at %d: %v > %v", m, i, lam[i], lam[i-1])
			}
		}
		var ev float64
		for i := range n {
			ev = math.Max(ev, math.Abs(lam[i]-wv[i])/scale)
		}
		// Residual and orthogonality, lower triangle mirrored.
		var res, fro, orth float64
		for i := range n {
			for k := range n {
				s := 0.0
				for j := range n {
					aij := A[i*n+j]
					if j > i {
						aij = A[j*n+i]
					}
					s += aij * vec[j*n+k]
				}
				r := s - vec[i*n+k]*lam[k]
				res += r * r
				aik := A[i*n+k]
				if k > i {
					aik = A[k*n+i]
				}
				fro += aik * aik
				o := 0.0
				for j := range n {
					o += vec[j*n+i] * vec[j*n+k]
				}
				if i == k {
					o--
				}
				orth += o * o
			}
		}
		res = math.Sqrt(res) / math.Max(math.Sqrt(fro), math.SmallestNonzeroFloat64)
		orth = math.Sqrt(orth)
		// Vectors up to sign where the gap allows.
		var vecErr float64
		for k := range n {
			gap := math.Inf(1)
			for j := range n {
				if j != k {
					gap = math.Min(gap, math.Abs(wv[k]-wv[j])/scale)
				}
			}
			if gap < minGap {
				continue
			}
			dot := 0.0
			for i := range n {
				dot += vec[i*n+k] * ww[i*n+k]
			}
			sg := 1.0
			if dot < 0 {
				sg = -1
			}
			e := 0.0
			for i := range n {
				d := vec[i*n+k] - sg*ww[i*n+k]
				e += d * d
			}
			vecErr = math.Max(vecErr, math.Sqrt(e)*math.Min(gap, 1))
		}
		worst.values = math.Max(worst.values, ev)
		worst.resid = math.Max(worst.resid, res)
		worst.orth = math.Max(worst.orth, orth)
		worst.vec = math.Max(worst.vec, vecErr)
		if !(ev <= tl.values) || !(res <= tl.resid) || !(orth <= tl.orth) || !(vecErr <= tl.vec) {
			t.Errorf("matrix %d (n = %d, %s): values %.3g (tol %.3g), residual %.3g (%.3g), orthogonality %.3g (%.3g), vectors·gap %.3g (%.3g)",
				m, n, dt, ev, tl.values, res, tl.resid, orth, tl.orth, vecErr, tl.vec)
		}
	}
	t.Logf("worst: values %.2g, residual %.2g, orthogonality %.2g, vectors·gap %.2g", worst.values, worst.resid, worst.orth, worst.vec)
}

func dtypes() []tensor.DType { return []tensor.DType{tensor.F64, tensor.F32} }

// run calls impl, skipping float64 on devices without it.
func run(t *testing.T, impl eigImpl, a *tensor.Tensor, opt Options) *Result {
	t.Helper()
	r, err := impl(a, opt)
	if err != nil {
		skipNoFloat64(t, err)
		t.Fatal(err)
	}
	return r
}

// runEigSuite runs every case on impl.
func runEigSuite(t *testing.T, impl eigImpl) {
	for _, dt := range dtypes() {
		for _, n := range suiteN {
			t.Run(fmt.Sprintf("n%d/%s", n, dt), func(t *testing.T) {
				b := 3
				if n >= 64 {
					b = 2
				}
				a := batch(b, n, uint64(n))
				got := run(t, impl, a.As(dt), Options{})
				check(t, a, got, dt)
			})
		}
		t.Run("hand/"+dt.String(), func(t *testing.T) { handCases(t, impl, dt) })
		t.Run("failures/"+dt.String(), func(t *testing.T) { failureCases(t, impl, dt) })
	}
}

// handCases are matrices whose decomposition is known in closed form.
func handCases(t *testing.T, impl eigImpl, dt tensor.DType) {
	tol := tolsFor[dt].values * 4
	near := func(what string, got, want float64) {
		t.Helper()
		if !(math.Abs(got-want) <= tol*math.Max(1, math.Abs(want))) {
			t.Errorf("%s: got %.9g, want %.9g", what, got, want)
		}
	}
	// A 2×2 rotation by θ = 0.3 of diag(3, 1): eigenvalues 3 and 1, vectors
	// (cos θ, sin θ) and (−sin θ, cos θ), the latter signed to (sin θ, −cos θ)
	// since |cos θ| > |sin θ| and its largest component must be positive.
	th := 0.3
	c, s := math.Cos(th), math.Sin(th)
	a := tensor.FromF64([]float64{3*c*c + s*s, 2 * c * s, 2 * c * s, 3*s*s + c*c}, 1, 2, 2)
	r := run(t, impl, a.As(dt), Options{})
	v, w := r.Values.Float64s(), r.Vectors.Float64s()
	near("2×2 λ1", v[0], 3)
	near("2×2 λ2", v[1], 1)
	near("2×2 v1[0]", w[0], c)
	near("2×2 v1[1]", w[2], s)
	near("2×2 v2[0]", w[1], -s)
	near("2×2 v2[1]", w[3], c)

	// Diagonal: the values sorted, the vectors the unit vectors, no sweep
	// rotating anything.
	a = tensor.FromF64([]float64{1, 0, 0, 0, 5, 0, 0, 0, -3}, 1, 3, 3)
	r = run(t, impl, a.As(dt), Options{})
	v, w = r.Values.Float64s(), r.Vectors.Float64s()
	for i, x := range []float64{5, 1, -3} {
		near(fmt.Sprintf("diagonal λ%d", i+1), v[i], x)
	}
	for i, x := range []float64{0, 1, 0, 1, 0, 0, 0, 0, 1} {
		near(fmt.Sprintf("diagonal V[%d]", i), w[i], x)
	}
	if r.Sweeps[0] > 1 { // 0 for the reference
		t.Errorf("diagonal: %d sweeps, want at most 1", r.Sweeps[0])
	}

	// Repeated eigenvalues (2, 2, 2, 1, 1, −1 in a random basis): values,
	// residual and orthogonality (the vectors of a repeated value are any
	// basis of its space).
	rng := rand.New(rand.NewPCG(5, 5))
	rep := tensor.New(tensor.F64, 1, 6, 6)
	withSpectrum(rep.F64, []float64{2, 1, 2, -1, 2, 1}, rng)
	r = run(t, impl, rep.As(dt), Options{})
	check(t, rep, r, dt)

	// Rank one, x·xᵀ: λ1 = ‖x‖², the rest 0, v1 = x/‖x‖ (x's largest
	// component is positive). Exact in float32: small integers.
	x := []float64{1, -2, 3, 0.5, 4}
	n := len(x)
	one := tensor.New(tensor.F64, 1, n, n)
	nrm := 0.0
	for i := range n {
		nrm += x[i] * x[i]
		for j := range n {
			one.F64[i*n+j] = x[i] * x[j]
		}
	}
	r = run(t, impl, one.As(dt), Options{})
	v, w = r.Values.Float64s(), r.Vectors.Float64s()
	near("rank one λ1", v[0], nrm)
	for i := 1; i < n; i++ {
		if !(math.Abs(v[i]) <= tol*nrm) {
			t.Errorf("rank one λ%d = %g, want 0", i+1, v[i])
		}
	}
	for i := range n {
		near(fmt.Sprintf("rank one v1[%d]", i), w[i*n], x[i]/math.Sqrt(nrm))
	}
	check(t, one, r, dt)
}

// failureCases: a NaN or an Inf gives Info NonFinite and NaN outputs for
// its matrix only; too few sweeps give NotConverged and NaN.
func failureCases(t *testing.T, impl eigImpl, dt tensor.DType) {
	a := batch(4, 33, 7)
	n := 33
	a.F64[0*n*n+5*n+2] = math.NaN() // lower triangle: read
	a.F64[2*n*n+7*n+7] = math.Inf(1)
	a.F64[3*n*n+2*n+5] = math.NaN() // upper triangle: not read
	r := run(t, impl, a.As(dt), Options{})
	want := []int32{NonFinite, OK, NonFinite, OK}
	for m, w := range want {
		if r.Info[m] != w {
			t.Errorf("matrix %d: info %d, want %d", m, r.Info[m], w)
		}
	}
	check(t, a, r, dt)
	if len(r.Notes()) != 1 {
		t.Errorf("notes %q, want one about NaN/Inf", r.Notes())
	}

	b := batch(2, 32, 8)
	r = run(t, impl, b.As(dt), Options{MaxSweeps: 1})
	for m := range 2 {
		if r.Info[m] != NotConverged || r.Sweeps[m] != 1 {
			t.Errorf("one sweep, matrix %d: info %d after %d sweeps, want %d after 1", m, r.Info[m], r.Sweeps[m], NotConverged)
		}
		if v := r.Values.Float64s()[m*32]; !math.IsNaN(v) {
			t.Errorf("one sweep, matrix %d: λ1 = %v, want NaN", m, v)
		}
	}
}

// TestReferenceHand checks the reference itself on the 2×2 rotation.
func TestReferenceHand(t *testing.T) {
	ref := func(a *tensor.Tensor, _ Options) (*Result, error) { return Reference(a) }
	handCases(t, ref, tensor.F64)
}
