package cli

import (
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"time"
)

// progress draws a bar on stderr for long runs: nothing during the first
// two seconds, then a bar redrawn in place on a terminal, or a line every
// few seconds when stderr is a file or a pipe.
type progress struct {
	w     io.Writer
	off   bool // --quiet
	tty   bool
	start time.Time
	mu    sync.Mutex
	last  time.Time
	drawn bool
}

// quietWriter is stderr under --quiet: everything written passes, but no
// progress bar is drawn on it.
type quietWriter struct{ io.Writer }

func newProgress(w io.Writer) *progress {
	if _, quiet := w.(quietWriter); quiet {
		return &progress{off: true}
	}
	tty := false
	if f, ok := w.(*os.File); ok {
		if st, err := f.Stat(); err == nil && st.Mode()&os.ModeCharDevice != 0 {
			tty = true
		}
	}
	return &progress{w: w, tty: tty, start: time.Now()}
}

// update reports that stage is frac (0..1) done.
func (p *progress) update(stage string, frac float64) {
	if p.off {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	now := time.Now()
	if now.Sub(p.start) < 2*time.Second {
		return
	}
	every := 100 * time.Millisecond
	if !p.tty {
		every = 5 * time.Second
	}
	if p.drawn && now.Sub(p.last) < every && frac < 1 {
		return
	}
	p.last, p.drawn = now, true
	frac = min(max(frac, 0), 1)
	const width = 30
	n := int(frac * width)
	bar := strings.Repeat("=", n) + strings.Repeat(" ", width-n)
	line := fmt.Sprintf("[%s] %3.0f%% %-16s %5.1fs", bar, 100*frac, stage, now.Sub(p.start).Seconds())
	if p.tty {
		fmt.Fprintf(p.w, "\r%s", line)
	} else {
		fmt.Fprintln(p.w, line)
	}
}

// done ends the bar's line.
func (p *progress) done() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.drawn && p.tty {
		fmt.Fprintln(p.w)
	}
}
