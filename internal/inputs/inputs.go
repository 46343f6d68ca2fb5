// Package inputs is the one home of the deterministic test inputs that
// vkstat's checks share: seeded random arrays, planted NaNs, correlated
// sample sets, and symmetric (SPD) matrices U·D·Uᵀ with a chosen spectrum,
// U a product of random Householder reflections, as gonum's testlapack
// builds them. The registry of package suite (`vkstat verify`, `vkstat
// bench` and the tuners' cases) builds its inputs with it, and so do the
// pipelines' test suites.
//
// Every function depends on its seed (or its *rand.Rand) and sizes only,
// generates in float64 and converts to the slice's type, so float32
// inputs are the float64 ones rounded. It works on slices: the tensor
// types stay with the callers.
package inputs

import (
	"math"
	"math/rand/v2"
	"runtime"
	"sync"
)

// Float is the element type of the slices filled.
type Float interface{ ~float32 | ~float64 }

// Fill sets every element of x to gen(rng). Large slices are filled by
// several goroutines, each with its own stream (rand.NewPCG(seed, piece)):
// the result depends on the seed and the length only.
func Fill[T Float](x []T, seed uint64, gen func(r *rand.Rand) float64) {
	n := len(x)
	const piece = 1 << 20
	pieces := (n + piece - 1) / piece
	work := func(p int) {
		r := rand.New(rand.NewPCG(seed, uint64(p)))
		for i := p * piece; i < min((p+1)*piece, n); i++ {
			x[i] = T(gen(r))
		}
	}
	if pieces <= 1 {
		if n > 0 {
			work(0)
		}
		return
	}
	var wg sync.WaitGroup
	next := make(chan int)
	for w := 0; w < min(runtime.GOMAXPROCS(0), pieces); w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for p := range next {
				work(p)
			}
		}()
	}
	for p := 0; p < pieces; p++ {
		next <- p
	}
	close(next)
	wg.Wait()
}

// Uniform is U[lo, hi), a generator for Fill.
func Uniform(lo, hi float64) func(r *rand.Rand) float64 {
	return func(r *rand.Rand) float64 { return lo + (hi-lo)*r.Float64() }
}

// Normal is off + scale·N(0, 1), a generator for Fill.
func Normal(off, scale float64) func(r *rand.Rand) float64 {
	return func(r *rand.Rand) float64 { return off + scale*r.NormFloat64() }
}

// PlantNaN sets about one element in every hundred (at least one) to NaN.
func PlantNaN[T Float](x []T, seed uint64) {
	n := len(x)
	if n == 0 {
		return
	}
	r := rand.New(rand.NewPCG(seed, 0x6e616e))
	for k := max(n/100, 1); k > 0; k-- {
		x[r.IntN(n)] = T(math.NaN())
	}
}

// PlantNaNSlices plants NaNs in the slices of x seen as (outer, nAxis,
// inner), the slices running along the middle axis: the first slice is all
// NaN, the second keeps one value, and about one in eight of the others
// gets one to three NaNs. A single slice gets three.
func PlantNaNSlices[T Float](x []T, outer, nAxis, inner int, seed uint64) {
	r := rand.New(rand.NewPCG(seed, 0x736c63))
	at := func(out, i int) int {
		o, j := out/inner, out%inner
		return (o*nAxis+i)*inner + j
	}
	outs := outer * inner
	nan := T(math.NaN())
	if outs == 1 {
		for k := 0; k < 3; k++ {
			x[at(0, r.IntN(nAxis))] = nan
		}
		return
	}
	for i := 0; i < nAxis; i++ {
		x[at(0, i)] = nan
	}
	keep := r.IntN(nAxis)
	for i := 0; i < nAxis; i++ {
		if i != keep {
			x[at(1, i)] = nan
		}
	}
	for out := 2; out < outs; out++ {
		if r.IntN(8) == 0 {
			for k := r.IntN(3); k >= 0; k-- {
				x[at(out, r.IntN(nAxis))] = nan
			}
		}
	}
}

// Sets fills x, (n, t, p) in C order, with n sets of t samples of p
// correlated variables: r_i = m_i + σ_i (z_i + 0.6 z_{i−1} + 0.3
// z_{(7i+3) mod p}), z Gaussian. With moments nil the means m_i = 100 +
// 10·N(0, 1) (so that centring matters) and the spreads σ_i = (0.5 +
// U[0, 1))·e^{−2i/p} are drawn per set; else moments(i) gives them.
func Sets[T Float](x []T, n, t, p int, seed uint64, moments func(i int) (mean, sd float64)) {
	r := rand.New(rand.NewPCG(seed, 0x636f76))
	m, sd, z := make([]float64, p), make([]float64, p), make([]float64, p)
	for k := 0; k < n; k++ {
		for i := range m {
			if moments != nil {
				m[i], sd[i] = moments(i)
				continue
			}
			m[i] = 100 + 10*r.NormFloat64()
			sd[i] = (0.5 + r.Float64()) * math.Exp(-2*float64(i)/float64(p))
		}
		for tt := 0; tt < t; tt++ {
			for i := range z {
				z[i] = r.NormFloat64()
			}
			row := x[(k*t+tt)*p : (k*t+tt+1)*p]
			for i := range z {
				v := z[i] + 0.3*z[(7*i+3)%p]
				if i > 0 {
					v += 0.6 * z[i-1]
				}
				row[i] = T(m[i] + sd[i]*v)
			}
		}
	}
}

// householder applies A ← H·A·H for H = I − 2uuᵀ (u a unit vector) to the
// p×p matrix a: A − 2u(Au)ᵀ − 2(Au)uᵀ + 4(uᵀAu)uuᵀ.
func householder(a []float64, p int, u []float64) {
	w := make([]float64, p)
	for i := 0; i < p; i++ {
		for j := 0; j < p; j++ {
			w[i] += a[i*p+j] * u[j]
		}
	}
	var alpha float64
	for i := range u {
		alpha += u[i] * w[i]
	}
	for i := 0; i < p; i++ {
		for j := 0; j < p; j++ {
			a[i*p+j] += -2*u[i]*w[j] - 2*w[i]*u[j] + 4*alpha*u[i]*u[j]
		}
	}
}

// WithEigen writes U·diag(eig)·Uᵀ to a (p×p, p = len(eig)), U the product
// of k random Householder reflections drawn from r (none when p is 1),
// symmetrised: a has eigenvalues eig to rounding.
func WithEigen(a []float64, eig []float64, k int, r *rand.Rand) {
	p := len(eig)
	clear(a[:p*p])
	for i, e := range eig {
		a[i*p+i] = e
	}
	u := make([]float64, p)
	for h := 0; h < k && p > 1; h++ {
		var s float64
		for i := range u {
			u[i] = r.NormFloat64()
			s += u[i] * u[i]
		}
		s = math.Sqrt(s)
		for i := range u {
			u[i] /= s
		}
		householder(a, p, u)
	}
	for i := 0; i < p; i++ {
		for j := 0; j < i; j++ {
			v := (a[i*p+j] + a[j*p+i]) / 2
			a[i*p+j], a[j*p+i] = v, v
		}
	}
}

// LogSpaced is p eigenvalues log-spaced from scale down to scale/cond
// (scale alone when p is 1): an SPD spectrum of condition number cond.
func LogSpaced(p int, cond, scale float64) []float64 {
	eig := make([]float64, p)
	for i := range eig {
		f := 0.0
		if p > 1 {
			f = float64(i) / float64(p-1)
		}
		eig[i] = scale * math.Pow(cond, -f)
	}
	return eig
}

// Separated is n eigenvalues of both signs, evenly spaced 2/n·scale apart
// within ±scale (none zero), in an order shuffled by r: eigenvectors that
// are well defined.
func Separated(n int, scale float64, r *rand.Rand) []float64 {
	d := make([]float64, n)
	for i := range d {
		d[i] = scale * float64(2*i-n+1) / float64(n)
		if d[i] == 0 {
			d[i] = scale / float64(2*n)
		}
	}
	r.Shuffle(n, func(i, j int) { d[i], d[j] = d[j], d[i] })
	return d
}

// Round32 rounds every element of x to float32 (kept in float64), so that
// float32 and float64 runs see the same values.
func Round32(x []float64) {
	for i, v := range x {
		x[i] = float64(float32(v))
	}
}
