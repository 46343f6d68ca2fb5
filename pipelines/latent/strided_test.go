package latent

import (
	"context"
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/vkstat/vkstat/device/testdev"
	"github.com/vkstat/vkstat/tensor"
)

// TestCorrLeavesInput: the correlations read the tensor where it lies
// (strided sets) and copy only the sets that hold a NaN or ±Inf, zeroing
// or compacting the copies: the caller's tensor is never written, in any
// dtype, under either policy, on the CPU and every device. Its results
// agree with Reference as in the suite.
func TestCorrLeavesInput(t *testing.T) {
	runners := map[string]runner{"cpu": cpuRunner}
	for _, dev := range testdev.Devices(t) {
		runners[dev.Info.Name] = deviceRunner(dev)
	}
	shape := []int{3, 4, 3, 5, 5}
	d, _ := DimsOf(shape)
	for name, run := range runners {
		for _, dt := range []tensor.DType{tensor.F32, tensor.F64, tensor.F16, tensor.BF16} {
			for _, policy := range []NaNPolicy{Propagate, Skip} {
				t.Run(fmt.Sprintf("%s/%s/%s", name, dt, policy), func(t *testing.T) {
					x := latentData(shape, 3, storages[3])
					plant(x, d, 0)
					x.F64[7] = math.Inf(-1)
					x = x.As(dt)
					before := x.Raw()
					before = slices.Clone(before)
					req := Options{Corr: true, CorrFrames: true, LagCorr: true, Lags: 2, NaN: policy}
					got, err := run(x, req)
					testdev.SkipNoFloat64(t, err)
					if err != nil {
						t.Fatal(err)
					}
					if !slices.Equal(before, x.Raw()) {
						t.Fatal("the input was modified")
					}
					want, err := Reference(x, req)
					if err != nil {
						t.Fatal(err)
					}
					for _, c := range []struct {
						what      string
						got, want *tensor.Tensor
					}{{"corr", got.Corr, want.Corr}, {"corr-frames", got.CorrFrames, want.CorrFrames}, {"frame corr", got.FrameCorr, want.FrameCorr}} {
						for i, w := range c.want.F64 {
							g := c.got.F64[i]
							if math.IsNaN(w) != math.IsNaN(g) || !math.IsNaN(w) && !(math.Abs(g-w) <= 1e-4) {
								t.Fatalf("%s[%d] = %v, want %v", c.what, i, g, w)
							}
						}
					}
				})
			}
		}
	}
}

// TestCorrConstantNoNaN: without a NaN or ±Inf the correlations scan
// nothing before cov and tell the constant variables from cov's variances,
// checked exactly: constant channels and frames of values that a mean
// cannot reproduce exactly (0.1 over 3·5·7 pixels, a large 1e6+0.3, zero)
// are NaN with a note, and a channel with one sample an ulp apart is not.
func TestCorrConstantNoNaN(t *testing.T) {
	runners := map[string]runner{"cpu": cpuRunner}
	tol := map[string]float64{"cpu": 2e-3}
	for _, dev := range testdev.Devices(t) {
		runners[dev.Info.Name] = deviceRunner(dev)
		// Float accumulation: the ulp-apart channel's correlations are
		// ill-conditioned (the suite allows 1.5e-2 there too).
		tol[dev.Info.Name] = map[bool]float64{true: 2e-3, false: 1.5e-2}[dev.Info.Float64]
	}
	shape := []int{2, 5, 3, 5, 7}
	d, _ := DimsOf(shape)
	hw := d.H * d.W
	at := func(n, c, f, p int) int { return ((n*d.C+c)*d.F+f)*hw + p }
	for name, run := range runners {
		for _, dt := range []tensor.DType{tensor.F32, tensor.F64, tensor.BF16} {
			t.Run(fmt.Sprintf("%s/%s", name, dt), func(t *testing.T) {
				x := latentData(shape, 4, storages[3])
				for f := 0; f < d.F; f++ {
					for p := 0; p < hw; p++ {
						x.F64[at(0, 1, f, p)] = 0.1
						x.F64[at(1, 3, f, p)] = 1e6 + 0.3
						x.F64[at(1, 0, f, p)] = 0
						x.F64[at(0, 4, f, p)] = 2 // nearly constant: one value differs
					}
				}
				x.F64[at(0, 4, 1, 3)] = float64(math.Nextafter32(2, 3)) // 2 again in bfloat16
				x = x.As(dt)
				req := Options{Corr: true, CorrFrames: true, LagCorr: true, Lags: 1}
				got, err := run(x, req)
				testdev.SkipNoFloat64(t, err)
				if err != nil {
					t.Fatal(err)
				}
				want, err := Reference(x, req)
				if err != nil {
					t.Fatal(err)
				}
				for _, c := range []struct {
					what      string
					got, want *tensor.Tensor
				}{{"corr", got.Corr, want.Corr}, {"corr-frames", got.CorrFrames, want.CorrFrames}, {"frame corr", got.FrameCorr, want.FrameCorr}} {
					nan := 0
					for i, w := range c.want.F64 {
						g := c.got.F64[i]
						if math.IsNaN(w) {
							nan++
						}
						if math.IsNaN(w) != math.IsNaN(g) || !math.IsNaN(w) && !(math.Abs(g-w) <= tol[name]) {
							t.Fatalf("%s[%d] = %v, want %v", c.what, i, g, w)
						}
					}
					if nan == 0 {
						t.Errorf("%s: no NaN for the constant channels", c.what)
					}
				}
				if notes := strings.Join(got.Notes, "\n"); !strings.Contains(notes, "sample 1 channel 3") || !strings.Contains(notes, "sample 0 channel 1 frame 2") {
					t.Errorf("notes lack the constant channels: %s", notes)
				}
				corr := got.Corr.F64[4*d.C : 5*d.C] // sample 0, channel 4 (its row)
				for j, v := range corr {
					if dt != tensor.BF16 && j != 1 && math.IsNaN(v) {
						t.Errorf("sample 0 channel 4 (one value an ulp apart): corr %v", corr)
						break
					}
				}
			})
		}
	}
}

// TestRunUploadsOnce: the statistics of one Run read a single upload of x
// (Hold), in every storage type: without it the moments and the three
// correlations each upload their part of x, about four times its bytes.
// Their agreement with Reference through the held copy is runSuite's.
func TestRunUploadsOnce(t *testing.T) {
	shape := []int{2, 8, 4, 32, 32}
	for _, dev := range testdev.Devices(t) {
		for _, dt := range []tensor.DType{tensor.F32, tensor.F64, tensor.F16, tensor.BF16} {
			t.Run(dev.Info.Name+"/"+dt.String(), func(t *testing.T) {
				x := latentData(shape, 5, storages[3]).As(dt)
				req := Options{Moments: true, Axes: []int{-2, -1}, Corr: true, CorrFrames: true, LagCorr: true, Lags: 2}
				got, err := Run(context.Background(), dev, x, req)
				testdev.SkipNoFloat64(t, err)
				if err != nil {
					t.Fatal(err)
				}
				// Beyond x: each statistic's small tables (offsets,
				// bases, centres), a few KiB.
				if n := int64(len(x.Raw())); got.Timing.UpBytes < n || got.Timing.UpBytes > n+n/8 {
					t.Errorf("%d bytes uploaded for %d bytes of x", got.Timing.UpBytes, n)
				}
			})
		}
	}
}

// TestCorrExtremeValues: correlations of variables whose variances'
// product overflows float64 (values of 1e100: s_ii·s_jj ≈ 1e400) are ±1
// as np.corrcoef gives ([[1, -1], [-1, 1]] for the two channels),
// not ∓0, on the CPU path, the reference and every float64 device.
func TestCorrExtremeValues(t *testing.T) {
	runners := map[string]runner{"cpu": cpuRunner, "reference": func(x *tensor.Tensor, req Options) (*Result, error) {
		return Reference(x, req)
	}}
	for _, dev := range testdev.Devices(t) {
		runners[dev.Info.Name] = deviceRunner(dev)
	}
	// (N, C, F, H, W) = (1, 2, 1, 1, 2): channel 0 is (1e-100, 1e100),
	// channel 1 the reverse, perfectly anti-correlated.
	x := tensor.FromF64([]float64{1e-100, 1e100, 1e100, 1e-100}, 1, 2, 1, 1, 2)
	want := []float64{1, -1, -1, 1}
	for name, run := range runners {
		t.Run(name, func(t *testing.T) {
			got, err := run(x, Options{Corr: true})
			testdev.SkipNoFloat64(t, err)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(got.Corr.F64, want) {
				t.Errorf("corr %v, want %v", got.Corr.F64, want)
			}
		})
	}
}

// TestMomentNotes: a constant slice's NaN skew and kurtosis, and a slice
// that skipping NaN leaves with at most ddof values (NaN var and std, as
// np.nanvar warns), are named in notes by their index, on every path; a
// slice that varies, or one whose NaN propagates, is not named.
func TestMomentNotes(t *testing.T) {
	runners := map[string]runner{"cpu": cpuRunner}
	for _, dev := range testdev.Devices(t) {
		runners[dev.Info.Name] = deviceRunner(dev)
	}
	// (2, 3, 4) moments over the last axis: slices (0, 1) constant 7,
	// (1, 2) with one value free of NaN; every other slice varies.
	v := make([]float64, 24)
	for i := range v {
		v[i] = float64(i%5) + 0.25*float64(i/5)
	}
	copy(v[4:8], []float64{7, 7, 7, 7})
	copy(v[20:24], []float64{math.NaN(), 3, math.NaN(), math.NaN()})
	x := tensor.FromF64(v, 2, 3, 4)
	for name, run := range runners {
		t.Run(name, func(t *testing.T) {
			got, err := run(x, Options{Moments: true, Axes: []int{-1}, DDof: 1, NaN: Skip})
			testdev.SkipNoFloat64(t, err)
			if err != nil {
				t.Fatal(err)
			}
			want := []string{
				"moments: 1 constant slice(s), whose skew and kurtosis are NaN (zero variance): (0, 1)",
				"moments: 1 slice(s) with at most ddof = 1 values free of NaN/Inf, whose var and std are NaN: (1, 2)",
			}
			if !slices.Equal(got.Notes, want) {
				t.Errorf("notes %q, want %q", got.Notes, want)
			}
			got, err = run(x, Options{Moments: true, Axes: []int{-1}, DDof: 1})
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(got.Notes, want[:1]) {
				t.Errorf("propagate: notes %q, want %q", got.Notes, want[:1])
			}
		})
	}
}
