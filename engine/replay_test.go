package engine_test

import (
	"context"
	"encoding/binary"
	"math"
	"testing"

	"github.com/vkstat/vkstat/engine"
	"github.com/vkstat/vkstat/shaders"
)

// replayMap runs z = A·x² + B·y + C over x and y (float32) as one library
// call makes it (buffers, one sequence, buffers released) and returns z
// and what the device counted.
func replayMap(t *testing.T, d *engine.Device, x, y []float32, p mapPush) ([]float32, engine.Counts) {
	t.Helper()
	code, err := shaders.Code("map_f32")
	if err != nil {
		t.Fatal(err)
	}
	k, err := d.Kernel(engine.KernelSpec{Name: "map_f32", Code: code, Push: mapPush{}, Spec: []uint32{64}})
	if err != nil {
		t.Fatal(err)
	}
	n := len(x)
	bytesOf := func(v []float32) []byte {
		b := make([]byte, 4*len(v))
		for i, f := range v {
			binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(f))
		}
		return b
	}
	before := d.Counts()
	bufs, err := d.Buffers(int64(4*n), int64(4*n), int64(4*n))
	if err != nil {
		t.Fatal(err)
	}
	out := make([]byte, 4*n)
	p.N = n
	_, err = d.Run(context.Background(), func(s *engine.Sequence) {
		s.Upload(bufs[0], 0, bytesOf(x))
		s.Upload(bufs[1], 0, bytesOf(y))
		s.Dispatch(k, d.Groups((n+63)/64), p, engine.Bind(bufs[0]), engine.Bind(bufs[1]), engine.Bind(bufs[2]))
		s.Download(bufs[2], 0, out)
	})
	engine.ReleaseAll(bufs)
	if err != nil {
		t.Fatal(err)
	}
	z := make([]float32, n)
	for i := range z {
		z[i] = math.Float32frombits(binary.LittleEndian.Uint32(out[4*i:]))
	}
	return z, d.Counts().Sub(before)
}

// replayInputs are x = (i+seed) mod 13 and y = (i·seed) mod 7: small
// integers, so that A·x² + B·y + C with the constants below is exact in
// float32 however the device rounds or fuses it.
func replayInputs(n, seed int) (x, y []float32) {
	x, y = make([]float32, n), make([]float32, n)
	for i := range x {
		x[i], y[i] = float32((i+seed)%13), float32((i*seed)%7)
	}
	return x, y
}

func checkReplayMap(t *testing.T, what string, z, x, y []float32, p mapPush) {
	t.Helper()
	for i := range z {
		want := float32(p.A)*x[i]*x[i] + float32(p.B)*y[i] + float32(p.C)
		if z[i] != want {
			t.Fatalf("%s: z[%d] = %v, want %v", what, i, z[i], want)
		}
	}
}

// TestReplayInputsChange (issue 39): a call whose commands were recorded
// before replays them — no command buffer recorded, no descriptor written
// — and its results follow its own inputs when the data change; new push
// constants or a new shape record anew, with right results, and the
// earlier recordings stay for the calls that come back to them.
func TestReplayInputsChange(t *testing.T) {
	openModes(t, func(t *testing.T, d *engine.Device, _ engine.DeviceOptions) {
		p := mapPush{A: 2, B: 3, C: 0.5}
		// recorded: the call recorded its sequence (true) or replayed it;
		// copies: the staging ring's copies it records where the device
		// copies through staging (its three copies are replayed when
		// the call before moved the same ranges).
		call := func(what string, n, seed int, p mapPush, recorded bool, copies int64) {
			t.Helper()
			x, y := replayInputs(n, seed)
			z, c := replayMap(t, d, x, y, p)
			checkReplayMap(t, what, z, x, y, p)
			if recorded {
				if c.Replays != 0 || c.DescriptorWrites != 3 {
					t.Errorf("%s: %d replays, %d descriptors written; want it recorded: 0, 3", what, c.Replays, c.DescriptorWrites)
				}
				return
			}
			if c.Replays != 1 || c.DescriptorWrites != 0 || c.DescriptorSets != 0 {
				t.Errorf("%s: %d replays, %d descriptors written, %d sets; want 1, 0, 0", what, c.Replays, c.DescriptorWrites, c.DescriptorSets)
			}
			if d.UMA() {
				copies = 0
			}
			if c.Recordings != copies {
				t.Errorf("%s: %d command buffers recorded, want %d", what, c.Recordings, copies)
			}
		}
		call("first call", 1000, 1, p, true, 3)
		call("same shape, new data", 1000, 2, p, false, 0)
		call("new data again", 1000, 3, p, false, 0)
		q := p
		q.C = 7
		call("other push constants", 1000, 4, q, true, 0)
		call("the first push constants again", 1000, 5, p, false, 0)
		call("the other push constants again", 1000, 6, q, false, 0)
		call("another shape", 1024, 7, p, true, 3)
		call("another shape again", 1024, 8, p, false, 0)
		call("the first shape again", 1000, 9, p, false, 3)
	})
}

// TestReplayBounded (issue 39): the recordings a device keeps are
// bounded however many different calls it runs, and go with the memory
// their buffers lived in: a call on buffers made after that memory was
// freed (whose VkBuffer handles the driver may give again) records anew
// and gets its own results.
func TestReplayBounded(t *testing.T) {
	openModes(t, func(t *testing.T, d *engine.Device, _ engine.DeviceOptions) {
		x, y := replayInputs(500, 3)
		for i := 0; i < 100; i++ {
			p := mapPush{A: 1, B: 1, C: float64(i)}
			z, _ := replayMap(t, d, x, y, p)
			checkReplayMap(t, "distinct constants", z, x, y, p)
		}
		if n := d.Replays(); n < 1 || n > 32 {
			t.Errorf("%d recordings kept after 100 distinct calls, want 1 to 32", n)
		}
		use := d.MemoryUse()
		for i := 0; i < 100; i++ {
			p := mapPush{A: 1, B: 1, C: float64(1000 + i)}
			replayMap(t, d, x, y, p)
		}
		if u := d.MemoryUse(); u != use {
			t.Errorf("memory held grew over 100 more calls: %+v, then %+v", use, u)
		}
		d.Trim()
		if n := d.Replays(); n != 0 {
			t.Errorf("%d recordings kept after their memory was freed", n)
		}
		p := mapPush{A: 1, B: 1, C: 0}
		x, y = replayInputs(500, 4)
		z, c := replayMap(t, d, x, y, p)
		checkReplayMap(t, "after Trim", z, x, y, p)
		if c.Replays != 0 {
			t.Errorf("a call on new memory replayed %d recordings", c.Replays)
		}
	})
}
