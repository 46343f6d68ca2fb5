package spectra

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/vkstat/vkstat/device/testdev"
)

// deviceImpls is impls without the CPU path.
func deviceImpls(t *testing.T) []impl {
	if testing.Short() {
		t.Skip("short")
	}
	return impls(t)[1:]
}

// checkSpatial holds a device's radial spectra and sums to the reference.
func checkSpatial(t *testing.T, got, ref *Spatial, tol float64) {
	t.Helper()
	closeTo(t, "radial", got.Radial, ref.Radial, tol)
	for i := range got.Count {
		if got.Count[i] != ref.Count[i] {
			t.Fatalf("bin %d holds %d frequencies, reference %d", i, got.Count[i], ref.Count[i])
		}
	}
	closeTo(t, "radius", got.Radius, ref.Radius, 1e-12)
	closeTo(t, "total", got.Total, ref.Total, tol)
	closeTo(t, "centroid", Centroid(got.NuSum, got.Total), Centroid(ref.NuSum, ref.Total), 10*tol)
	closeTo(t, "high fraction", HighFraction(got.HighSum, got.Total), HighFraction(ref.HighSum, ref.Total), 10*tol)
}

func checkTemporal(t *testing.T, got, ref *Temporal, tol float64) {
	t.Helper()
	closeTo(t, "temporal", got.Spectrum, ref.Spectrum, tol)
	closeTo(t, "temporal total", got.Total, ref.Total, tol)
	closeTo(t, "temporal centroid", Centroid(got.NuSum, got.Total), Centroid(ref.NuSum, ref.Total), 10*tol)
	closeTo(t, "temporal high fraction", HighFraction(got.HighSum, got.Total), HighFraction(ref.HighSum, ref.Total), 10*tol)
}

// TestVulkanBinSegments: the device reduction (spectra_bins) against the
// plain-DFT reference where a transform's values straddle the edge of one
// invocation's segment (binSegment = 4,096: 64×126 and 64×127 frames hold
// 4,096 half-plane values, 65×128 and 91×90 more; series of 8,085 frames
// 4,043, of 8,190 4,096, of 8,192 4,097 and of 8,505 4,253; lengths with
// no prime factor past 13, which VkFFT 1.2.26 plans without Bluestein's
// algorithm), and with segments cut to 7 values on the usual sizes, so
// that bins span segments everywhere.
func TestVulkanBinSegments(t *testing.T) {
	ctx := context.Background()
	devices := deviceImpls(t) // before the references: skipped under -short
	type shape struct{ b, h, w int }
	frames := []shape{{2, 64, 126}, {2, 64, 127}, {2, 65, 128}, {2, 91, 90}}
	series := []shape{{2, 1, 8085}, {2, 1, 8190}, {1, 1, 8192}, {1, 1, 8505}}
	var spatialRefs []*Spatial
	var temporalRefs []*Temporal
	var xs, ys [][]float64
	for _, s := range frames {
		x := randomFrames(s.b, s.h, s.w, uint64(s.h*7+s.w))
		xs = append(xs, x)
		spatialRefs = append(spatialRefs, Reference(x, s.b, s.h, s.w))
	}
	for _, s := range series {
		y := randomFrames(s.b, 1, s.w, uint64(s.w))
		ys = append(ys, y)
		temporalRefs = append(temporalRefs, ReferenceTemporal(y, s.b, s.w))
	}
	for _, im := range devices {
		for i, s := range frames {
			t.Run(fmt.Sprintf("%s/%dx%d", im.name, s.h, s.w), func(t *testing.T) {
				got, _, err := SpatialSpectra(ctx, xs[i], s.b, s.h, s.w, im.opt)
				testdev.SkipNoFloat64(t, err)
				if err != nil {
					t.Fatal(err)
				}
				checkSpatial(t, got, spatialRefs[i], im.tol)
			})
		}
		for i, s := range series {
			t.Run(fmt.Sprintf("%s/F=%d", im.name, s.w), func(t *testing.T) {
				got, _, err := TemporalSpectra(ctx, ys[i], s.b, s.w, im.opt)
				testdev.SkipNoFloat64(t, err)
				if err != nil {
					t.Fatal(err)
				}
				checkTemporal(t, got, temporalRefs[i], im.tol)
			})
		}
	}
	defer func(s int) { binSegment = s }(binSegment)
	binSegment = 7
	for _, im := range deviceImpls(t) {
		for _, hw := range sizes {
			h, w := hw[0], hw[1]
			x := randomFrames(3, h, w, uint64(h*31+w))
			t.Run(fmt.Sprintf("%s/segment7/%dx%d", im.name, h, w), func(t *testing.T) {
				got, _, err := SpatialSpectra(ctx, x, 3, h, w, im.opt)
				testdev.SkipNoFloat64(t, err)
				if err != nil {
					t.Fatal(err)
				}
				checkSpatial(t, got, Reference(x, 3, h, w), im.tol)
				tg, _, err := TemporalSpectra(ctx, x, 3*h, w, im.opt)
				if err != nil {
					t.Fatal(err)
				}
				checkTemporal(t, tg, ReferenceTemporal(x, 3*h, w), im.tol)
			})
		}
	}
}

// TestVulkanBinsLoopLimit: a 300×450 frame has 67,800 half-plane values,
// more than llvmpipe lets one invocation loop over (65,535, all loops
// together, docs/crossvendor.md): the reduction splits them over
// invocations. Against the reference; one frame in -short.
func TestVulkanBinsLoopLimit(t *testing.T) {
	ctx := context.Background()
	b, h, w := 2, 300, 450
	if testing.Short() {
		b = 1
	}
	x := randomFrames(b, h, w, 9)
	var ref *Spatial
	if testing.Short() {
		// The plain DFT of 135,000 values takes seconds (tens under the
		// race detector): the CPU path, itself held to it elsewhere.
		var err error
		if ref, _, err = SpatialSpectra(ctx, x, b, h, w, Options{}); err != nil {
			t.Fatal(err)
		}
	} else {
		ref = Reference(x, b, h, w)
	}
	for _, d := range testdev.Devices(t) {
		for _, double := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/double=%v", d.Info.Name, double), func(t *testing.T) {
				got, _, err := SpatialSpectra(ctx, x, b, h, w, Options{Device: d, Double: double})
				testdev.SkipNoFloat64(t, err)
				if err != nil {
					t.Fatal(err)
				}
				tol := 1e-5
				if double {
					tol = 1e-12
				}
				checkSpatial(t, got, ref, tol)
			})
		}
	}
}

// TestVulkanBinsChunks: batches split over submissions of 4 transforms
// (the last one shorter), spatial and temporal, against the reference.
func TestVulkanBinsChunks(t *testing.T) {
	ctx := context.Background()
	defer func(m int) { maxChunk = m }(maxChunk)
	maxChunk = 4
	b, h, w := 10, 12, 15
	x := randomFrames(b, h, w, 21)
	ref := Reference(x, b, h, w)
	tref := ReferenceTemporal(x, b*h, w)
	for _, im := range deviceImpls(t) {
		t.Run(im.name, func(t *testing.T) {
			got, _, err := SpatialSpectra(ctx, x, b, h, w, im.opt)
			testdev.SkipNoFloat64(t, err)
			if err != nil {
				t.Fatal(err)
			}
			checkSpatial(t, got, ref, im.tol)
			tg, _, err := TemporalSpectra(ctx, x, b*h, w, im.opt)
			if err != nil {
				t.Fatal(err)
			}
			checkTemporal(t, tg, tref, im.tol)
		})
	}
}

// TestVulkanBinsComplexLayout: frames of 3×19,683 (an axis VkFFT 1.2.26
// has no real-to-complex plan for) go through the complex transform, where
// every frequency is present with weight 1; against the CPU path (the
// reference's O(n²) DFT would take minutes).
func TestVulkanBinsComplexLayout(t *testing.T) {
	if testing.Short() {
		t.Skip("short")
	}
	ctx := context.Background()
	const b, h, w = 2, 3, 19683
	x := randomFrames(b, h, w, 17)
	want, _, err := SpatialSpectra(ctx, x, b, h, w, Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range testdev.Devices(t) {
		got, tm, err := SpatialSpectra(ctx, x, b, h, w, Options{Device: d})
		if err != nil {
			t.Fatal(err)
		}
		checkSpatial(t, got, want, 1e-5)
		var names []string
		for _, st := range tm.Steps {
			names = append(names, st.Name)
		}
		k := strings.Join(names, "; ")
		t.Logf("%s: %s", d.Info.Name, k)
		if tm.GPUTimed && !strings.Contains(k, "vkfft c2c") {
			t.Errorf("%s: %d×%d ran %q, want the complex transform", d.Info.Name, h, w, k)
		}
	}
}

// TestSumsBytes: SpatialSumsBytes and TemporalSumsBytes (h = 1 below)
// bound the sums of every layout's table and the group sums spectra_groups
// writes for them, which are K + 3 per frame (K per series) where one
// segment holds a transform.
func TestSumsBytes(t *testing.T) {
	for _, hw := range [][2]int{{64, 64}, {15, 15}, {1, 16}, {12, 1}, {1, 2}, {300, 450}, {91, 90}, {1, 8505}} {
		h, w := hw[0], hw[1]
		for _, real := range []bool{true, false} {
			var tbl *binTable
			var err error
			if h == 1 {
				tbl = temporalTable(w)
			} else {
				n1, n0 := canonical(h, w)
				tbl, err = spatialTable(newSpatialGroups(1, 1, h, w), n1, n0, real)
			}
			if err != nil {
				t.Fatal(err)
			}
			bound := SpatialSumsBytes(1, 1, h, w)
			if h == 1 {
				bound = TemporalSumsBytes(1, 1, w)
			}
			gl := newGroupList(tbl, h != 1, 1)
			if got := int64(tbl.slots)*8 + int64(gl.maxUnits(1)*gl.nout)*8; got > bound {
				t.Errorf("%d×%d real=%v: %d bytes of sums, bound %d", h, w, real, got, bound)
			}
			want := tbl.k + 3 // the bins and the totals
			if h == 1 {
				want = tbl.k // the series' totals follow from the bins
			}
			if (h == 1 || tbl.nseg == 1) && tbl.slots != want {
				t.Errorf("%d×%d real=%v: %d sums in one segment, want %d", h, w, real, tbl.slots, want)
			}
		}
	}
}

// TestVulkanBluestein: series of 8,191 (a prime) and 8,193 (3·2,731)
// frames, which VkFFT 1.2.26 transforms by Bluestein's algorithm in
// several uploads, through a scratch buffer at the padded length
// (vkfft.ScratchBytes): with one only as large as the data, planning
// bound a range past its end (a validation error) and closing the plan
// left the inverse Bluestein kernels' objects behind (caught when the
// device closes under the validation layer). Against the reference; and
// frames with a long prime side, either axis (8×4,099, 4,099×8, 17×1,031),
// against the CPU path. Bluestein's chirp costs float64 accuracy: up to
// 1.2e-10 of the peak on 8×4,099 (lavapipe), against 1e-12 elsewhere, so
// the float64 bound here is 1e-9 (docs/latent.md).
func TestVulkanBluestein(t *testing.T) {
	ctx := context.Background()
	tol := func(im impl) float64 {
		if im.opt.Double {
			return 1e-9
		}
		return im.tol
	}
	devices := deviceImpls(t) // before the references: skipped under -short
	for _, s := range []struct{ b, f int }{{2, 8191}, {1, 8193}} {
		y := randomFrames(s.b, 1, s.f, uint64(s.f))
		ref := ReferenceTemporal(y, s.b, s.f)
		for _, im := range devices {
			t.Run(fmt.Sprintf("%s/F=%d", im.name, s.f), func(t *testing.T) {
				got, _, err := TemporalSpectra(ctx, y, s.b, s.f, im.opt)
				testdev.SkipNoFloat64(t, err)
				if err != nil {
					t.Fatal(err)
				}
				checkTemporal(t, got, ref, tol(im))
			})
		}
	}
	for _, s := range [][3]int{{1, 8, 4099}, {1, 4099, 8}, {2, 17, 1031}} {
		b, h, w := s[0], s[1], s[2]
		x := randomFrames(b, h, w, uint64(h*7+w))
		cpu, _, err := SpatialSpectra(ctx, x, b, h, w, Options{})
		if err != nil {
			t.Fatal(err)
		}
		for _, im := range devices {
			t.Run(fmt.Sprintf("%s/%dx%d", im.name, h, w), func(t *testing.T) {
				got, _, err := SpatialSpectra(ctx, x, b, h, w, im.opt)
				testdev.SkipNoFloat64(t, err)
				if err != nil {
					t.Fatal(err)
				}
				checkSpatial(t, got, cpu, tol(im))
			})
		}
	}
}
