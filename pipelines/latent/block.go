package latent

import (
	"context"
	"fmt"
	"math"
	"slices"
	"time"

	"github.com/vkstat/vkstat/engine"
	"github.com/vkstat/vkstat/tensor"
	"gonum.org/v1/gonum/floats"
)

// Block is latent's state over chunks of a tensor that may cut its
// samples (a Dask chunk along any axis), which merges with the states of
// the other chunks (MergeBlocks) into the state of the whole tensor, from
// which Finish gives what Run gives. It holds, in float64:
//
//   - for the moments, per output the count, mean, central sums M2, M3, M4,
//     least and greatest value (merged with Chan, Golub and LeVeque's and
//     Pébay's pairwise updates, so a chunk may cut the reduced axes and
//     the kept ones);
//   - for the correlations and the PCA, per set of variables (channels of
//     a sample for corr and PCA, channels of a sample's frame for
//     corr_frames, frames of a sample's channel for lagcorr) the count,
//     means and co-moment matrix of the chunk's observations (pixels),
//     merged pairwise, so a chunk may cut the observations' axes and the
//     sets' axes, never the variables': corr, corr_frames and PCA need
//     every channel in a chunk, lagcorr every frame.
//
// The correlations, the lag means and the PCA's eigenpairs are computed
// by Finish only, from the merged co-moments. The spectra need whole
// frames and every frame: they are not kept here (RunPartial keeps them
// for chunks of whole samples).
//
// A chunk's state is computed on the CPU in float64 from its values (in
// the work type when Options.Convert asks for one).
type Block struct {
	// Full is the whole tensor's shape; Origin and Shape the box of it
	// that the state spans; Pieces the chunks merged into it (each its
	// origin then its shape).
	Full, Origin, Shape []int
	Pieces              [][]int
	// DType is the type the work was done in, Opt the options (defaults
	// filled in).
	DType      tensor.DType
	Opt        Options
	NaNs, Infs int

	// Timing is what computing it cost (RunBlock).
	Timing engine.Timing

	mom []mom // per output of the moments over the box
	// chans: channels per sample (corr, PCA); frameChans: channels per
	// sample and frame (corr_frames); frames: frames per sample and channel
	// (lagcorr).
	chans, frameChans, frames *coSets
}

// family is a kind of variable set in (N, C, F, H, W): its sets run over
// the axes sets, its variables along axis v, its observations over the
// other axes.
type family struct {
	sets []int
	v    int
}

var (
	chanFamily      = family{sets: []int{0}, v: 1}
	frameChanFamily = family{sets: []int{0, 2}, v: 1}
	frameFamily     = family{sets: []int{0, 1}, v: 2}
)

// Chunk is a chunk of a tensor: its values X, the index of its first
// element in the whole tensor (Origin) and that tensor's shape (Full).
type Chunk struct {
	X            *tensor.Tensor
	Origin, Full []int
}

// RunBlock computes the Block of the chunk in. Its state is float64 sums
// over the chunk's values, computed on the CPU whatever dev (which may be
// nil); the Block's Timing has the wall time.
func RunBlock(ctx context.Context, dev *engine.Device, in Chunk, opt Options) (*Block, error) {
	start := time.Now()
	x, origin, full := in.X, in.Origin, in.Full
	if x == nil || !x.HasData() {
		return nil, fmt.Errorf("latent: block: no tensor, or one with the wrong number of values")
	}
	nd := len(full)
	if len(x.Shape) != nd || len(origin) != nd {
		return nil, fmt.Errorf("latent: block of shape %s at %v in a tensor of shape %s", tensor.ShapeString(x.Shape), origin, tensor.ShapeString(full))
	}
	for i := range full {
		if origin[i] < 0 || x.Shape[i] < 1 || origin[i]+x.Shape[i] > full[i] {
			return nil, fmt.Errorf("latent: block of shape %s at %v is not inside a tensor of shape %s", tensor.ShapeString(x.Shape), origin, tensor.ShapeString(full))
		}
	}
	if err := opt.Check(); err != nil {
		return nil, err
	}
	opt = opt.withDefaults(full)
	switch {
	case !opt.asks():
		return nil, fmt.Errorf("latent: block: no statistic asked for")
	case opt.Spectra:
		return nil, fmt.Errorf("latent: the spectra need whole samples: chunk along the samples only (RunPartial)")
	}
	b := &Block{Full: slices.Clone(full), Origin: slices.Clone(origin), Shape: slices.Clone(x.Shape), DType: opt.dtype(x.DType), Opt: opt}
	b.Pieces = [][]int{append(slices.Clone(origin), x.Shape...)}
	if err := b.check(); err != nil {
		return nil, err
	}
	if opt.Convert && opt.DType != x.DType {
		x = x.As(opt.DType)
	}
	b.NaNs, b.Infs = countNonFinite(x)
	data := x.Float64s()
	if opt.Moments {
		axes, err := NormAxes(opt.Axes, nd)
		if err != nil {
			return nil, err
		}
		b.mom = blockMoments(data, x.Shape, axes, opt.NaN)
	}
	if opt.Corr || opt.CorrFrames || opt.LagCorr || opt.PCA {
		s5 := five(x.Shape, 1)
		if opt.Corr || opt.PCA {
			b.chans = comoments(data, s5, chanFamily, opt.NaN)
		}
		if opt.CorrFrames {
			b.frameChans = comoments(data, s5, frameChanFamily, opt.NaN)
		}
		if opt.LagCorr {
			b.frames = comoments(data, s5, frameFamily, opt.NaN)
		}
	}
	b.Timing.Wall = time.Since(start)
	return b, ctx.Err()
}

// check refuses a block whose statistics need whole axes it cuts.
func (b *Block) check() error {
	asks := b.Opt.Corr || b.Opt.CorrFrames || b.Opt.LagCorr || b.Opt.PCA
	if !asks {
		return nil
	}
	if _, err := DimsOf(b.Full); err != nil {
		return err
	}
	f5, s5 := five(b.Full, 1), five(b.Shape, 1)
	if (b.Opt.Corr || b.Opt.CorrFrames || b.Opt.PCA) && s5[1] != f5[1] {
		return fmt.Errorf("latent: corr, corr_frames and pca need every channel in a chunk: it holds %d of %d", s5[1], f5[1])
	}
	if b.Opt.LagCorr && s5[2] != f5[2] {
		return fmt.Errorf("latent: lagcorr needs every frame in a chunk: it holds %d of %d", s5[2], f5[2])
	}
	return nil
}

// five is v, a shape or an origin of a 4-d tensor (N, C, H, W), as of a
// 5-d one (one frame: at 0, of size one), and a 5-d one as it is.
func five(v []int, one int) []int {
	if len(v) == 4 {
		return []int{v[0], v[1], one, v[2], v[3]}
	}
	return v
}

// blockMoments is the mom of each output of the moments over axes of the
// values data of shape, in C order.
func blockMoments(data []float64, shape, axes []int, policy NaNPolicy) []mom {
	kept := keptAxes(axes, len(shape))
	out := make([]mom, tensor.NumElements(pick(shape, kept)))
	for i := range out {
		out[i].min, out[i].max = math.Inf(1), math.Inf(-1)
	}
	// The trailing reduced axes make runs of values of one output: the
	// table maps each run to it.
	lead, run := len(shape), 1
	for lead > 0 && !slices.Contains(kept, lead-1) {
		lead--
		run *= shape[lead]
	}
	to := place(shape[:lead], make([]int, lead), shape[:lead], kept, true)
	sum := make([]float64, len(out))
	for r, q := range to {
		m := &out[q]
		for _, v := range data[r*run : (r+1)*run] {
			if !finite(v) {
				m.bad = m.bad || policy == Propagate
				continue
			}
			m.n++
			sum[q] += v
			m.min, m.max = min(m.min, v), max(m.max, v)
		}
	}
	for q := range out {
		if out[q].n > 0 {
			out[q].mean = sum[q] / out[q].n
		}
	}
	for r, q := range to {
		m := &out[q]
		for _, v := range data[r*run : (r+1)*run] {
			if !finite(v) {
				continue
			}
			d := v - m.mean
			d2 := d * d
			m.m2 += d2
			m.m3 += d2 * d
			m.m4 += d2 * d2
		}
	}
	return out
}

// keptAxes are the axes of an nd-d tensor not in axes.
func keptAxes(axes []int, nd int) []int {
	var kept []int
	for i := range nd {
		if !slices.Contains(axes, i) {
			kept = append(kept, i)
		}
	}
	return kept
}

// pick is v at the indices axes.
func pick(v, axes []int) []int {
	out := make([]int, len(axes))
	for i, a := range axes {
		out[i] = v[a]
	}
	return out
}

// place maps each element of a box of shape sub placed at off in a box
// of shape box to the flat index, in box's C order over axes, of its cell
// (the flat indices of the box restricted to axes). With every, the
// table runs over every element of sub; otherwise over sub's cells only
// (sub restricted to axes, in C order).
func place(sub, off, box, axes []int, every bool) []int {
	nd := len(sub)
	stride := make([]int, nd) // box cell stride of each axis; 0 for the others
	s := 1
	for i := len(axes) - 1; i >= 0; i-- {
		stride[axes[i]] = s
		s *= box[axes[i]]
	}
	walk := sub
	if !every {
		walk = slices.Clone(sub)
		for i := range walk {
			if !slices.Contains(axes, i) {
				walk[i] = 1
			}
		}
	}
	out := make([]int, tensor.NumElements(walk))
	idx := make([]int, nd)
	o := 0
	for i := range nd {
		o += off[i] * stride[i]
	}
	for e := range out {
		out[e] = o
		for i := nd - 1; i >= 0; i-- { // odometer
			idx[i]++
			o += stride[i]
			if idx[i] < walk[i] {
				break
			}
			o -= stride[i] * idx[i]
			idx[i] = 0
		}
	}
	return out
}

// coSets are the count, means and co-moment matrices of sets of p
// variables; per variable too the value of its first observation, whether
// all its observations equal it, and (under Propagate) whether one was NaN
// or ±Inf (flags as 0 or 1, as a file keeps them).
type coSets struct {
	p                          int
	n                          []float64 // per set
	mean, first, same, bad, cm []float64 // p per set; p·p for cm
}

func newCoSets(sets, p int) *coSets {
	return &coSets{p: p, n: make([]float64, sets), mean: make([]float64, sets*p), first: make([]float64, sets*p),
		same: make([]float64, sets*p), bad: make([]float64, sets*p), cm: make([]float64, sets*p*p)}
}

// comoments is the coSets of fam over data, a chunk of shape s5 (N, C, F,
// H, W): under Skip over the observations at which no variable of the set
// is NaN or ±Inf; under Propagate over all, such a value counted as 0 and
// its variable flagged bad. Each family's observations are the chunk's
// trailing axes, so a variable's lie in one run.
func comoments(data []float64, s5 []int, fam family, policy NaNPolicy) *coSets {
	stride := make([]int, 5)
	for i, s := 4, 1; i >= 0; i-- {
		stride[i], s = s, s*s5[i]
	}
	nobs := stride[max(fam.v, slices.Max(fam.sets))] // the observations: every axis after the sets' and variables'
	sub := slices.Clone(s5)
	for i := range sub {
		if !slices.Contains(fam.sets, i) {
			sub[i] = 1
		}
	}
	p, vs := s5[fam.v], stride[fam.v]
	cs := newCoSets(tensor.NumElements(sub), p)
	cols := make([]float64, p*nobs)
	keep := make([]bool, nobs)
	idx := make([]int, 5)
	for k := range cs.n {
		base := 0
		for i := range 5 {
			base += idx[i] * stride[i]
		}
		for i := 4; i >= 0; i-- { // odometer over the sets
			if idx[i]++; idx[i] < sub[i] {
				break
			}
			idx[i] = 0
		}
		for t := range keep {
			keep[t] = true
		}
		for i := range p {
			for t, v := range data[base+i*vs : base+i*vs+nobs] {
				if !finite(v) {
					keep[t] = policy == Propagate
					cs.bad[k*p+i] = 1
				}
			}
		}
		n := 0
		for i := range p {
			col := cols[i*nobs:]
			n = 0
			for t, v := range data[base+i*vs : base+i*vs+nobs] {
				if !keep[t] {
					continue
				}
				if !finite(v) {
					v = 0
				}
				col[n] = v
				n++
			}
		}
		if policy == Skip {
			clear(cs.bad[k*p : (k+1)*p])
		}
		cs.fill(k, cols, nobs, n)
	}
	return cs
}

// fill sets set k from its n observations, variable i's in cols[i·stride:].
func (c *coSets) fill(k int, cols []float64, stride, n int) {
	p := c.p
	c.n[k] = float64(n)
	if n == 0 {
		return
	}
	mean, first, same, cm := c.mean[k*p:(k+1)*p], c.first[k*p:(k+1)*p], c.same[k*p:(k+1)*p], c.cm[k*p*p:(k+1)*p*p]
	for i := range p {
		col := cols[i*stride : i*stride+n]
		first[i], same[i] = col[0], 1
		for _, v := range col {
			if v != first[i] {
				same[i] = 0
				break
			}
		}
		mean[i] = floats.Sum(col) / float64(n)
		floats.AddConst(-mean[i], col)
	}
	for i := range p {
		for j := i; j < p; j++ {
			cm[i*p+j] = floats.Dot(cols[i*stride:i*stride+n], cols[j*stride:j*stride+n])
			cm[j*p+i] = cm[i*p+j]
		}
	}
}

// add merges set j of o into set k of c (the pairwise update of the
// co-moments: C = Ca + Cb + δδᵀ·na·nb/n).
func (c *coSets) add(k int, o *coSets, j int) {
	p := c.p
	nb := o.n[j]
	bad, obad := c.bad[k*p:(k+1)*p], o.bad[j*p:(j+1)*p]
	for i := range bad {
		bad[i] = max(bad[i], obad[i])
	}
	if nb == 0 {
		return
	}
	na := c.n[k]
	mean, first, same, cm := c.mean[k*p:(k+1)*p], c.first[k*p:(k+1)*p], c.same[k*p:(k+1)*p], c.cm[k*p*p:(k+1)*p*p]
	omean, ofirst, osame, ocm := o.mean[j*p:(j+1)*p], o.first[j*p:(j+1)*p], o.same[j*p:(j+1)*p], o.cm[j*p*p:(j+1)*p*p]
	c.n[k] = na + nb
	if na == 0 {
		copy(mean, omean)
		copy(first, ofirst)
		copy(same, osame)
		copy(cm, ocm)
		return
	}
	nn := na + nb
	d := make([]float64, p)
	for i := range p {
		d[i] = omean[i] - mean[i]
		if same[i] == 1 && (osame[i] == 0 || ofirst[i] != first[i]) {
			same[i] = 0
		}
	}
	for i := range p {
		for l := range p {
			cm[i*p+l] += ocm[i*p+l] + d[i]*d[l]*na*nb/nn
		}
		mean[i] += d[i] * nb / nn
	}
}

// covs is c's covariance matrices with ddof as setCovs.
func (c *coSets) covs(ddof int) *setCovs {
	sets, p := len(c.n), c.p
	sc := &setCovs{cov: make([]float64, sets*p*p), count: make([]int, sets), bad: make([]bool, sets*p), constant: make([]bool, sets*p)}
	for k, n := range c.n {
		sc.count[k] = int(n)
		for i, v := range c.cm[k*p*p : (k+1)*p*p] {
			sc.cov[k*p*p+i] = math.NaN()
			if n-float64(ddof) > 0 {
				sc.cov[k*p*p+i] = v / (n - float64(ddof))
			}
		}
		for i := k * p; i < (k+1)*p; i++ {
			sc.bad[i], sc.constant[i] = c.bad[i] == 1, n > 0 && c.same[i] == 1
		}
	}
	return sc
}

// sameRun reports why o was computed otherwise than b, or "".
func (b *Block) sameRun(o *Block) string {
	bf, of := b.Opt.facts(), o.Opt.facts()
	switch {
	case !slices.Equal(b.Full, o.Full):
		return fmt.Sprintf("the tensor's shape (%s, %s)", tensor.ShapeString(b.Full), tensor.ShapeString(o.Full))
	case b.DType != o.DType:
		return fmt.Sprintf("the work type (%s, %s)", b.DType, o.DType)
	case fmt.Sprint(bf) != fmt.Sprint(of) || b.Opt.Unbiased != o.Opt.Unbiased:
		return fmt.Sprintf("the options (%+v, %+v)", bf, of)
	}
	return ""
}

// overlap reports whether pieces a and b (origin then shape) share an
// element.
func overlap(a, b []int) bool {
	nd := len(a) / 2
	for i := range nd {
		if a[i]+a[nd+i] <= b[i] || b[i]+b[nd+i] <= a[i] {
			return false
		}
	}
	return true
}

// MergeBlocks combines the Blocks of chunks of one tensor, given in any
// order, into the Block of them all. They must have been computed alike
// (tensor shape, options, work type) and share no element.
func MergeBlocks(blocks ...*Block) (*Block, error) {
	if len(blocks) == 0 {
		return nil, fmt.Errorf("latent: no block to merge")
	}
	f := blocks[0]
	nd := len(f.Full)
	m := &Block{Full: f.Full, Origin: slices.Clone(f.Origin), DType: f.DType, Opt: f.Opt}
	end := make([]int, nd)
	for _, b := range blocks {
		if why := f.sameRun(b); why != "" {
			return nil, fmt.Errorf("latent: blocks at %v and %v differ in %s", f.Origin, b.Origin, why)
		}
		for _, p := range b.Pieces {
			for _, q := range m.Pieces {
				if overlap(p, q) {
					return nil, fmt.Errorf("latent: chunks at %v and %v overlap: each element must be in exactly one", p[:nd], q[:nd])
				}
			}
			m.Pieces = append(m.Pieces, p)
		}
		for i := range nd {
			m.Origin[i] = min(m.Origin[i], b.Origin[i])
			end[i] = max(end[i], b.Origin[i]+b.Shape[i])
		}
		m.NaNs, m.Infs = m.NaNs+b.NaNs, m.Infs+b.Infs
	}
	m.Shape = make([]int, nd)
	for i := range nd {
		m.Shape[i] = end[i] - m.Origin[i]
	}
	off := func(b *Block) []int {
		o := make([]int, nd)
		for i := range nd {
			o[i] = b.Origin[i] - m.Origin[i]
		}
		return o
	}
	if f.Opt.Moments {
		axes, _ := NormAxes(f.Opt.Axes, nd)
		kept := keptAxes(axes, nd)
		m.mom = make([]mom, tensor.NumElements(pick(m.Shape, kept)))
		for _, b := range blocks {
			for q, to := range place(b.Shape, off(b), m.Shape, kept, false) {
				m.mom[to] = m.mom[to].add(b.mom[q])
			}
		}
	}
	s5 := five(m.Shape, 1)
	for _, fam := range []struct {
		f   family
		get func(*Block) **coSets
	}{{chanFamily, func(b *Block) **coSets { return &b.chans }}, {frameChanFamily, func(b *Block) **coSets { return &b.frameChans }},
		{frameFamily, func(b *Block) **coSets { return &b.frames }}} {
		if *fam.get(f) == nil {
			continue
		}
		dst := newCoSets(tensor.NumElements(pick(s5, fam.f.sets)), s5[fam.f.v])
		*fam.get(m) = dst
		for _, b := range blocks {
			for q, to := range place(five(b.Shape, 1), five(off(b), 0), s5, fam.f.sets, false) {
				dst.add(to, *fam.get(b), q)
			}
		}
	}
	return m, nil
}

// Finish returns what Run gives for the whole tensor from b, the merge of
// the Blocks of chunks that cover it.
func (b *Block) Finish(ctx context.Context) (*Result, error) {
	covered := 0
	for _, p := range b.Pieces {
		covered += tensor.NumElements(p[len(b.Full):])
	}
	if !slices.Equal(b.Shape, b.Full) || covered != tensor.NumElements(b.Full) {
		return nil, fmt.Errorf("latent: the chunks merged cover %d of the tensor's %d elements", covered, tensor.NumElements(b.Full))
	}
	opt := b.Opt
	r := &Result{NaNs: b.NaNs, Infs: b.Infs}
	if opt.Moments {
		axes, _ := NormAxes(opt.Axes, len(b.Full))
		kept := pick(b.Full, keptAxes(axes, len(b.Full)))
		nt := func() *tensor.Tensor { return tensor.New(tensor.F64, kept...) }
		m := &Moments{Axes: axes, Shape: kept, Mean: nt(), Var: nt(), Std: nt(), Min: nt(), Max: nt(), Skew: nt(), Kurt: nt()}
		round := func(v float64) float64 { return v }
		if b.DType == tensor.F32 {
			round = func(v float64) float64 { return float64(float32(v)) }
		}
		for q, c := range b.mom {
			c.put(m, q, opt.DDof, opt.Unbiased, round)
		}
		r.Moments = m
		r.Notes = append(r.Notes, momentNotes(m, opt, MomentCount(b.Full, axes))...)
	}
	if opt.Corr || opt.CorrFrames || opt.LagCorr || opt.PCA {
		d, _ := DimsOf(b.Full)
		if opt.Corr {
			c, notes := b.chans.covs(0).corr(d.N, d.C, func(s int) string { return fmt.Sprintf("sample %d", s) }, "channel")
			r.Corr = tensor.FromF64(c, d.N, d.C, d.C)
			r.Notes = append(r.Notes, prefixed("corr", notes)...)
		}
		if opt.CorrFrames {
			c, notes := b.frameChans.covs(0).corr(d.N*d.F, d.C, func(s int) string { return fmt.Sprintf("sample %d frame %d", s/d.F, s%d.F) }, "channel")
			r.CorrFrames = tensor.FromF64(c, d.N, d.F, d.C, d.C)
			r.Notes = append(r.Notes, prefixed("corr per frame", notes)...)
		}
		if opt.LagCorr {
			sc := b.frames.covs(0)
			c, notes := sc.corr(d.N*d.C, d.F, func(s int) string { return fmt.Sprintf("sample %d channel %d", s/d.C, s%d.C) }, "frame")
			r.FrameCorr = tensor.FromF64(c, d.N, d.C, d.F, d.F)
			r.LagCorr = lagMeans(c, sc.bad, d.N, d.C, d.F, opt.Lags)
			r.Notes = append(r.Notes, prefixed("frame corr", notes)...)
		}
		if opt.PCA {
			pc := nanPCA(d.N, d.C)
			pc.NaNs, pc.Infs = b.NaNs, b.Infs
			if err := pc.fromCovs(ctx, nil, b.chans.covs(1), d.N, d.C, true, opt.NaN); err != nil {
				return nil, err
			}
			r.PCA = pc
			for _, n := range pc.Notes {
				r.Notes = append(r.Notes, "pca: "+n)
			}
		}
	}
	return r, ctx.Err()
}

// BlockFacts are what a Block holds besides its arrays (Store).
type BlockFacts struct {
	Full   []int   `json:"full"`
	Origin []int   `json:"origin"`
	Shape  []int   `json:"shape"`
	Pieces [][]int `json:"pieces"`
	// DType is the type the work was done in.
	DType    string         `json:"dtype"`
	Options  PartialOptions `json:"options"`
	Unbiased bool           `json:"unbiased"`
	NaNs     int            `json:"nans"`
	Infs     int            `json:"infs"`
}

// blockArrays are b's state by name, as Store and RestoreBlock name it.
func (b *Block) blockArrays() map[string]*[]float64 {
	out := map[string]*[]float64{}
	for name, c := range map[string]*coSets{"chans": b.chans, "frame_chans": b.frameChans, "frames": b.frames} {
		if c != nil {
			for k, v := range map[string]*[]float64{"n": &c.n, "mean": &c.mean, "first": &c.first, "same": &c.same, "bad": &c.bad, "cm": &c.cm} {
				out[name+"."+k] = v
			}
		}
	}
	return out
}

// momentFields are a mom's values by name, for Store.
var momentFields = []string{"n", "mean", "m2", "m3", "m4", "min", "max", "bad"}

// Store is b as facts and float64 arrays by name.
func (b *Block) Store() (BlockFacts, map[string]*tensor.Tensor) {
	o := b.Opt
	f := BlockFacts{Full: b.Full, Origin: b.Origin, Shape: b.Shape, Pieces: b.Pieces, DType: b.DType.String(), Unbiased: o.Unbiased,
		NaNs: b.NaNs, Infs: b.Infs, Options: o.facts()}
	arrays := map[string]*tensor.Tensor{}
	for name, v := range b.blockArrays() {
		arrays[name] = tensor.FromF64(*v, len(*v))
	}
	if b.mom != nil {
		cols := make([][]float64, len(momentFields))
		for i := range cols {
			cols[i] = make([]float64, len(b.mom))
		}
		for q, m := range b.mom {
			bad := 0.0
			if m.bad {
				bad = 1
			}
			for i, v := range []float64{m.n, m.mean, m.m2, m.m3, m.m4, m.min, m.max, bad} {
				cols[i][q] = v
			}
		}
		for i, name := range momentFields {
			arrays["mom."+name] = tensor.FromF64(cols[i], len(cols[i]))
		}
	}
	return f, arrays
}

// RestoreBlock makes the Block that Store gave f and arrays for.
func RestoreBlock(f BlockFacts, arrays map[string]*tensor.Tensor) (*Block, error) {
	dt, err := tensor.ParseDType(f.DType)
	if err != nil {
		return nil, fmt.Errorf("latent: block: %w", err)
	}
	policy, err := ParseNaNPolicy(f.Options.NaN)
	if err != nil {
		return nil, fmt.Errorf("latent: block: %w", err)
	}
	o := f.Options
	opt := Options{Moments: o.Moments, Axes: o.Axes, DDof: o.DDof, Corr: o.Corr, CorrFrames: o.CorrFrames, LagCorr: o.LagCorr,
		Lags: o.Lags, PCA: o.PCA, NaN: policy, Unbiased: f.Unbiased}
	nd := len(f.Full)
	if o.Spectra || nd == 0 || len(f.Origin) != nd || len(f.Shape) != nd || len(f.Pieces) == 0 {
		return nil, fmt.Errorf("latent: block of shape %v at %v in a tensor of shape %v", f.Shape, f.Origin, f.Full)
	}
	for _, p := range f.Pieces {
		if len(p) != 2*nd {
			return nil, fmt.Errorf("latent: block: chunk %v is not an origin and a shape of %d axes", p, nd)
		}
	}
	b := &Block{Full: f.Full, Origin: f.Origin, Shape: f.Shape, Pieces: f.Pieces, DType: dt, Opt: opt, NaNs: f.NaNs, Infs: f.Infs}
	if err := b.check(); err != nil {
		return nil, err
	}
	s5 := five(f.Shape, 1)
	for _, fam := range []struct {
		ask bool
		f   family
		to  **coSets
	}{{opt.Corr || opt.PCA, chanFamily, &b.chans}, {opt.CorrFrames, frameChanFamily, &b.frameChans}, {opt.LagCorr, frameFamily, &b.frames}} {
		if fam.ask {
			*fam.to = newCoSets(tensor.NumElements(pick(s5, fam.f.sets)), s5[fam.f.v])
		}
	}
	used := 0
	for name, v := range b.blockArrays() {
		t := arrays[name]
		if t == nil || t.DType != tensor.F64 || len(t.F64) != len(*v) {
			return nil, fmt.Errorf("latent: block without its %s of %d values", name, len(*v))
		}
		copy(*v, t.F64)
		used++
	}
	if opt.Moments {
		axes, err := NormAxes(opt.Axes, nd)
		if err != nil {
			return nil, err
		}
		kept := keptAxes(axes, nd)
		b.mom = make([]mom, tensor.NumElements(pick(f.Shape, kept)))
		for i, name := range momentFields {
			t := arrays["mom."+name]
			if t == nil || t.DType != tensor.F64 || len(t.F64) != len(b.mom) {
				return nil, fmt.Errorf("latent: block without its mom.%s of %d values", name, len(b.mom))
			}
			used++
			for q, v := range t.F64 {
				m := &b.mom[q]
				if i == 7 {
					m.bad = v == 1
					continue
				}
				*[]*float64{&m.n, &m.mean, &m.m2, &m.m3, &m.m4, &m.min, &m.max}[i] = v
			}
		}
	}
	if used != len(arrays) {
		return nil, fmt.Errorf("latent: block: %d arrays, of which %d are its state", len(arrays), used)
	}
	return b, nil
}
