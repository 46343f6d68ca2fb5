package engine_test

import (
	"bytes"
	"context"
	"testing"

	"github.com/vkstat/vkstat/device/testdev"
	"github.com/vkstat/vkstat/engine"
)

// TestHold checks that a held array's windows read its bytes, that
// windows are refused where they cannot be bound in place (unaligned,
// outside the array, after Release), that holding it again is free, and
// that the counters see one upload.
func TestHold(t *testing.T) {
	ctx := context.Background()
	for _, d := range testdev.Devices(t) {
		raw := make([]byte, 3000)
		for i := range raw {
			raw[i] = byte(i*7 + i/256)
		}
		if _, ok := d.Window(raw[:256], 256); ok {
			t.Fatalf("%s: a window of an array nobody holds", d.Info.Name)
		}
		h, tm, err := d.Hold(ctx, raw)
		if err != nil {
			t.Fatal(err)
		}
		if tm.UpBytes != int64(len(raw)) {
			t.Errorf("%s: holding %d bytes counted %d uploaded", d.Info.Name, len(raw), tm.UpBytes)
		}
		again, tm2, err := d.Hold(ctx, raw[512:1024])
		if err != nil || tm2.UpBytes != 0 {
			t.Errorf("%s: holding a part of a held array uploaded %d bytes (%v)", d.Info.Name, tm2.UpBytes, err)
		}
		again.Release() // does nothing: raw stays held
		// The tail of 3000 bytes rounds up to a whole word (3004).
		for _, w := range [][2]int{{0, 3000}, {256, 1000}, {2816, 184}} {
			b, ok := d.Window(raw[w[0]:w[0]+w[1]], int64(w[1]+3)&^3)
			if !ok {
				t.Fatalf("%s: no window for bytes [%d, %d)", d.Info.Name, w[0], w[0]+w[1])
			}
			got := make([]byte, w[1])
			if _, err := d.Run(ctx, func(s *engine.Sequence) { s.Download(b.Buf, b.Offset, got) }); err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, raw[w[0]:w[0]+w[1]]) {
				t.Errorf("%s: window [%d, %d) does not hold the array's bytes", d.Info.Name, w[0], w[0]+w[1])
			}
		}
		if _, ok := d.Window(raw[4:260], 256); ok && d.Info.MinStorageAlignment > 4 {
			t.Errorf("%s: a window at offset 4 with minStorageBufferOffsetAlignment %d", d.Info.Name, d.Info.MinStorageAlignment)
		}
		if _, ok := d.Window(raw[2816:], 4096); ok {
			t.Errorf("%s: a window past the held copy's end", d.Info.Name)
		}
		other := make([]byte, 256)
		if _, ok := d.Window(other, 256); ok {
			t.Errorf("%s: a window of another array", d.Info.Name)
		}
		h.Release()
		if _, ok := d.Window(raw[:256], 256); ok {
			t.Errorf("%s: a window after Release", d.Info.Name)
		}
	}
}

// TestHoldBeyondBinding: an array longer than one binding may cover is
// held once (holding it again, as a caller and the pipeline it calls both
// may, uploads nothing), and its windows past the first binding's reach
// read its bytes.
func TestHoldBeyondBinding(t *testing.T) {
	ctx := context.Background()
	for _, d := range testdev.Devices(t) {
		lim := int64(d.Info.MaxStorageBufferRange)
		if lim > 256<<20 || lim+(1<<20) > d.Available()/2 {
			t.Logf("%s: bindings of %d MiB, skipped", d.Info.Name, lim>>20)
			continue
		}
		raw := make([]byte, lim+(1<<20))
		for i := range raw {
			raw[i] = byte(i / 4096)
		}
		h, _, err := d.Hold(ctx, raw)
		if err != nil {
			t.Fatal(err)
		}
		again, tm, err := d.Hold(ctx, raw)
		if err != nil || tm.UpBytes != 0 {
			t.Errorf("%s: holding a held array of %d bytes again uploaded %d bytes (%v)", d.Info.Name, len(raw), tm.UpBytes, err)
		}
		again.Release()
		if _, ok := d.Window(raw, int64(len(raw))); ok {
			t.Errorf("%s: a window of %d bytes, past maxStorageBufferRange", d.Info.Name, len(raw))
		}
		at := int64(len(raw)) - 8192
		b, ok := d.Window(raw[at:], 8192)
		if !ok {
			t.Fatalf("%s: no window at %d", d.Info.Name, at)
		}
		got := make([]byte, 8192)
		if _, err := d.Run(ctx, func(s *engine.Sequence) { s.Download(b.Buf, b.Offset, got) }); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, raw[at:]) {
			t.Errorf("%s: the window at %d does not hold the array's bytes", d.Info.Name, at)
		}
		h.Release()
	}
}
