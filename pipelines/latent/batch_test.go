package latent

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/vkstat/vkstat/device/testdev"
	"github.com/vkstat/vkstat/engine"
	"github.com/vkstat/vkstat/internal/checks"
	"github.com/vkstat/vkstat/tensor"
)

// batchTestTensor is a (5, 3, 4, 6, 5) float64 latent with correlated
// channels, a NaN, an Inf, constant frames and a frame of NaNs.
func batchTestTensor() *tensor.Tensor {
	rng := rand.New(rand.NewPCG(5, 9))
	x := tensor.New(tensor.F64, 5, 3, 4, 6, 5)
	for i := range x.F64 {
		x.F64[i] = rng.NormFloat64()*(1+float64(i%7)/3) + 0.2*float64(i/360)
	}
	x.F64[17] = math.NaN()          // sample 0
	x.F64[360*2+100] = math.Inf(-1) // sample 2
	for i := range 30 {             // sample 3: channel 1 frame 2 constant, channel 2 frame 0 all NaN
		x.F64[3*360+120+60+i] = 1.25
		x.F64[3*360+240+i] = math.NaN()
		x.F64[360+30+i] = -0.5 // sample 1: channel 0 frame 1 constant
	}
	return x
}

// TestRunBatches: Run in batches of 1, 2 and 3 samples (not dividing the
// 5) gives what one batch of every sample gives: per-sample arrays
// (correlations, PCA, spectra, moments over the spatial axes) and notes
// identical, moments over axes that include the sample axis equal within
// float64 rounding (1e-12 of the slice's scale, 1e-9 for skewness and
// kurtosis), on the CPU path and every device; stored as float32 or
// bfloat16 (Convert), within float32 rounding. Progress hears of every
// batch.
func TestRunBatches(t *testing.T) {
	x := batchTestTensor()
	for _, dev := range append([]*engine.Device{nil}, testdev.Devices(t)...) {
		name := "cpu"
		if dev != nil {
			name = dev.Info.Name
		}
		for _, c := range []struct {
			policy NaNPolicy
			axes   []int
			all    bool
		}{{Skip, []int{0, 3, 4}, true}, {Propagate, []int{-2, -1}, true}, {Propagate, []int{0}, false}} {
			opt := Options{Moments: true, Axes: c.axes, NaN: c.policy}
			if c.all {
				opt = Options{Moments: true, Axes: c.axes, Corr: true, CorrFrames: true, LagCorr: true, Lags: 2, PCA: true, Spectra: true, NaN: c.policy}
			}
			t.Run(fmt.Sprintf("%s/%s/%v", name, c.policy, c.axes), func(t *testing.T) {
				batchSuite(t, dev, x, opt, []int{1, 2, 3}, 1e-12, 1e-9)
			})
		}
		for _, dt := range []tensor.DType{tensor.F32, tensor.BF16} {
			for _, axes := range [][]int{{-2, -1}, {0, 3, 4}} {
				opt := Options{Moments: true, Axes: axes, Corr: true, LagCorr: true, Lags: 2, PCA: true, NaN: Skip, Convert: true, DType: dt}
				t.Run(fmt.Sprintf("%s/%s/%v", name, dt, axes), func(t *testing.T) {
					batchSuite(t, dev, x, opt, []int{2}, 1e-6, 1e-5)
				})
			}
		}
	}
}

// batchSuite holds Run of x under opt in batches of each size to Run in one
// batch (compareResults).
func batchSuite(t *testing.T, dev *engine.Device, x *tensor.Tensor, opt Options, sizes []int, rel, shape float64) {
	whole, err := Run(context.Background(), dev, x, opt)
	if err != nil {
		testdev.SkipNoFloat64(t, err)
		t.Fatal(err)
	}
	if whole.Plan.Batches != 1 {
		t.Fatalf("one batch: plan %+v", whole.Plan)
	}
	merged := ReducesSamples(opt.Axes, len(x.Shape))
	for _, b := range sizes {
		var heard []int
		opt.Batch = b
		ctx := engine.WithProgress(context.Background(), func(stage string, _ float64) {
			done, total := progressSamples(t, stage)
			if total != x.Shape[0] {
				t.Errorf("progress of %d samples, want %d", total, x.Shape[0])
			}
			heard = append(heard, done)
		})
		got, err := Run(ctx, dev, x, opt)
		if err != nil {
			t.Fatal(err)
		}
		what := fmt.Sprintf("batch %d", b)
		if want := (x.Shape[0] + b - 1) / b; got.Plan.Batches != want || len(heard) != want || heard[want-1] != x.Shape[0] {
			t.Errorf("%s: %d batches, progress %v", what, got.Plan.Batches, heard)
		}
		compareResults(t, what, whole, got, merged, rel, shape)
	}
}

// compareResults holds got's arrays, counts and notes to want's
// (checks.Near): identical, or for the moments when merged, within rel of
// the slice's scale (|mean| + std; its square for var), shape for skew and
// kurtosis.
func compareResults(t *testing.T, what string, want, got *Result, merged bool, rel, shape float64) {
	t.Helper()
	wa, ga := want.Arrays(), got.Arrays()
	if len(ga) != len(wa) {
		t.Fatalf("%s: %d arrays, want %d", what, len(ga), len(wa))
	}
	for i, w := range wa {
		g := ga[i]
		if g.Name != w.Name || !tensor.SameShape(g.T.Shape, w.T.Shape) {
			t.Fatalf("%s: array %d is %s %v, want %s %v", what, i, g.Name, g.T.Shape, w.Name, w.T.Shape)
		}
		moment := want.Moments != nil && i < 7
		bad := 0
		for j, wv := range w.T.F64 {
			gv, tol := g.T.F64[j], 0.0
			if moment && merged {
				scale := math.Abs(want.Moments.Mean.F64[j]) + want.Moments.Std.F64[j]
				if tol = map[string]float64{"var": rel * scale * scale, "skew": shape, "kurt": shape}[w.Name]; tol == 0 {
					tol = rel * scale
				}
			}
			if !checks.Near(gv, wv, tol) {
				if bad < 3 {
					t.Errorf("%s: %s[%d] = %v, want %v", what, w.Name, j, gv, wv)
				}
				bad++
			}
		}
	}
	if !slices.Equal(got.Notes, want.Notes) || got.NaNs != want.NaNs || got.Infs != want.Infs {
		t.Errorf("%s: notes %q (%d NaN, %d Inf)\nwant %q (%d, %d)", what, got.Notes, got.NaNs, got.Infs, want.Notes, want.NaNs, want.Infs)
	}
}

// TestRunErrors: a read that fails on the read-ahead goroutine ends the
// run with its error after the batches before it; a context cancelled
// during the run ends it with the context's error; a budget that cannot
// hold one sample is a *MemoryError; nothing asked for is an error.
func TestRunErrors(t *testing.T) {
	x := batchTestTensor()
	whole := TensorSource(x)
	cut := errors.New("the source is cut short")
	src := whole
	src.Read = func(lo, hi int, buf *tensor.Tensor) (*tensor.Tensor, error) {
		if lo >= 2 {
			return nil, cut
		}
		return whole.Read(lo, hi, buf)
	}
	opt := Options{Moments: true, Axes: []int{0, 3, 4}, Batch: 1}
	done := 0
	heard := engine.WithProgress(context.Background(), func(stage string, _ float64) { done, _ = progressSamples(t, stage) })
	plan, err := PlanBatches(nil, src, opt)
	if err != nil {
		t.Fatal(err)
	}
	opt.Plan = &plan
	if _, err := RunSource(heard, nil, src, opt); !errors.Is(err, cut) || done != 2 {
		t.Errorf("a read failing at sample 2: %v after %d samples, want %q after 2", err, done, cut)
	}

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	ctx = engine.WithProgress(ctx, func(stage string, _ float64) {
		done, _ = progressSamples(t, stage)
		cancel()
	})
	if _, err := Run(ctx, nil, x, opt); !errors.Is(err, context.Canceled) || done != 1 {
		t.Errorf("cancelled after the first batch: %v after %d samples", err, done)
	}

	opt = Options{Corr: true, PCA: true}
	plan, err = PlanBatches(nil, whole, opt)
	if err != nil {
		t.Fatal(err)
	}
	opt.HostBudget.Bytes = plan.Footprint.Host / 2
	var me *MemoryError
	if _, err := Run(context.Background(), nil, x, opt); !errors.As(err, &me) || !strings.Contains(err.Error(), "one sample needs about") ||
		me.Where != "host memory" || me.Need != plan.Footprint.Host {
		t.Errorf("a budget of half a sample: %v", err)
	}
	if _, err := Run(context.Background(), nil, x, Options{}); err == nil || !strings.Contains(err.Error(), "nothing to compute") {
		t.Errorf("nothing asked for: %v", err)
	}
}

// TestMergeNotes: notes about many items merge into one per kind, counts
// added, the first eight items listed in order, kinds in latent's order.
func TestMergeNotes(t *testing.T) {
	items := func(lo, hi int) string {
		var s []string
		for i := lo; i < hi; i++ {
			s = append(s, fmt.Sprintf("sample %d channel 0", i))
		}
		return strings.Join(s, "; ")
	}
	got := mergeNotes([][]string{
		{"frame corr: 3 constant (zero-variance) frame(s), whose correlations are NaN: " + items(0, 3)},
		{"corr: 1 constant (zero-variance) channel(s), whose correlations are NaN: sample 4 channel 2",
			"frame corr: 10 constant (zero-variance) frame(s), whose correlations are NaN: " + items(3, 11) + "; ... (10 in all)",
			"a plain note"},
		{"a plain note"},
	})
	want := []string{
		"corr: 1 constant (zero-variance) channel(s), whose correlations are NaN: sample 4 channel 2",
		"frame corr: 13 constant (zero-variance) frame(s), whose correlations are NaN: " + items(0, 8) + "; ... (13 in all)",
		"a plain note",
	}
	if !slices.Equal(got, want) {
		t.Errorf("merged notes\n%q\nwant\n%q", got, want)
	}
	if got := shiftSampleNotes([]string{"pca: 1 sample(s) without a full PCA: sample 0 (x); sample 12 (y)"}, 5); got[0] != "pca: 1 sample(s) without a full PCA: sample 5 (x); sample 17 (y)" {
		t.Errorf("shifted: %q", got[0])
	}
}

// TestSpectraDeviceBytes holds the spectra's device footprint to values
// worked out by hand from VkFFT's real-to-complex layout.
func TestSpectraDeviceBytes(t *testing.T) {
	for _, c := range []struct {
		d    Dims
		dt   tensor.DType
		want int64
	}{
		// 16384 rows of 64 → 66 (spatial); 65,536 series of 16 → 18 (temporal, larger); ×2 buffers ×4 bytes;
		// sums (at most 8 bytes each): 65,536 series × 9 bins (256 frames × (33 bins + 3 totals) for the spatial),
		// and the group sums of spectra_groups: groups of 4,096 series, at most 65,536/4,096 + 1 = 17 of them
		// in a chunk, × 9; the batch as stored for spectra_pack: 1,048,576 values × 4 bytes.
		{Dims{N: 1, C: 16, F: 16, H: 64, W: 64}, tensor.F32, 2*65536*18*4 + (65536+17)*9*8 + 1048576*4},
		// F = 2: each series of 2 takes 4 values; sums: 2 bins, (65,536 + 17) × 2; 131,072 values × 8 bytes.
		{Dims{N: 1, C: 16, F: 2, H: 64, W: 64}, tensor.F64, 2*65536*4*8 + (65536+17)*2*8 + 131072*8},
		// odd W: the complex transform, 2 values per value; F = 1: no temporal spectra; sums 8 bins + 3, and as
		// many for the frame's group of one; 225 × 2 bytes.
		{Dims{N: 1, C: 1, F: 1, H: 15, W: 15}, tensor.BF16, 2*15*30*4 + 2*11*8 + 225*2},
	} {
		e := int64(c.d.C * c.d.F * c.d.H * c.d.W)
		if got := spectraDeviceBytes(e, c.d, true, c.dt); got != c.want {
			t.Errorf("%+v %v: %d bytes, want %d", c.d, c.dt, got, c.want)
		}
	}
}

// progressSamples reads the samples done and their total from a progress stage
// of latent's ("sample 3/8").
func progressSamples(t *testing.T, stage string) (done, total int) {
	if _, err := fmt.Sscanf(stage, "sample %d/%d", &done, &total); err != nil {
		t.Errorf("progress stage %q: %v", stage, err)
	}
	return done, total
}
