package engine_test

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"math"
	"testing"

	"github.com/vkstat/vkstat/engine"
)

// mapCall is one library call of the map z = x² + y + 0 over n float32
// elements, as a pipeline makes it: its buffers, one sequence (upload x
// and y, one dispatch, download z), the buffers released; measured with
// Begin and End.
func mapCall(t *testing.T, d *engine.Device, x, y, z []byte) engine.Timing {
	t.Helper()
	var tm engine.Timing
	m := engine.Begin(d)
	st, err := runMap(context.Background(), d, x, y, z)
	if err != nil {
		t.Fatal(err)
	}
	tm.Add(st)
	m.End(&tm)
	return tm
}

// mapInputs are x = 1 and y = i/7 as float32 bytes: z = 1 + y exactly as
// the device rounds it.
func mapInputs(n int) (x, y []byte) {
	x, y = make([]byte, 4*n), make([]byte, 4*n)
	for i := 0; i < n; i++ {
		binary.LittleEndian.PutUint32(x[4*i:], math.Float32bits(1))
		binary.LittleEndian.PutUint32(y[4*i:], math.Float32bits(float32(i)/7))
	}
	return x, y
}

func checkMap(t *testing.T, y, z []byte) {
	t.Helper()
	for i := 0; i < len(z)/4; i++ {
		want := 1 + math.Float32frombits(binary.LittleEndian.Uint32(y[4*i:]))
		if got := math.Float32frombits(binary.LittleEndian.Uint32(z[4*i:])); got != want {
			t.Fatalf("z[%d] = %v, want %v", i, got, want)
		}
	}
}

// TestRepeatCallCosts (issue 31): a second identical call allocates no
// memory and creates no pipeline, descriptor pool, command buffer, query
// pool or fence; its host copies are the bytes that cross, once each (none
// where the device imports host memory), on every data path. Issue 39: it
// replays the first call's command buffer, writing no descriptor.
func TestRepeatCallCosts(t *testing.T) {
	openModes(t, func(t *testing.T, d *engine.Device, opt engine.DeviceOptions) {
		const n = 1 << 20 // 4 MiB arrays: above the import threshold
		x, y := mapInputs(n)
		z := make([]byte, 4*n)
		first := mapCall(t, d, x, y, z)
		checkMap(t, y, z)
		if first.Counts.Pipelines != 1 && first.Counts.Pipelines != 0 {
			t.Errorf("first call: %d pipelines", first.Counts.Pipelines)
		}
		clear(z)
		tm := mapCall(t, d, x, y, z)
		checkMap(t, y, z)
		c := tm.Counts
		t.Logf("second call: %+v", c)
		if c.Allocs != 0 || c.Frees != 0 || c.AllocBytes != 0 {
			t.Errorf("second call: %d allocations (%d bytes), %d frees, want none", c.Allocs, c.AllocBytes, c.Frees)
		}
		if c.Pipelines != 0 || c.ShaderModules != 0 || c.DescriptorPools != 0 || c.CommandBuffers != 0 || c.QueryPools != 0 || c.Fences != 0 || c.Semaphores != 0 {
			t.Errorf("second call created objects: %+v", c)
		}
		if c.Dispatches != 1 || c.Submits < 1 || c.FenceWaits < 1 {
			t.Errorf("second call: %d dispatches, %d submits, %d fence waits", c.Dispatches, c.Submits, c.FenceWaits)
		}
		// Issue 39: the sequence's command buffer, recorded by the first
		// call, is replayed: no descriptor set allocated or written, no
		// VkBuffer made; the only recordings are the staging ring's copies
		// (none on UMA devices).
		if c.Replays != 1 || c.DescriptorSets != 0 || c.DescriptorWrites != 0 {
			t.Errorf("second call: %d replays, %d descriptor sets, %d descriptors written; want 1, 0, 0", c.Replays, c.DescriptorSets, c.DescriptorWrites)
		}
		if d.UMA() && (c.Recordings != 0 || c.Buffers != 0) {
			t.Errorf("second call on a UMA device: %d command buffers recorded, %d buffers made; want none", c.Recordings, c.Buffers)
		}
		if c.Recordings >= c.Submits {
			t.Errorf("second call: %d recordings for %d submits: the sequence was recorded again", c.Recordings, c.Submits)
		}
		in, out := int64(8*n), int64(4*n)
		if tm.UpBytes != in || tm.DownBytes != out {
			t.Errorf("moved %d up, %d down; want %d, %d", tm.UpBytes, tm.DownBytes, in, out)
		}
		switch {
		case d.UMA():
			if c.MappedIn != in || c.MappedOut != out || c.StagingIn+c.StagingOut+c.Imported != 0 {
				t.Errorf("UMA: %+v, want %d bytes into and %d out of mapped memory, nothing else", c, in, out)
			}
		case d.Imports():
			if c.HostCopied() != 0 || c.Imported != in+out || c.Imports != 3 {
				t.Errorf("imported: %+v, want no host copy and %d bytes imported in 3 ranges", c, in+out)
			}
		default:
			if c.StagingIn != in || c.StagingOut != out || c.MappedIn+c.MappedOut+c.Imported != 0 {
				t.Errorf("staging: %+v, want %d bytes into and %d out of staging, nothing else", c, in, out)
			}
		}
		if tm.Other() < 0 || tm.Named() <= 0 {
			t.Errorf("phases %v sum to %v of a wall of %v", tm.Phases, tm.Named(), tm.Wall)
		}
		// The device's running totals hold both calls.
		if got := d.Counts().Dispatches; got < 2 {
			t.Errorf("device counts %d dispatches after two calls", got)
		}
	})
}

// TestImportUnaligned (issue 31): arrays that start and end inside pages,
// in Go memory, are imported as the pages around them, and copied by the
// device straight from and into them; the bytes around them are left alone.
func TestImportUnaligned(t *testing.T) {
	openModes(t, func(t *testing.T, d *engine.Device, opt engine.DeviceOptions) {
		if !d.Imports() {
			t.Log("no host-memory import on this data path")
			return // (openModes closes the device)
		}
		const n = 3<<20 + 12
		src := pattern(n+300, 5)[100 : 100+n]
		back := pattern(n+900, 9)
		dst := back[500 : 500+n]
		b, err := d.NewBuffer(n + 256)
		if err != nil {
			t.Fatal(err)
		}
		defer b.Release()
		before := d.Counts()
		seq, _ := d.NewSequence()
		seq.Upload(b, 256, src)
		seq.Download(b, 256, dst)
		if _, err := seq.Run(context.Background()); err != nil {
			t.Fatal(err)
		}
		seq.Release()
		c := d.Counts().Sub(before)
		if !bytes.Equal(dst, src) {
			t.Fatal("the round trip through imported memory changed the data")
		}
		if want := pattern(n+900, 9); !bytes.Equal(back[:500], want[:500]) || !bytes.Equal(back[500+n:], want[500+n:]) {
			t.Error("bytes around the download's destination changed")
		}
		if c.Imports != 2 || c.HostCopied() != 0 || c.Imported != 2*n {
			t.Errorf("counts %+v: want 2 imports, %d bytes imported, no host copy", c, 2*n)
		}
	})
}

// TestCacheWithinBudget: freed buffers stay cached and are reused, cached
// memory counts against the budget and is freed when a new block needs
// the room, and Trim frees it.
func TestCacheWithinBudget(t *testing.T) {
	d := openFirst(t, engine.DeviceOptions{Budget: 16 << 20, Discrete: true})
	within := func(when string) {
		t.Helper()
		if u := d.MemoryUse(); u.Device > d.Budget() || u.DeviceCached > u.Device {
			t.Errorf("%s: %+v with a budget of %d", when, u, d.Budget())
		}
	}
	a, err := d.NewBuffer(10 << 20)
	if err != nil {
		t.Fatal(err)
	}
	a.Release()
	within("10 MiB released")
	if u := d.MemoryUse(); u.DeviceCached < 10<<20 {
		t.Errorf("a released 10 MiB buffer is not cached: %+v", u)
	}
	if d.Available() != 16<<20 {
		t.Errorf("cached memory is not available to plan on: %d of %d", d.Available(), d.Budget())
	}
	c0 := d.Counts()
	b, err := d.NewBuffer(9 << 20)
	if err != nil {
		t.Fatal(err)
	}
	if c := d.Counts().Sub(c0); c.Allocs != 0 {
		t.Errorf("9 MiB after a cached 10 MiB: %d allocations, want 0", c.Allocs)
	}
	b.Release()
	// 14 MiB fits the budget only once the cached 10 MiB goes.
	c0 = d.Counts()
	e, err := d.NewBuffer(14 << 20)
	if err != nil {
		t.Fatalf("14 MiB with 10 MiB cached in a 16 MiB budget: %v", err)
	}
	if c := d.Counts().Sub(c0); c.Allocs != 1 || c.Frees != 1 {
		t.Errorf("14 MiB: %d allocations, %d frees; want the cached block freed and one allocation", c.Allocs, c.Frees)
	}
	within("14 MiB held")
	if _, err := d.NewBuffer(4 << 20); !errors.Is(err, engine.ErrBudget) {
		t.Errorf("4 MiB more: want ErrBudget, got %v", err)
	}
	e.Release()
	if freed := d.Trim(); freed < 14<<20 {
		t.Errorf("Trim freed %d bytes, want the cached 14 MiB", freed)
	}
	if u := d.MemoryUse(); u.Device != 0 || u.DeviceCached != 0 {
		t.Errorf("after Trim: %+v", u)
	}
}

// TestRegisterImportsOnce: memory registered with Device.Register is
// imported once, not by every call that copies from or into a part of it,
// until Release.
func TestRegisterImportsOnce(t *testing.T) {
	openModes(t, func(t *testing.T, d *engine.Device, opt engine.DeviceOptions) {
		if !d.Imports() {
			if d.Register(make([]byte, 4<<20)).Holds() {
				t.Error("Register held memory on a device that does not import it")
			}
			return
		}
		host := pattern(8<<20, 3)
		r := d.Register(host)
		if !r.Holds() {
			t.Fatal("Register held nothing")
		}
		b, err := d.NewBuffer(4 << 20)
		if err != nil {
			t.Fatal(err)
		}
		defer b.Release()
		roundTrip := func() engine.Counts {
			before := d.Counts()
			seq, _ := d.NewSequence()
			seq.Upload(b, 0, host[1<<20:5<<20])
			seq.Download(b, 0, host[4<<20:8<<20])
			if _, err := seq.Run(context.Background()); err != nil {
				t.Fatal(err)
			}
			seq.Release()
			return d.Counts().Sub(before)
		}
		for i := 0; i < 2; i++ {
			want := pattern(8<<20, 3)
			copy(want[4<<20:], host[1<<20:5<<20])
			if c := roundTrip(); c.Imports != 0 || c.HostCopied() != 0 || c.Imported != 8<<20 {
				t.Errorf("call %d on registered memory: %+v; want no import, no host copy, 8 MiB imported", i, c)
			}
			if !bytes.Equal(host, want) {
				t.Fatalf("call %d: the round trip through registered memory gave wrong bytes", i)
			}
			copy(host, pattern(8<<20, 3))
		}
		r.Release()
		if c := roundTrip(); c.Imports != 2 {
			t.Errorf("after Release: %d imports, want the call's own 2", c.Imports)
		}
	})
}
