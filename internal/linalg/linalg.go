// Package linalg is the one Go implementation of the statistics chain that
// the CPU paths of pipelines cov, chol and paco share: the covariance
// shrinkage weights (PACO's ρ, with VIP's numerator as an option,
// Ledoit-Wolf and OAS), the shrunk covariance's entries, and the Cholesky
// factorisation of a P×P row-major matrix (lower triangle) with its solves,
// log-determinant and inverse. Its GLSL counterpart is
// shaders/include/linalg.glsl; the two compute the same expressions, so keep
// them in step.
//
// The float64 references (pipelines/*/reference.go) do not use this
// package: they compute the same quantities with their own formulas (and
// gonum), so that a bug here cannot hide from the tests.
package linalg

import (
	"math"

	"github.com/vkstat/vkstat/internal/vec"
)

// Clip01 clips r to [0, 1]; NaN stays NaN.
func Clip01(r float64) float64 {
	switch {
	case math.IsNaN(r):
		return r
	case r < 0:
		return 0
	case r > 1:
		return 1
	}
	return r
}

// RhoPACO is PACO's shrinkage weight (PACO.md) from the moments of the
// sample covariance S of t samples: tr = tr(S), fro = Σ_ij S_ij² = tr(S²)
// and dsq = Σ_i S_ii²:
//
//	ρ = [tr(S²) + tr(S)² − 2 Σ_i S_ii²] / [(t+1)(tr(S²) − Σ_i S_ii²)],
//
// clipped to [0, 1]; 1 when the denominator is 0 (S diagonal: the shrunk C
// is S for any ρ). With vip the numerator is VIP's, tr(S²) + tr(S)² −
// 2 Σ_ij S_ij². NaN moments give NaN.
func RhoPACO(tr, fro, dsq float64, t int, vip bool) float64 {
	if math.IsNaN(tr) || math.IsNaN(fro) || math.IsNaN(dsq) {
		return math.NaN()
	}
	num := fro + tr*tr - 2*dsq
	if vip {
		num = fro + tr*tr - 2*fro
	}
	den := float64(t+1) * (fro - dsq)
	if den == 0 {
		return 1
	}
	return Clip01(num / den)
}

// RhoOAS is the oracle approximating shrinkage weight (Chen et al. 2010, as
// sklearn.covariance.oas) for p variables and t samples, from tr = tr(S) and
// fro = tr(S²), clipped to [0, 1]; 1 when the denominator is 0.
func RhoOAS(tr, fro float64, p, t int) float64 {
	if math.IsNaN(tr) || math.IsNaN(fro) {
		return math.NaN()
	}
	P, T := float64(p), float64(t)
	alpha := fro / (P * P)
	mu := tr / P
	num := alpha + mu*mu
	den := (T + 1) * (alpha - mu*mu/P)
	if den == 0 {
		return 1
	}
	return Clip01(num / den)
}

// RhoLedoitWolf is the Ledoit-Wolf shrinkage weight (as
// sklearn.covariance.ledoit_wolf_shrinkage) for p variables and t samples,
// from tr = tr(S), fro = tr(S²) and q4 = Σ_t ‖x_t‖⁴ over the centred
// samples, clipped to [0, 1]; 0 when β is 0 or δ is not positive.
func RhoLedoitWolf(tr, fro, q4 float64, p, t int) float64 {
	if math.IsNaN(tr) || math.IsNaN(fro) || math.IsNaN(q4) {
		return math.NaN()
	}
	P, T := float64(p), float64(t)
	mu := tr / P
	delta := (fro - 2*mu*tr + P*mu*mu) / P
	beta := (q4/T - fro) / (P * T)
	beta = math.Min(beta, delta)
	if beta == 0 || delta <= 0 {
		return 0
	}
	return Clip01(beta / delta)
}

// ShrunkOff is an off-diagonal entry of the shrunk covariance (1−ρ)S + ρ·F
// whose target F is diagonal: (1−ρ)·s.
func ShrunkOff(s, rho float64) float64 { return (1 - rho) * s }

// ShrunkDiagPACO is a diagonal entry of PACO's shrunk covariance, whose
// target is diag(S): d itself, or NaN when ρ is.
func ShrunkDiagPACO(d, rho float64) float64 { return (1-rho)*d + rho*d }

// ShrunkDiagMean is a diagonal entry of the Ledoit-Wolf and OAS shrunk
// covariance, whose target is μ·I with μ = tr(S)/p: (1−ρ)d + ρμ.
func ShrunkDiagMean(d, rho, mu float64) float64 { return (1-rho)*d + rho*mu }

// axpy is y += alpha·x over len(y).
func axpy(y []float64, alpha float64, x []float64) {
	x = x[:len(y)]
	for i, v := range x {
		y[i] += alpha * v
	}
}

// Factor overwrites the lower triangle of the p×p row-major a with its
// Cholesky factor L (A = L·Lᵀ) and returns the potrf info code: 0, or the
// 1-based index of the first pivot that is not positive (or NaN). The upper
// triangle is neither read nor written. It is the row-oriented
// (Cholesky–Crout) form, whose inner loops are dot products of contiguous
// rows.
func Factor(a []float64, p int) int32 {
	for j := 0; j < p; j++ {
		rj := a[j*p : j*p+j]
		d := a[j*p+j] - vec.Dot(rj, rj)
		if !(d > 0) { // also NaN
			return int32(j + 1)
		}
		d = math.Sqrt(d)
		a[j*p+j] = d
		for i := j + 1; i < p; i++ {
			ri := a[i*p : i*p+j]
			a[i*p+j] = (a[i*p+j] - vec.Dot(ri, rj)) / d
		}
	}
	return 0
}

// Solve overwrites b with the solution x of L·Lᵀx = b, L being the lower
// triangle of the p×p row-major l (Factor's output), and returns
// ‖L⁻¹b‖² = bᵀA⁻¹b.
func Solve(l, b []float64, p int) float64 {
	var q float64
	for i := 0; i < p; i++ { // L y = b
		b[i] = (b[i] - vec.Dot(l[i*p:i*p+i], b[:i])) / l[i*p+i]
		q += b[i] * b[i]
	}
	for i := p - 1; i >= 0; i-- { // Lᵀ x = y, by columns of Lᵀ (rows of L)
		b[i] /= l[i*p+i]
		axpy(b[:i], -b[i], l[i*p:i*p+i])
	}
	return q
}

// SolveMulti is Solve for nb right-hand sides at once: x is p×nb
// row-major (x[i*nb+b] is row i of right-hand side b), overwritten with
// the solutions, so that each entry of L is read once for nb products.
func SolveMulti(l, x []float64, p, nb int) {
	for i := 0; i < p; i++ { // L Z = B
		xi := x[i*nb : (i+1)*nb]
		for k, v := range l[i*p : i*p+i] {
			axpy(xi, -v, x[k*nb:(k+1)*nb])
		}
		inv := 1 / l[i*p+i]
		for b := range xi {
			xi[b] *= inv
		}
	}
	for i := p - 1; i >= 0; i-- { // Lᵀ X = Z
		xi := x[i*nb : (i+1)*nb]
		for k := i + 1; k < p; k++ {
			axpy(xi, -l[k*p+i], x[k*nb:(k+1)*nb])
		}
		inv := 1 / l[i*p+i]
		for b := range xi {
			xi[b] *= inv
		}
	}
}

// LogDet is log det A = 2 Σ_i log L_ii from the factor.
func LogDet(l []float64, p int) float64 {
	var v float64
	for i := 0; i < p; i++ {
		v += math.Log(l[i*p+i])
	}
	return 2 * v
}

// Inverse writes A⁻¹ = L⁻ᵀL⁻¹ (full, symmetric, p×p) to inv from the
// factor l, as LAPACK's potri: L⁻¹ row by row into x (p×p), then L⁻ᵀL⁻¹.
// tmp (p) is scratch.
func Inverse(inv, x, l, tmp []float64, p int) {
	clear(x)
	for i := 0; i < p; i++ { // row i of X = L⁻¹ from the rows above it
		t := tmp[:i]
		clear(t)
		for k := 0; k < i; k++ {
			axpy(t[:k+1], l[i*p+k], x[k*p:k*p+k+1])
		}
		xii := 1 / l[i*p+i]
		for j := range t {
			x[i*p+j] = -t[j] * xii
		}
		x[i*p+i] = xii
	}
	clear(inv)
	for k := 0; k < p; k++ { // inv = XᵀX, lower triangle, row by row
		xk := x[k*p : k*p+k+1]
		for r, v := range xk {
			axpy(inv[r*p:r*p+r+1], v, xk)
		}
	}
	for i := 0; i < p; i++ {
		for j := 0; j < i; j++ {
			inv[j*p+i] = inv[i*p+j]
		}
	}
}
