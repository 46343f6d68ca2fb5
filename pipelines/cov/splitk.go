package cov

import (
	"fmt"
	"math"

	"github.com/vkstat/vkstat/engine"
)

// splitKernel is the split-K covariance of long sample sets (estimator
// None): a set's P×P covariance over T samples is the Gram matrix of its
// (P×T) samples, a matrix product whose inner dimension T is split over
// workgroups as GEMM kernels split a long K. cov_splitk.comp sums, per
// (set, split, TP×TP tile of the lower triangle), the products and the
// values shifted by each variable's first sample; cov_splitk_sum.comp adds
// the splits and writes the mean and the covariance. Two dispatches
// whatever the number of sets or their length: cov.comp, which gives a set
// one workgroup and walks its samples in order, took 10 dispatches (split
// for lavapipe's loop limit) and 18.8 ms on an H100 for the 64 channel
// correlations of 16 × 65,536 values of `vkstat latent` (PyTorch: 0.79
// ms), with 64 workgroups for 132 SMs.
type splitKernel struct {
	part, sum *engine.Kernel
	dev       *engine.Device
	p         int
	tp, r     int // tile side, register block
	wg, tt    int // workgroup size, samples per staged tile
	lanes     int // invocations per block: they take every lanes-th sample
	tiles     int // TP×TP tiles of the lower triangle
	accSz     int
	maxSpan   int // the most samples one split may take (lavapipe's loop limit)
	len       int // samples a split aims at (tune: splitk_len)
	groups    int // workgroups a set aims at (tune: splitk_groups)
}

// newSplitK builds the two kernels for p variables in variant v (the
// blocks kernel's); the second pass takes the widened variant (its outputs
// are float32 for 16-bit data).
func newSplitK(dev *engine.Device, p int, v engine.Variant, tn tuning, test testOptions) (*splitKernel, error) {
	tileSz, accSz := v.ValueSize(), v.AccSize() // bytes per staged value and per sum
	wgAim := tn.splitkWG
	if l := int(dev.Info.MaxWorkgroupInvocation); l > 0 {
		wgAim = min(wgAim, l)
	}
	r := max(1, min(tn.splitkR, p))
	// Tiles of at most ⌊√wg⌋ blocks a side, as even as the variables allow.
	tbMax := max(1, int(math.Sqrt(float64(wgAim))))
	pt := (p + tbMax*r - 1) / (tbMax * r)
	tp := r * (((p+pt-1)/pt + r - 1) / r)
	tb := tp / r
	lanes := max(1, wgAim/(tb*tb))
	wg := lanes * tb * tb
	shared := int(dev.Info.MaxSharedMemory)
	if shared <= 0 {
		shared = 32 << 10
	}
	tt := min(tn.splitkTT, (shared-wg*accSz-2*tp*tileSz)/(2*tp*tileSz))
	if tt < 1 {
		return nil, fmt.Errorf("cov: split-K tiles of %d variables do not fit the %d bytes of shared memory of %s", tp, shared, dev.Info.Name)
	}
	pt = (p + tp - 1) / tp
	sk := &splitKernel{dev: dev, p: p, tp: tp, r: r, wg: wg, tt: tt, lanes: lanes, tiles: pt * (pt + 1) / 2, accSz: accSz,
		len: tn.splitkLen, groups: tn.splitkGroups}
	if test.splitkLen > 0 {
		sk.len = test.splitkLen
	}
	// lavapipe's loop limit (loopBudget), every loop counted: per staged
	// tile the tile loop, the staging (⌈2·TP·TT/wg⌉) and an invocation's
	// samples (⌈TT/lanes⌉); once, the shifts and the lanes' sums
	// ((R² + R)·lanes).
	ceil := func(a, b int) int { return (a + b - 1) / b }
	perTile := 1 + ceil(2*tp*tt, wg) + ceil(tt, lanes)
	fixed := 1 + ceil(2*tp, wg) + (r*r+r)*(lanes+1)
	sk.maxSpan = max(1, (loopBudget-fixed)/perTile) * tt
	name := "cov_splitk" + v.Suffix()
	var err error
	if sk.part, err = dev.Kernel(engine.KernelSpec{Name: name, Push: splitPush{},
		Spec: []uint32{uint32(wg), uint32(p), uint32(tp), uint32(r), uint32(tt)}}); err != nil {
		return nil, err
	}
	name = "cov_splitk_sum" + v.Widened().Suffix()
	if sk.sum, err = dev.Kernel(engine.KernelSpec{Name: name, Push: splitSumPush{},
		Spec: []uint32{splitSumWG, uint32(p)}}); err != nil {
		return nil, err
	}
	return sk, nil
}

// splitSumWG is cov_splitk_sum.comp's workgroup: an invocation per entry.
const splitSumWG = 64

// layout is how sets of t samples are split: span samples per split (a
// multiple of the staged tile), splits of them. It depends on t and the
// kernel only, never on the number of sets, so that a set's covariance
// does not depend on the batch it comes in: about t/len splits, at most
// enough for groups workgroups per set (a wide P has tiles enough), within
// lavapipe's loop limit.
func (sk *splitKernel) layout(t int) (span, splits int) {
	s := max(1, min((t+sk.len-1)/sk.len, max(1, sk.groups/sk.tiles)))
	span = (t + s - 1) / s
	span = min((span+sk.tt-1)/sk.tt*sk.tt, sk.maxSpan)
	return span, (t + span - 1) / span
}

// partBytes is the scratch (the carry binding) n sets of t samples need:
// per set and split the P² products and P sums, and the P shifts.
func (sk *splitKernel) partBytes(n, t int) int64 {
	_, s := sk.layout(t)
	return int64(n) * int64(s*(sk.p*sk.p+sk.p)+sk.p) * int64(sk.accSz)
}

// record records the two dispatches over n sets of t samples, addressed as
// kernel.record's, with part (partBytes(n, t) bytes) as their scratch.
func (sk *splitKernel) record(seq *engine.Sequence, n, t, tstride, nstride int, gather bool, opt Options,
	data, off, base, mean, cov, rho, part engine.Binding) error {
	if part.Buf == nil || (part.Size > 0 && part.Size < sk.partBytes(n, t)) {
		return fmt.Errorf("cov: %d sets of %d samples need a scratch binding of %d bytes for the split-K kernel", n, t, sk.partBytes(n, t))
	}
	span, splits := sk.layout(t)
	groups := int64(n) * int64(splits) * int64(sk.tiles)
	if groups > math.MaxUint32 || int64(n)*int64(sk.p*sk.p) > math.MaxUint32 {
		return fmt.Errorf("cov: %d sets of %d variables are too many for one split-K dispatch", n, sk.p)
	}
	if err := seq.Dispatch(sk.part, sk.dev.Groups(int(groups)), splitPush{n: n, t: t, tstride: tstride, nstride: nstride, gather: gather,
		splits: splits, span: span}, data, off, base, part); err != nil {
		return err
	}
	entries := n * sk.p * sk.p
	return seq.Dispatch(sk.sum, sk.dev.Groups((entries+splitSumWG-1)/splitSumWG), splitSumPush{n: n, t: t, splits: splits, ddof: opt.DDof},
		part, mean, cov, rho)
}

// splitPush is cov_splitk.comp's push constants.
type splitPush struct {
	n, t, tstride, nstride int
	gather                 bool
	splits, span           int
}

// splitSumPush is cov_splitk_sum.comp's push constants.
type splitSumPush struct {
	n, t, splits, ddof int
}
