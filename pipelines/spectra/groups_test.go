package spectra

import (
	"context"
	"fmt"
	"math"
	"slices"
	"testing"

	"github.com/vkstat/vkstat/device/testdev"
	"github.com/vkstat/vkstat/tensor"
)

// groupWant is what a group's sums should be, from plain per-transform
// reference results: the sums over the good members and the counts.
type groupWant struct {
	bins, tot, nus, hi []float64
	good, bad          []int
}

// sumGroups adds per-transform results (k bins each, and totals) over
// groups of m consecutive transforms, leaving out those marked bad.
func sumGroups(spec, tot, nus, hi []float64, bad []bool, m, k int) groupWant {
	g := len(bad) / m
	w := groupWant{bins: make([]float64, g*k), tot: make([]float64, g), nus: make([]float64, g), hi: make([]float64, g),
		good: make([]int, g), bad: make([]int, g)}
	for i := range bad {
		grp := i / m
		if bad[i] {
			w.bad[grp]++
			continue
		}
		w.good[grp]++
		for j := range k {
			w.bins[grp*k+j] += spec[i*k+j]
		}
		w.tot[grp] += tot[i]
		w.nus[grp] += nus[i]
		w.hi[grp] += hi[i]
	}
	return w
}

// checkGroups holds a path's group sums to the reference's.
func checkGroups(t *testing.T, what string, bins, tot, nus, hi []float64, good, bad []int, want groupWant, tol float64) {
	t.Helper()
	if !slices.Equal(good, want.good) || !slices.Equal(bad, want.bad) {
		t.Fatalf("%s: good %v bad %v, want %v and %v", what, good, bad, want.good, want.bad)
	}
	closeTo(t, what+" bins", bins, want.bins, tol)
	closeTo(t, what+" total", tot, want.tot, tol)
	closeTo(t, what+" centroid", Centroid(nus, tot), Centroid(want.nus, want.tot), 10*tol)
	closeTo(t, what+" high fraction", HighFraction(hi, tot), HighFraction(want.hi, want.tot), 10*tol)
}

// groupCase runs spatialGroupsOf and temporalGroupsOf on a latent-like
// batch of (g, f, h, w) (groups of f frames; groups of h·w series of f
// frames) against the reference, with NaN and +Inf planted: a NaN in
// frame 1 (group 0; pixel 5's series), a +Inf in group 1's frame 2, pixel
// 0 (when g ≥ 2), and in the last group (when g ≥ 3) NaN at every pixel
// of frame 0 and at pixel 0 of every frame, so that it has no good frame
// and no good series. Without spatial (or temporal) it leaves that half
// out.
func groupCase(t *testing.T, opt Options, dt tensor.DType, g, f, h, w int, tol float64, halves ...bool) {
	t.Helper()
	ctx := context.Background()
	hw := h * w
	x := randomFrames(g*f, h, w, uint64(g*1000+f*100+h*10+w+int(dt)))
	if f >= 2 && hw > 5 {
		x[1*hw+5] = math.NaN()
	}
	if g >= 2 && f >= 3 {
		x[(1*f+2)*hw] = math.Inf(1)
	}
	if g >= 3 {
		last := (g - 1) * f * hw
		for p := range hw {
			x[last+p] = math.NaN()
		}
		for j := range f {
			x[last+j*hw] = math.NaN()
		}
	}
	xt, dec := stored(dt, x, []int{g, f, h, w}, -1, -1)

	spatial, temporal := true, true
	if len(halves) == 2 {
		spatial, temporal = halves[0], halves[1]
	}
	if spatial {
		groupSpatial(t, opt, xt, dec, g, f, h, w, tol)
	}
	if f < 2 || !temporal {
		return
	}
	sv, badSeries := refFrames(refSeries(dec, g, f, hw), g*hw, f)
	tref := ReferenceTemporal(sv, g*hw, f)
	twant := sumGroups(tref.Spectrum, tref.Total, tref.NuSum, tref.HighSum, badSeries, hw, tref.K)
	tg, _, err := temporalGroupsOf(ctx, xt, g, f, hw, opt)
	testdev.SkipNoFloat64(t, err)
	if err != nil {
		t.Fatal(err)
	}
	checkGroups(t, "temporal", tg.Spectrum, tg.Total, tg.NuSum, tg.HighSum, tg.Good, tg.Bad, twant, tol)
}

// groupSpatial is groupCase's spatial half.
func groupSpatial(t *testing.T, opt Options, xt *tensor.Tensor, dec []float64, g, f, h, w int, tol float64) {
	t.Helper()
	hw := h * w
	v, badFrames := refFrames(dec, g*f, hw)
	ref := Reference(v, g*f, h, w)
	want := sumGroups(ref.Radial, ref.Total, ref.NuSum, ref.HighSum, badFrames, f, ref.K)
	sg, _, err := spatialGroupsOf(context.Background(), xt, g, f, h, w, opt)
	testdev.SkipNoFloat64(t, err)
	if err != nil {
		t.Fatal(err)
	}
	if sg.G != g || sg.Members != f || sg.K != ref.K {
		t.Fatalf("spatial groups: %d of %d, K %d", sg.G, sg.Members, sg.K)
	}
	closeTo(t, "radius", sg.Radius, ref.Radius, 1e-12)
	checkGroups(t, "spatial", sg.Radial, sg.Total, sg.NuSum, sg.HighSum, sg.Good, sg.Bad, want, tol)
}

var groupShapes = [][4]int{{3, 4, 8, 8}, {4, 5, 12, 15}, {3, 3, 9, 7}, {2, 16, 16, 16}, {3, 1, 8, 8}, {5, 9, 4, 6}}

// TestGroupsOf: the groups' sums over frames and pixel series against
// sums of the float64 reference's per-transform results, from every
// storage type, with NaN and Inf members left out and counted (a group
// with none good included), on the CPU path and every device.
func TestGroupsOf(t *testing.T) {
	for _, im := range impls(t) {
		for _, dt := range storages(im.opt.Double) {
			for _, s := range groupShapes {
				t.Run(fmt.Sprintf("%s/%v/%dx%dx%dx%d", im.name, dt, s[0], s[1], s[2], s[3]), func(t *testing.T) {
					groupCase(t, im.opt, dt, s[0], s[1], s[2], s[3], im.tol)
				})
			}
		}
	}
}

// TestGroupsOfChunks: submissions of 5 transforms (groups of 4, 9 and 16
// frames, of 64 and 24 series, straddle them: the host adds a group's
// parts across chunks), and groups cut into units of 3 members
// (groupSegment), so that one group's sums come from several invocations
// of spectra_groups and several chunks.
func TestGroupsOfChunks(t *testing.T) {
	defer func(m, g int) { maxChunk, groupSegment = m, g }(maxChunk, groupSegment)
	for _, c := range [][2]int{{5, groupSegment}, {5, 3}, {0, 3}} {
		maxChunk, groupSegment = c[0], c[1]
		for _, im := range deviceImpls(t) {
			for _, dt := range storages(im.opt.Double) {
				for _, s := range [][4]int{{3, 4, 8, 8}, {5, 9, 4, 6}, {2, 16, 16, 16}} {
					t.Run(fmt.Sprintf("chunk%d/seg%d/%s/%v/%dx%dx%dx%d", c[0], c[1], im.name, dt, s[0], s[1], s[2], s[3]), func(t *testing.T) {
						groupCase(t, im.opt, dt, s[0], s[1], s[2], s[3], im.tol)
					})
				}
			}
		}
	}
}

// TestGroupsOfLoopLimit: groups of 70,000 members (2×2 frames; series of
// 4 frames), more than one invocation may loop over on lavapipe (65,535
// iterations in all, past which llvmpipe silently stops): spectra_groups
// sums them in units of at most groupSegment members. Against the
// reference (cheap at these sizes), and the CPU path, which cuts a large
// group over goroutines. The 70,000 frames also cross vkfft.MaxBatch2D: VkFFT
// 1.2.26's 2-D plans for more than 65,535 frames at once trip the
// validation layer's synchronisation checks (SYNC-HAZARD between its own
// dispatches), so they go in two chunks, the first still summing 65,535
// members of one group.
func TestGroupsOfLoopLimit(t *testing.T) {
	const members = 70000
	defer func(m int) { maxChunk = m }(maxChunk)
	for _, im := range impls(t) {
		t.Run(im.name, func(t *testing.T) {
			dt := storages(im.opt.Double)[0]
			maxChunk = 0
			groupCase(t, im.opt, dt, 2, members, 2, 2, im.tol, true, false)
			groupCase(t, im.opt, dt, 2, 4, 1, members, im.tol, false, true)
		})
	}
}

// TestGroupsOfHeld: with the batch held on the device (engine.Device.Hold,
// as vkstat latent holds it for all its statistics), spectra_pack reads
// windows of that copy rather than uploading each chunk's span, and the
// results are bit for bit those of the uploads (which the tests above
// hold to the reference), in chunks too. It runs under -short as well, so
// that the data-path runs (scripts/test-datapath.sh: device-local memory
// behind a staging ring, as on a GPU) cover the held copy.
func TestGroupsOfHeld(t *testing.T) {
	defer func(m int) { maxChunk = m }(maxChunk)
	ctx := context.Background()
	for _, chunk := range []int{0, 5} {
		maxChunk = chunk
		var devs []impl
		for _, d := range testdev.Devices(t) {
			devs = append(devs, impl{name: d.Info.Name + "/f32", opt: Options{Device: d}})
			if d.Info.Float64 {
				devs = append(devs, impl{name: d.Info.Name + "/f64", opt: Options{Device: d, Double: true}})
			}
		}
		for _, im := range devs {
			dev := im.opt.Device
			for _, dt := range storages(im.opt.Double) {
				g, f, h, w := 4, 5, 12, 15
				t.Run(fmt.Sprintf("chunk%d/%s/%v", chunk, im.name, dt), func(t *testing.T) {
					x := randomFrames(g*f, h, w, 77)
					x[7] = math.NaN()
					xt, _ := stored(dt, x, []int{g, f, h, w}, -1, -1)
					n := int64(len(xt.Raw()))
					s0, st0, err := spatialGroupsOf(ctx, xt, g, f, h, w, im.opt)
					testdev.SkipNoFloat64(t, err)
					if err != nil {
						t.Fatal(err)
					}
					t0, tt0, err := temporalGroupsOf(ctx, xt, g, f, h*w, im.opt)
					if err != nil {
						t.Fatal(err)
					}
					held, _, err := dev.Hold(ctx, xt.Raw())
					if err != nil {
						t.Fatal(err)
					}
					defer held.Release()
					if !held.Holds() {
						t.Fatalf("%d bytes not held", n)
					}
					s1, st1, err := spatialGroupsOf(ctx, xt, g, f, h, w, im.opt)
					if err != nil {
						t.Fatal(err)
					}
					t1, tt1, err := temporalGroupsOf(ctx, xt, g, f, h*w, im.opt)
					if err != nil {
						t.Fatal(err)
					}
					for _, c := range []struct {
						what          string
						before, after int64
						same          bool
					}{
						{"spatial", st0.UpBytes, st1.UpBytes, slices.Equal(s0.Radial, s1.Radial) && slices.Equal(s0.Total, s1.Total) &&
							slices.Equal(s0.NuSum, s1.NuSum) && slices.Equal(s0.HighSum, s1.HighSum) && slices.Equal(s0.Bad, s1.Bad)},
						{"temporal", tt0.UpBytes, tt1.UpBytes, slices.Equal(t0.Spectrum, t1.Spectrum) && slices.Equal(t0.Total, t1.Total) &&
							slices.Equal(t0.Bad, t1.Bad)},
					} {
						if !c.same {
							t.Errorf("%s: the held batch's results differ from the uploaded one's", c.what)
						}
						if c.after > c.before-n {
							t.Errorf("%s: %d bytes uploaded with the batch held, %d without (the batch is %d)", c.what, c.after, c.before, n)
						}
					}
				})
			}
		}
	}
}
