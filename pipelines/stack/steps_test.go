package stack

import (
	"strings"
	"testing"
	"time"

	"github.com/vkstat/vkstat/engine"
)

// TestWriteSteps: the steps of a call, each time in milliseconds to the
// microsecond, written out by hand.
func TestWriteSteps(t *testing.T) {
	r := &Result{W: 16, H: 12, Read: 1500 * time.Microsecond,
		Timing: engine.Timing{Kernel: 2 * time.Millisecond, Wall: 4250 * time.Microsecond}}
	r.Timing.AddPhase("read-wait", 125*time.Microsecond)
	var b strings.Builder
	r.WriteSteps(&b, "3 of 64×48 CFloat32", 10*time.Millisecond)
	want := `dates:    3 of 64×48 CFloat32 → 16×12 (columns×rows)
check:       10.000 ms (opening every date)
read:         1.500 ms (reader goroutine, overlapped with compute)
compute:      2.000 ms (upload, multilook, filter, statistics)
wait:         0.125 ms (compute waiting for reads)
stack:        4.250 ms (wall of the call)
`
	if b.String() != want {
		t.Errorf("got\n%s\nwant\n%s", b.String(), want)
	}
}
