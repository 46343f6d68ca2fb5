package reduce

import (
	"context"
	"math"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/vkstat/vkstat/tensor"
)

// TestCPUPlanRepeats: a plan's runs on new data give the hand-derived
// statistics of 0, k, 2k, … (sum k·n(n−1)/2, mean k(n−1)/2, population
// variance k²(n²−1)/12, min 0, max k(n−1)) along each axis, the bits
// Run gives, and allocate nothing when the input runs inline.
func TestCPUPlanRepeats(t *testing.T) {
	// Without min and max, short runs go through the vector kernel's runs.
	for _, stats := range [][]Stat{{Sum, Mean, Var, Min, Max}, {Sum, Mean, Var}} {
		testCPUPlanRepeats(t, stats)
	}
}

func testCPUPlanRepeats(t *testing.T, stats []Stat) {
	for _, c := range []struct {
		shape []int
		axis  int
		dt    tensor.DType
	}{
		{[]int{1000}, 0, tensor.F64},
		{[]int{1000}, 0, tensor.F32},
		{[]int{1, 1000}, -1, tensor.F64},
		{[]int{1000, 1}, 0, tensor.F64},
		{[]int{400, 300}, 0, tensor.F64},
		{[]int{300, 7}, -1, tensor.F32}, // short runs
		{[]int{300, 7}, -1, tensor.F64},
		{[]int{1500, 300}, 0, tensor.F64}, // 450,000 elements: over the goroutines
	} {
		opt := Options{Axes: Axes{c.axis}, Stats: stats}
		p, n := planCase(t, c.shape, c.dt, opt)
		outs := newOuts(p, c.dt, stats)
		in := tensor.New(c.dt, c.shape...)
		for k := 1; k <= 3; k++ {
			fill(in, c.axis, float64(k))
			if _, err := p.Run(context.Background(), in, &outs); err != nil {
				t.Fatal(err)
			}
			want := wantStats(float64(k), n)
			ref, err := Run(context.Background(), nil, in, opt)
			if err != nil {
				t.Fatal(err)
			}
			for _, s := range stats {
				got, same := outs[s].Float64s(), ref.Stats[s].Float64s()
				for i, v := range got {
					if math.Abs(v-want[s]) > 1e-12*math.Max(1, math.Abs(want[s])) {
						t.Fatalf("%v axis %d %s, repeat %d: [%d] = %v, want %v", c.shape, c.axis, s, k, i, v, want[s])
					}
					if math.Float64bits(v) != math.Float64bits(same[i]) {
						t.Fatalf("%v axis %d %s: [%d] = %v, Run gives %v", c.shape, c.axis, s, i, v, same[i])
					}
				}
			}
		}
		if in.Len() < serialElems {
			if a := testing.AllocsPerRun(20, func() { p.Run(context.Background(), in, &outs) }); a != 0 {
				t.Errorf("%v axis %d %s: a repeat allocates %v times, want 0", c.shape, c.axis, c.dt, a)
			}
		}
	}
}

// planCase is the plan of opt for arrays of shape and dt, and the length
// of its axis (0 or 1).
func planCase(t *testing.T, shape []int, dt tensor.DType, opt Options) (*CPUPlan, int) {
	t.Helper()
	p, err := NewCPUPlan(shape, dt, opt)
	if err != nil {
		t.Fatal(err)
	}
	if opt.Axes[0] != 0 {
		return p, shape[1]
	}
	return p, shape[0]
}

// newOuts are new outputs of p for stats.
func newOuts(p *CPUPlan, dt tensor.DType, stats []Stat) Outs {
	var outs Outs
	for _, s := range stats {
		outs[s] = tensor.New(dt, p.OutShape()...)
	}
	return outs
}

// wantStats are the statistics of 0, k, 2k, … (fill) along an axis of
// length n, derived by hand.
func wantStats(k float64, n int) map[Stat]float64 {
	fn := float64(n)
	return map[Stat]float64{Sum: k * fn * (fn - 1) / 2, Mean: k * (fn - 1) / 2, Var: k * k * (fn*fn - 1) / 12, Min: 0, Max: k * (fn - 1)}
}

// fill sets in to k times each element's index along axis.
func fill(in *tensor.Tensor, axis int, k float64) {
	cols := 1
	if axis == 0 && len(in.Shape) == 2 {
		cols = in.Shape[1]
	}
	for i := 0; i < in.Len(); i++ {
		v := k * float64(i/cols)
		if axis != 0 {
			v = k * float64(i%in.Shape[len(in.Shape)-1])
		}
		if in.DType == tensor.F64 {
			in.F64[i] = v
		} else {
			in.F32[i] = float32(v)
		}
	}
}

// TestCPUPlanRefuses: a plan refuses what it cannot repeat, and a run on
// arrays that are not the planned ones.
func TestCPUPlanRefuses(t *testing.T) {
	for _, c := range []struct {
		shape []int
		dt    tensor.DType
		opt   Options
		want  string
	}{
		{[]int{10}, tensor.F16, Options{Stats: []Stat{Mean}}, "float32 or float64"},
		{[]int{10}, tensor.F64, Options{}, "one or more of Stats"},
		{[]int{0}, tensor.F64, Options{Stats: []Stat{Mean}}, "length 0"},
		{[]int{0, 3}, tensor.F64, Options{Axes: Axes{1}, Stats: []Stat{Mean}}, "nothing to reduce to"},
		{[]int{10}, tensor.F64, Options{Axes: Axes{1}, Stats: []Stat{Mean}}, "out of range"},
	} {
		if _, err := NewCPUPlan(c.shape, c.dt, c.opt); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v %s: got %v, want %q", c.shape, c.dt, err, c.want)
		}
	}
	p, err := NewCPUPlan([]int{10}, tensor.F64, Options{Stats: []Stat{Mean}})
	if err != nil {
		t.Fatal(err)
	}
	var outs Outs
	outs[Mean] = tensor.New(tensor.F64)
	if _, err := p.Run(context.Background(), tensor.New(tensor.F64, 9), &outs); err == nil || !strings.Contains(err.Error(), "not the planned") {
		t.Errorf("9 elements for 10: %v", err)
	}
	outs[Mean] = tensor.New(tensor.F32)
	if _, err := p.Run(context.Background(), tensor.New(tensor.F64, 10), &outs); err == nil || !strings.Contains(err.Error(), "output mean") {
		t.Errorf("a float32 mean: %v", err)
	}
}

// TestCPUPlanWays: a plan whose work is divided runs it on the calling
// goroutine alone and split over the cores in turn while it learns which
// is faster (its first runs alternate), and the two give the same bits, the
// hand-derived statistics (TestCPUPlanRepeats' fill) along each axis.
func TestCPUPlanWays(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(4)) // divided on any machine
	for _, c := range []struct {
		shape []int
		axis  int
		dt    tensor.DType
	}{
		{[]int{450_001}, 0, tensor.F64},
		{[]int{450_001}, 0, tensor.F32},
		{[]int{4501, 100}, -1, tensor.F64},  // whole runs over the goroutines
		{[]int{1500, 301}, 0, tensor.F64},   // column blocks
		{[]int{3, 150_001}, -1, tensor.F64}, // few runs, each split
	} {
		stats := []Stat{Sum, Mean, Var, Min, Max}
		p, n := planCase(t, c.shape, c.dt, Options{Axes: Axes{c.axis}, Stats: stats})
		in := tensor.New(c.dt, c.shape...)
		fill(in, c.axis, 3)
		var got [2]map[Stat][]float64
		for run := range 2 {
			outs := newOuts(p, c.dt, stats)
			if _, err := p.Run(context.Background(), in, &outs); err != nil {
				t.Fatal(err)
			}
			got[run] = map[Stat][]float64{}
			for _, s := range stats {
				got[run][s] = outs[s].Float64s()
			}
		}
		if p.pace.seen != [2]int{1, 1} {
			t.Fatalf("%v axis %d: runs alone and split %v, want one each", c.shape, c.axis, p.pace.seen)
		}
		want := wantStats(3, n)
		tol := 1e-9
		if c.dt == tensor.F32 {
			tol = 1e-7 // the statistics rounded to float32
		}
		for _, s := range stats {
			for i, v := range got[0][s] {
				if math.Abs(v-want[s]) > tol*math.Max(1, math.Abs(want[s])) {
					t.Fatalf("%v %s axis %d %s alone: [%d] = %v, want %v", c.shape, c.dt, c.axis, s, i, v, want[s])
				}
				if w := got[1][s][i]; math.Float64bits(v) != math.Float64bits(w) {
					t.Fatalf("%v axis %d %s: [%d] = %v alone, %v split", c.shape, c.axis, s, i, v, w)
				}
			}
		}
	}
}

// TestPace: the first runs alternate until each way has paceWindow walls;
// then the way with the lower median runs, the other once every paceProbe
// runs (less often where it is several times slower), and a probe that
// finds the other way faster (its median over the window) turns the
// choice.
func TestPace(t *testing.T) {
	var p pace
	const ms = time.Millisecond
	wall := [2]time.Duration{3 * ms, 5 * ms} // alone faster
	ways := [2]int{}
	for i := 0; i < 2*paceWindow; i++ {
		w := p.next()
		if w != i%2 {
			t.Fatalf("run %d: way %d, want %d (alternating)", i, w, i%2)
		}
		p.record(w, wall[w])
	}
	for i := 0; i < 4*paceProbe; i++ {
		w := p.next()
		ways[w]++
		p.record(w, wall[w])
	}
	if ways != [2]int{4*paceProbe - 4, 4} {
		t.Fatalf("with alone faster: runs %v alone and split, want %d and 4", ways, 4*paceProbe-4)
	}
	wall = [2]time.Duration{5 * ms, 3 * ms} // the split now faster: the probes see it
	for i := 0; i < paceProbe*(paceWindow/2+1); i++ {
		w := p.next()
		p.record(w, wall[w])
	}
	ways = [2]int{}
	for i := 0; i < 4*paceProbe; i++ {
		w := p.next()
		ways[w]++
		p.record(w, wall[w])
	}
	if ways != [2]int{4, 4*paceProbe - 4} {
		t.Fatalf("with the split faster: runs %v alone and split, want 4 and %d", ways, 4*paceProbe-4)
	}
	// One slow run (preempted) among the window does not turn it.
	p.record(waySplit, 100*ms)
	if w := p.next(); w == wayAlone && p.runs%paceProbe != paceProbe-1 {
		t.Fatalf("one slow split run turned the choice")
	}
	// Where the other way is many times slower (many free cores), it is
	// tried as much less often: here 8×, not every paceProbe runs.
	wall = [2]time.Duration{16 * ms, 2 * ms}
	ways = [2]int{}
	for i := 0; i < 64*paceProbe; i++ {
		w := p.next()
		ways[w]++
		p.record(w, wall[w])
	}
	if ways[wayAlone] > 64/4 || ways[wayAlone] == 0 {
		t.Fatalf("with the split 8× faster: %d runs alone in %d, want 1 to %d", ways[wayAlone], 64*paceProbe, 64/4)
	}
}

// TestMedian: the middle of five walls, whatever their order and ties.
func TestMedian(t *testing.T) {
	for _, c := range []struct {
		w    [paceWindow]time.Duration
		want time.Duration
	}{
		{[paceWindow]time.Duration{1, 2, 3, 4, 5}, 3},
		{[paceWindow]time.Duration{5, 4, 3, 2, 1}, 3},
		{[paceWindow]time.Duration{9, 1, 9, 1, 2}, 2},
		{[paceWindow]time.Duration{7, 7, 7, 1, 1}, 7},
		{[paceWindow]time.Duration{0, 0, 0, 0, 0}, 0},
	} {
		if got := median(c.w); got != c.want {
			t.Errorf("median(%v) = %v, want %v", c.w, got, c.want)
		}
	}
}
