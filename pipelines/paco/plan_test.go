package paco

import (
	"errors"
	"testing"

	"github.com/vkstat/vkstat/engine"
	"github.com/vkstat/vkstat/tensor"
)

// planPrep is a prepared (T, H, W) cube with patch radius r, for the
// planner, which reads only its shape, mask and placement.
func planPrep(t *testing.T, T, H, W, r int, pl Placement) *Prepared {
	t.Helper()
	ang := make([]float64, T)
	for i := range ang {
		ang[i] = float64(i)
	}
	p, err := prepare(Input{Cube: tensor.New(tensor.F32, T, H, W), Angles: ang, PSF: gaussPSF(9, 2), Radius: r, Placement: pl})
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// planLimits is a float32 device (the trajectory table on) with ample
// workgroups, avail bytes free and buffers taking their sizes exactly.
func planLimits(avail, maxBind int64) vkLimits {
	sum := func(sizes ...int64) int64 {
		var n int64
		for _, s := range sizes {
			n += s
		}
		return n
	}
	return vkLimits{name: "test device", maxBind: maxBind, maxInvocations: 1024, maxShared: 48 << 10, avail: avail, budget: avail, need: sum, value: 4, acc: 4}
}

func planOf(t *testing.T, p *Prepared, lim vkLimits) (*vkPlanner, vkPlan, error) {
	t.Helper()
	disp, pairs := p.Lags()
	pn, err := newPlanner(p, lim, len(disp), len(pairs))
	if err != nil {
		return nil, vkPlan{}, err
	}
	pl, err := pn.choose()
	return pn, pl, err
}

// checkLayout checks that the layout covers every location row once, in
// passes whose pixel rows reach R beyond them, every frame once in blocks
// of at most perBlock frames, and every frame of every block once in
// spans within the loop budget and within one chunk of the table.
func checkLayout(t *testing.T, pn *vkPlanner, pl vkPlan) vkLayout {
	t.Helper()
	p := pn.p
	lay := pn.layout(pl)
	y := 0
	for _, ps := range lay.passes {
		if ps.y0 != y || ps.y1 <= ps.y0 || ps.y1-ps.y0 > pl.rows || ps.ya != max(ps.y0-p.Radius, 0) || ps.yb != min(ps.y1+p.Radius, p.H) {
			t.Fatalf("pass %+v after row %d (rows %d, R %d, H %d)", ps, y, pl.rows, p.Radius, p.H)
		}
		y = ps.y1
	}
	if y != p.H {
		t.Fatalf("the passes end at row %d of %d", y, p.H)
	}
	f := 0
	for _, b := range lay.blocks {
		if b.t0 != f || b.nt < 1 || b.nt > pl.perBlock {
			t.Fatalf("block %+v after frame %d (perBlock %d)", b, f, pl.perBlock)
		}
		f += b.nt
	}
	if f != p.T || len(lay.blocks) != pl.blocks {
		t.Fatalf("the blocks end at frame %d of %d, %d blocks for %d buffers", f, p.T, len(lay.blocks), pl.blocks)
	}
	next := map[int]int{}
	for _, sp := range lay.spans {
		b := lay.blocks[sp.block]
		if sp.l0 != next[sp.block] || sp.l1 <= sp.l0 || (sp.l1-sp.l0)*(p.P()+2) > detectLoopBudget {
			t.Fatalf("span %+v after frame %d of its block", sp, next[sp.block])
		}
		if pn.posTable && (b.t0+sp.l0 < sp.pt0 || b.t0+sp.l1 > sp.pt0+pl.tabFrames) {
			t.Fatalf("span %+v of block %+v leaves the table's chunk of %d frames from %d", sp, b, pl.tabFrames, sp.pt0)
		}
		next[sp.block] = sp.l1
	}
	for i, b := range lay.blocks {
		if next[i] != b.nt {
			t.Fatalf("the spans of block %d end at frame %d of %d", i, next[i], b.nt)
		}
	}
	return lay
}

// TestPlannerAmpleMemory: with memory for everything, one pass of every
// row, one block and the trajectory table uploaded once.
func TestPlannerAmpleMemory(t *testing.T) {
	p := planPrep(t, 30, 24, 20, 2, PlacementNearest)
	pn, pl, err := planOf(t, p, planLimits(1<<30, 1<<30))
	if err != nil {
		t.Fatal(err)
	}
	lay := checkLayout(t, pn, pl)
	if len(lay.passes) != 1 || len(lay.blocks) != 1 || pl.tabFrames != 30 || pl.tabs != 1 {
		t.Fatalf("%d passes, %d blocks, table chunks of %d frames in %d buffers; want 1, 1, 30 in 1", len(lay.passes), len(lay.blocks), pl.tabFrames, pl.tabs)
	}
}

// TestPlannerTightMemory: a budget below the whole cube's needs takes
// passes of the most rows that fit (one more does not), blocks of frames
// under a small binding, and the table in chunks.
func TestPlannerTightMemory(t *testing.T) {
	for _, pl := range []Placement{PlacementNearest, PlacementSubpixel} {
		p := planPrep(t, 100, 32, 24, 3, pl)
		_, all, err := planOf(t, p, planLimits(1<<30, 1<<30))
		if err != nil {
			t.Fatal(err)
		}
		whole := planLimits(1<<30, 1<<30).need(all.sizes...)
		cases := []struct{ avail, maxBind int64 }{{whole / 2, 1 << 30}, {whole / 4, 1 << 30}}
		if pl == PlacementNearest { // the sub-pixel u takes 68 KiB a row
			cases = append(cases, struct{ avail, maxBind int64 }{1 << 30, 48 << 10})
		}
		for _, c := range cases {
			pn, got, err := planOf(t, p, planLimits(c.avail, c.maxBind))
			if err != nil {
				t.Fatalf("%v, %d bytes free, bindings of %d: %v", pl, c.avail, c.maxBind, err)
			}
			lay := checkLayout(t, pn, got)
			if len(lay.passes) < 2 {
				t.Errorf("%v, %d of %d bytes free: %d pass", pl, c.avail, whole, len(lay.passes))
			}
			if need := pn.lim.need(got.sizes...); need > c.avail {
				t.Errorf("%v: the plan needs %d bytes, %d are free", pl, need, c.avail)
			}
			if more, ok := pn.plan(got.rows+1, got.tabFrames); pn.fits(more, ok) && got.rows < p.H {
				t.Errorf("%v: %d rows per pass, but %d fit", pl, got.rows, got.rows+1)
			}
			for _, s := range got.sizes {
				if s > c.maxBind {
					t.Errorf("%v: a buffer of %d bytes, bindings of %d", pl, s, c.maxBind)
				}
			}
			if c.maxBind < 1<<30 && len(lay.blocks) < 2 {
				t.Errorf("%v: bindings of %d bytes hold the whole band of 100 frames", pl, c.maxBind)
			}
		}
	}
}

// TestPlannerRefuses: what the device cannot do is the error that says
// so. R = 2 is 13 pixels, a solve workgroup of 64 and (78 + 1 + 13 + 13 +
// 3·64 + 2)·4 + 4 = 1200 bytes of float32 shared memory (by hand).
func TestPlannerRefuses(t *testing.T) {
	p := planPrep(t, 10, 16, 16, 2, PlacementNearest)
	lim := planLimits(1<<30, 1<<30)
	for _, c := range []struct {
		name string
		set  func(l *vkLimits)
		want error
	}{
		{"workgroup", func(l *vkLimits) { l.maxInvocations = 63 }, engine.ErrDeviceLimit},
		{"shared memory", func(l *vkLimits) { l.maxShared = 1199 }, engine.ErrDeviceLimit},
		{"maps binding", func(l *vkLimits) { l.maxBind = 3*16*16*4 - 1 }, engine.ErrTooLarge},
		{"budget", func(l *vkLimits) { l.avail = 1 << 10 }, engine.ErrNoFit},
	} {
		l := lim
		c.set(&l)
		if _, _, err := planOf(t, p, l); !errors.Is(err, c.want) {
			t.Errorf("%s: got %v, want %v", c.name, err, c.want)
		}
	}
	l := lim
	l.maxInvocations, l.maxShared = 64, 1200
	if _, _, err := planOf(t, p, l); err != nil {
		t.Errorf("64 invocations and 1200 bytes of shared memory: %v", err)
	}
}
