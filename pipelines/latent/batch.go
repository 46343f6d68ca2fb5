package latent

import (
	"context"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/vkstat/vkstat/engine"
	"github.com/vkstat/vkstat/pipelines/spectra"
	"github.com/vkstat/vkstat/tensor"
)

// Run and RunSource work on the samples of a tensor (axis 0) in batches
// sized by memory (docs/latent.md, "Batches"): the next batch is read on a
// goroutine while the current one computes, per-sample results are joined
// along the sample axis, and moments over axes that include the sample
// axis are merged exactly (MergeMoments).

// BatchMargin is the part of a budget a batch is planned to fill: the
// footprints are estimates, and the allocators round up.
const BatchMargin = 0.8

// DeviceReserve is device memory set aside before batching: what the
// pipelines hold whatever the batch (the allocator's blocks of at least
// 256 KiB, reduce's records, cov's chunk buffers); measured on lavapipe,
// a latent of a few KiB needs 2 MiB.
const DeviceReserve = 4 << 20

// Source is a latent tensor read a batch of samples at a time: a file
// read as the batches need it, say, or a tensor in memory (TensorSource).
type Source struct {
	// Shape is the whole tensor's, samples first; DType the type Read
	// returns (tensor.F16, BF16, F32 or F64).
	Shape []int
	DType tensor.DType
	// StoredSampleBytes is the size of one sample where Read reads it from
	// (a file's own type, say), for the memory plan; 0: one sample of
	// DType.
	StoredSampleBytes int64
	// Read returns samples [lo, hi) as a tensor of shape (hi−lo,
	// Shape[1:]...) and DType, in buf's memory where it has room (buf may
	// be nil; it is a tensor Read returned before, which RunSource no
	// longer reads). RunSource calls it on a goroutine of its own, one
	// call at a time.
	Read func(lo, hi int, buf *tensor.Tensor) (*tensor.Tensor, error)
	// First is the index of the first sample in a larger data set, of
	// which the source is a shard (RunPartial; notes number the samples
	// from it).
	First int
}

// TensorSource serves x's samples from memory, without copying them.
func TensorSource(x *tensor.Tensor) Source {
	return Source{Shape: x.Shape, DType: x.DType, Read: func(lo, hi int, _ *tensor.Tensor) (*tensor.Tensor, error) {
		if len(x.Shape) == 0 {
			return x, nil
		}
		per := tensor.NumElements(x.Shape[1:])
		if lo < 0 || hi > x.Shape[0] || lo > hi {
			return nil, fmt.Errorf("latent: samples [%d, %d) outside the tensor's %d", lo, hi, x.Shape[0])
		}
		b := &tensor.Tensor{Shape: append([]int{hi - lo}, x.Shape[1:]...), DType: x.DType}
		switch {
		case x.DType.Is16():
			b.U16 = x.U16[lo*per : hi*per]
		case x.DType == tensor.F64:
			b.F64 = x.F64[lo*per : hi*per]
		default:
			b.F32 = x.F32[lo*per : hi*per]
		}
		return b, nil
	}}
}

// samples is the length of the first axis (1 for a 0-d tensor).
func (s Source) samples() int {
	if len(s.Shape) == 0 {
		return 1
	}
	return s.Shape[0]
}

// sampleElems is the number of elements of one sample.
func (s Source) sampleElems() int64 {
	if len(s.Shape) == 0 {
		return 1
	}
	return int64(tensor.NumElements(s.Shape[1:]))
}

// Footprint is the memory one sample takes while a batch computes, in
// bytes: on the device (zero on the CPU path), and on the host; and the
// host memory its results hold until the end.
type Footprint struct{ Device, Host, Outputs int64 }

// Plan is how Run batches the samples.
type Plan struct {
	// Batch samples at a time, in Batches batches, of Samples in all.
	Batch, Batches, Samples int
	// Auto: Batch is what fits (Options.Batch 0).
	Auto bool
	// Fit is how many samples fit both budgets.
	Fit int
	// Budget is the budget that bounds the batch: the device's or
	// HostBudget.
	Budget, HostBudget engine.MemoryBudget
	// Footprint is one sample's.
	Footprint Footprint
	// Margin is the part of the budget planned on (BatchMargin).
	Margin float64
}

// MemoryError says that not even one sample fits the budget.
type MemoryError struct {
	// Need is one sample's footprint in Where ("host memory", "device
	// memory on <device>"), whose budget is Budget less Reserve.
	Need    int64
	Where   string
	Budget  engine.MemoryBudget
	Reserve int64
	Margin  float64
}

func (e *MemoryError) Error() string { return e.message("", e.Budget) }

// Words is e in a front end's words (engine.InWords): the option that
// names the statistics, and the budget's source (MemoryBudget.In).
func (e *MemoryError) Words(set engine.Setting) string {
	return e.message(" ("+set("stat", "")+")", e.Budget.In(set))
}

func (e *MemoryError) message(stat string, b engine.MemoryBudget) string {
	reserve := ""
	if e.Reserve > 0 {
		reserve = fmt.Sprintf(" less %s for the pipelines", engine.SizeText(e.Reserve))
	}
	return fmt.Sprintf("one sample needs about %s of %s for these statistics%s, more than %.0f%% of its budget of %s (%s)%s: ask for fewer, or run where there is more memory",
		engine.SizeText(e.Need), e.Where, stat, 100*e.Margin, engine.SizeText(b.Bytes), b.Source, reserve)
}

// withDefaults fills in what opt leaves to the tensor of shape: the lags.
func (opt Options) withDefaults(shape []int) Options {
	if opt.LagCorr && opt.Lags == 0 && len(shape) == 5 {
		opt.Lags = max(1, min(3, shape[2]-1))
	}
	return opt
}

// dtype is the type the work is done in for an input of type in.
func (opt Options) dtype(in tensor.DType) tensor.DType {
	if opt.Convert {
		return opt.DType
	}
	return in
}

// asks reports whether opt asks for anything.
func (opt Options) asks() bool {
	return opt.Moments || opt.Corr || opt.CorrFrames || opt.LagCorr || opt.PCA || opt.Spectra
}

// PlanBatches sizes the batches of src's samples for opt on dev (nil: the
// CPU path): the most samples whose footprint fits BatchMargin of the
// device's budget and of opt.HostBudget, or opt.Batch when it is not 0. It
// refuses with a *MemoryError when not even one sample fits.
func PlanBatches(dev *engine.Device, src Source, opt Options) (Plan, error) {
	opt = opt.withDefaults(src.Shape)
	n := src.samples()
	dims, dimsErr := DimsOf(src.Shape)
	stored := src.StoredSampleBytes
	if stored == 0 {
		stored = src.sampleElems() * int64(src.DType.Size())
	}
	foot := sampleFootprint(opt, len(src.Shape), src.sampleElems(), dims, dimsErr == nil, opt.dtype(src.DType), stored, src.DType, dev != nil)
	return planBatches(n, opt.Batch, foot, opt.HostBudget, dev)
}

// planBatches sizes the batches of n samples (PlanBatches).
func planBatches(n, want int, foot Footprint, host engine.MemoryBudget, dev *engine.Device) (Plan, error) {
	p := Plan{Samples: n, Footprint: foot, HostBudget: host, Auto: want == 0, Margin: BatchMargin}
	fits := func(b engine.MemoryBudget, per, reserve int64) int64 {
		if per <= 0 {
			return int64(max(n, 1))
		}
		return int64(float64(max(b.Bytes-reserve, 0))*BatchMargin) / per
	}
	p.Budget = host
	// Every sample's results stay on the host to the end, twice while the
	// batches' are joined.
	fit, need, where := fits(host, foot.Host, 2*int64(n)*foot.Outputs), foot.Host, "host memory"
	if host.Bytes == 0 {
		fit = int64(max(n, 1))
	}
	if dev != nil && foot.Device > 0 {
		b := dev.MemoryBudget()
		if f := fits(b, foot.Device, DeviceReserve); f < fit {
			p.Budget, fit, need, where = b, f, foot.Device, "device memory on "+dev.Info.Name
		}
	}
	if fit < 1 && n > 0 {
		e := &MemoryError{Need: need, Where: where, Budget: p.Budget, Margin: BatchMargin}
		if p.Budget != host {
			e.Reserve = DeviceReserve
		}
		return p, e
	}
	p.Fit = int(min(fit, int64(max(n, 1))))
	p.Batch = p.Fit
	if want > 0 {
		p.Batch = min(want, max(n, 1))
	}
	p.Batches = 1
	if n > 0 {
		p.Batches = (n + p.Batch - 1) / p.Batch
	}
	return p, nil
}

// sampleFootprint estimates the memory per sample of opt on a tensor of nd
// dimensions whose samples hold e values (d: its dims, when it has them),
// computed as dt and stored with stored bytes per sample as inDT:
//
// device, the largest of what each statistic holds at once (they run one
// after another): the sample's values (e·s, s the size of dt) plus, for
// moments, as much again for reduce's partials; for corr, corr-frames and
// lagcorr the C×C, F·C×C or C·F×F float64 sums and results (twice); for
// pca the C×C covariance and eigen workspace (four C×C float64); for
// spectra the transforms' buffers (spectraDeviceBytes);
//
// host: two batches of input (the one computing and the one read ahead),
// a converted copy where dt is not inDT, a permuted copy for moments
// (corr, corr-frames, lagcorr and pca read the batch where it lies) and
// one more for Skip's compaction or the copies of the sets holding a NaN
// or ±Inf, for spectra a float64 copy of the e values (where a device
// cannot centre and pack them itself: the CPU path and spectra_pack read
// the batch as stored, a transform at a time), and the per-sample outputs.
func sampleFootprint(opt Options, nd int, e int64, d Dims, hasDims bool, dt tensor.DType, stored int64, inDT tensor.DType, onDevice bool) Footprint {
	s := int64(dt.Size())
	c, f := int64(1), int64(1)
	if hasDims {
		c, f = int64(d.C), int64(d.F)
	}
	var dev int64
	grow := func(b int64) { dev = max(dev, b) }
	copies := int64(0)
	if opt.Moments {
		grow(2 * e * s)
		copies++
	}
	if opt.Corr {
		grow(e*s + 2*c*c*8)
	}
	if opt.CorrFrames {
		grow(e*s + 2*f*c*c*8)
	}
	if opt.LagCorr {
		grow(e*s + 2*c*f*f*8)
	}
	if opt.PCA {
		grow(e*s + 4*c*c*8)
	}
	if opt.Spectra {
		grow(spectraDeviceBytes(e, d, hasDims, dt))
	}
	if opt.NaN == Skip || opt.Corr || opt.CorrFrames || opt.LagCorr || opt.PCA {
		copies++
	}
	outs := outputsPerSample(opt, nd, e, d, hasDims)
	host := 2*e*max(s, stored/max(e, 1)) + copies*e*s + outs
	if inDT != dt {
		host += e * s
	}
	if opt.Spectra {
		host += e * 8
	}
	if !onDevice {
		dev = 0
	}
	return Footprint{Device: dev, Host: host, Outputs: outs}
}

// outputsPerSample is the bytes of float64 results one sample adds (the
// moments' per-sample outputs are bounded by e values each).
func outputsPerSample(opt Options, nd int, e int64, d Dims, hasDims bool) int64 {
	c, f, hw := int64(1), int64(1), e
	if hasDims {
		c, f, hw = int64(d.C), int64(d.F), int64(d.H*d.W)
	}
	var b int64
	if opt.Moments && !ReducesSamples(opt.Axes, nd) {
		b += 7 * e
	}
	if opt.Corr {
		b += c * c
	}
	if opt.CorrFrames {
		b += f * c * c
	}
	if opt.LagCorr {
		b += c*f*f + c*int64(opt.Lags)
	}
	if opt.PCA {
		b += c*c + 2*c
	}
	if opt.Spectra {
		b += 4*c*(hw/2+f) + 8*c
	}
	return 8 * b
}

// spectraDeviceBytes is what the device spectra of e values hold at once:
// VkFFT's transform and scratch buffers (spectra.TransformBytes) for the
// larger of the two transforms (they run one after the other), the bin
// sums the device reduces the spectra to and their sums over frames and
// pixels (spectra.SpatialSumsBytes, TemporalSumsBytes), and the batch as
// stored, which goes up for spectra_pack to centre and pack (at most all
// of it).
func spectraDeviceBytes(e int64, d Dims, hasDims bool, dt tensor.DType) int64 {
	dbl := dt == tensor.F64
	if !hasDims {
		se := int64(4)
		if dbl {
			se = 8
		}
		return 2 * 2 * e * se
	}
	w, h := max(d.W, 1), max(d.H, 1)
	vals := spectra.TransformBytes(w, h, e/int64(w*h), dbl)
	sums := spectra.SpatialSumsBytes(int(e/int64(w*h)), max(d.F, 1), h, w)
	if d.F >= 2 { // the temporal spectra
		vals = max(vals, spectra.TransformBytes(d.F, 1, e/int64(d.F), dbl))
		sums = max(sums, spectra.TemporalSumsBytes(int(e/int64(d.F)), w*h, d.F))
	}
	return vals + sums + e*int64(dt.Size())
}

// RunSource reads src's samples in opt.Plan's batches (nil: PlanBatches'),
// the next on a goroutine while the current computes (at most two batches
// of input in memory), converts each to opt.DType (with opt.Convert), computes opt's
// statistics on dev (nil: the CPU path) and joins the results: per-sample
// arrays along the samples, moments over axes that include axis 0 merged
// exactly (MergeMoments), notes as one batch of every sample would give
// them. ctx's Progress (engine.WithProgress) hears of each batch done.
func RunSource(ctx context.Context, dev *engine.Device, src Source, opt Options) (*Result, error) {
	p, err := runSource(ctx, dev, src, opt, false)
	if err != nil {
		return nil, err
	}
	return p.R, nil
}

// runSource is RunSource up to the last merge: it returns the Partial of
// src, finished (Partial.finish) unless keep.
func runSource(ctx context.Context, dev *engine.Device, src Source, opt Options, keep bool) (*Partial, error) {
	progress := engine.ProgressOf(ctx)
	if !opt.asks() {
		return nil, fmt.Errorf("latent: nothing to compute")
	}
	if src.Read == nil {
		return nil, fmt.Errorf("latent: a source without a Read")
	}
	var plan Plan
	if opt.Plan != nil {
		plan = *opt.Plan
	} else {
		var err error
		if plan, err = PlanBatches(dev, src, opt); err != nil {
			return nil, err
		}
	}
	if plan.Batch < 1 {
		return nil, fmt.Errorf("latent: a plan of batches of %d samples", plan.Batch)
	}
	opt = opt.withDefaults(src.Shape)
	dt := opt.dtype(src.DType)
	ctx, cancel := context.WithCancel(ctx)
	type batch struct {
		lo, hi int
		x      *tensor.Tensor
		took   time.Duration
		err    error
	}
	n := src.samples()
	free := make(chan *tensor.Tensor, 2)
	free <- nil
	free <- nil
	ready := make(chan batch, 1)
	var wg sync.WaitGroup
	wg.Add(1)
	defer func() {
		cancel()
		wg.Wait()
	}()
	go func() {
		defer wg.Done()
		defer close(ready)
		for lo := 0; lo < n || lo == 0; lo += plan.Batch {
			var buf *tensor.Tensor
			select {
			case buf = <-free:
			case <-ctx.Done():
				return
			}
			hi := min(lo+plan.Batch, n)
			t0 := time.Now()
			x, err := src.Read(lo, hi, buf)
			if err == nil {
				err = ctx.Err()
			}
			select {
			case ready <- batch{lo, hi, x, time.Since(t0), err}:
			case <-ctx.Done():
				return
			}
			if err != nil || n == 0 {
				return
			}
		}
	}()

	merge := opt.Moments && (n > plan.Batch || keep) && ReducesSamples(opt.Axes, len(src.Shape))
	optB := opt
	if merge {
		optB.DDof = 0         // var·n is the batch's M2 (MergeMoments)
		optB.Unbiased = false // M3 and M4 come back from the batch's skew and kurt
	}
	// Batches overlap (issue 32) where the device has room for two
	// batches' inputs: while batch k's first sequence runs, batch k+1 is
	// taken from the reader and its upload submitted (HoldAsync, through
	// engine.WithOverlap), so that its host copy (or its copy engine's
	// transfer) runs beside batch k's kernels.
	overlap := overlapFits(dev, plan, src.sampleElems()*int64(dt.Size()))
	mark := engine.Begin(dev)
	var read time.Duration
	var results []*Result
	var pcas []*PCA
	var specs []*Spectra
	var running *MomentPart
	done := 0
	type upload struct {
		b    batch
		x    *tensor.Tensor
		held *engine.Held
		ok   bool
		err  error
	}
	// Phases (docs/datapath.md): they split the calling goroutine's time,
	// so that they add up. The reader's own reading runs beside it and is
	// Result.Read, not a phase; the caller's waiting for it is read-wait.
	// The host's share of the statistics (scanning for NaN and ±Inf,
	// permuting, normalising: par.Range over the cores, which the caller
	// waits for) is host: a batch's time less the phases named within it.
	var readWait, conv, host time.Duration
	take := func() (u upload) {
		t0 := time.Now()
		u.b, u.ok = <-ready
		t1 := time.Now()
		readWait += t1.Sub(t0)
		if u.ok && u.b.err == nil {
			u.x = u.b.x.As(dt)
			conv += time.Since(t1)
		}
		return u
	}
	var next upload
	cur := take()
	defer func() { // on an error: Release waits for an upload in flight
		cur.held.Release()
		next.held.Release()
	}()
	for cur.ok {
		b, x := cur.b, cur.x
		if b.err != nil {
			return nil, b.err
		}
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		read += b.took
		// The statistics that read the batch on the device share one
		// upload of it (hold); the next batch's is started while the
		// first of them runs.
		held := cur.held
		holdTime, err := held.Wait(ctx)
		if err == nil && held == nil && (opt.passes() > 1 || overlap) {
			held, holdTime, err = hold(ctx, dev, x)
		}
		cur.held = held
		if err != nil {
			return nil, err
		}
		next = upload{}
		bctx := ctx
		var o *engine.Overlap
		if overlap && b.hi < n {
			bctx, o = engine.WithOverlap(ctx, func() {
				if next = take(); next.ok && next.b.err == nil {
					next.held, next.err = dev.HoldAsync(next.x.Raw())
				}
			})
		}
		bm, bt0, bwait, bconv := engine.Begin(dev), time.Now(), readWait, conv
		res, err := runBatch(bctx, dev, x, optB)
		if err != nil {
			return nil, err
		}
		res.Timing.Add(holdTime)
		if opt.Spectra {
			s, err := spectraBatch(bctx, dev, x, opt.NaN)
			if err != nil {
				return nil, err
			}
			specs = append(specs, s)
		}
		o.Flush() // where no sequence ran (nothing of the batch on the device)
		host += batchHost(bm, time.Since(bt0), readWait-bwait+conv-bconv, res.Timing, specs, opt.Spectra)
		held.Release()
		if next.err != nil {
			return nil, next.err
		}
		if merge {
			cnt, err := MomentCounts(x, opt.Axes, opt.NaN)
			if err != nil {
				return nil, err
			}
			part := MomentPart{M: res.Moments, Count: cnt}
			if running != nil {
				// Fold into the running merge (ddof 0, float64), so that
				// only one set of moments is held whatever the batches.
				m, err := MergeMoments([]MomentPart{*running, part}, 0, opt.NaN, tensor.F64, false)
				if err != nil {
					return nil, err
				}
				for i, c := range cnt {
					cnt[i] = c + running.Count[i]
				}
				part = MomentPart{M: m, Count: cnt}
			}
			running = &part
			res.Moments = nil
		}
		res.Notes = shiftSampleNotes(res.Notes, src.First+b.lo)
		results = append(results, res)
		if res.PCA != nil {
			res.PCA.Notes = shiftSampleNotes(res.PCA.Notes, src.First+b.lo)
			pcas = append(pcas, res.PCA)
		}
		free <- b.x // the batch's buffer is the reader's again
		done += b.hi - b.lo
		progress(fmt.Sprintf("sample %d/%d", done, n), float64(done)/float64(max(n, 1)))
		if o != nil {
			cur = next
		} else {
			cur = take()
		}
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	tj := time.Now()
	out := joinResults(results)
	out.PCA = joinPCA(pcas)
	if opt.Spectra {
		out.Spectra = mergeSpectra(specs)
	}
	p := &Partial{Shape: src.Shape, DType: dt, Opt: opt, R: out, Sums: running}
	if !keep {
		if err := p.finish(); err != nil {
			return nil, err
		}
	}
	out.Plan, out.Read = plan, read
	// The device's counts and phases over the whole call: the batches'
	// sequences overlap, so that their own timings would count the next
	// batch's upload in this one's.
	conv += time.Since(tj)
	out.Timing.AddPhase("read-wait", readWait)
	out.Timing.AddPhase(engine.TimeConvert, conv)
	out.Timing.AddPhase("host", host)
	mark.End(&out.Timing)
	return p, nil
}

// batchHost is the host's share of a batch's statistics that took wall:
// wall less the engine's phases since m (on a device), the phases the
// pipelines named (res's and, with spectra, the batch's spectra's, the
// last of specs) and named, the reader's and conversion's time within it.
func batchHost(m engine.Mark, wall, named time.Duration, res engine.Timing, specs []*Spectra, spectra bool) time.Duration {
	var eng engine.Timing
	m.End(&eng)
	named += eng.Named() + res.Named() - engineNamed(res)
	if spectra {
		s := specs[len(specs)-1].Timing
		named += s.Named() - engineNamed(s)
	}
	return max(wall-named, 0)
}

// engineNamed is the part of t's phases that the engine names.
func engineNamed(t engine.Timing) time.Duration {
	var d time.Duration
	for _, p := range t.Phases {
		if engine.IsEnginePhase(p.Name) {
			d += p.Time
		}
	}
	return d
}

// overlapFits reports whether batches overlap on dev (nil: the CPU path)
// under plan, whose samples take sample bytes each as computed: there are
// two batches or more, and the next batch's input fits beside one batch's
// footprint within the part of the budget batches are planned on.
func overlapFits(dev *engine.Device, plan Plan, sample int64) bool {
	if dev == nil || plan.Batches < 2 {
		return false
	}
	room := float64(max(dev.MemoryBudget().Bytes-DeviceReserve, 0)) * BatchMargin
	return float64(int64(plan.Batch)*(plan.Footprint.Device+sample)) <= room
}

// passes counts the passes of opt's statistics over a batch on a device:
// the moments, the correlations (each kind), the PCA, and the spectra
// twice (frames, then pixel series).
func (opt Options) passes() int {
	return readers(opt.Moments, opt.Corr, opt.CorrFrames, opt.LagCorr, opt.PCA, opt.Spectra, opt.Spectra)
}

// runBatch computes the moments and correlations opt asks for x (if any)
// and, with opt.PCA, the PCA on the same device, its notes ("pca: ...")
// and timing added to the result's.
func runBatch(ctx context.Context, dev *engine.Device, x *tensor.Tensor, opt Options) (*Result, error) {
	res := &Result{}
	if opt.Moments || opt.Corr || opt.CorrFrames || opt.LagCorr {
		var err error
		if res, err = runStats(ctx, dev, x, opt); err != nil {
			return nil, err
		}
	}
	if !opt.PCA {
		return res, nil
	}
	p, err := runPCA(ctx, dev, x, opt.NaN)
	if err != nil {
		return nil, err
	}
	res.PCA = p
	res.NaNs, res.Infs = p.NaNs, p.Infs
	res.Timing.Add(p.Timing)
	for _, n := range p.Notes {
		res.Notes = append(res.Notes, "pca: "+n)
	}
	return res, nil
}

var sampleRe = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`\bsample (\d+)`) })

// shiftSampleNotes renumbers the samples notes name by off, the batch's
// first sample.
func shiftSampleNotes(notes []string, off int) []string {
	if off == 0 {
		return notes
	}
	out := make([]string, len(notes))
	for i, n := range notes {
		out[i] = sampleRe().ReplaceAllStringFunc(n, func(m string) string {
			k, _ := strconv.Atoi(strings.TrimPrefix(m, "sample "))
			return "sample " + strconv.Itoa(k+off)
		})
	}
	return out
}

// catSamples joins get's float64 tensor of each part along axis 0 (nil
// where the first part has none).
func catSamples[T any](parts []T, get func(T) *tensor.Tensor) *tensor.Tensor {
	if get(parts[0]) == nil {
		return nil
	}
	if len(parts) == 1 {
		return get(parts[0])
	}
	shape := append([]int{}, get(parts[0]).Shape...)
	shape[0] = 0
	for _, p := range parts {
		shape[0] += get(p).Shape[0]
	}
	out := tensor.New(tensor.F64, shape...)
	at := 0
	for _, p := range parts {
		at += copy(out.F64[at:], get(p).F64)
	}
	return out
}

// joinResults joins the batches' results: per-sample arrays along the
// sample axis, counts and timings added, notes in order (the PCA is
// joinPCA's).
func joinResults(rs []*Result) *Result {
	if len(rs) == 1 {
		return rs[0]
	}
	out := &Result{}
	cat := func(get func(*Result) *tensor.Tensor) *tensor.Tensor { return catSamples(rs, get) }
	var notes [][]string
	for _, r := range rs {
		out.NaNs += r.NaNs
		out.Infs += r.Infs
		out.Timing.Add(r.Timing)
		notes = append(notes, r.Notes)
	}
	out.Notes = mergeNotes(notes)
	if m := rs[0].Moments; m != nil {
		out.Moments = &Moments{Axes: m.Axes}
		mm := func(get func(*Moments) *tensor.Tensor) *tensor.Tensor {
			return cat(func(r *Result) *tensor.Tensor { return get(r.Moments) })
		}
		out.Moments.Mean = mm(func(m *Moments) *tensor.Tensor { return m.Mean })
		out.Moments.Var = mm(func(m *Moments) *tensor.Tensor { return m.Var })
		out.Moments.Std = mm(func(m *Moments) *tensor.Tensor { return m.Std })
		out.Moments.Min = mm(func(m *Moments) *tensor.Tensor { return m.Min })
		out.Moments.Max = mm(func(m *Moments) *tensor.Tensor { return m.Max })
		out.Moments.Skew = mm(func(m *Moments) *tensor.Tensor { return m.Skew })
		out.Moments.Kurt = mm(func(m *Moments) *tensor.Tensor { return m.Kurt })
		out.Moments.Shape = out.Moments.Mean.Shape
	}
	out.Corr = cat(func(r *Result) *tensor.Tensor { return r.Corr })
	out.CorrFrames = cat(func(r *Result) *tensor.Tensor { return r.CorrFrames })
	out.FrameCorr = cat(func(r *Result) *tensor.Tensor { return r.FrameCorr })
	out.LagCorr = cat(func(r *Result) *tensor.Tensor { return r.LagCorr })
	return out
}

// joinPCA joins the batches' PCAs along the sample axis.
func joinPCA(ps []*PCA) *PCA {
	switch len(ps) {
	case 0:
		return nil
	case 1:
		return ps[0]
	}
	out := &PCA{}
	for _, p := range ps {
		out.Notes = append(out.Notes, p.Notes...)
		out.Timing.Add(p.Timing)
	}
	out.Values = catSamples(ps, func(p *PCA) *tensor.Tensor { return p.Values })
	out.Ratio = catSamples(ps, func(p *PCA) *tensor.Tensor { return p.Ratio })
	out.Vectors = catSamples(ps, func(p *PCA) *tensor.Tensor { return p.Vectors })
	return out
}

// noteRe parses the notes about many items (noteList: "corr: 3 constant
// (zero-variance) channel(s), whose correlations are NaN: sample 0
// channel 1; ...; ... (12 in all)"): prefix, count, what, items.
var noteRe = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^(.*?: )?(\d+) ([^:]*): (.*)$`) })

var moreRe = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`; \.\.\. \(\d+ in all\)$`) })

// mergeNotes joins the batches' notes (each batch's list, its samples
// already renumbered) into the notes one batch of every sample would have:
// a note about many items, one per kind, with the counts added and the
// items listed in sample order (the first maxNotes, then the count); the
// kinds in the order runBatch gives them; other notes once each, after
// them.
func mergeNotes(batches [][]string) []string {
	type kind struct {
		prefix, what string
		count        int
		items        []string
		first        int // order of appearance
	}
	kinds := map[string]*kind{}
	var plain []string
	seen := map[string]bool{}
	order := 0
	for _, notes := range batches {
		for _, n := range notes {
			m := noteRe().FindStringSubmatch(n)
			if m == nil {
				if !seen[n] {
					seen[n] = true
					plain = append(plain, n)
				}
				continue
			}
			key := m[1] + "\x00" + m[3]
			k := kinds[key]
			if k == nil {
				k = &kind{prefix: m[1], what: m[3], first: order}
				order++
				kinds[key] = k
			}
			c, _ := strconv.Atoi(m[2])
			k.count += c
			k.items = append(k.items, strings.Split(moreRe().ReplaceAllString(m[4], ""), "; ")...)
		}
	}
	list := make([]*kind, 0, len(kinds))
	for _, k := range kinds {
		list = append(list, k)
	}
	rank := func(k *kind) (int, int) {
		p := slices.Index([]string{"corr: ", "corr per frame: ", "frame corr: ", "pca: "}, k.prefix)
		if p < 0 {
			p = 99
		}
		w := 1
		switch {
		case strings.Contains(k.what, "constant"):
			w = 0
		case strings.Contains(k.what, "without"):
			w = 2
		}
		return p, w
	}
	slices.SortFunc(list, func(a, b *kind) int {
		pa, wa := rank(a)
		pb, wb := rank(b)
		if pa != pb {
			return pa - pb
		}
		if wa != wb {
			return wa - wb
		}
		return a.first - b.first
	})
	var out []string
	for _, k := range list {
		items := strings.Join(k.items, "; ")
		if len(k.items) > maxNotes {
			items = fmt.Sprintf("%s; ... (%d in all)", strings.Join(k.items[:maxNotes], "; "), k.count)
		}
		out = append(out, fmt.Sprintf("%s%d %s: %s", k.prefix, k.count, k.what, items))
	}
	return append(out, plain...)
}
