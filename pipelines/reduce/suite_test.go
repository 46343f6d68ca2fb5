package reduce

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/vkstat/vkstat/device/testdev"

	"github.com/vkstat/vkstat/internal/checks"
	"github.com/vkstat/vkstat/tensor"
)

// reduceImpl is the API every implementation of the reduction (CPU, Vulkan)
// offers.
type reduceImpl func(in *tensor.Tensor, opt Options, stats []Stat) (map[Stat]*tensor.Tensor, error)

// Tolerances of runReduceSuite, elementwise relative (see checks.Close).
// The data have a mean far from zero compared with their spread (offset +
// noise), so sums and means are not near zero and a float32 accumulation or
// a Σx² − (Σx)²/n variance fails them.
const (
	reduceRTolF64 = 1e-12
	reduceRTolF32 = 1e-5
)

func reduceRTol(dt tensor.DType) float64 {
	if dt == tensor.F64 {
		return reduceRTolF64
	}
	return reduceRTolF32
}

// reduceSuiteCase is one input of the suite: a shape, the axes to reduce it
// along, and how to fill it.
type reduceSuiteCase struct {
	shape      []int
	axes       []int
	off, scale float64 // values are off + scale·N(0,1)
	nan        []bool  // data variants: without and/or with planted NaNs
}

// runReduceSuite holds impl against Reference: 1-D sizes that straddle block
// edges, 2-D and 3-D shapes along every axis (negative ones too), ddof 0 and
// 1, SkipNaN off and on with NaNs planted (a slice of NaNs only, a slice with
// one value left, scattered NaNs), float64 and float32, subsets of the
// statistics, 10⁷-element float32 reductions of data with mean 1000 and
// spread 1, and out-of-range axes. big adds float32 arrays over 128 MiB
// (Vulkan's maxStorageBufferRange on lavapipe): (34000000,) along axis 0 and
// (2, 17000000) along axis 1.
func runReduceSuite(t *testing.T, impl reduceImpl, big bool) {
	runEmptyOutputs(t, impl)
	t.Helper()
	both := []bool{false, true}
	cases := []reduceSuiteCase{
		{shape: []int{1}, axes: []int{0, -1}, off: 3, scale: 1, nan: []bool{false}},
		{shape: []int{255}, axes: []int{0, -1}, off: 1000, scale: 1, nan: both},
		{shape: []int{256}, axes: []int{0}, off: -7.5, scale: 0.5, nan: both},
		{shape: []int{257}, axes: []int{-1}, off: 1000, scale: 1, nan: both},
		{shape: []int{1_000_003}, axes: []int{0}, off: 1000, scale: 1, nan: both},
		{shape: []int{33, 257}, axes: []int{0, 1, -1, -2}, off: 1000, scale: 1, nan: both},
		{shape: []int{3, 257, 5}, axes: []int{0, 1, 2, -1, -2, -3}, off: -40, scale: 2, nan: both},
		{shape: []int{64, 33, 17}, axes: []int{0, 1, 2, -1, -2, -3}, off: 1000, scale: 1, nan: both},
		{shape: []int{1, 1, 1}, axes: []int{0, 1, 2, -1, -2, -3}, off: 2, scale: 1, nan: both},
		{shape: []int{4, 1, 6}, axes: []int{0, 1, -1}, off: 5, scale: 1, nan: both},
		// Several column blocks and row chunks per block.
		{shape: []int{3, 700, 1030}, axes: []int{0, 1, 2}, off: 1000, scale: 1, nan: []bool{true}},
		// A long axis with few columns, and many short runs.
		{shape: []int{200_000, 3}, axes: []int{0, 1}, off: 1000, scale: 1, nan: both},
		{shape: []int{5, 40_000}, axes: []int{-1}, off: 1000, scale: 1, nan: both},
	}
	for ci, c := range cases {
		for _, axis := range c.axes {
			for _, dt := range []tensor.DType{tensor.F64, tensor.F32} {
				for _, planted := range c.nan {
					name := fmt.Sprintf("%s/%s/axis%d", dt, tensor.ShapeString(c.shape), axis)
					if planted {
						name += "/nan"
					}
					t.Run(name, func(t *testing.T) {
						seed := uint64(ci*1000 + (axis+8)*10 + int(dt)*2)
						if planted {
							seed++
						}
						in := reduceSuiteData(dt, c.shape, axis, c.off, c.scale, seed, planted)
						ref := in.Float64s()
						for _, ddof := range []int{0, 1} {
							for _, skip := range []bool{false, true} {
								opt := Options{Axes: Axes{axis}, DDof: ddof, SkipNaN: skip}
								reduceSuiteCheck(t, impl, in, ref, opt, AllStats(), reduceRTol(dt))
							}
						}
					})
				}
			}
		}
	}

	t.Run("subsets", func(t *testing.T) {
		subsets := [][]Stat{{Mean, Std}, {Min, Max}, {Sum}, {Var, Max}, {Min}, {Mean}, {Std, Std}}
		for _, shape := range [][]int{{1_000_003}, {3, 257, 5}} {
			for _, dt := range []tensor.DType{tensor.F64, tensor.F32} {
				for axis := range shape {
					in := reduceSuiteData(dt, shape, axis, 1000, 1, uint64(7+axis), true)
					ref := in.Float64s()
					for _, stats := range subsets {
						for _, skip := range []bool{false, true} {
							opt := Options{Axes: Axes{axis}, DDof: 1, SkipNaN: skip}
							reduceSuiteCheck(t, impl, in, ref, opt, stats, reduceRTol(dt))
						}
					}
				}
			}
		}
	})

	t.Run("float32/1e7", func(t *testing.T) {
		for _, c := range []struct {
			shape []int
			axis  int
		}{{[]int{10_000_000}, 0}, {[]int{40, 250_000}, 0}} {
			in := reduceSuiteData(tensor.F32, c.shape, c.axis, 1000, 1, 1e7, false)
			ref := in.Float64s()
			reduceSuiteCheck(t, impl, in, ref, Options{Axes: Axes{c.axis}, DDof: 1}, AllStats(), reduceRTolF32)
			reduceSuiteCheck(t, impl, in, ref, Options{Axes: Axes{c.axis}, SkipNaN: true}, []Stat{Mean, Var}, reduceRTolF32)
		}
	})

	t.Run("axis-out-of-range", func(t *testing.T) {
		for _, c := range []struct {
			shape []int
			axis  int
		}{{[]int{3, 4, 5}, 3}, {[]int{3, 4, 5}, -4}, {[]int{7}, 1}, {[]int{7}, -2}, {[]int{}, 0}} {
			in := tensor.New(tensor.F32, c.shape...)
			out, err := impl(in, Options{Axes: Axes{c.axis}}, []Stat{Mean})
			if err == nil {
				t.Errorf("shape %s axis %d: got %d outputs and no error", tensor.ShapeString(c.shape), c.axis, len(out))
				continue
			}
			t.Logf("shape %s axis %d: %v", tensor.ShapeString(c.shape), c.axis, err)
		}
	})

	if big {
		t.Run("float32/big", func(t *testing.T) {
			for _, c := range []struct {
				shape []int
				axis  int
			}{{[]int{34_000_000}, 0}, {[]int{2, 17_000_000}, 1}} {
				in := reduceSuiteData(tensor.F32, c.shape, c.axis, 1000, 1, 34, true)
				ref := in.Float64s()
				reduceSuiteCheck(t, impl, in, ref, Options{Axes: Axes{c.axis}, DDof: 1, SkipNaN: true}, AllStats(), reduceRTolF32)
				reduceSuiteCheck(t, impl, in, ref, Options{Axes: Axes{c.axis}}, []Stat{Mean, Std}, reduceRTolF32)
			}
		})
	}
}

// reduceSuiteData fills a tensor with off + scale·N(0,1). With plantNaN it
// plants NaNs in slices along axis: when there are several slices the first
// is all NaN and the second keeps one value; about one slice in eight gets
// one to three NaNs. A single slice gets a few NaNs.
func reduceSuiteData(dt tensor.DType, shape []int, axis int, off, scale float64, seed uint64, plantNaN bool) *tensor.Tensor {
	rng := rand.New(rand.NewPCG(seed, 0x726564))
	in := tensor.New(dt, shape...)
	n := in.Len()
	set := func(k int, v float64) {
		if dt == tensor.F64 {
			in.F64[k] = v
		} else {
			in.F32[k] = float32(v)
		}
	}
	for k := 0; k < n; k++ {
		set(k, off+scale*rng.NormFloat64())
	}
	if !plantNaN || n == 0 {
		return in
	}
	g, err := Plan(shape, axis)
	if err != nil {
		panic(err)
	}
	nan := math.NaN()
	at := func(out, i int) int {
		o, j := out/g.Inner, out%g.Inner
		return (o*g.N+i)*g.Inner + j
	}
	outs := g.Outputs()
	if outs == 1 {
		for k := 0; k < 3; k++ {
			set(at(0, rng.IntN(g.N)), nan)
		}
		return in
	}
	for i := 0; i < g.N; i++ {
		set(at(0, i), nan)
	}
	keep := rng.IntN(g.N)
	for i := 0; i < g.N; i++ {
		if i != keep {
			set(at(1, i), nan)
		}
	}
	for out := 2; out < outs; out++ {
		if rng.IntN(8) == 0 {
			for k := rng.IntN(3); k >= 0; k-- {
				set(at(out, rng.IntN(g.N)), nan)
			}
		}
	}
	return in
}

// reduceSuiteCheck runs impl and compares the requested statistics with
// Reference (data holds in's values as float64).
func reduceSuiteCheck(t *testing.T, impl reduceImpl, in *tensor.Tensor, data []float64, opt Options, stats []Stat, rtol float64) {
	t.Helper()
	what := fmt.Sprintf("%s %s axis %s ddof %d skipnan %v", in.DType, tensor.ShapeString(in.Shape), opt.Axes, opt.DDof, opt.SkipNaN)
	g, err := opt.Geometry(in.Shape)
	if err != nil {
		t.Fatalf("%s: %v", what, err)
	}
	want, err := Reference(data, in.Shape, opt)
	if err != nil {
		t.Fatalf("%s: reference: %v", what, err)
	}
	got, err := impl(in, opt, stats)
	testdev.SkipNoFloat64(t, err)
	if err != nil {
		t.Errorf("%s %v: %v", what, stats, err)
		return
	}
	for _, s := range stats {
		out := got[s]
		name := what + " " + s.String()
		if out == nil {
			t.Errorf("%s: missing from the result", name)
			continue
		}
		if out.DType != outType(in.DType) {
			t.Errorf("%s: result is %s, want %s", name, out.DType, outType(in.DType))
			continue
		}
		if !tensor.SameShape(out.Shape, g.OutShape) {
			t.Errorf("%s: result has shape %s, want %s", name, tensor.ShapeString(out.Shape), tensor.ShapeString(g.OutShape))
			continue
		}
		if out.DType == tensor.F64 {
			checks.Close(t, name, out.F64, want[s], rtol, 0)
		} else {
			checks.Close(t, name, out.F32, want[s], rtol, 0)
		}
	}
}

func TestCPU(t *testing.T) {
	runReduceSuite(t, CPU, !testing.Short())
}

// TestCPUErrors checks CPU's refusals of bad requests.
func TestCPUErrors(t *testing.T) {
	in := tensor.New(tensor.F32, 3, 4)
	if _, err := CPU(in, Options{}, nil); err == nil {
		t.Errorf("no statistics: got no error")
	}
	if _, err := CPU(in, Options{}, []Stat{Mean, Stat(42)}); err == nil {
		t.Errorf("Stat(42): got no error")
	}
	if _, err := CPU(tensor.FromF64(make([]float64, 11), 3, 4), Options{}, []Stat{Mean}); err == nil {
		t.Errorf("11 values for shape (3, 4): got no error")
	}
	if _, err := CPU(nil, Options{}, []Stat{Mean}); err == nil {
		t.Errorf("nil input: got no error")
	}
	if _, err := CPU(tensor.New(tensor.F64, 3, 0, 2), Options{Axes: Axes{1}}, []Stat{Mean}); err == nil {
		t.Errorf("axis of length 0: got no error")
	}
}

// TestReferenceKnown holds Reference to values worked out by hand (and
// agreeing with NumPy).
func TestReferenceKnown(t *testing.T) {
	nan := math.NaN()
	// [[1, 2, 3], [4, NaN, 6]]
	data := []float64{1, 2, 3, 4, nan, 6}
	cases := []struct {
		opt  Options
		want map[Stat][]float64
	}{
		{Options{Axes: Axes{0}}, map[Stat][]float64{
			Sum: {5, nan, 9}, Mean: {2.5, nan, 4.5}, Var: {2.25, nan, 2.25},
			Std: {1.5, nan, 1.5}, Min: {1, nan, 3}, Max: {4, nan, 6}}},
		{Options{Axes: Axes{-1}, DDof: 1}, map[Stat][]float64{
			Sum: {6, nan}, Mean: {2, nan}, Var: {1, nan}, Std: {1, nan}, Min: {1, nan}, Max: {3, nan}}},
		{Options{Axes: Axes{1}, DDof: 1, SkipNaN: true}, map[Stat][]float64{
			Sum: {6, 10}, Mean: {2, 5}, Var: {1, 2}, Std: {1, math.Sqrt2}, Min: {1, 4}, Max: {3, 6}}},
		{Options{Axes: Axes{0}, DDof: 1, SkipNaN: true}, map[Stat][]float64{
			Sum: {5, 2, 9}, Mean: {2.5, 2, 4.5}, Var: {4.5, nan, 4.5},
			Std: {math.Sqrt(4.5), nan, math.Sqrt(4.5)}, Min: {1, 2, 3}, Max: {4, 2, 6}}},
	}
	for _, c := range cases {
		got, err := Reference(data, []int{2, 3}, c.opt)
		if err != nil {
			t.Fatal(err)
		}
		for s, w := range c.want {
			checks.Close(t, fmt.Sprintf("%+v %s", c.opt, s), got[s], w, 1e-15, 0)
		}
	}
	// A slice of NaNs only, skipped: nansum is 0, the rest NaN.
	got, err := Reference([]float64{nan, nan}, []int{2}, Options{SkipNaN: true})
	if err != nil {
		t.Fatal(err)
	}
	for s, v := range got {
		want := nan
		if s == Sum {
			want = 0
		}
		checks.Close(t, "all-NaN "+s.String(), v, []float64{want}, 0, 0)
	}
	// Infinities: mean ±Inf, var NaN (Inf − Inf), min and max exact.
	got, err = Reference([]float64{1, math.Inf(1), 2}, []int{3}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	for s, w := range map[Stat]float64{Sum: math.Inf(1), Mean: math.Inf(1), Var: nan, Min: 1, Max: math.Inf(1)} {
		checks.Close(t, "inf "+s.String(), got[s], []float64{w}, 0, 0)
	}
	if _, err := Reference(data, []int{2, 3}, Options{Axes: Axes{2}}); err == nil {
		t.Errorf("axis 2 of a 2-d array: got no error")
	}
	if _, err := Reference(data, []int{7}, Options{}); err == nil {
		t.Errorf("6 values for shape (7,): got no error")
	}
}

// TestCPUInfinities checks NaN and infinity rules that the suite's random
// data do not reach: +Inf and −Inf in one slice give a NaN mean but exact
// min and max, in runs and in columns, serial and split.
func TestCPUInfinities(t *testing.T) {
	inf := math.Inf(1)
	for _, n := range []int{5, 300_000} {
		data := make([]float64, 2*n)
		for i := range data {
			data[i] = float64(i % 7)
		}
		data[1], data[n-2] = inf, -inf // both in row 0 of (2, n)
		for _, c := range []struct {
			shape []int
			axis  int
		}{{[]int{2, n}, 1}, {[]int{n, 2}, 0}} {
			in := tensor.FromF64(data, c.shape...)
			got, err := CPU(in, Options{Axes: Axes{c.axis}}, AllStats())
			if err != nil {
				t.Fatal(err)
			}
			want, err := Reference(data, c.shape, Options{Axes: Axes{c.axis}})
			if err != nil {
				t.Fatal(err)
			}
			for _, s := range AllStats() {
				checks.Close(t, fmt.Sprintf("%s axis %d %s", tensor.ShapeString(c.shape), c.axis, s), got[s].F64, want[s], 1e-12, 0)
			}
		}
	}
}

// runEmptyOutputs holds impl to NumPy on inputs with no output element:
// np.zeros((0, 5)).mean(axis=1) has shape (0,). The CPU path once divided by
// zero here (issue 9).
func runEmptyOutputs(t *testing.T, impl reduceImpl) {
	t.Helper()
	cases := []struct {
		shape []int
		axis  int
		want  []int
	}{{[]int{0, 5}, 1, []int{0}}, {[]int{0, 5}, -1, []int{0}}, {[]int{5, 0}, 0, []int{0}}, {[]int{2, 0, 3}, 2, []int{2, 0}}, {[]int{3, 4, 0}, 1, []int{3, 0}}}
	for _, c := range cases {
		for _, dt := range []tensor.DType{tensor.F32, tensor.F64} {
			out, err := impl(tensor.New(dt, c.shape...), Options{Axes: Axes{c.axis}}, AllStats())
			testdev.SkipNoFloat64(t, err)
			if err != nil {
				t.Errorf("%s shape %v axis %d: %v", dt, c.shape, c.axis, err)
				continue
			}
			for _, s := range AllStats() {
				if got := out[s]; got == nil || !tensor.SameShape(got.Shape, c.want) || got.Len() != 0 {
					t.Errorf("%s shape %v axis %d: %s = %v, want an empty array of shape %v", dt, c.shape, c.axis, s, got, c.want)
				}
			}
		}
	}
}
