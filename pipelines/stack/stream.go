package stack

import (
	"context"
	"fmt"
	"time"

	"github.com/vkstat/vkstat/engine"
	"github.com/vkstat/vkstat/tensor"
)

// strip is rows [row0, row0+rows) of one date's output, as input samples.
type strip struct {
	date       int
	row0, rows int
	buf        []float32
	nodata     float32
	hasNodata  bool
	last       bool // the date's last strip
	err        error
}

// stripBytes bounds one strip of input: large enough that per-strip costs
// vanish, small enough that a few of them in flight are cheap.
const stripBytes = 32 << 20

// testOptions steer a Plan's run in tests (Plan.test).
type testOptions struct {
	// stripBytes, when positive, replaces stripBytes: 1 makes a strip of
	// each row, cycling the buffer pool.
	stripBytes int64
}

// stripBytes is the bound on one strip of input.
func (p *Plan) stripBytes() int64 {
	if p.test != nil && p.test.stripBytes > 0 {
		return p.test.stripBytes
	}
	return stripBytes
}

// poolStrips is how many strip buffers circulate: one being reduced, one
// being read, one ready.
const poolStrips = 3

// timing is what run measured: buffers is allocating the strip buffers
// (three strips of up to 32 MiB, faulted in: 10 ms on lavapipe's 4 MiB
// dates of TestTimePhasesAddUp, which --time left unnamed). samples is
// what the reader counted beside: each output pixel's valid input samples
// over its look box and every date (Result.Samples).
type timing struct {
	read, wait, compute, buffers time.Duration
	samples                      []uint32
}

// countValid adds to samples (the strip's p.W-wide output rows from row0)
// the valid input samples of each look box in buf, rows of the strip as
// read: not NaN, and not nodata (a complex sample: both parts nodata), the
// multilook's rule.
func countValid(p *Plan, buf []float32, rows, row0 int, nd float32, hasND bool, samples []uint32) {
	a, r, per := p.LooksAz, p.LooksRg, p.Per
	line := p.InW * per
	for oy := range rows {
		out := samples[(row0+oy)*p.W : (row0+oy+1)*p.W]
		for dy := range a {
			in := buf[(oy*a+dy)*line : (oy*a+dy+1)*line]
			for ox := range out {
				n := uint32(0)
				seg := in[ox*r*per : (ox+1)*r*per]
				for k := 0; k < len(seg); k += per {
					re, im := seg[k], float32(0)
					if per == 2 {
						im = seg[k+1]
					}
					if re == re && im == im && !(hasND && re == nd && (per == 1 || im == nd)) {
						n++
					}
				}
				out[ox] += n
			}
		}
	}
}

// run streams the dates strip by strip, stripRows output rows at a time, to
// consume, from a reader goroutine that works ahead through a pool of
// buffers; ctx's Progress is told after each date's last strip.
func run(ctx context.Context, p *Plan, dates []Date, stripRows int, consume func(s *strip) error) (timing, error) {
	progress := engine.ProgressOf(ctx)
	var tm timing
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	per := stripRows * p.LooksAz * p.InW * p.Per
	pool := make(chan []float32, poolStrips)
	tb := time.Now()
	for range poolStrips {
		pool <- tensor.Make[float32](per)
	}
	tm.buffers = time.Since(tb)
	out := make(chan *strip, poolStrips)
	var readTime time.Duration
	tm.samples = make([]uint32, p.H*p.W) // the reader's alone until out is closed
	go func() {
		defer close(out)
		send := func(s *strip) bool {
			select {
			case out <- s:
				return true
			case <-ctx.Done():
				return false
			}
		}
		for di, d := range dates {
			t0 := time.Now()
			r, err := d.Open()
			readTime += time.Since(t0)
			if err != nil {
				send(&strip{err: err})
				return
			}
			nd, has := r.NoData()
			for row0 := 0; row0 < p.H; row0 += stripRows {
				var buf []float32
				select {
				case buf = <-pool:
				case <-ctx.Done():
					r.Close()
					return
				}
				rows := min(stripRows, p.H-row0)
				t0 := time.Now()
				err := r.Read(p.InX, p.InY+row0*p.LooksAz, p.InW, rows*p.LooksAz, buf[:rows*p.LooksAz*p.InW*p.Per])
				if err == nil {
					countValid(p, buf, rows, row0, float32(nd), has, tm.samples)
				}
				readTime += time.Since(t0)
				if err != nil {
					r.Close()
					send(&strip{err: fmt.Errorf("%s: %w", d.Name(), err)})
					return
				}
				s := &strip{date: di, row0: row0, rows: rows, buf: buf, nodata: float32(nd), hasNodata: has, last: row0+rows >= p.H}
				if !send(s) {
					r.Close()
					return
				}
			}
			t0 = time.Now()
			err = r.Close()
			readTime += time.Since(t0)
			if err != nil {
				send(&strip{err: fmt.Errorf("%s: %w", d.Name(), err)})
				return
			}
		}
	}()
	var first error
	for {
		t0 := time.Now()
		s, ok := <-out
		tm.wait += time.Since(t0)
		if !ok {
			break
		}
		if first != nil {
			continue // drain: the reader stops at the cancel below
		}
		if s.err == nil {
			s.err = ctx.Err()
		}
		if s.err == nil {
			t0 = time.Now()
			s.err = consume(s)
			tm.compute += time.Since(t0)
		}
		if s.err != nil {
			first = s.err
			cancel()
			continue
		}
		pool <- s.buf
		if s.last {
			progress(fmt.Sprintf("date %d/%d", s.date+1, len(dates)), float64(s.date+1)/float64(len(dates)))
		}
	}
	tm.read = readTime // the reader has finished: out is closed
	if first == nil {
		first = ctx.Err() // cancelled before the reader sent anything
	}
	return tm, first
}
