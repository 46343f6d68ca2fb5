package latent

import (
	"context"
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

func TestMain(m *testing.M) { testdev.Main(m) }

// storage is a storage precision the suite quantises its data to: the
// values a float16, bfloat16, float32 or float64 file holds, as the
// readers give them (float16 and bfloat16 read as float32, exactly).
type storage struct {
	name  string
	dt    tensor.DType
	round func(float64) float64
}

var storages = []storage{
	{"float16", tensor.F32, func(v float64) float64 { return float64(tensor.RoundHalf(float32(v))) }},
	{"bfloat16", tensor.F32, func(v float64) float64 { return float64(tensor.RoundBFloat16(float32(v))) }},
	{"float32", tensor.F32, func(v float64) float64 { return float64(float32(v)) }},
	{"float64", tensor.F64, func(v float64) float64 { return v }},
}

// Tolerances of Run against Reference on the same stored values, by the
// dtype computed in (float16 and bfloat16 are computed as float32):
// relative for mean, var, std (to the slice's scale: |mean| + std), and
// for skew and kurtosis; absolute for correlations in [−1, 1].
type tols struct{ moment, shape, corr float64 }

func tolFor(dt tensor.DType, acc32 bool) tols {
	switch {
	case dt == tensor.F64:
		return tols{1e-12, 1e-9, 1e-12}
	case acc32: // a device without float64: cov and reduce accumulate in float32
		// (skewness and kurtosis too: compensated sums of float32 powers of
		// the deviations, each power rounded, about 2e-7 seen; see
		// docs/latent.md)
		return tols{1e-5, 1e-6, 2e-5}
	}
	return tols{2e-6, 1e-9, 2e-6}
}

// suiteShapes straddle reduce's 256-wide workgroups and cov's 4×4 blocks
// and 64..256 workgroups: H·W of 4, 9, 16, 35, 56, 255, 256, 257 pixels; C
// of 1, 3, 4, 5, 6, 16, 17, 65 channels; F of 1..9 and 33 frames.
var suiteShapes = [][]int{
	{2, 16, 3, 5, 7},
	{1, 17, 2, 16, 16},
	{3, 5, 4, 15, 17},
	{2, 4, 9, 1, 257},
	{1, 3, 5, 3, 85},
	{2, 1, 2, 2, 2},
	{2, 6, 7, 8},
	{1, 65, 2, 3, 3}, // cov over P = 65 channels: 17 row blocks, 153 block pairs
	{1, 3, 33, 4, 4}, // P = 33 frames in the frame correlation
}

// latentData is a tensor with correlated channels, an AR(1) over frames,
// channel offsets and scales, quantised by st. Channel c mixes a shared
// component in with weight 0.3·c/C, and frame f carries 0.7 of frame f−1.
func latentData(shape []int, seed uint64, st storage) *tensor.Tensor {
	d, _ := DimsOf(shape)
	rng := rand.New(rand.NewPCG(seed, 77))
	n := tensor.NumElements(shape)
	v := make([]float64, n)
	shared := make([]float64, d.N*d.F*d.H*d.W)
	for i := range shared {
		shared[i] = rng.NormFloat64()
	}
	for nn := 0; nn < d.N; nn++ {
		for c := 0; c < d.C; c++ {
			w := 0.3 * float64(c) / float64(d.C)
			prev := make([]float64, d.H*d.W)
			for f := 0; f < d.F; f++ {
				for p := 0; p < d.H*d.W; p++ {
					z := 0.7*prev[p] + 0.7*rng.NormFloat64()
					prev[p] = z
					x := (1-w)*z + w*shared[(nn*d.F+f)*d.H*d.W+p]
					v[(((nn*d.C+c)*d.F+f)*d.H*d.W)+p] = st.round(0.5*float64(c) - 2 + (0.5+0.25*float64(c%4))*x)
				}
			}
		}
	}
	if st.dt == tensor.F64 {
		return tensor.FromF64(v, shape...)
	}
	return tensor.FromF64(v, shape...).As(tensor.F32)
}

// setAt sets element i of x.
func setAt(x *tensor.Tensor, i int, v float64) {
	if x.DType == tensor.F64 {
		x.F64[i] = v
	} else {
		x.F32[i] = float32(v)
	}
}

// runner is the API every path offers.
type runner func(x *tensor.Tensor, req Options) (*Result, error)

func cpuRunner(x *tensor.Tensor, req Options) (*Result, error) {
	return Run(context.Background(), nil, x, req)
}

func deviceRunner(dev *engine.Device) runner {
	return func(x *tensor.Tensor, req Options) (*Result, error) {
		return Run(context.Background(), dev, x, req)
	}
}

// runSuite holds run against Reference on every shape and storage, for
// moments over several axis sets, both NaN policies (with NaN and ±Inf
// planted), constant channels and frames.
func runSuite(t *testing.T, run runner, acc32 bool) {
	for si, shape := range suiteShapes {
		for _, st := range storages {
			for _, policy := range []NaNPolicy{Propagate, Skip} {
				name := fmt.Sprintf("%v/%s/%s", shape, st.name, policy)
				t.Run(name, func(t *testing.T) {
					x := latentData(shape, uint64(100*si+7), st)
					d, _ := DimsOf(shape)
					plant(x, d, si)
					req := Options{Moments: true, Axes: axesFor(si, len(shape)), DDof: si % 2, Corr: true, CorrFrames: true,
						LagCorr: len(shape) == 5, Lags: max(1, min(3, d.F-1)), NaN: policy}
					got, err := run(x, req)
					testdev.SkipNoFloat64(t, err)
					if err != nil {
						t.Fatal(err)
					}
					want, err := Reference(x, req)
					if err != nil {
						t.Fatal(err)
					}
					compare(t, got, want, tolFor(st.dt, acc32))
				})
			}
		}
	}
}

// axesFor varies the reduced axes with the shape: spatial (3, 4), every
// axis but the channel, the channel alone, the frames, the last axis.
func axesFor(i, nd int) []int {
	sets := [][]int{{-2, -1}, {0, 2, 3, 4}, {1}, {2}, {nd - 1}, {0, 1}, {1, 3}}
	a := sets[i%len(sets)]
	for _, v := range a {
		if v >= nd {
			return []int{-1}
		}
	}
	return a
}

// plant puts a NaN, a +Inf, a constant channel (in sample 0) and a
// constant frame (sample N−1, channel 0, frame F−1) into x where it is
// large enough to keep something to compare.
func plant(x *tensor.Tensor, d Dims, seed int) {
	at := func(n, c, f, p int) int { return ((n*d.C+c)*d.F+f)*d.H*d.W + p }
	hw := d.H * d.W
	if d.C >= 3 && hw >= 4 {
		setAt(x, at(0, 1, 0, hw/2), math.NaN())
		setAt(x, at(d.N-1, 2, d.F-1, 1), math.Inf(1))
		for f := 0; f < d.F; f++ {
			for p := 0; p < hw; p++ {
				setAt(x, at(0, d.C-1, f, p), 0.75)
			}
		}
	}
	if d.F >= 3 && hw >= 2 {
		for p := 0; p < hw; p++ {
			setAt(x, at(d.N-1, 0, d.F-1, p), -1.5)
		}
	}
	_ = seed
}

// compare holds got to want: the same shapes, NaN in the same places, and
// values within tol.
func compare(t *testing.T, got, want *Result, tol tols) {
	t.Helper()
	if got.NaNs != want.NaNs || got.Infs != want.Infs {
		t.Errorf("NaN, Inf counts %d, %d, want %d, %d", got.NaNs, got.Infs, want.NaNs, want.Infs)
	}
	if (got.Moments == nil) != (want.Moments == nil) {
		t.Fatalf("moments: got %v, want %v", got.Moments != nil, want.Moments != nil)
	}
	if m, w := got.Moments, want.Moments; m != nil {
		if !tensor.SameShape(m.Shape, w.Shape) {
			t.Fatalf("moments shape %v, want %v", m.Shape, w.Shape)
		}
		for i := range w.Mean.F64 {
			scale := math.Abs(w.Mean.F64[i]) + w.Std.F64[i]
			check(t, "mean", i, m.Mean.F64[i], w.Mean.F64[i], tol.moment*scale)
			check(t, "std", i, m.Std.F64[i], w.Std.F64[i], tol.moment*scale)
			check(t, "var", i, m.Var.F64[i], w.Var.F64[i], 2*tol.moment*scale*scale)
			check(t, "min", i, m.Min.F64[i], w.Min.F64[i], 0)
			check(t, "max", i, m.Max.F64[i], w.Max.F64[i], 0)
			check(t, "skew", i, m.Skew.F64[i], w.Skew.F64[i], tol.shape*(1+math.Abs(w.Skew.F64[i])))
			check(t, "kurt", i, m.Kurt.F64[i], w.Kurt.F64[i], tol.shape*(3+math.Abs(w.Kurt.F64[i])))
		}
	}
	for _, c := range []struct {
		name      string
		got, want *tensor.Tensor
	}{{"corr", got.Corr, want.Corr}, {"corr_frames", got.CorrFrames, want.CorrFrames},
		{"frame_corr", got.FrameCorr, want.FrameCorr}, {"lagcorr", got.LagCorr, want.LagCorr}} {
		if (c.got == nil) != (c.want == nil) {
			t.Fatalf("%s: got %v, want %v", c.name, c.got != nil, c.want != nil)
		}
		if c.got == nil {
			continue
		}
		if !tensor.SameShape(c.got.Shape, c.want.Shape) {
			t.Fatalf("%s: shape %v, want %v", c.name, c.got.Shape, c.want.Shape)
		}
		for i := range c.want.F64 {
			check(t, c.name, i, c.got.F64[i], c.want.F64[i], tol.corr)
		}
	}
}

var failures int

// check holds got, element i of what, within tol of want, NaN and ±Inf
// where want has them (checks.Near); after 30 failures it stops the test.
func check(t *testing.T, what string, i int, got, want, tol float64) {
	t.Helper()
	if !checks.Near(got, want, tol) {
		t.Errorf("%s[%d] = %v, want %v (tolerance %.3g)", what, i, got, want, tol)
		if failures++; failures > 30 {
			t.FailNow()
		}
	}
}

func TestCPU(t *testing.T) { runSuite(t, cpuRunner, false) }

func TestVulkan(t *testing.T) {
	for _, dev := range testdev.Devices(t) {
		t.Run(dev.Info.Name, func(t *testing.T) { runSuite(t, deviceRunner(dev), !dev.Info.Float64) })
	}
}

// TestHandCase checks the fast path and the reference against values
// worked out by hand: two channels over four pixels, x = (1, 2, 3, 4) and
// y = (2, 4, 6, 9): mean 2.5 and 5.25, corr = Σdxdy/√(ΣdxΣdy) =
// 11.5/√(5·26.75) = 0.99435..., skew of x 0, excess kurtosis of x
// (Σd⁴/n)/(Σd²/n)² − 3 = 2.5625/1.5625 − 3 = −1.36.
func TestHandCase(t *testing.T) {
	x := tensor.FromF64([]float64{1, 2, 3, 4, 2, 4, 6, 9}, 1, 2, 2, 2)
	req := Options{Moments: true, Axes: []int{2, 3}, Corr: true}
	wantCorr := 11.5 / math.Sqrt(5*26.75)
	for name, run := range map[string]runner{"cpu": cpuRunner, "reference": Reference} {
		r, err := run(x, req)
		if err != nil {
			t.Fatal(err)
		}
		m := r.Moments
		if m.Mean.F64[0] != 2.5 || m.Mean.F64[1] != 5.25 || m.Var.F64[0] != 1.25 || math.Abs(m.Skew.F64[0]) > 1e-15 ||
			math.Abs(m.Kurt.F64[0]+1.36) > 1e-12 || m.Min.F64[1] != 2 || m.Max.F64[1] != 9 {
			t.Errorf("%s: moments %v %v %v %v", name, m.Mean.F64, m.Var.F64, m.Skew.F64, m.Kurt.F64)
		}
		c := r.Corr.F64
		if c[0] != 1 || c[3] != 1 || math.Abs(c[1]-wantCorr) > 1e-14 || c[1] != c[2] {
			t.Errorf("%s: corr %v, want off-diagonal %v", name, c, wantCorr)
		}
	}
}

// TestNaNRules checks the policies' consequences directly: a NaN in one
// channel makes that channel's row and column NaN under propagate and
// nothing else; under skip the pixel is dropped for every channel; a
// constant channel is NaN with a note; a sample whose pixels all hold a NaN
// is NaN with a note under skip.
func TestNaNRules(t *testing.T) {
	shape := []int{2, 3, 1, 4, 4}
	x := latentData(shape, 5, storages[3])
	x.F64[0*16+5] = math.NaN() // sample 0, channel 0, pixel 5
	for p := 0; p < 16; p++ {
		x.F64[(1*3+2)*16+p] = 3 // sample 1, channel 2: constant
		if p%2 == 0 {
			x.F64[(1*3+0)*16+p] = math.NaN()
		} else {
			x.F64[(1*3+1)*16+p] = math.Inf(-1)
		}
	}
	prop, err := Run(context.Background(), nil, x, Options{Corr: true})
	if err != nil {
		t.Fatal(err)
	}
	c := prop.Corr.F64
	if !math.IsNaN(c[0*3+1]) || !math.IsNaN(c[1*3+0]) || !math.IsNaN(c[0]) || math.IsNaN(c[1*3+2]) || c[4] != 1 {
		t.Errorf("propagate, sample 0: %v", c[:9])
	}
	skip, err := Run(context.Background(), nil, x, Options{Corr: true, NaN: Skip})
	if err != nil {
		t.Fatal(err)
	}
	c = skip.Corr.F64
	if math.IsNaN(c[1]) || c[0] != 1 || !math.IsNaN(c[9+1]) || !math.IsNaN(c[9+8]) {
		t.Errorf("skip: %v", c)
	}
	notes := strings.Join(append(prop.Notes, skip.Notes...), "\n")
	for _, want := range []string{"constant (zero-variance) channel(s)", "sample 1 channel 2", "sample 1 (0 usable)"} {
		if !strings.Contains(notes, want) {
			t.Errorf("notes lack %q:\n%s", want, notes)
		}
	}
	// Skip's pixel dropping equals correlating the data without pixel 5.
	y := tensor.New(tensor.F64, 1, 3, 1, 3, 5)
	for ch := 0; ch < 3; ch++ {
		k := 0
		for p := 0; p < 16; p++ {
			if p != 5 {
				y.F64[ch*15+k] = x.F64[ch*16+p]
				k++
			}
		}
	}
	r, err := Run(context.Background(), nil, y, Options{Corr: true})
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 9; i++ {
		if math.Abs(r.Corr.F64[i]-skip.Corr.F64[i]) > 1e-14 {
			t.Errorf("skip corr[%d] = %v, the data without the pixel give %v", i, skip.Corr.F64[i], r.Corr.F64[i])
		}
	}
}

func TestRequestErrors(t *testing.T) {
	x := tensor.New(tensor.F32, 2, 3, 4, 5, 6)
	cases := []struct {
		req  Options
		x    *tensor.Tensor
		want string
	}{
		{Options{}, x, "nothing to compute"},
		{Options{Moments: true}, x, "no axes"},
		{Options{Moments: true, Axes: []int{5}}, x, "axis 5 is out of range"},
		{Options{Moments: true, Axes: []int{1, -4}}, x, "given twice"},
		{Options{LagCorr: true, Lags: 4}, x, "lags must be 1..F−1 = 3"},
		{Options{LagCorr: true, Lags: 1}, tensor.New(tensor.F32, 2, 3, 5, 6), "needs frames"},
		{Options{Corr: true}, tensor.New(tensor.F32, 3, 5, 6), "want a 5-d"},
		{Options{Corr: true}, tensor.New(tensor.F32, 0, 3, 2, 5, 6), "empty tensor"},
	}
	for _, c := range cases {
		_, err := Run(context.Background(), nil, c.x, c.req)
		_, rerr := Reference(c.x, c.req)
		if err == nil || !strings.Contains(err.Error(), c.want) || rerr == nil {
			t.Errorf("%+v: got %v (reference %v), want %q", c.req, err, rerr, c.want)
		}
	}
}
