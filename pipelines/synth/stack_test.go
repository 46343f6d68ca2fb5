package synth

import (
	"context"
	"math"
	"runtime"
	"slices"
	"testing"
)

// TestStackSameOnAnyCores: a date's samples do not depend on how many
// cores draw them (one core once drew every row from a single stream), and
// its intensity has the reflectivity's mean: |S|² is exponential with mean
// σ, so over a 64×64 patch of σ = 10·(1 + x/(W−1)) the mean of |S|²/σ is 1
// within a few standard errors (1/64).
func TestStackSameOnAnyCores(t *testing.T) {
	s := Stack{H: 70, W: 64, Dates: 2, Complex: true, Change: 3, Seed: 9}
	sigma, changed := s.Maps()
	if sigma[0] != 10 || sigma[64*64-1+0] != float32(Reflectivity(63, 63, 70, 64)) || changed[35*64+30] != 3*sigma[35*64+30] || changed[0] != sigma[0] {
		t.Fatalf("maps: σ(0,0) %v, changed(35,30) %v of %v", sigma[0], changed[35*64+30], sigma[35*64+30])
	}
	draw := func(procs int) []float32 {
		defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(procs))
		data := make([]float32, 2*s.H*s.W)
		if err := s.Date(context.Background(), 0, sigma, changed, data); err != nil {
			t.Fatal(err)
		}
		return data
	}
	one, four := draw(1), draw(4)
	if !slices.Equal(one, four) {
		t.Fatal("date 0 differs between 1 and 4 cores")
	}
	var sum float64
	for y := 0; y < 64; y++ {
		for x := 0; x < 64; x++ {
			i := y*64 + x
			re, im := float64(one[2*i]), float64(one[2*i+1])
			sum += (re*re + im*im) / float64(sigma[i])
		}
	}
	if m := sum / (64 * 64); math.Abs(m-1) > 4.0/64 {
		t.Errorf("mean |S|²/σ over the first patch %.3f, want 1 ± %.3f", m, 4.0/64)
	}
}

// TestStackCheck: each bad field is named (as the library's parameter),
// a good stack passes.
func TestStackCheck(t *testing.T) {
	good := Stack{H: 16, W: 20, Dates: 3, Change: 1, Border: 7}
	if err := good.Check(); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		s    func(*Stack)
		want string
	}{
		{func(s *Stack) { s.Dates = 0 }, "dates: want 1 to 10000, got 0"},
		{func(s *Stack) { s.Dates = 10001 }, "dates: want 1 to 10000, got 10001"},
		{func(s *Stack) { s.Change = 0 }, "change: want a positive factor, got 0"},
		{func(s *Stack) { s.Change = math.Inf(1) }, "change: want a positive factor, got +Inf"},
		{func(s *Stack) { s.Border = 8 }, "nodata_border 8: want 0 up to less than half the image"},
		{func(s *Stack) { s.Border = -1 }, "nodata_border -1: want 0 up to less than half the image"},
	} {
		s := good
		c.s(&s)
		if err := s.Check(); err == nil || err.Error() != c.want {
			t.Errorf("%+v: %v, want %s", s, err, c.want)
		}
	}
}
