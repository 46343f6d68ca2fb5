package suite

import (
	"strings"
	"testing"
	"time"

	"github.com/vkstat/vkstat/engine"
)

// Issue 31 item 7: bench warms up for a time, not a count. Each case feeds
// the warmer runs of given kernel times (GPU-timed) and wall times, and
// checks when it stops and why.
func TestWarmer(t *testing.T) {
	ms := func(v float64) time.Duration { return time.Duration(v * float64(time.Millisecond)) }
	for _, c := range []struct {
		name   string
		count  int
		kernel func(i int) float64 // ms of run i (0-based); wall is kernel + 1 ms
		runs   int
		why    string
	}{
		{"a count", 3, func(int) float64 { return 1000 }, 3, "--warmup 3"},
		{"steady from the start", WarmupByTime, func(int) float64 { return 10 }, 6, "within 5%"},
		// The H100's chol: 3.22 ms until the clocks rise, then 0.956.
		{"clocks rising", WarmupByTime, func(i int) float64 {
			if i < 4 {
				return 3.22
			}
			return 0.956
		}, 9, "within 5%"},
		{"a second of kernel time", WarmupByTime, func(i int) float64 { return 800 / float64(i+1) }, 2, "of kernel time"},
		{"never steady, cheap", WarmupByTime, func(i int) float64 { return float64(1 + i%2*5) }, 30, "cap"},
	} {
		w := warmer{count: c.count}
		for !w.done() {
			k := c.kernel(w.runs)
			w.add(engine.Timing{Kernel: ms(k), GPUTimed: true}, ms(k+1))
			if w.runs > 100 {
				t.Fatalf("%s: no end", c.name)
			}
		}
		if w.runs != c.runs || !strings.Contains(w.why, c.why) {
			t.Errorf("%s: stopped after %d runs (%s), want %d (%s)", c.name, w.runs, w.why, c.runs, c.why)
		}
	}
	// Without GPU timestamps (the CPU path) the wall time counts: 0.6 s
	// a run that never settles ends after two runs.
	w := warmer{count: WarmupByTime}
	for !w.done() {
		w.add(engine.Timing{}, ms(600+float64(w.runs%2)*100))
	}
	if w.runs != 2 || !strings.Contains(w.why, "of kernel time") {
		t.Errorf("no timestamps: %d runs (%s); want 2, ended by a second of time", w.runs, w.why)
	}
}
