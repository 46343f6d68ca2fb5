package mapx

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/vkstat/vkstat/device/testdev"
	"github.com/vkstat/vkstat/engine"
	"github.com/vkstat/vkstat/internal/checks"
	"github.com/vkstat/vkstat/tensor"
)

// mapImpl is the API every implementation of the map (CPU, Vulkan) offers.
type mapImpl func(x, y *tensor.Tensor, p Options) (*tensor.Tensor, error)

// Tolerances of runMapSuite, elementwise relative (see checks.Close).
// float64 paths must agree with Reference to rounding; float32 paths make a
// handful of float32 roundings on values bounded away from zero.
const (
	mapRTolF64 = 1e-12
	mapRTolF32 = 1e-6
)

// mapSuiteParams are chosen, with inputs x in [-2, 2] and y in [-1, 1], so
// that z >= 7.2 with the first and z <= -18.5 with the second: no
// cancellation, so an elementwise relative tolerance is meaningful for
// float32.
var mapSuiteParams = []Options{{A: 3.5, B: 2.8, C: 10}, {A: -0.5, B: 1.5, C: -20}}

// runMapSuite holds impl against Reference on sizes that straddle block and
// workgroup edges, in float64 and float32, with NaNs planted, and checks that
// mismatched inputs are refused. big adds a case whose buffers exceed
// 128 MiB (Vulkan's maxStorageBufferRange on lavapipe): 34,000,000 float32
// elements, 136 MB per input.
func runMapSuite(t *testing.T, impl mapImpl, big bool) {
	t.Helper()
	shapes := [][]int{{1}, {255}, {256}, {257}, {1_000_003}, {3, 257, 5}, {2, 1, 4, 1, 3}}
	for _, dt := range []tensor.DType{tensor.F64, tensor.F32} {
		for _, shape := range shapes {
			for pi, p := range mapSuiteParams {
				name := fmt.Sprintf("%s/%s/p%d", dt, tensor.ShapeString(shape), pi)
				t.Run(name, func(t *testing.T) {
					seed := uint64(tensor.NumElements(shape))*31 + uint64(pi)*7 + uint64(dt)
					x, y := mapSuiteInputs(dt, shape, seed, true)
					mapSuiteCheck(t, impl, x, y, p)
				})
			}
		}
	}
	t.Run("mismatch", func(t *testing.T) {
		cases := []struct {
			name string
			x, y *tensor.Tensor
		}{
			{"dtype", tensor.New(tensor.F64, 4, 5), tensor.New(tensor.F32, 4, 5)},
			{"shape", tensor.New(tensor.F32, 3, 4), tensor.New(tensor.F32, 4, 3)},
			{"rank", tensor.New(tensor.F64, 12), tensor.New(tensor.F64, 3, 4)},
			{"length", tensor.New(tensor.F32, 256), tensor.New(tensor.F32, 257)},
		}
		for _, c := range cases {
			z, err := impl(c.x, c.y, mapSuiteParams[0])
			if err == nil {
				t.Errorf("%s mismatch: x %s %s, y %s %s: got a result of shape %v and no error",
					c.name, c.x.DType, tensor.ShapeString(c.x.Shape), c.y.DType, tensor.ShapeString(c.y.Shape), z.Shape)
				continue
			}
			t.Logf("%s mismatch: %v", c.name, err)
		}
	})
	if big {
		t.Run("float32/big-34M", func(t *testing.T) {
			shape := []int{34_000_000}
			x, y := mapSuiteInputs(tensor.F32, shape, 34, false)
			mapSuiteCheck(t, impl, x, y, mapSuiteParams[0])
		})
	}
}

// mapSuiteInputs returns x uniform in [-2, 2] and y uniform in [-1, 1]; with
// plantNaN a few elements of each (not the same ones) are NaN.
func mapSuiteInputs(dt tensor.DType, shape []int, seed uint64, plantNaN bool) (x, y *tensor.Tensor) {
	rng := rand.New(rand.NewPCG(seed, 0x6d6170))
	x, y = tensor.New(dt, shape...), tensor.New(dt, shape...)
	n := x.Len()
	for i := 0; i < n; i++ {
		xv, yv := 4*rng.Float64()-2, 2*rng.Float64()-1
		if dt == tensor.F64 {
			x.F64[i], y.F64[i] = xv, yv
		} else {
			x.F32[i], y.F32[i] = float32(xv), float32(yv)
		}
	}
	if plantNaN && n >= 8 {
		for k := 0; k < 3; k++ {
			i, j := rng.IntN(n), rng.IntN(n)
			if dt == tensor.F64 {
				x.F64[i], y.F64[j] = math.NaN(), math.NaN()
			} else {
				x.F32[i], y.F32[j] = float32(math.NaN()), float32(math.NaN())
			}
		}
	}
	return x, y
}

// mapSuiteCheck runs impl on (x, y) and compares with Reference.
func mapSuiteCheck(t *testing.T, impl mapImpl, x, y *tensor.Tensor, p Options) {
	t.Helper()
	z, err := impl(x, y, p)
	testdev.SkipNoFloat64(t, err)
	if err != nil {
		t.Fatalf("impl: %v", err)
	}
	if z == nil {
		t.Fatalf("impl returned a nil tensor and no error")
	}
	if z.DType != x.DType {
		t.Fatalf("result is %s, want %s", z.DType, x.DType)
	}
	if !tensor.SameShape(z.Shape, x.Shape) {
		t.Fatalf("result has shape %s, want %s", tensor.ShapeString(z.Shape), tensor.ShapeString(x.Shape))
	}
	want := Reference(x.Float64s(), y.Float64s(), p)
	if z.DType == tensor.F64 {
		checks.Close(t, "z", z.F64, want, mapRTolF64, 0)
	} else {
		checks.Close(t, "z", z.F32, want, mapRTolF32, 0)
	}
}

func TestCPU(t *testing.T) {
	runMapSuite(t, CPU, !testing.Short())
}

// TestCPUErrors checks the wording of CPU's refusals: both shapes or both
// dtypes are named.
func TestCPUErrors(t *testing.T) {
	_, err := CPU(tensor.New(tensor.F32, 3, 4), tensor.New(tensor.F32, 4, 3), Options{})
	if err == nil || !strings.Contains(err.Error(), "(3, 4)") || !strings.Contains(err.Error(), "(4, 3)") {
		t.Errorf("shape mismatch: got error %v, want one naming (3, 4) and (4, 3)", err)
	}
	_, err = CPU(tensor.New(tensor.F64, 5), tensor.New(tensor.F32, 5), Options{})
	if err == nil || !strings.Contains(err.Error(), "float64") || !strings.Contains(err.Error(), "float32") {
		t.Errorf("dtype mismatch: got error %v, want one naming float64 and float32", err)
	}
	short := tensor.FromF64(make([]float64, 11), 3, 4)
	if _, err = CPU(short, tensor.New(tensor.F64, 3, 4), Options{}); err == nil {
		t.Errorf("x with 11 values for shape (3, 4): got no error")
	}
	if _, err = CPU(nil, tensor.New(tensor.F64, 3, 4), Options{}); err == nil {
		t.Errorf("nil x: got no error")
	}
}

// TestCPUFloat32Arithmetic checks that float32 inputs are computed in
// float32 with float32 coefficients, as the documentation says.
func TestCPUFloat32Arithmetic(t *testing.T) {
	xs := []float32{0.1, 1.7, -3.3, 1e-3, 123.456}
	ys := []float32{2.2, -0.7, 9.1, 5e4, -1e-2}
	p := Options{A: 0.3, B: 1.1, C: -2.9}
	z, err := CPU(tensor.FromF32(xs, 5), tensor.FromF32(ys, 5), p)
	if err != nil {
		t.Fatal(err)
	}
	a, b, c := float32(p.A), float32(p.B), float32(p.C)
	for i := range xs {
		want := a*xs[i]*xs[i] + b*ys[i] + c
		// Allow two ulps of difference for FMA contractions; computing in
		// float64 and rounding once would differ by more on these values.
		w := float64(want)
		ulp := float64(math.Nextafter32(float32(math.Abs(w)), float32(math.Inf(1)))) - math.Abs(w)
		if d := math.Abs(float64(z.F32[i]) - w); d > 2*ulp {
			t.Errorf("[%d] got %g want %g (float32 arithmetic)", i, z.F32[i], want)
		}
	}
}

// TestRunOverCPU: Run with Input.Over on the CPU path passes the suite on
// a copy of x (it writes z over its x) and returns that copy's memory as z.
func TestRunOverCPU(t *testing.T) {
	runMapSuite(t, func(x, y *tensor.Tensor, p Options) (*tensor.Tensor, error) {
		xc := tensor.New(x.DType, x.Shape...)
		copy(xc.Raw(), x.Raw())
		r, err := Run(context.Background(), nil, Input{X: xc, Y: y, Over: true}, p)
		if err != nil {
			return nil, err
		}
		if r.Z.Len() > 0 && &r.Z.Raw()[0] != &xc.Raw()[0] {
			t.Errorf("%s: z is not x's memory", tensor.ShapeString(x.Shape))
		}
		return r.Z, nil
	}, false)
}

// intoImpl runs Run with Input.Z on dev (nil: the CPU path) into a z the test
// allocates, so that the suite checks that the results land in the
// caller's memory.
func intoImpl(dev *engine.Device) mapImpl {
	return func(x, y *tensor.Tensor, p Options) (*tensor.Tensor, error) {
		if x == nil {
			return nil, fmt.Errorf("nil x")
		}
		z := tensor.New(x.DType, x.Shape...)
		_, err := Run(context.Background(), dev, Input{X: x, Y: y, Z: z}, p)
		return z, err
	}
}

func TestRunIntoCPU(t *testing.T) {
	runMapSuite(t, intoImpl(nil), false)
}

func TestRunIntoVulkan(t *testing.T) {
	for _, dev := range testdev.Devices(t) {
		t.Run(dev.Info.Name, func(t *testing.T) { runMapSuite(t, intoImpl(dev), false) })
	}
}

// TestRunIntoRefusesWrongZ: a z of another dtype or shape than x is an
// error naming both, on every path.
func TestRunIntoRefusesWrongZ(t *testing.T) {
	x, y := tensor.New(tensor.F32, 3, 4), tensor.New(tensor.F32, 3, 4)
	for _, z := range []*tensor.Tensor{tensor.New(tensor.F64, 3, 4), tensor.New(tensor.F32, 4, 3)} {
		_, err := Run(context.Background(), nil, Input{X: x, Y: y, Z: z}, Options{})
		if err == nil || !strings.Contains(err.Error(), "z is "+z.DType.String()+" "+tensor.ShapeString(z.Shape)) {
			t.Errorf("z %s %s: got %v, want an error naming it", z.DType, tensor.ShapeString(z.Shape), err)
		}
	}
}

// TestCPUCancelled: the CPU path stops with the context's error, before
// the first piece when the context is already done, and writes nothing.
func TestCPUCancelled(t *testing.T) {
	n := 3*cpuPiece + 5
	x, y, z := tensor.New(tensor.F32, n), tensor.New(tensor.F32, n), tensor.New(tensor.F32, n)
	for i := range x.F32 {
		x.F32[i], z.F32[i] = 1, -1
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := Run(ctx, nil, Input{X: x, Y: y, Z: z}, Options{A: 1}); !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled context: got %v, want context.Canceled", err)
	}
	for i, v := range z.F32 {
		if v != -1 {
			t.Fatalf("z[%d] = %g after a cancelled run, want it untouched (-1)", i, v)
		}
	}
}
