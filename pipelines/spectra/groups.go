package spectra

import (
	"context"
	"fmt"
	"runtime"

	"github.com/vkstat/vkstat/engine"
	"github.com/vkstat/vkstat/internal/par"
	"github.com/vkstat/vkstat/tensor"
)

// SpatialGroups is the radial spectra of G groups of Members consecutive
// frames (frame i belongs to group i / Members), summed over each group's
// good frames (those without a NaN or ±Inf): the caller divides by Good,
// or applies its NaN policy where Bad > 0.
type SpatialGroups struct {
	G, Members, H, W, K int
	// Radial is (G, K): the sum over the group's good frames of each
	// frame's radial spectrum (the mean of P over a bin's frequencies).
	Radial []float64
	// Count and Radius are as for Spatial.
	Count  []int
	Radius []float64
	// Total, NuSum and HighSum are (G): Σ P, Σ ν·P and Σ_{ν>1/4} P over
	// the good frames of each group.
	Total, NuSum, HighSum []float64
	// Good and Bad are (G): how many of the group's frames were summed, and
	// how many held a NaN or ±Inf and were left out.
	Good, Bad []int
}

// TemporalGroups is the one-sided spectra of G groups of Members
// consecutive series, summed over each group's good series, as for
// SpatialGroups.
type TemporalGroups struct {
	G, Members, F, K int
	// Spectrum is (G, K): Σ over the good series of their spectra.
	Spectrum []float64
	// Total, NuSum, HighSum, Good and Bad are (G), as for SpatialGroups.
	Total, NuSum, HighSum []float64
	Good, Bad             []int
}

// groupAcc is where both paths add their members: per group its k bins'
// sums, its three totals and its good and bad members.
type groupAcc struct {
	m, k         int // members per group, bins
	bins         []float64
	tot, nus, hi []float64
	good, bad    []int
}

// add adds one member's (or a run of members') bins and totals into group
// g.
func (a *groupAcc) add(g int, bins []float64, tot, nus, hi float64) {
	dst := a.bins[g*a.k : (g+1)*a.k]
	for j, v := range bins {
		dst[j] += v
	}
	a.tot[g] += tot
	a.nus[g] += nus
	a.hi[g] += hi
}

// count fills good and bad from the members' flags.
func (a *groupAcc) count(bad []bool) {
	for i, b := range bad {
		if b {
			a.bad[i/a.m]++
		} else {
			a.good[i/a.m]++
		}
	}
}

func (s *SpatialGroups) acc() *groupAcc {
	return &groupAcc{m: s.Members, k: s.K, bins: s.Radial, tot: s.Total, nus: s.NuSum, hi: s.HighSum, good: s.Good, bad: s.Bad}
}

func (t *TemporalGroups) acc() *groupAcc {
	return &groupAcc{m: t.Members, k: t.K, bins: t.Spectrum, tot: t.Total, nus: t.NuSum, hi: t.HighSum, good: t.Good, bad: t.Bad}
}

func newSpatialGroups(g, m, h, w int) *SpatialGroups {
	k := Bins(h, w)
	return &SpatialGroups{G: g, Members: m, H: h, W: w, K: k, Radial: make([]float64, g*k), Count: make([]int, k), Radius: make([]float64, k),
		Total: make([]float64, g), NuSum: make([]float64, g), HighSum: make([]float64, g), Good: make([]int, g), Bad: make([]int, g)}
}

func newTemporalGroups(g, m, f int) *TemporalGroups {
	k := f/2 + 1
	return &TemporalGroups{G: g, Members: m, F: f, K: k, Spectrum: make([]float64, g*k),
		Total: make([]float64, g), NuSum: make([]float64, g), HighSum: make([]float64, g), Good: make([]int, g), Bad: make([]int, g)}
}

// spatialGroupsOf sums the radial spectra of the groups·members frames of
// h×w of x as it is stored (float32, float64, float16 or bfloat16;
// groups·members·h·w = x.Len()) over each group of members consecutive
// frames, leaving out the frames that hold a NaN or ±Inf (counted in Bad).
// On a device, frames of at most packLimit values are uploaded as stored
// and centred and packed by spectra_pack (float64 data with opt.Double, the
// others without; other cases widen to float64 on the host), transformed,
// reduced to their bins (spectra_bins) and summed over the groups
// (spectra_groups) in one submission per chunk, and only the groups' sums
// come back. The CPU path adds each frame into its group as it goes.
func spatialGroupsOf(ctx context.Context, x *tensor.Tensor, groups, members, h, w int, opt Options) (*SpatialGroups, engine.Timing, error) {
	if members < 1 || groups < 1 {
		return nil, engine.Timing{}, fmt.Errorf("spectra: %d groups of %d frames", groups, members)
	}
	if err := checkShape(x.Len(), groups*members, h, w); err != nil {
		return nil, engine.Timing{}, err
	}
	b, n := groups*members, h*w
	r := &rawInput{t: x, n: n, g: 1, ostride: n, istride: 1, bad: make([]bool, b)}
	s := newSpatialGroups(groups, members, h, w)
	tm, err := spatialGroups(ctx, opt, r, s)
	if err != nil {
		return nil, tm, err
	}
	return s, tm, nil
}

// temporalGroupsOf sums the one-sided spectra of the series of x seen as
// (groups, f, pixels) (groups·f·pixels = x.Len(); a latent's (N·C, F,
// H·W)) over each group's pixels: series i·pixels + p is values x[i, 0 …
// f−1, p] and belongs to group i. Series holding a NaN or ±Inf are left
// out (counted in Bad). Paths as for spatialGroupsOf; on a device the
// transpose happens in spectra_pack.
func temporalGroupsOf(ctx context.Context, x *tensor.Tensor, groups, f, pixels int, opt Options) (*TemporalGroups, engine.Timing, error) {
	if err := checkShape(x.Len(), groups, f, pixels); err != nil {
		return nil, engine.Timing{}, err
	}
	r := &rawInput{t: x, n: f, g: pixels, ostride: f * pixels, istride: pixels, bad: make([]bool, groups*pixels)}
	t := newTemporalGroups(groups, pixels, f)
	tm, err := temporalGroups(ctx, opt, r, t)
	if err != nil {
		return nil, tm, err
	}
	return t, tm, nil
}

// onPath runs r's transforms on opt's path: on the device (r as stored
// where spectra_pack can centre and pack it, else widened on the host),
// or on the CPU, timed as package reduce times its CPU path. It counts
// the good and bad members into a.
func onPath(ctx context.Context, opt Options, r *rawInput, a *groupAcc,
	device func(src input, b int) (engine.Timing, error), cpu func() error) (engine.Timing, error) {
	var tm engine.Timing
	var err error
	if opt.Device != nil {
		src := input{raw: r}
		if !r.packable(opt.Device, opt.Double) {
			src = input{x: r.widen(), bad: r.bad}
		}
		tm, err = device(src, len(r.bad))
	} else {
		_, tm, err = engine.TimeCPU(func() (any, error) { return nil, cpu() })
	}
	if err == nil {
		a.count(r.bad)
	}
	return tm, err
}

// spatialGroups runs r's frames on opt's path into s.
func spatialGroups(ctx context.Context, opt Options, r *rawInput, s *SpatialGroups) (engine.Timing, error) {
	a := s.acc()
	tm, err := onPath(ctx, opt, r, a,
		func(src input, b int) (engine.Timing, error) { return spatialDevice(ctx, opt, src, b, s, a) },
		func() error { return spatialCPU(ctx, r, s, a) })
	if err != nil {
		return tm, err
	}
	if s.H*s.W == 1 {
		clear(s.Count)
		clear(s.Radius)
		radialTable(s.H, s.W, s.K, s.Count, s.Radius, func(int, int, float64) {})
	}
	for g := 0; g < s.G; g++ {
		rad := s.Radial[g*s.K : (g+1)*s.K]
		for j := range rad {
			if s.Count[j] > 0 {
				rad[j] /= float64(s.Count[j])
			}
		}
	}
	return tm, nil
}

// temporalGroups runs r's series on opt's path into t.
func temporalGroups(ctx context.Context, opt Options, r *rawInput, t *TemporalGroups) (engine.Timing, error) {
	a := t.acc()
	return onPath(ctx, opt, r, a,
		func(src input, b int) (engine.Timing, error) { return temporalDevice(ctx, opt, src, b, t, a) },
		func() error { return temporalCPU(ctx, r, t, a) })
}

// emitFunc receives transform i's bins (sums over each bin's frequencies)
// and its totals Σ P, Σ ν·P, Σ_{ν>1/4} P; bins is scratch, valid during
// the call.
type emitFunc func(i int, bins []float64, tot, nus, hi float64)

// cpuKernel transforms transforms lo … hi−1, each read into its own
// scratch by load (n values, widened; bad: it holds a NaN or ±Inf), and
// emits the good ones; a goroutine makes its own (plans and scratch).
type cpuKernel func(load func(i int, dst []float64) (bad bool), lo, hi int, emit emitFunc)

// cpuSegment is the most members of a group the CPU path sums in one
// accumulator (a unit); a group of more is cut into units of nearly equal
// size, summed in member order each and then added in order, so that the
// sums depend on the group's size only, never on the batch around it or
// the cores (vkstat latent's --batch gives identical per-sample outputs).
const cpuSegment = 512

// cpuGroups runs the b = G·m transforms of r through kernels made by
// newKernel, spread over the cores (each goroutine a run of whole units),
// adding the good ones (r.bad[i] false once loaded) into their units, in
// order, and the units into their groups in a.
func cpuGroups(ctx context.Context, r *rawInput, a *groupAcc, newKernel func() cpuKernel) error {
	load := r.loader()
	g, m, k := len(a.tot), a.m, a.k
	nseg := (m + cpuSegment - 1) / cpuSegment // units per group
	per := (m + nseg - 1) / nseg
	units := g * nseg
	parts := a // a unit per group: straight into it
	unitOf := func(i int) int { return i / m }
	if nseg > 1 {
		parts = &groupAcc{m: per, k: k, bins: make([]float64, units*k), tot: make([]float64, units), nus: make([]float64, units), hi: make([]float64, units)}
		unitOf = func(i int) int { return (i/m)*nseg + (i%m)/per }
	}
	start := func(u int) int { return (u/nseg)*m + min(m, (u%nseg)*per) }
	par.Range(units, max(1, units/(8*runtime.GOMAXPROCS(0))), func(ulo, uhi int) {
		if ctx.Err() != nil {
			return
		}
		end := g * m
		if uhi < units {
			end = start(uhi)
		}
		newKernel()(load, start(ulo), end, func(i int, bins []float64, tot, nus, his float64) {
			parts.add(unitOf(i), bins, tot, nus, his)
		})
	})
	if err := ctx.Err(); err != nil {
		return err
	}
	if nseg > 1 {
		for u := 0; u < units; u++ {
			a.add(u/nseg, parts.bins[u*k:(u+1)*k], parts.tot[u], parts.nus[u], parts.hi[u])
		}
	}
	return nil
}

// spatialCPU is the CPU path of r's frames: fftPlan's transforms for
// power-of-two sides (cpupow2.go), gonum's for others.
func spatialCPU(ctx context.Context, r *rawInput, s *SpatialGroups, a *groupAcc) error {
	if pow2Frames(s.H, s.W) {
		return cpuGroups(ctx, r, a, spatialPow2Kernel(s))
	}
	return cpuGroups(ctx, r, a, spatialGonumKernel(s))
}

// temporalCPU is the CPU path of r's series.
func temporalCPU(ctx context.Context, r *rawInput, t *TemporalGroups, a *groupAcc) error {
	if isPow2(t.F) && t.F >= 2 {
		return cpuGroups(ctx, r, a, temporalPow2Kernel(t.F))
	}
	return cpuGroups(ctx, r, a, temporalGonumKernel(t.F))
}

// temporalTotals fills a's totals from its summed one-sided spectra (ν =
// j/F: they are linear in the spectra).
func temporalTotals(t *TemporalGroups) {
	for g := 0; g < t.G; g++ {
		var tot, nus, hi float64
		for j, v := range t.Spectrum[g*t.K : (g+1)*t.K] {
			nu := float64(j) / float64(t.F)
			tot += v
			nus += nu * v
			if nu > 0.25 {
				hi += v
			}
		}
		t.Total[g], t.NuSum[g], t.HighSum[g] = tot, nus, hi
	}
}
