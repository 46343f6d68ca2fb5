package suite

import (
	"bytes"
	"context"
	"fmt"
	"math"
	"runtime"
	"slices"
	"sync"
	"time"

	"github.com/vkstat/vkstat/engine"
	"github.com/vkstat/vkstat/tensor"
)

// Measurement is the median cost of running one case, after warm-up runs.
type Measurement struct {
	// Upload, Kernel and Download are the medians of the parts of
	// engine.Timing: host↔device copies and GPU time from timestamps. On
	// the CPU path Kernel is the computation and the copies are zero.
	Upload, Kernel, Download time.Duration
	// Wall is the median host time of the whole call, host arrays in to
	// host arrays out.
	Wall time.Duration
	// GPUTimed reports whether Kernel comes from GPU timestamps.
	GPUTimed bool
	// Runs is the number of timed runs.
	Runs int
	// WarmupRuns is the number of untimed runs before them, WarmupTime
	// their wall time and WarmedBy what ended the warm-up (WarmUntil).
	WarmupRuns int
	WarmupTime time.Duration
	WarmedBy   string
}

// WarmupByTime, as Measure's warm-up count, warms up for a time rather
// than a count: until warmKernel of kernel time has run (an idle GPU
// raises its clocks under load: on the H100 chol measured 3.22 ms after
// one warm-up run and 0.956 ms after ten), or until the medians of two
// successive batches of warmBatch runs agree within warmAgree, whichever
// comes first; at most warmCap of wall time or warmMaxRuns runs, so that a
// slow device's small sizes stay quick.
const WarmupByTime = -1

const (
	warmKernel  = time.Second
	warmAgree   = 0.05
	warmBatch   = 3
	warmCap     = time.Second
	warmMaxRuns = 30
)

// Measure runs op on case c with inputs in on dev (nil: the CPU path)
// warmup times untimed (WarmupByTime: for a time), then repeat times, and
// returns the medians. The Go heap is collected before each run, untimed,
// so that every run starts from the same state: otherwise the garbage of
// earlier runs' outputs makes the cost of each new output's page faults
// swing tenfold from run to run.
func Measure(ctx context.Context, dev *engine.Device, op Op, c Case, in []*tensor.Tensor, warmup, repeat int) (Measurement, error) {
	var m Measurement
	if repeat < 1 || warmup < WarmupByTime {
		return m, fmt.Errorf("repeat must be at least 1 and warm-up at least 0, got %d and %d", repeat, warmup)
	}
	once := func() (engine.Timing, time.Duration, error) {
		if err := ctx.Err(); err != nil {
			return engine.Timing{}, 0, err
		}
		runtime.GC()
		t0 := time.Now()
		_, tm, err := op.Run(ctx, dev, c, in)
		return tm, time.Since(t0), err
	}
	w := warmer{count: warmup}
	for !w.done() {
		tm, el, err := once()
		if err != nil {
			return m, err
		}
		w.add(tm, el)
	}
	m.WarmupRuns, m.WarmupTime, m.WarmedBy = w.runs, w.wall, w.why
	var up, kern, down, wall []time.Duration
	for range repeat {
		tm, el, err := once()
		if err != nil {
			return m, err
		}
		up, kern, down, wall = append(up, tm.Upload), append(kern, tm.Kernel), append(down, tm.Download), append(wall, el)
		m.GPUTimed = tm.GPUTimed || dev == nil
	}
	m.Upload, m.Kernel, m.Download, m.Wall = median(up), median(kern), median(down), median(wall)
	m.Runs = repeat
	return m, nil
}

// warmer decides when a warm-up is over: after count runs, or for
// WarmupByTime as that constant says.
type warmer struct {
	count      int
	runs       int
	wall, kern time.Duration
	batch      []time.Duration
	last       time.Duration // the previous batch's median; 0: none yet
	why        string
}

// add counts a warm-up run of timing tm and wall time el.
func (w *warmer) add(tm engine.Timing, el time.Duration) {
	w.runs++
	w.wall += el
	k := el
	if tm.GPUTimed {
		k = tm.Kernel
	}
	w.kern += k
	if w.count != WarmupByTime {
		return
	}
	w.batch = append(w.batch, k)
	switch {
	case w.kern >= warmKernel:
		w.why = fmt.Sprintf("%v of kernel time", warmKernel)
	case len(w.batch) == warmBatch:
		med := median(w.batch)
		if w.last > 0 && math.Abs(float64(med-w.last)) <= warmAgree*float64(w.last) {
			w.why = fmt.Sprintf("medians of %d runs within %.0f%%", warmBatch, 100*warmAgree)
		}
		w.last, w.batch = med, nil
	}
	if w.why == "" && (w.wall >= warmCap || w.runs >= warmMaxRuns) {
		w.why = fmt.Sprintf("cap (%v or %d runs)", warmCap, warmMaxRuns)
	}
}

// done reports whether the warm-up is over.
func (w *warmer) done() bool {
	if w.count != WarmupByTime {
		if w.runs >= w.count {
			w.why = fmt.Sprintf("--warmup %d", w.count)
			return true
		}
		return false
	}
	return w.why != ""
}

func median(d []time.Duration) time.Duration {
	if len(d) == 0 {
		return 0
	}
	s := slices.Clone(d)
	slices.Sort(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

// Rate is w done in d, in unit (0 when d is zero).
func Rate(w Work, unit Unit, d time.Duration) float64 {
	s := d.Seconds()
	if s <= 0 {
		return 0
	}
	switch unit {
	case GFlops:
		return float64(w.Flops) / s / 1e9
	case Matrices:
		return float64(w.Items) / s
	}
	return float64(w.Bytes) / s / 1e9
}

// Bandwidth is a measured copy bandwidth.
type Bandwidth struct {
	// GBs counts bytes read plus bytes written per second, in 10⁹ bytes.
	GBs float64 `json:"gb_per_s"`
	// Bytes is the size of the copied block.
	Bytes int64 `json:"bytes"`
	// Method says what was timed.
	Method string `json:"method"`
}

// CopyBandwidth measures how fast dev copies a block of size bytes from one
// buffer to another (vkCmdCopyBuffer, timed by GPU timestamps where the
// device has them), or, when dev is nil, how fast Go's copy() on
// GOMAXPROCS goroutines copies host memory. Read and written bytes both
// count, and the best of repeat runs after one warm-up is kept, as STREAM
// does: it is the ceiling the operations are measured against. The copied
// bytes are checked once.
func CopyBandwidth(ctx context.Context, dev *engine.Device, size int64, repeat int) (Bandwidth, error) {
	size = max(size&^4095, 4096)
	repeat = max(repeat, 1)
	if dev == nil {
		return hostCopyBandwidth(size, repeat), nil
	}
	if lim := int64(dev.Info.MaxMemoryAllocation); lim > 0 && size > lim {
		size = lim &^ 4095
	}
	if mem := int64(dev.Info.DeviceMemory()); mem > 0 && size > mem/8 {
		size = (mem / 8) &^ 4095
	}
	bw := Bandwidth{Bytes: size, Method: "vkCmdCopyBuffer, GPU timestamps"}
	src, err := dev.NewBuffer(size)
	if err != nil {
		return bw, err
	}
	defer src.Release()
	dst, err := dev.NewBuffer(size)
	if err != nil {
		return bw, err
	}
	defer dst.Release()

	// Fill the source, copy once and check the tail of the copy.
	pattern := make([]byte, size)
	for i := range pattern {
		pattern[i] = byte(i*7 + i>>12)
	}
	tail := min(size, 1<<16)
	got := make([]byte, tail)
	seq, err := dev.NewSequence()
	if err != nil {
		return bw, err
	}
	seq.Upload(src, 0, pattern)
	seq.Copy(dst, src, 0, 0, size)
	seq.Download(dst, size-tail, got)
	_, err = seq.Run(ctx)
	seq.Release()
	if err != nil {
		return bw, fmt.Errorf("copy bandwidth on %s: %w", dev.Info.Name, err)
	}
	if !bytes.Equal(got, pattern[size-tail:]) {
		return bw, fmt.Errorf("copy bandwidth on %s: vkCmdCopyBuffer copied the wrong bytes", dev.Info.Name)
	}

	var times []time.Duration
	timed := true
	for i := 0; i < repeat+1; i++ {
		seq, err := dev.NewSequence()
		if err != nil {
			return bw, err
		}
		seq.Copy(dst, src, 0, 0, size)
		tm, err := seq.Run(ctx)
		seq.Release()
		if err != nil {
			return bw, err
		}
		if i == 0 {
			continue
		}
		d := tm.Kernel
		if !tm.GPUTimed {
			d, timed = tm.Wall, false
		}
		times = append(times, d)
	}
	if !timed {
		bw.Method = "vkCmdCopyBuffer, wall time (no timestamps)"
	}
	if t := slices.Min(times).Seconds(); t > 0 {
		bw.GBs = 2 * float64(size) / t / 1e9
	}
	return bw, nil
}

func hostCopyBandwidth(size int64, repeat int) Bandwidth {
	workers := runtime.GOMAXPROCS(0)
	src, dst := make([]byte, size), make([]byte, size)
	for i := range src {
		src[i] = byte(i)
	}
	piece := (size/int64(workers) + 4095) &^ 4095
	run := func() time.Duration {
		t0 := time.Now()
		var wg sync.WaitGroup
		for lo := int64(0); lo < size; lo += piece {
			hi := min(lo+piece, size)
			wg.Add(1)
			go func() {
				defer wg.Done()
				copy(dst[lo:hi], src[lo:hi])
			}()
		}
		wg.Wait()
		return time.Since(t0)
	}
	run() // warm-up: faults the destination's pages in
	times := make([]time.Duration, repeat)
	for i := range times {
		times[i] = run()
	}
	bw := Bandwidth{Bytes: size, Method: fmt.Sprintf("Go copy() on %d goroutines", workers)}
	if t := slices.Min(times).Seconds(); t > 0 {
		bw.GBs = 2 * float64(size) / t / 1e9
	}
	return bw
}
