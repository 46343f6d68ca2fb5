package quantile

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"testing"

	"github.com/vkstat/vkstat/device/testdev"
	"github.com/vkstat/vkstat/engine"
	"github.com/vkstat/vkstat/internal/checks"
	"github.com/vkstat/vkstat/pipelines/reduce"
	"github.com/vkstat/vkstat/tensor"
)

func TestMain(m *testing.M) { testdev.Main(m) }

// impl is one path of Run: the CPU, or a device, short slices sorted per
// invocation (quantile_thread) or, with workgroups, per workgroup like the
// long ones.
type impl struct {
	name       string
	dev        *engine.Device
	workgroups bool
}

// impls are the CPU path and every Vulkan device, twice (none where there
// is no Vulkan: the CPU suite still runs).
func impls(t *testing.T) []impl {
	out := []impl{{name: "cpu"}}
	if testing.Short() {
		return out
	}
	for _, d := range testdev.Devices(t) {
		out = append(out, impl{name: d.Info.Name, dev: d}, impl{name: d.Info.Name + "/workgroups", dev: d, workgroups: true})
	}
	return out
}

// run is Run on im, failing t on a device that gave the work to the CPU
// unless fallback is allowed. It skips float64 on a device without it.
func (im impl) run(t *testing.T, in *tensor.Tensor, opt Options, fallback bool) *tensor.Tensor {
	t.Helper()
	if im.workgroups {
		defer func(old int) { threadMax = old }(threadMax)
		threadMax = 0
	}
	res, err := Run(context.Background(), im.dev, in, opt)
	testdev.SkipNoFloat64(t, err)
	if err != nil {
		t.Fatal(err)
	}
	if res.Fallback != "" && !fallback {
		t.Fatalf("%s gave the work to the CPU: %s", im.name, res.Fallback)
	}
	return res.Q
}

// tolerances of the suite against a float64 value: float64 paths to
// rounding; float32 results are the float64 value rounded to float32 (half
// an ulp), or interpolated in float on a device without shaderFloat64.
func (im impl) tol(dt tensor.DType) (rtol, atol float64) {
	switch {
	case dt == tensor.F64:
		return 1e-13, 1e-13
	case im.dev != nil && !im.dev.Info.Float64:
		return 2e-6, 2e-6
	}
	return 1e-7, 1e-12
}

func readNPY(t *testing.T, name string) ([]float64, []int) {
	return checks.ReadNPY(t, filepath.Join("..", "..", "testdata", "quantile", name))
}

// fromF64 is v of shape as a tensor of dt.
func fromF64(dt tensor.DType, v []float64, shape ...int) *tensor.Tensor {
	x := tensor.New(dt, shape...)
	for i, f := range v {
		if dt == tensor.F64 {
			x.F64[i] = f
		} else {
			x.F32[i] = float32(f)
		}
	}
	return x
}

// values are x's values in float64.
func values(x *tensor.Tensor) []float64 {
	if x.DType == tensor.F64 {
		return x.F64
	}
	v := make([]float64, len(x.F32))
	for i, f := range x.F32 {
		v[i] = float64(f)
	}
	return v
}

// TestNumPy holds every path to np.quantile and np.nanquantile along each
// axis of a (9, 4, 6) array with NaNs and all-NaN slices, in float64 and
// float32 (testdata/quantile/make_quantile.py).
func TestNumPy(t *testing.T) {
	x, shape := readNPY(t, "x.npy")
	q, _ := readNPY(t, "q.npy")
	for _, im := range impls(t) {
		for _, dt := range []tensor.DType{tensor.F64, tensor.F32} {
			for axis := range 3 {
				for _, skip := range []bool{false, true} {
					file := fmt.Sprintf("quantile_axis%d.npy", axis)
					if skip {
						file = "nan" + file
					}
					t.Run(fmt.Sprintf("%s/%s/%s", im.name, dt, file), func(t *testing.T) {
						want, wshape := readNPY(t, file)
						got := im.run(t, fromF64(dt, x, shape...), Options{Axis: axis - 3*(axis%2), Q: q, SkipNaN: skip}, false)
						if !slices.Equal(got.Shape, wshape) || got.DType != dt {
							t.Fatalf("result %s %s, want %s %s", got.DType, tensor.ShapeString(got.Shape), dt, tensor.ShapeString(wshape))
						}
						rtol, atol := im.tol(dt)
						if dt == tensor.F32 {
							// x rounded to float32 moves a value of x (|x| < 12) by up to 7e-7.
							atol += 1e-6
						}
						checks.Close(t, file, values(got), want, rtol, atol)
					})
				}
			}
			t.Run(fmt.Sprintf("%s/%s/ties", im.name, dt), func(t *testing.T) {
				tx, tshape := readNPY(t, "ties_x.npy")
				odd, _ := readNPY(t, "ties_quantile.npy")
				even, _ := readNPY(t, "ties_even_quantile.npy")
				got := im.run(t, fromF64(dt, tx, tshape...), Options{Axis: -1, Q: q}, false)
				rtol, atol := im.tol(dt)
				checks.Close(t, "ties, 1001 values", values(got), odd, rtol, atol)
				rows, n := tshape[0], tshape[1]
				tail := make([]float64, 0, rows*(n-1))
				for r := range rows {
					tail = append(tail, tx[r*n+1:(r+1)*n]...)
				}
				got = im.run(t, fromF64(dt, tail, rows, n-1), Options{Axis: 1, Q: q}, false)
				checks.Close(t, "ties, 1000 values", values(got), even, rtol, atol)
			})
		}
	}
}

// shuffled is 1..n in a random order.
func shuffled(rng *rand.Rand, n int) []float64 {
	v := make([]float64, n)
	for i := range v {
		v[i] = float64(i + 1)
	}
	rng.Shuffle(n, func(i, j int) { v[i], v[j] = v[j], v[i] })
	return v
}

type handCase struct {
	name string
	x    []float64
	q    []float64
	skip bool
	want []float64
}

// TestHand holds every path to values worked out by hand: quantile q of
// 1..n is 1 + (n−1)·q (its median (n+1)/2), for odd and even n and
// lengths either side of the sorting network's powers of two; a small set
// with ties; q = 0 and 1; a single element; NaNs both ways; infinities.
func TestHand(t *testing.T) {
	rng := rand.New(rand.NewPCG(4, 2))
	q := []float64{0, 0.25, 0.5, 0.9, 1}
	inf, nan := math.Inf(1), math.NaN()
	cases := []handCase{
		{"single", []float64{7}, q, false, []float64{7, 7, 7, 7, 7}},
		{"pair", []float64{4, 1}, q, false, []float64{1, 1.75, 2.5, 3.7, 4}},
		// sorted 1 1 2 3 4 5 6 9: h = 7q
		{"digits of pi", []float64{3, 1, 4, 1, 5, 9, 2, 6}, q, false, []float64{1, 1.75, 3.5, 6.9, 9}},
		{"ties", []float64{2, 2, 2, 2, 2}, q, false, []float64{2, 2, 2, 2, 2}},
		{"ties around the median", []float64{5, 1, 3, 3, 3, 9}, []float64{0.5, 0.2, 0.6, 0.8}, false, []float64{3, 3, 3, 5}},
		{"NaN propagates", []float64{1, nan, 3}, q, false, []float64{nan, nan, nan, nan, nan}},
		{"NaN skipped", []float64{1, nan, 3}, q, true, []float64{1, 1.5, 2, 2.8, 3}},
		{"all NaN skipped", []float64{nan, nan}, q, true, []float64{nan, nan, nan, nan, nan}},
		{"+Inf", []float64{inf, 1}, []float64{0, 0.5, 1}, false, []float64{1, inf, inf}},
		{"both infinities", []float64{inf, -inf, 0}, []float64{0, 0.25, 0.5, 0.75, 1}, false, []float64{-inf, -inf, 0, inf, inf}},
		{"Inf either side of the pick", []float64{-inf, inf}, []float64{0.5}, false, []float64{nan}},
	}
	// float64 only: the values are infinite in float32.
	overflow := handCase{"overflowing difference", []float64{-math.MaxFloat64, math.MaxFloat64}, []float64{0.5, 0.75}, false, []float64{0, math.MaxFloat64 / 2}}
	for _, n := range []int{3, 10, 63, 64, 65, 128, 129, 1000, 1001, 4095} {
		w := make([]float64, len(q))
		for i, qi := range q {
			w[i] = 1 + float64(n-1)*qi
		}
		cases = append(cases, handCase{fmt.Sprintf("1..%d", n), shuffled(rng, n), q, false, w})
	}
	for _, im := range impls(t) {
		for _, dt := range []tensor.DType{tensor.F64, tensor.F32} {
			cs := cases
			if dt == tensor.F64 {
				cs = append(cs[:len(cs):len(cs)], overflow)
			}
			for _, c := range cs {
				t.Run(fmt.Sprintf("%s/%s/%s", im.name, dt, c.name), func(t *testing.T) {
					got := im.run(t, fromF64(dt, c.x, len(c.x)), Options{Axis: 0, Q: c.q, SkipNaN: c.skip}, false)
					if !slices.Equal(got.Shape, []int{len(c.q)}) {
						t.Fatalf("shape %s, want (%d,)", tensor.ShapeString(got.Shape), len(c.q))
					}
					rtol, atol := im.tol(dt)
					checks.Close(t, c.name, values(got), c.want, rtol, atol)
					if ref := Reference(c.x, c.q, c.skip); !checks.Close(t, c.name+" (Reference)", ref, c.want, 1e-15, 0) {
						t.Errorf("Reference disagrees with the hand values")
					}
				})
			}
		}
	}
}

// randomCase is an array of shape with values from a few distributions
// (ties, NaNs), and what to ask of it.
func randomCase(rng *rand.Rand, dt tensor.DType, shape []int) *tensor.Tensor {
	x := tensor.New(dt, shape...)
	kind := rng.IntN(3)
	for i := range tensor.NumElements(shape) {
		v := rng.NormFloat64()*10 + 3
		switch {
		case kind == 1:
			v = float64(rng.IntN(7)) // ties
		case kind == 2 && rng.IntN(50) == 0:
			v = math.NaN()
		}
		if dt == tensor.F64 {
			x.F64[i] = v
		} else {
			x.F32[i] = float32(v)
		}
	}
	return x
}

// want is Reference on every slice of x along axis, laid out as Run's
// result.
func want(x *tensor.Tensor, axis int, q []float64, skip bool) []float64 {
	nd := len(x.Shape)
	a := (axis + nd) % nd
	outer, inner := tensor.NumElements(x.Shape[:a]), tensor.NumElements(x.Shape[a+1:])
	n := x.Shape[a]
	v := values(x)
	out := make([]float64, len(q)*outer*inner)
	s := make([]float64, n)
	for o := range outer {
		for j := range inner {
			for i := range n {
				s[i] = v[(o*n+i)*inner+j]
			}
			for k, r := range Reference(s, q, skip) {
				out[k*outer*inner+o*inner+j] = r
			}
		}
	}
	return out
}

// TestRandom holds every path to Reference on random shapes, axes and
// quantiles, with ties and NaNs, slices of 1 to 2,000 values.
func TestRandom(t *testing.T) {
	rng := rand.New(rand.NewPCG(42, 7))
	for _, im := range impls(t) {
		for c := range 24 {
			dt := []tensor.DType{tensor.F64, tensor.F32}[c%2]
			nd := 1 + rng.IntN(3)
			shape := make([]int, nd)
			for i := range shape {
				shape[i] = 1 + rng.IntN(12)
			}
			axis := rng.IntN(nd)
			shape[axis] = 1 + rng.IntN(2000)
			if rng.IntN(2) == 0 {
				axis -= nd
			}
			q := make([]float64, 1+rng.IntN(5))
			for i := range q {
				q[i] = rng.Float64()
			}
			skip := rng.IntN(2) == 0
			t.Run(fmt.Sprintf("%s/%s/%s/axis%d", im.name, dt, tensor.ShapeString(shape), axis), func(t *testing.T) {
				x := randomCase(rng, dt, shape)
				got := im.run(t, x, Options{Axis: axis, Q: q, SkipNaN: skip}, false)
				rtol, atol := im.tol(dt)
				checks.Close(t, "quantiles", values(got), want(x, axis, q, skip), rtol, atol*100)
			})
		}
	}
}

// TestBadInput checks that what no call can use is refused with an error
// naming it.
func TestBadInput(t *testing.T) {
	x := tensor.New(tensor.F32, 3, 4)
	var field *engine.FieldError
	for _, c := range []struct {
		name  string
		in    *tensor.Tensor
		opt   Options
		field string
		is    error
	}{
		{"q below 0", x, Options{Q: []float64{0.5, -0.1}}, "q", nil},
		{"q above 1", x, Options{Q: []float64{1.5}}, "q", nil},
		{"q NaN", x, Options{Q: []float64{math.NaN()}}, "q", nil},
		{"no q", x, Options{}, "q", nil},
		{"axis 2 of 2", x, Options{Axis: 2, Q: []float64{0.5}}, "axis", nil},
		{"axis -3 of 2", x, Options{Axis: -3, Q: []float64{0.5}}, "axis", nil},
		{"empty axis", tensor.New(tensor.F64, 3, 0), Options{Axis: 1, Q: []float64{0.5}}, "", reduce.ErrEmptyAxis},
		{"0-d", tensor.New(tensor.F64), Options{Q: []float64{0.5}}, "", nil},
		{"float16", tensor.New(tensor.F16, 4), Options{Q: []float64{0.5}}, "", ErrDType},
		{"nil", nil, Options{Q: []float64{0.5}}, "", nil},
	} {
		for _, im := range impls(t) {
			_, err := Run(context.Background(), im.dev, c.in, c.opt)
			switch {
			case err == nil:
				t.Errorf("%s on %s: no error", c.name, im.name)
			case c.field != "" && (!errors.As(err, &field) || field.Field != c.field):
				t.Errorf("%s on %s: %v is not a FieldError of %q", c.name, im.name, err, c.field)
			case c.is != nil && !errors.Is(err, c.is):
				t.Errorf("%s on %s: %v is not %v", c.name, im.name, err, c.is)
			default:
				t.Logf("%s: %v", c.name, err)
			}
		}
	}
}

// TestCheck checks that the defaults pass Check and are the median along
// axis 0.
func TestCheck(t *testing.T) {
	d := DefaultOptions()
	if err := d.Check(); err != nil {
		t.Fatal(err)
	}
	m := Defaults()
	if m["axis"] != 0 || !slices.Equal(m["q"].([]float64), []float64{0.5}) || m["skip_nan"] != false {
		t.Errorf("Defaults() = %v, want axis 0, q [0.5], skip_nan false", m)
	}
}

// TestCancel checks that a cancelled call returns the context's error.
func TestCancel(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	x := randomCase(rand.New(rand.NewPCG(1, 1)), tensor.F64, []int{50, 1000})
	if _, err := Run(ctx, nil, x, Options{Axis: 0, Q: []float64{0.5}}); !errors.Is(err, context.Canceled) {
		t.Errorf("err %v, want context.Canceled", err)
	}
}

// TestVulkanPasses holds each device to Reference with passes capped at a
// few slices: whole blocks, and the columns of one block packed on upload
// (an axis-0 stack beyond one binding).
func TestVulkanPasses(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 9))
	for _, im := range impls(t)[1:] {
		for _, c := range []struct {
			shape []int
			axis  int
			cap   int
		}{{[]int{13, 5, 7}, 0, 4}, {[]int{3, 13, 10}, 1, 7}, {[]int{6, 40}, 1, 4}, {[]int{2, 50, 3}, 1, 2}} {
			t.Run(fmt.Sprintf("%s/%s/cap%d", im.name, tensor.ShapeString(c.shape), c.cap), func(t *testing.T) {
				passCap = c.cap
				defer func() { passCap = 0 }()
				x := randomCase(rng, tensor.F32, c.shape)
				q := []float64{0.5, 0.1, 1}
				got := im.run(t, x, Options{Axis: c.axis, Q: q, SkipNaN: true}, false)
				rtol, atol := im.tol(tensor.F32)
				checks.Close(t, "quantiles", values(got), want(x, c.axis, q, true), rtol, atol*100)
			})
		}
	}
}

// TestVulkanFallback checks that slices too long for a device's shared
// memory are taken by the CPU, said in Result.Fallback, and right.
func TestVulkanFallback(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 3))
	for _, im := range impls(t)[1:] {
		p, err := PlanDevice(1, tensor.F32, im.dev.Info)
		if err != nil || !p.Device {
			t.Fatalf("%s: %+v %v", im.name, p, err)
		}
		n := int(im.dev.Info.MaxSharedMemory)/4 + 1
		x := randomCase(rng, tensor.F32, []int{2, n})
		q := []float64{0.5, 0.99}
		res, err := Run(context.Background(), im.dev, x, Options{Axis: 1, Q: q})
		if err != nil {
			t.Fatal(err)
		}
		if res.Fallback == "" {
			t.Errorf("%s: slices of %d float32 values ran on the device", im.name, n)
		}
		t.Log(res.Fallback)
		checks.Close(t, "quantiles", res.Q.F32, want(x, 1, q, false), 1e-7, 1e-10)
	}
}

// TestEmptyOutput checks that an array with no slices (a non-empty axis,
// another of length 0) gives an empty result of NumPy's shape on every
// path, and that Options.Out gives the result its memory.
func TestEmptyOutput(t *testing.T) {
	for _, im := range impls(t) {
		got := im.run(t, tensor.New(tensor.F32, 0, 5), Options{Axis: 1, Q: []float64{0.5, 0.7}}, false)
		if !slices.Equal(got.Shape, []int{2, 0}) || len(got.F32) != 0 {
			t.Errorf("%s: shape %s with %d values, want (2, 0)", im.name, tensor.ShapeString(got.Shape), len(got.F32))
		}
		mine := tensor.New(tensor.F64, 1, 3)
		out := &tensor.Outputs{Alloc: func(name string, dt tensor.DType, shape []int) *tensor.Tensor {
			if name != "q" || dt != tensor.F64 || !slices.Equal(shape, mine.Shape) {
				t.Errorf("%s: Alloc(%q, %s, %v), want q float64 (1, 3)", im.name, name, dt, shape)
			}
			return mine
		}}
		x := fromF64(tensor.F64, []float64{1, 2, 3, 4, 5, 6}, 2, 3)
		got = im.run(t, x, Options{Axis: 0, Q: []float64{0.5}, Out: out}, false)
		if got != mine || !slices.Equal(mine.F64, []float64{2.5, 3.5, 4.5}) {
			t.Errorf("%s: the result %v in the caller's memory %v, want [2.5 3.5 4.5] there", im.name, got.F64, mine.F64)
		}
	}
}
