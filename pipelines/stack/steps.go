package stack

import (
	"fmt"
	"io"
	"time"
)

// WriteSteps writes the steps of the call that made r, as `vkstat --time`
// prints them before the run's phases: the dates (dates words them: how
// many, of what size and type) and the stack they made, check (the time
// spent opening every date before the call), the reader goroutine's time,
// the compute and its wait for the reader, and the call's wall time.
func (r *Result) WriteSteps(w io.Writer, dates string, check time.Duration) {
	ms := func(d time.Duration) string { return fmt.Sprintf("%9.3f ms", float64(d.Nanoseconds())/1e6) }
	fmt.Fprintf(w, "dates:    %s → %d×%d (columns×rows)\n", dates, r.W, r.H)
	fmt.Fprintf(w, "check:    %s (opening every date)\n", ms(check))
	fmt.Fprintf(w, "read:     %s (reader goroutine, overlapped with compute)\n", ms(r.Read))
	fmt.Fprintf(w, "compute:  %s (upload, multilook, filter, statistics)\n", ms(r.Timing.Kernel))
	fmt.Fprintf(w, "wait:     %s (compute waiting for reads)\n", ms(r.Timing.Phase("read-wait")))
	fmt.Fprintf(w, "stack:    %s (wall of the call)\n", ms(r.Timing.Wall))
}
