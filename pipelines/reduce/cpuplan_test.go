package reduce

import (
	"context"
	"math"
	"strings"
	"testing"

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
		p, err := NewCPUPlan(c.shape, c.dt, opt)
		if err != nil {
			t.Fatal(err)
		}
		n := c.shape[0]
		if c.axis != 0 {
			n = c.shape[1]
		}
		var outs Outs
		for _, s := range stats {
			outs[s] = tensor.New(c.dt, p.OutShape()...)
		}
		in := tensor.New(c.dt, c.shape...)
		for k := 1; k <= 3; k++ {
			fill(in, c.axis, float64(k))
			if _, err := p.Run(context.Background(), in, &outs); err != nil {
				t.Fatal(err)
			}
			fk, fn := float64(k), float64(n)
			want := map[Stat]float64{Sum: fk * fn * (fn - 1) / 2, Mean: fk * (fn - 1) / 2, Var: fk * fk * (fn*fn - 1) / 12, Min: 0, Max: fk * (fn - 1)}
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
