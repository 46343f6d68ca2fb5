package shaderlab

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/vkstat/vkstat/engine"
)

// SourceFiles are the files a shader's source may read: the shader, and
// the .glsl and .comp files beside it and in the include folders.
func SourceFiles(path string, includes []string) []string {
	files := []string{path}
	for _, d := range append([]string{filepath.Dir(path)}, includes...) {
		for _, pat := range []string{"*.glsl", "*.comp"} {
			m, _ := filepath.Glob(filepath.Join(d, pat))
			files = append(files, m...)
		}
	}
	return files
}

// stamp is what a change of the files changes: their sizes, modification
// times and existence.
func stamp(files []string) string {
	var b strings.Builder
	for _, f := range files {
		if st, err := os.Stat(f); err == nil {
			fmt.Fprintf(&b, "%s %d %d\n", f, st.Size(), st.ModTime().UnixNano())
		} else {
			fmt.Fprintf(&b, "%s missing\n", f)
		}
	}
	return b.String()
}

// Watch calls run at once, then whenever one of files() changes, looking
// every interval (files is called each time: a new include counts),
// until run returns false (Watch returns nil) or ctx ends (Watch returns
// its error). A save by rename counts as a change.
func Watch(ctx context.Context, files func() []string, interval time.Duration, run func() bool) error {
	if interval <= 0 {
		return fmt.Errorf("watch interval %v: want a positive one", interval)
	}
	tick := time.NewTicker(interval)
	defer tick.Stop()
	last := ""
	for {
		if s := stamp(files()); s != last {
			last = s
			if !run() {
				return nil
			}
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-tick.C:
		}
	}
}

// Runs is what a watch keeps of one device's runs of a shader, which may
// be recompiled between them: the last run and the median GPU times of
// the timed ones.
type Runs struct {
	Last  *Result
	Times []time.Duration
}

// Add records run r of p and returns how the bindings p writes changed
// against the last run (nil for the first run, or where the last had
// another number of bindings).
func (h *Runs) Add(p *Plan, r *Result) []Verdict {
	var changes []Verdict
	if h.Last != nil && len(h.Last.Outputs) == len(r.Outputs) {
		changes = p.Check(r, p.Written(h.Last), Tol(0))
	}
	h.Last = r
	if r.Timed {
		h.Times = append(h.Times, r.Median())
	}
	return changes
}

// Trend is the last GPU time's change against the one before, as a
// fraction of it, and the last n+1 times at most, oldest first; nil before
// two timed runs.
func (h *Runs) Trend(n int) (change float64, recent []time.Duration) {
	k := len(h.Times) - 1
	if k < 1 {
		return 0, nil
	}
	old := h.Times[k-1].Seconds()
	return (h.Times[k].Seconds() - old) / max(old, 1e-12), h.Times[max(0, k-n):]
}

// Report records run r of p (Add) and writes it: its dispatch and times
// (WriteRun), the GPU time's trend over the last runs, and how each
// binding p writes changed against the last run.
func (h *Runs) Report(w io.Writer, p *Plan, r *Result) {
	p.WriteRun(w, r)
	changes := h.Add(p, r)
	if change, recent := h.Trend(4); r.Timed && recent != nil {
		var hist []string
		for _, t := range recent {
			hist = append(hist, fmt.Sprintf("%.3f", float64(t.Nanoseconds())/1e6))
		}
		fmt.Fprintf(w, "  time %s (previous %s, %+.1f%%) trend ms: %s\n", Ms(r.Median()), Ms(recent[len(recent)-2]), 100*change, strings.Join(hist, " → "))
	}
	for _, v := range changes {
		switch {
		case v.Err != nil:
		case v.Diff.MaxAbs == 0 && v.Diff.NaNs == 0:
			fmt.Fprintf(w, "  change vs previous run, %s: none\n", BindName(v.Binding))
		default:
			fmt.Fprintf(w, "  change vs previous run, %s: %s\n", BindName(v.Binding), v.Diff)
		}
	}
}

// WatchRound runs p, as compiled for this round of a watch, on each of
// devs, runs keeping each one's (runs[i] devs[i]'s), and writes each run
// (Runs.Report) and how it compares with want (WriteCheck); a run that
// fails writes its error, and the line advice (where not nil) gives for
// it where that is not "".
func WatchRound(ctx context.Context, w io.Writer, p *Plan, devs []*engine.Device, runs []Runs, want map[int]*Array, tol func(int) Tolerance, advice func(error) string) {
	for i, d := range devs {
		r, err := p.Run(ctx, d)
		if err != nil {
			fmt.Fprintf(w, "error on %s: %v\n", d.Info.Name, err)
			if advice != nil && advice(err) != "" {
				fmt.Fprintf(w, "  %s\n", advice(err))
			}
			continue
		}
		runs[i].Report(w, p, r)
		WriteCheck(w, p, r, want, tol)
	}
}
