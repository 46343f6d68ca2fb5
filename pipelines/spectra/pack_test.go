package spectra

import (
	"context"
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/vkstat/vkstat/device/testdev"
	"github.com/vkstat/vkstat/device/tune"
	"github.com/vkstat/vkstat/engine"
	"github.com/vkstat/vkstat/internal/checks"
	"github.com/vkstat/vkstat/tensor"
)

// stored is x in storage type dt, and the values the tensor holds decoded
// independently of package tensor's conversions (checks.Halves for 16-bit
// data): the reference's input. plant puts a NaN at element i and +Inf at
// element j (none where negative).
func stored(dt tensor.DType, x []float64, shape []int, nan, inf int) (*tensor.Tensor, []float64) {
	t := tensor.New(dt, shape...)
	put := func(i int, v float64) {
		switch dt {
		case tensor.F64:
			t.F64[i] = v
		case tensor.F32:
			t.F32[i] = float32(v)
		case tensor.F16:
			t.U16[i] = tensor.Float32ToHalf(float32(v)) // NaN stays NaN, Inf Inf
		case tensor.BF16:
			t.U16[i] = tensor.Float32ToBFloat16(float32(v))
		}
	}
	for i, v := range x {
		put(i, v)
	}
	if nan >= 0 {
		put(nan, math.NaN())
	}
	if inf >= 0 {
		put(inf, math.Inf(1))
	}
	dec := make([]float64, len(x))
	switch dt {
	case tensor.F64:
		copy(dec, t.F64)
	case tensor.F32:
		for i, v := range t.F32 {
			dec[i] = float64(v)
		}
	default:
		dec = checks.Halves(dt == tensor.BF16, t.U16)
	}
	return t, dec
}

// refFrames is the reference's input for b frames of n values: the frames,
// each holding a non-finite value zeroed, and which those are.
func refFrames(dec []float64, b, n int) ([]float64, []bool) {
	v := slices.Clone(dec)
	bad := make([]bool, b)
	for i := range b {
		for _, e := range v[i*n : (i+1)*n] {
			if math.IsNaN(e) || math.IsInf(e, 0) {
				bad[i] = true
			}
		}
		if bad[i] {
			clear(v[i*n : (i+1)*n])
		}
	}
	return v, bad
}

// refSeries transposes (g, f, hw) into the g·hw series of f values, by
// plain indexing.
func refSeries(dec []float64, g, f, hw int) []float64 {
	out := make([]float64, len(dec))
	for i := range g {
		for p := range hw {
			for j := range f {
				out[(i*hw+p)*f+j] = dec[i*f*hw+j*hw+p]
			}
		}
	}
	return out
}

// ran says whether a step named name ran (true where timestamps are off:
// no names to go by).
func ran(tm engine.Timing, name string) bool {
	if !tm.GPUTimed {
		return true
	}
	for _, s := range tm.Steps {
		if strings.HasPrefix(s.Name, name) {
			return true
		}
	}
	return false
}

// packCase runs spatialSpectraOf on b frames of h×w and temporalSpectraOf
// on the same data seen as (b, h, w) (series of h values, w pixels) against
// the reference, a NaN and +Inf planted, and checks the flags and whether
// spectra_pack ran (on transforms of at most packLimit values).
func packCase(t *testing.T, ctx context.Context, opt Options, dt tensor.DType, b, h, w int, tol float64) {
	t.Helper()
	x := randomFrames(b, h, w, uint64(h*131+w*7+int(dt)))
	nan, inf := -1, -1
	if b >= 2 {
		nan = h*w + (h*w)/2 // frame 1; series (1, pixel (h·w/2) % w)
	}
	if b >= 4 {
		inf = 3*h*w + 1
	}
	xt, dec := stored(dt, x, []int{b, h, w}, nan, inf)

	v, wantBad := refFrames(dec, b, h*w)
	got, bad, tm, err := spatialSpectraOf(ctx, xt, b, h, w, opt)
	testdev.SkipNoFloat64(t, err)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(bad, wantBad) {
		t.Errorf("bad frames %v, want %v", bad, wantBad)
	}
	zeroed(t, tol, got.Total, bad, got.NuSum, got.HighSum)
	checkSpatial(t, got, Reference(v, b, h, w), tol)
	if wantPack := h*w <= packLimit; opt.Device != nil && ran(tm, "spectra_pack") != wantPack {
		t.Errorf("spatial: spectra_pack ran: %v, want %v", !wantPack, wantPack)
	}
	if h < 2 {
		return
	}
	s, wantBadS := refFrames(refSeries(dec, b, h, w), b*w, h)
	tg, bad, tm, err := temporalSpectraOf(ctx, xt, b, h, w, opt)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(bad, wantBadS) {
		t.Errorf("bad series %v, want %v", bad, wantBadS)
	}
	zeroed(t, tol, tg.Total, bad, tg.NuSum, tg.HighSum)
	checkTemporal(t, tg, ReferenceTemporal(s, b*w, h), tol)
	if wantPack := h <= packLimit; opt.Device != nil && ran(tm, "spectra_pack") != wantPack {
		t.Errorf("temporal: spectra_pack ran: %v, want %v", !wantPack, wantPack)
	}
}

// zeroed checks that the transforms marked bad came out (next to) zero,
// Σ P within tol² of the largest, and sets their sums to 0, as the reference's zeroed ones: VkFFT leaves
// a trace of other transforms of the batch in a zero one (Σ P ≈ 4e-31 on
// lavapipe in float64 for frames of variance 25, with the host's packing
// too; 1e-15 of the largest in float32), which
// would make their centroid a number instead of NaN (0/0). The CLI never
// reads a bad transform's sums.
func zeroed(t *testing.T, tol float64, total []float64, bad []bool, more ...[]float64) {
	t.Helper()
	var peak float64
	for _, v := range total {
		peak = max(peak, math.Abs(v))
	}
	for i, b := range bad {
		if !b {
			continue
		}
		if !(math.Abs(total[i]) <= tol*tol*peak) {
			t.Fatalf("transform %d holds a NaN or Inf, yet Σ P = %g (largest %g)", i, total[i], peak)
		}
		total[i] = 0
		for _, m := range more {
			m[i] = 0
		}
	}
}

// storages is the storage types a path takes as stored: float64 with
// Double, the others without.
func storages(double bool) []tensor.DType {
	if double {
		return []tensor.DType{tensor.F64}
	}
	return []tensor.DType{tensor.F32, tensor.F16, tensor.BF16}
}

// packWays are spectra_pack's two ways: the device's tuning (an
// invocation per transform on CPU devices), and a workgroup per transform
// (GPUs' way) forced on every device.
func packWays() []struct {
	name string
	ctx  context.Context
} {
	return []struct {
		name string
		ctx  context.Context
	}{{"tuned", context.Background()}, {"workgroup", tune.WithOverride(context.Background(), "spectra", map[string]any{"pack_alone": 0})}}
}

// TestSpectraOf: frames and series centred and packed on the device
// (spectra_pack) from float32, float64, float16 and bfloat16 storage,
// odd and even sizes, a NaN and an Inf planted (their frame or series
// zeroed and flagged), against the float64 reference, with an invocation
// per transform (CPU devices' way) and a workgroup per transform (GPUs');
// and the CPU path of the same entry points.
func TestSpectraOf(t *testing.T) {
	shapes := [][3]int{{5, 12, 15}, {5, 16, 16}, {5, 13, 17}, {4, 9, 15}, {3, 1, 9}, {4, 12, 1}, {4, 8, 64}, {5, 17, 16}}
	for _, way := range packWays() {
		for _, im := range impls(t) {
			if way.name != "tuned" && im.opt.Device == nil {
				continue
			}
			for _, dt := range storages(im.opt.Double) {
				for _, s := range shapes {
					t.Run(fmt.Sprintf("%s/%s/%v/%dx%dx%d", im.name, way.name, dt, s[0], s[1], s[2]), func(t *testing.T) {
						packCase(t, way.ctx, im.opt, dt, s[0], s[1], s[2], im.tol)
					})
				}
			}
		}
	}
}

// TestSpectraOfChunks: batches split over submissions of 4 transforms, so
// that chunks of series straddle their groups and 16-bit spans start on
// an odd element (13×17 frames); both ways of spectra_pack.
func TestSpectraOfChunks(t *testing.T) {
	defer func(m int) { maxChunk = m }(maxChunk)
	maxChunk = 4
	for _, way := range packWays() {
		for _, im := range deviceImpls(t) {
			for _, dt := range storages(im.opt.Double) {
				t.Run(fmt.Sprintf("%s/%s/%v", im.name, way.name, dt), func(t *testing.T) {
					packCase(t, way.ctx, im.opt, dt, 7, 13, 17, im.tol)
				})
			}
		}
	}
}

// TestSpectraOfPackLimit: transforms of more values than packLimit are
// centred and packed on the host (widened to float64), at most packLimit
// on the device: both sides of a lowered limit (frames of 8×12 = 96
// values, 8×13 = 104, their series of 8 on the device) with NaN and Inf
// flags, and of the real one with series of 524,288
// and 525,000 frames (against the CPU path: the reference's O(n²) DFT
// would take minutes).
func TestSpectraOfPackLimit(t *testing.T) {
	for _, im := range deviceImpls(t) {
		t.Run(im.name+"/limit100", func(t *testing.T) {
			defer func(l int) { packLimit = l }(packLimit)
			packLimit = 100
			for _, dt := range storages(im.opt.Double) {
				packCase(t, context.Background(), im.opt, dt, 5, 8, 12, im.tol)
				packCase(t, context.Background(), im.opt, dt, 5, 8, 13, im.tol)
			}
		})
	}
	if testing.Short() {
		return
	}
	ctx := context.Background()
	for _, d := range testdev.Devices(t) {
		for _, f := range []int{packLimit, 525000} {
			t.Run(fmt.Sprintf("%s/F=%d", d.Info.Name, f), func(t *testing.T) {
				x := randomFrames(1, 1, f, uint64(f))
				xt, dec := stored(tensor.F32, x, []int{1, f, 1}, -1, -1)
				want, _, err := TemporalSpectra(ctx, dec, 1, f, Options{})
				if err != nil {
					t.Fatal(err)
				}
				got, bad, tm, err := temporalSpectraOf(ctx, xt, 1, f, 1, Options{Device: d})
				if err != nil {
					t.Fatal(err)
				}
				if bad[0] {
					t.Error("a finite series flagged")
				}
				checkTemporal(t, got, want, 1e-5)
				if ran(tm, "spectra_pack") != (f <= packLimit) {
					t.Errorf("spectra_pack ran: %v, want %v", f > packLimit, f <= packLimit)
				}
			})
		}
	}
}

// TestSpectraOfComplexLayout: frames of 3×19,683 and series of 19,683
// frames (a length VkFFT 1.2.26 has no real-to-complex plan for) packed on
// the device as (re, 0) pairs for the complex transform, a NaN planted in
// one series; against the CPU path.
func TestSpectraOfComplexLayout(t *testing.T) {
	if testing.Short() {
		t.Skip("short")
	}
	ctx := context.Background()
	const b, h, w = 2, 3, 19683
	x := randomFrames(b, h, w, 23)
	xt, dec := stored(tensor.F32, x, []int{b, h, w}, -1, -1)
	want, _, err := SpatialSpectra(ctx, dec, b, h, w, Options{})
	if err != nil {
		t.Fatal(err)
	}
	// Series: (1, 19,683, 2), a NaN in pixel 1's.
	const f = 19683
	ys := randomFrames(1, f, 2, 29)
	yt, ydec := stored(tensor.F32, ys, []int{1, f, 2}, 2*100+1, -1)
	sv, wantBad := refFrames(refSeries(ydec, 1, f, 2), 2, f)
	wantT, _, err := TemporalSpectra(ctx, sv, 2, f, Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range testdev.Devices(t) {
		got, _, tm, err := spatialSpectraOf(ctx, xt, b, h, w, Options{Device: d})
		if err != nil {
			t.Fatal(err)
		}
		checkSpatial(t, got, want, 1e-5)
		if !ran(tm, "vkfft c2c") || !ran(tm, "spectra_pack") {
			t.Errorf("%s: %d×%d frames did not run spectra_pack and the complex transform", d.Info.Name, h, w)
		}
		tg, bad, tm, err := temporalSpectraOf(ctx, yt, 1, f, 2, Options{Device: d})
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(bad, wantBad) {
			t.Errorf("%s: bad series %v, want %v", d.Info.Name, bad, wantBad)
		}
		checkTemporal(t, tg, wantT, 1e-5)
		if !ran(tm, "vkfft c2c") || !ran(tm, "spectra_pack") {
			t.Errorf("%s: series of %d did not run spectra_pack and the complex transform", d.Info.Name, f)
		}
	}
}
