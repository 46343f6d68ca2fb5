package linalg

import (
	"math"
	"testing"
)

// The pipelines' suites hold these functions against their float64
// references; this checks them by hand on A = L·Lᵀ with a chosen L.
func TestCholeskyByHand(t *testing.T) {
	const p = 3
	L := []float64{2, 0, 0, 1, 3, 0, -1, 0.5, 1.5}
	a := make([]float64, p*p)
	for i := 0; i < p; i++ {
		for j := 0; j < p; j++ {
			for k := 0; k < p; k++ {
				a[i*p+j] += L[i*p+k] * L[j*p+k]
			}
		}
	}
	orig := append([]float64(nil), a...)
	if info := Factor(a, p); info != 0 {
		t.Fatalf("info %d", info)
	}
	for i := 0; i < p; i++ {
		for j := 0; j <= i; j++ {
			if d := math.Abs(a[i*p+j] - L[i*p+j]); !(d <= 1e-14) {
				t.Errorf("L[%d,%d] = %v, want %v", i, j, a[i*p+j], L[i*p+j])
			}
		}
	}
	if ld, want := LogDet(a, p), 2*math.Log(2*3*1.5); !(math.Abs(ld-want) <= 1e-14) {
		t.Errorf("log det %v, want %v", ld, want)
	}
	// Two right-hand sides: Solve each, SolveMulti both; A·x = b.
	bs := [][]float64{{1, 2, 3}, {-4, 0.5, 7}}
	x := make([]float64, p*len(bs))
	for c, b := range bs {
		for i, v := range b {
			x[i*len(bs)+c] = v
		}
	}
	SolveMulti(a, x, p, len(bs))
	for c, b := range bs {
		y := append([]float64(nil), b...)
		q := Solve(a, y, p)
		var bx float64
		for i := 0; i < p; i++ {
			var r float64
			for j := 0; j < p; j++ {
				r += orig[i*p+j] * y[j]
			}
			if !(math.Abs(r-b[i]) <= 1e-12) {
				t.Errorf("rhs %d: (A·x)[%d] = %v, want %v", c, i, r, b[i])
			}
			if !(math.Abs(x[i*len(bs)+c]-y[i]) <= 1e-12) {
				t.Errorf("rhs %d: SolveMulti %v, Solve %v", c, x[i*len(bs)+c], y[i])
			}
			bx += b[i] * y[i]
		}
		if !(math.Abs(q-bx) <= 1e-12) {
			t.Errorf("rhs %d: quad %v, want bᵀx = %v", c, q, bx)
		}
	}
	inv, xs, tmp := make([]float64, p*p), make([]float64, p*p), make([]float64, p)
	Inverse(inv, xs, a, tmp, p)
	for i := 0; i < p; i++ {
		for j := 0; j < p; j++ {
			var r float64
			for k := 0; k < p; k++ {
				r += orig[i*p+k] * inv[k*p+j]
			}
			want := 0.0
			if i == j {
				want = 1
			}
			if !(math.Abs(r-want) <= 1e-12) {
				t.Errorf("(A·A⁻¹)[%d,%d] = %v", i, j, r)
			}
		}
	}
	// Not positive definite at the second pivot.
	if info := Factor([]float64{1, 0, 2, 1}, 2); info != 2 {
		t.Errorf("info %d, want 2", info)
	}
	if info := Factor([]float64{math.NaN()}, 1); info != 1 {
		t.Errorf("NaN: info %d, want 1", info)
	}
}

func TestRhoByHand(t *testing.T) {
	// S = [[2, 1], [1, 3]], T = 9: tr 5, fro 4+1+1+9 = 15, dsq 13.
	if r, want := RhoPACO(5, 15, 13, 9, false), (15+25-26)/(10*2.0); !(math.Abs(r-want) <= 1e-15) {
		t.Errorf("PACO ρ %v, want %v", r, want)
	}
	if r := RhoPACO(5, 15, 13, 9, true); r != 0.5 { // VIP: (15 + 25 − 30)/20
		t.Errorf("VIP ρ %v, want 0.5", r)
	}
	if r := RhoPACO(5, 13, 13, 9, false); r != 1 { // diagonal S
		t.Errorf("diagonal S: ρ %v, want 1", r)
	}
	if r := RhoPACO(math.NaN(), 15, 13, 9, false); !math.IsNaN(r) {
		t.Errorf("NaN moments: ρ %v", r)
	}
	// OAS: α = 15/4, μ = 5/2; num = 3.75 + 6.25 = 10, den = 10·(3.75 − 3.125).
	if r, want := RhoOAS(5, 15, 2, 9), Clip01(10/(10*0.625)); !(math.Abs(r-want) <= 1e-15) {
		t.Errorf("OAS ρ %v, want %v", r, want)
	}
	if r := RhoLedoitWolf(5, 15, 0, 2, 9); r != 0 { // β < 0 < δ: min(β, δ) < 0, clipped
		t.Errorf("Ledoit-Wolf ρ %v, want 0", r)
	}
	if d := ShrunkDiagPACO(3, math.NaN()); !math.IsNaN(d) {
		t.Errorf("PACO diagonal with NaN ρ: %v", d)
	}
	if d := ShrunkDiagMean(3, 0.5, 2); d != 2.5 {
		t.Errorf("mean-target diagonal %v, want 2.5", d)
	}
}
