package cli

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
	"github.com/vkstat/vkstat/formats"
	"github.com/vkstat/vkstat/internal/device/vkfft"
	"github.com/vkstat/vkstat/pipelines/latent"
	"github.com/vkstat/vkstat/pipelines/spectra"
	"github.com/vkstat/vkstat/tensor"
)

// vkstat latent works on the samples of its tensor (axis 0) in batches
// sized by memory (docs/latent.md, "Batches"): the next batch is read on
// a goroutine while the current one computes, per-sample results are
// joined along the sample axis, and moments over axes that include the
// sample axis are merged exactly (latent.MergeMoments).

// batchMargin is the part of a budget a batch is planned to fill: the
// footprints below are estimates, and the allocators round up.
const batchMargin = 0.8

// deviceReserve is device memory set aside before batching: what the
// pipelines hold whatever the batch (the allocator's blocks of at least
// 256 KiB, reduce's records, cov's chunk buffers); measured on lavapipe,
// a latent of a few KiB needs 2 MiB.
const deviceReserve = 4 << 20

// latentWork is what one run of vkstat latent computes.
type latentWork struct {
	req     latent.Request
	pca     bool
	spectra bool
	nd      int // the tensor's dimensions
}

// latentFootprint is the memory one sample takes while a batch computes,
// in bytes: on the device (zero on the CPU path), and on the host; and
// the host memory its results hold until the end (outputs).
type latentFootprint struct{ device, host, outputs int64 }

// sampleFootprint estimates the memory per sample of w on a tensor whose
// samples hold e values (d: its dims, when it has them), computed as dt
// and stored with stored bytes per sample:
//
// device, the largest of what each statistic holds at once (they run one
// after another): the sample's values (e·s, s the size of dt) plus, for
// moments, as much again for reduce's partials; for corr, corr-frames and
// lagcorr the C×C, F·C×C or C·F×F float64 sums and results (twice); for
// pca the C×C covariance and eigen workspace (four C×C float64); for
// spectra VkFFT's transform and scratch buffers (spectraDeviceBytes);
//
// host: two batches of input (the one computing and the one read ahead),
// a converted copy where --precision changes the type, a permuted copy for
// moments (corr, corr-frames, lagcorr and pca read the batch where it
// lies) and one more for --nan skip's compaction or the copies of the
// sets holding a NaN or ±Inf, for spectra a float64 copy of the e values
// (where a device cannot centre and pack them itself: the CPU path and
// spectra_pack read the batch as stored, a transform at a time), and the
// per-sample outputs.
func sampleFootprint(w latentWork, e int64, d latent.Dims, hasDims bool, dt tensor.DType, stored int64, inDT tensor.DType, onDevice bool) latentFootprint {
	s := int64(dt.Size())
	c, f := int64(1), int64(1)
	if hasDims {
		c, f = int64(d.C), int64(d.F)
	}
	var dev int64
	grow := func(b int64) { dev = max(dev, b) }
	copies := int64(0)
	if w.req.Moments {
		grow(2 * e * s)
		copies++
	}
	if w.req.Corr {
		grow(e*s + 2*c*c*8)
	}
	if w.req.CorrFrames {
		grow(e*s + 2*f*c*c*8)
	}
	if w.req.LagCorr {
		grow(e*s + 2*c*f*f*8)
	}
	if w.pca {
		grow(e*s + 4*c*c*8)
	}
	if w.spectra {
		grow(spectraDeviceBytes(e, d, hasDims, dt))
	}
	if w.req.NaN == latent.Skip || w.req.Corr || w.req.CorrFrames || w.req.LagCorr || w.pca {
		copies++
	}
	outs := outputsPerSample(w, e, d, hasDims)
	host := 2*e*max(s, stored/max(e, 1)) + copies*e*s + outs
	if inDT != dt {
		host += e * s
	}
	if w.spectra {
		host += e * 8
	}
	if !onDevice {
		dev = 0
	}
	return latentFootprint{device: dev, host: host, outputs: outs}
}

// outputsPerSample is the bytes of float64 results one sample adds (the
// moments' per-sample outputs are bounded by e values each).
func outputsPerSample(w latentWork, e int64, d latent.Dims, hasDims bool) int64 {
	c, f, hw := int64(1), int64(1), e
	if hasDims {
		c, f, hw = int64(d.C), int64(d.F), int64(d.H*d.W)
	}
	var b int64
	if w.req.Moments && !latent.ReducesSamples(w.req.Axes, w.nd) {
		b += 7 * e
	}
	if w.req.Corr {
		b += c * c
	}
	if w.req.CorrFrames {
		b += f * c * c
	}
	if w.req.LagCorr {
		b += c*f*f + c*int64(w.req.Lags)
	}
	if w.pca {
		b += c*c + 2*c
	}
	if w.spectra {
		b += 4*c*(hw/2+f) + 8*c
	}
	return 8 * b
}

// latentPlan is how the samples are batched.
type latentPlan struct {
	batch, batches, n int
	auto              bool
	budget            engine.MemoryBudget // the one that bounds the batch
	hostBudget        engine.MemoryBudget
	foot              latentFootprint
	fit               int // samples that fit both budgets
}

// planLatentBatches sizes the batches of n samples: the most samples whose
// footprint fits batchMargin of the device's budget and of the host's,
// or want (--batch) when it is not 0. It refuses when not even one sample
// fits.
func planLatentBatches(n, want int, foot latentFootprint, dev *engine.Device) (latentPlan, error) {
	p := latentPlan{n: n, foot: foot, hostBudget: cpuBudget(), auto: want == 0}
	fits := func(b engine.MemoryBudget, per, reserve int64) int64 {
		if per <= 0 {
			return int64(max(n, 1))
		}
		return int64(float64(max(b.Bytes-reserve, 0))*batchMargin) / per
	}
	p.budget = p.hostBudget
	// Every sample's results stay on the host to the end, twice while the
	// batches' are joined.
	fit, need, where := fits(p.hostBudget, foot.host, 2*int64(n)*foot.outputs), foot.host, "host memory"
	if dev != nil && foot.device > 0 {
		b := dev.MemoryBudget()
		if b.Source == "DeviceOptions.Budget" {
			b.Source = "--device-memory or VKSTAT_DEVICE_MEMORY"
		}
		if fits(b, foot.device, deviceReserve) < fit {
			p.budget, fit, need, where = b, fits(b, foot.device, deviceReserve), foot.device, "device memory on "+dev.Info.Name
		}
	}
	if fit < 1 && n > 0 {
		reserve := ""
		if p.budget != p.hostBudget {
			reserve = fmt.Sprintf(" less %s for the pipelines", engine.SizeText(deviceReserve))
		}
		return p, fmt.Errorf("one sample needs about %s of %s for these statistics (--stat), more than %.0f%% of its budget of %s (%s)%s: ask for fewer, or run where there is more memory",
			engine.SizeText(need), where, 100*batchMargin, engine.SizeText(p.budget.Bytes), p.budget.Source, reserve)
	}
	p.fit = int(min(fit, int64(max(n, 1))))
	p.batch = p.fit
	if want > 0 {
		p.batch = min(want, max(n, 1))
	}
	p.batches = 1
	if n > 0 {
		p.batches = (n + p.batch - 1) / p.batch
	}
	return p, nil
}

// describe words the plan for the summary table.
func (p latentPlan) describe() string {
	how := fmt.Sprintf("auto: %s of %s budget (%s), about %s per sample", fmt.Sprintf("%.0f%%", 100*batchMargin),
		engine.SizeText(p.budget.Bytes), p.budget.Source, engine.SizeText(max(p.foot.device, p.foot.host)))
	if !p.auto {
		how = fmt.Sprintf("--batch %d; %d would fit", p.batch, p.fit)
	}
	return fmt.Sprintf("%d of up to %d samples (%s)", p.batches, p.batch, how)
}

// summary is summary.json's "batches".
func (p latentPlan) summary() map[string]any {
	return map[string]any{"batch": p.batch, "batches": p.batches, "auto": p.auto, "fit": p.fit,
		"budget_bytes": p.budget.Bytes, "budget_source": p.budget.Source,
		"sample_bytes_device": p.foot.device, "sample_bytes_host": p.foot.host, "margin": batchMargin}
}

// latentOutcome is what the batches add up to.
type latentOutcome struct {
	res  *latent.Result
	pca  *latent.PCA
	spec *latentSpectra
	read time.Duration // reading, overlapped with computing after the first batch
}

// runLatentBatches reads r's samples in plan's batches, the next on a
// goroutine while the current computes (at most two batches of input in
// memory), converts each to dt, computes w on dev (nil: the CPU path) and
// joins the results. progress, if not nil, hears of each batch done.
func runLatentBatches(ctx context.Context, dev *engine.Device, r *formats.SampleReader, dt tensor.DType, w latentWork, plan latentPlan,
	progress func(done, total int)) (*latentOutcome, error) {
	ctx, cancel := context.WithCancel(ctx)
	type batch struct {
		lo, hi int
		x      *tensor.Tensor
		took   time.Duration
		err    error
	}
	n := r.Samples()
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
		for lo := 0; lo < n || lo == 0; lo += plan.batch {
			var buf *tensor.Tensor
			select {
			case buf = <-free:
			case <-ctx.Done():
				return
			}
			hi := min(lo+plan.batch, n)
			t0 := time.Now()
			x, err := r.Read(lo, hi, buf)
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

	merge := w.req.Moments && plan.batches > 1 && latent.ReducesSamples(w.req.Axes, len(r.Shape))
	reqB := w.req
	if merge {
		reqB.DDof = 0 // var·n is the batch's M2 (latent.MergeMoments)
	}
	out := &latentOutcome{res: &latent.Result{}}
	var results []*latent.Result
	var pcas []*latent.PCA
	var specs []*latentSpectra
	var running *latent.MomentPart
	done := 0
	for b := range ready {
		if b.err != nil {
			return nil, b.err
		}
		out.read += b.took
		x := b.x.As(dt)
		// The statistics that read the batch on the device share one
		// upload of it (latent.Hold).
		var held *engine.Held
		var holdTime engine.Timing
		var err error
		if latentReaders(w) > 1 {
			if held, holdTime, err = latent.Hold(ctx, dev, x); err != nil {
				return nil, err
			}
		}
		res, pca, err := runLatentStats(ctx, dev, x, reqB, w.pca)
		if err != nil {
			held.Release()
			return nil, err
		}
		res.Timing.Add(holdTime)
		if w.spectra {
			s, err := latentSpectraBatch(ctx, dev, x, w.req.NaN)
			if err != nil {
				held.Release()
				return nil, err
			}
			specs = append(specs, s)
		}
		held.Release()
		if merge {
			cnt, err := latent.MomentCounts(x, w.req.Axes, w.req.NaN)
			if err != nil {
				return nil, err
			}
			part := latent.MomentPart{M: res.Moments, Count: cnt}
			if running != nil {
				// Fold into the running merge (ddof 0, float64), so that
				// only one set of moments is held whatever the batches.
				m, err := latent.MergeMoments([]latent.MomentPart{*running, part}, 0, w.req.NaN, tensor.F64)
				if err != nil {
					return nil, err
				}
				for i, c := range cnt {
					cnt[i] = c + running.Count[i]
				}
				part = latent.MomentPart{M: m, Count: cnt}
			}
			running = &part
			res.Moments = nil
		}
		res.Notes = shiftSampleNotes(res.Notes, b.lo)
		results = append(results, res)
		if pca != nil {
			pca.Notes = shiftSampleNotes(pca.Notes, b.lo)
			pcas = append(pcas, pca)
		}
		free <- b.x // the batch's buffer is the reader's again
		done += b.hi - b.lo
		if progress != nil {
			progress(done, n)
		}
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	out.res = joinResults(results)
	if merge {
		m, err := latent.MergeMoments([]latent.MomentPart{*running}, w.req.DDof, w.req.NaN, dt)
		if err != nil {
			return nil, err
		}
		out.res.Moments = m
	}
	out.pca = joinPCA(pcas)
	if w.spectra {
		out.spec = mergeSpectra(specs)
		out.spec.finish()
		out.res.Timing.Add(out.spec.timing)
		out.res.Notes = append(out.res.Notes, out.spec.notes...)
	}
	return out, nil
}

// latentReaders counts the passes of w's statistics over a batch on a
// device: the moments, the correlations (each kind), the PCA, and the
// spectra twice (frames, then pixel series).
func latentReaders(w latentWork) int {
	n := 0
	for _, a := range []bool{w.req.Moments, w.req.Corr, w.req.CorrFrames, w.req.LagCorr, w.pca, w.spectra, w.spectra} {
		if a {
			n++
		}
	}
	return n
}

var sampleRe = regexp.MustCompile(`\bsample (\d+)`)

// shiftSampleNotes renumbers the samples notes name by off, the batch's
// first sample.
func shiftSampleNotes(notes []string, off int) []string {
	if off == 0 {
		return notes
	}
	out := make([]string, len(notes))
	for i, n := range notes {
		out[i] = sampleRe.ReplaceAllStringFunc(n, func(m string) string {
			k, _ := strconv.Atoi(strings.TrimPrefix(m, "sample "))
			return "sample " + strconv.Itoa(k+off)
		})
	}
	return out
}

// concatSamples joins float64 tensors along axis 0.
func concatSamples(ts []*tensor.Tensor) *tensor.Tensor {
	if len(ts) == 1 {
		return ts[0]
	}
	shape := append([]int{}, ts[0].Shape...)
	shape[0] = 0
	for _, t := range ts {
		shape[0] += t.Shape[0]
	}
	out := tensor.New(tensor.F64, shape...)
	at := 0
	for _, t := range ts {
		at += copy(out.F64[at:], t.F64)
	}
	return out
}

// joinResults joins the batches' results: per-sample arrays along the
// sample axis, counts and timings added, notes in order.
func joinResults(rs []*latent.Result) *latent.Result {
	if len(rs) == 1 {
		return rs[0]
	}
	out := &latent.Result{}
	cat := func(get func(*latent.Result) *tensor.Tensor) *tensor.Tensor {
		if get(rs[0]) == nil {
			return nil
		}
		ts := make([]*tensor.Tensor, len(rs))
		for i, r := range rs {
			ts[i] = get(r)
		}
		return concatSamples(ts)
	}
	var notes [][]string
	for _, r := range rs {
		out.NaNs += r.NaNs
		out.Infs += r.Infs
		out.Timing.Add(r.Timing)
		notes = append(notes, r.Notes)
	}
	out.Notes = mergeNotes(notes)
	if m := rs[0].Moments; m != nil {
		out.Moments = &latent.Moments{Axes: m.Axes}
		mm := func(get func(*latent.Moments) *tensor.Tensor) *tensor.Tensor {
			return cat(func(r *latent.Result) *tensor.Tensor { return get(r.Moments) })
		}
		out.Moments.Mean = mm(func(m *latent.Moments) *tensor.Tensor { return m.Mean })
		out.Moments.Var = mm(func(m *latent.Moments) *tensor.Tensor { return m.Var })
		out.Moments.Std = mm(func(m *latent.Moments) *tensor.Tensor { return m.Std })
		out.Moments.Min = mm(func(m *latent.Moments) *tensor.Tensor { return m.Min })
		out.Moments.Max = mm(func(m *latent.Moments) *tensor.Tensor { return m.Max })
		out.Moments.Skew = mm(func(m *latent.Moments) *tensor.Tensor { return m.Skew })
		out.Moments.Kurt = mm(func(m *latent.Moments) *tensor.Tensor { return m.Kurt })
		out.Moments.Shape = out.Moments.Mean.Shape
	}
	out.Corr = cat(func(r *latent.Result) *tensor.Tensor { return r.Corr })
	out.CorrFrames = cat(func(r *latent.Result) *tensor.Tensor { return r.CorrFrames })
	out.FrameCorr = cat(func(r *latent.Result) *tensor.Tensor { return r.FrameCorr })
	out.LagCorr = cat(func(r *latent.Result) *tensor.Tensor { return r.LagCorr })
	return out
}

// joinPCA joins the batches' PCAs along the sample axis.
func joinPCA(ps []*latent.PCA) *latent.PCA {
	switch len(ps) {
	case 0:
		return nil
	case 1:
		return ps[0]
	}
	out := &latent.PCA{}
	var v, r, vec []*tensor.Tensor
	for _, p := range ps {
		v, r, vec = append(v, p.Values), append(r, p.Ratio), append(vec, p.Vectors)
		out.Notes = append(out.Notes, p.Notes...)
		out.Timing.Add(p.Timing)
	}
	out.Values, out.Ratio, out.Vectors = concatSamples(v), concatSamples(r), concatSamples(vec)
	return out
}

// noteRe parses the notes package latent words about many items
// ("corr: 3 constant (zero-variance) channel(s), whose correlations are
// NaN: sample 0 channel 1; ...; ... (12 in all)"): prefix, count, what,
// items.
var noteRe = regexp.MustCompile(`^(.*?: )?(\d+) ([^:]*): (.*)$`)

var moreRe = regexp.MustCompile(`; \.\.\. \(\d+ in all\)$`)

// noteItemsShown is how many items a note lists before "... (n in all)",
// as package latent words them.
const noteItemsShown = 8

// mergeNotes joins the batches' notes (each batch's list, its samples
// already renumbered) into the notes one batch of every sample would have:
// a note about many items, one per kind, with the counts added and the
// items listed in sample order (the first eight, then the count); the
// kinds in the order package latent gives them; other notes once each,
// after them.
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
			m := noteRe.FindStringSubmatch(n)
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
			k.items = append(k.items, strings.Split(moreRe.ReplaceAllString(m[4], ""), "; ")...)
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
		if len(k.items) > noteItemsShown {
			items = fmt.Sprintf("%s; ... (%d in all)", strings.Join(k.items[:noteItemsShown], "; "), k.count)
		}
		out = append(out, fmt.Sprintf("%s%d %s: %s", k.prefix, k.count, k.what, items))
	}
	return append(out, plain...)
}

// spectraDeviceBytes is what the device spectra of e values hold at once:
// VkFFT's transform buffer and its scratch buffer (of the same size, or
// larger for a long Bluestein axis), in
// float32 (float64 for float64 data), for the larger of the two transforms
// (they run one after the other). Real-to-complex rows of n values take
// 2·(n/2+1) of them; where a length is odd the complex transform (2 per
// value) is counted, which VkFFT falls back to for long odd lengths. On
// top, the bin sums the device reduces the spectra to and their sums over
// frames and pixels (spectra.SpatialSumsBytes, TemporalSumsBytes), and
// the batch as stored,
// which goes up for spectra_pack to centre and pack (at most all of it).
func spectraDeviceBytes(e int64, d latent.Dims, hasDims bool, dt tensor.DType) int64 {
	se := int64(4)
	if dt == tensor.F64 {
		se = 8
	}
	if !hasDims {
		return 2 * 2 * e * se
	}
	// count transforms of n1 rows of n0: the data in VkFFT's layout (real
	// to complex for an even n0) and its scratch (vkfft.ScratchBytes: as
	// large, or larger for a long Bluestein axis).
	dbl := dt == tensor.F64
	transforms := func(n0, n1 int, count int64) int64 {
		real := n0%2 == 0
		return count * (vkfft.Bytes(n0, n1, 1, dbl, real) + vkfft.ScratchBytes(n0, n1, 1, dbl, real))
	}
	w, h := max(d.W, 1), max(d.H, 1)
	vals := transforms(w, h, e/int64(w*h))
	sums := spectra.SpatialSumsBytes(int(e/int64(w*h)), max(d.F, 1), h, w)
	if d.F >= 2 { // the temporal spectra
		vals = max(vals, transforms(d.F, 1, e/int64(d.F)))
		sums = max(sums, spectra.TemporalSumsBytes(int(e/int64(d.F)), w*h, d.F))
	}
	return vals + sums + e*int64(dt.Size())
}
