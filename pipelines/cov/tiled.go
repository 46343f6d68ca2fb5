package cov

import (
	"github.com/vkstat/vkstat/engine"
)

// tiledKernel is cov_tiled.comp compiled for one P and dtype: several
// sample sets per workgroup, each set's samples staged TT at a time in
// shared memory (float32 for float32 and 16-bit data, float64 for float64),
// and every invocation one R×R block of a set's lower triangle. It takes
// sets of at most maxT samples in one dispatch (no carry over dispatches);
// kernel.record runs cov.comp on longer ones.
type tiledKernel struct {
	k          *engine.Kernel
	dev        *engine.Device
	r, sets    int // register block, sets per workgroup
	wg, tt     int // workgroup size (sets × blocks per set), samples per tile
	maxT       int // the longest set it takes
	blocksPerS int // R×R blocks per set
}

// newTiled builds cov_tiled.comp for p variables in variant v (the blocks
// kernel's), or returns nil when a set does not fit a workgroup (R×R blocks
// of R ≤ 8) or its shared memory (the caller keeps the blocks kernel).
func newTiled(dev *engine.Device, p int, v engine.Variant, tn tuning) (*tiledKernel, error) {
	name, tileSz, accSz := "cov_tiled"+v.Suffix(), v.ValueSize(), v.AccSize() // bytes per staged value and per accumulator
	lim := 1024
	if l := int(dev.Info.MaxWorkgroupInvocation); l > 0 {
		lim = min(lim, l)
	}
	// A set's blocks must fit one workgroup: R grows (up to 8, 64
	// accumulators) until they do.
	r := max(1, min(tn.tiledR, p))
	pr := (p + r - 1) / r
	for ; pr*(pr+1)/2 > lim && r < 8; pr = (p + r - 1) / r {
		r++
	}
	nb := pr * (pr + 1) / 2
	if nb > lim {
		return nil, nil
	}
	sets := max(1, min(tn.tiledWG, lim)/nb)
	shared := int(dev.Info.MaxSharedMemory)
	if shared <= 0 {
		shared = 32 << 10
	}
	// Shared memory: smean (sets·P), red (3·sets·nb), srho (sets) in ACC;
	// per staged sample, sets·P values of the tile and sets q4 slots.
	var tt int
	for ; sets >= 1; sets-- {
		fixed := (sets*p + 3*sets*nb + sets) * accSz
		tt = min(tn.tiledTT, (shared-fixed)/(sets*(p*tileSz+accSz)))
		if tt >= 1 {
			break
		}
	}
	if sets < 1 {
		return nil, nil
	}
	wg := sets * nb
	// lavapipe's loop limit (loopBudget), counting every loop as a loop
	// (unrolled ones cost nothing): a tile stages ⌈sets·TT·P/wg⌉ values
	// per invocation, sums Ledoit-Wolf's q4 over ⌈sets·TT/wg⌉ samples of
	// P values, and runs the products, TT × (1 + 2R + R²) at most; the
	// means take ⌈sets·P/wg⌉ × T; the rest (the set's moments and the
	// output) about nb + TT + 3R².
	ceil := func(a, b int) int { return (a + b - 1) / b }
	perTile := 1 + ceil(sets*tt*p, wg) + ceil(sets*tt, wg)*(1+p) + tt*(1+2*r+r*r)
	fixedIt := 1 + nb + tt + 3*r*r + ceil(sets*tt, wg)
	perSample := float64(ceil(sets*p, wg)) + float64(perTile)/float64(tt)
	maxT := int(float64(loopBudget-fixedIt-perTile) / perSample)
	maxT = min(maxT, tn.tiledMaxT)
	if maxT < 1 {
		return nil, nil
	}
	k, err := dev.Kernel(engine.KernelSpec{Name: name, Push: tiledPush{},
		Spec: []uint32{uint32(wg), uint32(p), uint32(r), uint32(sets), uint32(tt)}})
	if err != nil {
		return nil, err
	}
	return &tiledKernel{k: k, dev: dev, r: r, sets: sets, wg: wg, tt: tt, maxT: maxT, blocksPerS: nb}, nil
}

// record records one dispatch over n sets of t ≤ maxT samples, addressed
// as kernel.record's.
func (tk *tiledKernel) record(seq *engine.Sequence, n, t, tstride, nstride int, gather bool, opt Options,
	data, off, base, mean, cov, rho engine.Binding) error {
	pc := tiledPush{n: n, t: t, tstride: tstride, nstride: nstride, gather: gather, est: opt.Estimator, ddof: opt.DDof}
	return seq.Dispatch(tk.k, tk.dev.Groups((n+tk.sets-1)/tk.sets), pc, data, off, base, mean, cov, rho)
}

// tiledPush is cov_tiled.comp's push constants.
type tiledPush struct {
	n, t, tstride, nstride int
	gather                 bool
	est                    Estimator
	ddof                   int
}
