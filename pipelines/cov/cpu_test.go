package cov

import (
	"math"
	"testing"

	"github.com/vkstat/vkstat/tensor"
)

func cpuImpl() covImpl { return covImpl{array: CPU, gather: CPUGather} }

func TestCPU(t *testing.T) { runCovSuite(t, cpuImpl()) }

// handCase is a small data set whose statistics were worked out in exact
// rational arithmetic (by hand, checked with Python's fractions): T = 8
// samples of P = 3 variables.
var handCase = struct {
	x                      [8][3]float64
	mean                   [3]float64
	s                      [3][3]float64
	rhoPACO, rhoOAS, rhoLW float64
}{
	x: [8][3]float64{{-2, -1, -2}, {-2, -3, 0}, {0, 2, -1}, {-3, -2, -7}, {3, 3, 2}, {1, -1, 1}, {2, 2, 3}, {3, 4, 2}},
	// m = (1/4, 1/2, −1/4)
	mean: [3]float64{0.25, 0.5, -0.25},
	// S = [[79/16, 37/8, 89/16], [37/8, 23/4, 17/4], [89/16, 17/4, 143/16]]
	s: [3][3]float64{{79.0 / 16, 37.0 / 8, 89.0 / 16}, {37.0 / 8, 23.0 / 4, 17.0 / 4}, {89.0 / 16, 17.0 / 4, 143.0 / 16}},
	// tr S = 157/8, tr S² = 17799/64, Σ S_ii² = 17577/128, Σ‖x_t‖⁴ = 44437/8:
	// PACO ρ = 49742/162189, OAS ρ = 10612/21561, Ledoit-Wolf ρ = 39957/114992.
	rhoPACO: 49742.0 / 162189,
	rhoOAS:  10612.0 / 21561,
	rhoLW:   39957.0 / 114992,
}

// TestHandCase checks every implementation's ρ, mean and covariance against
// the hand-derived constants, for each estimator.
func TestHandCase(t *testing.T) {
	x := tensor.New(tensor.F64, 1, 8, 3)
	for i, r := range handCase.x {
		copy(x.F64[i*3:], r[:])
	}
	impls := map[string]func(*tensor.Tensor, Options) (*Result, error){"reference": Reference, "cpu": CPU}
	for name, impl := range impls {
		for _, c := range []struct {
			est Estimator
			rho float64
		}{{None, 0}, {PACO, handCase.rhoPACO}, {LedoitWolf, handCase.rhoLW}, {OAS, handCase.rhoOAS}} {
			res, err := impl(x, Options{Estimator: c.est})
			if err != nil {
				t.Fatal(err)
			}
			checkHand(t, name, c.est, res, c.rho)
		}
	}
}

func checkHand(t *testing.T, name string, est Estimator, res *Result, rho float64) {
	t.Helper()
	close := func(a, b, tol float64) bool { return math.Abs(a-b) <= tol*math.Max(1, math.Abs(b)) }
	tol := 1e-13
	if res.Rho.DType == tensor.F32 {
		tol = 1e-6
	}
	if got := res.Rho.Float64s()[0]; !close(got, rho, tol) {
		t.Errorf("%s %s: ρ = %.17g, want %.17g", name, est, got, rho)
	}
	mean := res.Mean.Float64s()
	for i, m := range handCase.mean {
		if !close(mean[i], m, tol) {
			t.Errorf("%s %s: mean[%d] = %g, want %g", name, est, i, mean[i], m)
		}
	}
	tr := handCase.s[0][0] + handCase.s[1][1] + handCase.s[2][2]
	c := res.Cov.Float64s()
	for i := 0; i < 3; i++ {
		for j := 0; j < 3; j++ {
			want := (1 - rho) * handCase.s[i][j]
			if i == j {
				switch est {
				case PACO:
					want = handCase.s[i][i]
				case LedoitWolf, OAS:
					want += rho * tr / 3
				}
			}
			if !close(c[i*3+j], want, tol) {
				t.Errorf("%s %s: C[%d][%d] = %.17g, want %.17g", name, est, i, j, c[i*3+j], want)
			}
		}
	}
}

// TestShrinkageEdges checks the degenerate cases the package documents.
func TestShrinkageEdges(t *testing.T) {
	// One variable: ρ = 0 whatever the estimator.
	x := tensor.FromF64([]float64{1, 2, 4, 8}, 1, 4, 1)
	for _, est := range allEstimators {
		for name, impl := range map[string]func(*tensor.Tensor, Options) (*Result, error){"reference": Reference, "cpu": CPU} {
			r, err := impl(x, Options{Estimator: est})
			if err != nil {
				t.Fatal(err)
			}
			if r.Rho.F64[0] != 0 {
				t.Errorf("%s %s with P = 1: ρ = %g, want 0", name, est, r.Rho.F64[0])
			}
		}
	}
	// Constant data (S = 0): PACO and OAS take ρ = 1, Ledoit-Wolf 0.
	z := tensor.New(tensor.F64, 1, 5, 4)
	for i := range z.F64 {
		z.F64[i] = 3
	}
	for est, want := range map[Estimator]float64{None: 0, PACO: 1, OAS: 1, LedoitWolf: 0} {
		for name, impl := range map[string]func(*tensor.Tensor, Options) (*Result, error){"reference": Reference, "cpu": CPU} {
			r, err := impl(z, Options{Estimator: est})
			if err != nil {
				t.Fatal(err)
			}
			if r.Rho.F64[0] != want {
				t.Errorf("%s %s with S = 0: ρ = %g, want %g", name, est, r.Rho.F64[0], want)
			}
			for _, v := range r.Cov.F64 {
				if v != 0 {
					t.Errorf("%s %s with S = 0: C has %g", name, est, v)
					break
				}
			}
		}
	}
}

func TestParseEstimator(t *testing.T) {
	for s, want := range map[string]Estimator{"none": None, "PACO": PACO, "ledoit-wolf": LedoitWolf, "lw": LedoitWolf, "oas": OAS, "sample": None, "shrunk": Shrunk} {
		got, err := ParseEstimator(s)
		if err != nil || got != want {
			t.Errorf("ParseEstimator(%q) = %v, %v; want %v", s, got, err, want)
		}
	}
	if _, err := ParseEstimator("shrinkage"); err == nil {
		t.Errorf("ParseEstimator(shrinkage): no error")
	}
	for _, e := range allEstimators {
		if got, _ := ParseEstimator(e.String()); got != e {
			t.Errorf("round trip of %v gave %v", e, got)
		}
	}
}

func TestPatchOffsets(t *testing.T) {
	for r, want := range []int{1, 5, 13, 29, 49, 81, 113} {
		if got := len(PatchOffsets(r)); got != want {
			t.Errorf("PatchOffsets(%d) has %d offsets, want %d", r, got, want)
		}
	}
	locs := ValidLocations(10, 12, PatchOffsets(4))
	if len(locs) != 2*4 || locs[0] != [2]int{4, 4} || locs[len(locs)-1] != [2]int{5, 7} {
		t.Errorf("ValidLocations(10, 12, R=4) = %v", locs)
	}
}
