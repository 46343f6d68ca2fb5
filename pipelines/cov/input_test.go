package cov

import (
	"math"
	"strings"
	"testing"

	"github.com/vkstat/vkstat/tensor"
)

// TestInputChecks: one set (T, P) becomes (1, T, P); shapes, sample counts
// and cubes that cannot be estimated are refused with the reason; a cube's
// patches (discs: 5 pixels at radius 1) are those inside the frame; Spread counts NaN sets and
// summarises the finite ρ.
func TestInputChecks(t *testing.T) {
	x, single, err := Sets(tensor.New(tensor.F64, 4, 3), 1)
	if err != nil || !single || tensor.ShapeString(x.Shape) != "(1, 4, 3)" {
		t.Errorf("Sets((4, 3)) = %v, %v, %v", x.Shape, single, err)
	}
	for _, c := range []struct {
		shape []int
		ddof  int
		want  string
	}{{[]int{5}, 0, "want sample sets"}, {[]int{2, 0, 3}, 0, "no samples"}, {[]int{2, 1, 3}, 1, "1 sample(s) per set; ddof 1 needs at least 2"}} {
		if _, _, err := Sets(tensor.New(tensor.F64, c.shape...), c.ddof); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("Sets(%v, ddof %d) = %v, want %q", c.shape, c.ddof, err, c.want)
		}
	}
	g, err := CubePatches([]int{3, 5, 6}, 1, 1)
	if err != nil || len(g.Offsets) != 5 || len(g.Locations) != 3*4 || g.Locations[0] != [2]int{1, 1} {
		t.Errorf("CubePatches((3, 5, 6), 1) = %d offsets, locations %v, %v", len(g.Offsets), g.Locations, err)
	}
	for _, c := range []struct {
		shape   []int
		r, ddof int
		want    string
	}{{[]int{3, 5}, 1, 0, "want a (T, H, W) cube"}, {[]int{1, 5, 5}, 1, 1, "1 frame(s)"}, {[]int{3, 5, 5}, 3, 0, "5×5 frames: patch radius 3 needs at least 7×7 pixels (the largest radius that fits is 2)"},
		{[]int{3, 0, 5}, 0, 0, "no location of its 0×5 frames"}, {[]int{3, 5, 5}, -1, 0, "radius must be 0 or more, got -1"},
		{[]int{20, 32, 32}, 5000, 0, "patch radius 5000 needs at least 10001×10001 pixels (the largest radius that fits is 15)"},
		{[]int{10, 20, 20}, 1 << 40, 0, "patch radius 1099511627776 needs at least 2·radius+1 pixels"}} {
		if _, err := CubePatches(c.shape, c.r, c.ddof); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("CubePatches(%v, %d, %d) = %v, want %q", c.shape, c.r, c.ddof, err, c.want)
		}
	}
	// Issue 34, defect 4: a radius too large is refused before its
	// offsets are listed (on main: 3.1 million offsets, 50 MB, at radius
	// 1,000; minutes and gigabytes at 5,000 and 2⁴⁰).
	if a := testing.AllocsPerRun(1, func() { CubePatches([]int{20, 32, 32}, 1000, 0) }); a > 20 {
		t.Errorf("CubePatches with radius 1000 over 32×32 frames made %v allocations before refusing", a)
	}
	nan := math.NaN()
	r := &Result{Mean: tensor.FromF64([]float64{1, nan, 2, 3, nan, nan}, 3, 2), Rho: tensor.FromF64([]float64{0.2, nan, 0.6}, 3)}
	if s := r.Spread(3, 2); s.NaNSets != 2 || s.Finite != 2 || math.Abs(s.RhoMean-0.4) > 1e-15 || s.RhoMin != 0.2 || s.RhoMax != 0.6 {
		t.Errorf("Spread = %+v", s)
	}
}

// TestWorkGathered: Work prices the patches a Gather takes from a cube (T,
// H, W) as the sets they make, (locations, T, offsets), and sets (N, T, P)
// as they are.
func TestWorkGathered(t *testing.T) {
	g, err := CubePatches([]int{10, 20, 20}, 2, 0)
	if err != nil {
		t.Fatal(err)
	}
	got, err := Work([]int{10, 20, 20}, tensor.F32, Options{Gather: &g})
	if err != nil {
		t.Fatal(err)
	}
	want, _ := Work([]int{len(g.Locations), 10, len(g.Offsets)}, tensor.F32, Options{})
	if got != want || want.Items != int64(len(g.Locations)) {
		t.Errorf("gathered from (10, 20, 20): %+v, want %+v", got, want)
	}
	if w, _ := Work([]int{10, 20, 20}, tensor.F32, Options{}); w.Items != 10 {
		t.Errorf("sets (10, 20, 20): %d items, want 10", w.Items)
	}
}
