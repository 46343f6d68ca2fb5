package engine_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/vkstat/vkstat/engine"
)

// dataPathModes are the ways a device can move data; every one must give
// the same bytes. The discrete modes run the staging ring with chunks far
// smaller than the data, so that slots are reused many times; where the
// device imports host memory, large arrays skip the ring except in
// discrete+staging.
var dataPathModes = []struct {
	name string
	opt  engine.DeviceOptions
}{
	{"default", engine.DeviceOptions{}},
	{"discrete", engine.DeviceOptions{Discrete: true, StagingChunk: 64 << 10}},
	{"discrete+staging", engine.DeviceOptions{Discrete: true, NoImport: true, StagingChunk: 64 << 10}},
	{"discrete+queue", engine.DeviceOptions{Discrete: true, Transfer: engine.TransferQueue, StagingChunk: 4 << 10}},
	{"queue", engine.DeviceOptions{Transfer: engine.TransferQueue}},
}

// openModes opens every device in every data-path mode, with validation.
func openModes(t *testing.T, fn func(t *testing.T, d *engine.Device, opt engine.DeviceOptions)) {
	in, err := engine.NewInstance(engine.Options{Validate: true})
	if err != nil {
		t.Skipf("no Vulkan: %v", err)
	}
	defer func() {
		if err := in.Close(); err != nil {
			t.Error(err)
		}
	}()
	for _, info := range in.Devices() {
		for _, m := range dataPathModes {
			t.Run(fmt.Sprintf("%s/%s", info.Name, m.name), func(t *testing.T) {
				d, err := in.OpenWith(info.Index, m.opt)
				if err != nil {
					t.Fatal(err)
				}
				fn(t, d, m.opt)
				if err := d.Close(); err != nil {
					t.Errorf("close: %v", err)
				}
			})
		}
	}
}

func pattern(n int, seed byte) []byte {
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(i*131+i>>9) ^ seed
	}
	return b
}

// TestStreamRoundTrip moves arrays of awkward sizes up and back, at
// offsets, in one sequence and across sequences, and checks every byte.
func TestStreamRoundTrip(t *testing.T) {
	openModes(t, func(t *testing.T, d *engine.Device, opt engine.DeviceOptions) {
		if want := d.Info.Type != "discrete" && !opt.Discrete; d.UMA() != want {
			t.Errorf("UMA %v on a %s device with %+v", d.UMA(), d.Info.Type, opt)
		}
		// TransferAuto takes a transfer-only family on a discrete GPU that
		// has one (the H100's copy engines), the compute queue elsewhere.
		auto := opt.Transfer == engine.TransferAuto && d.Info.Type == "discrete" && d.Info.TransferQueue
		if want := opt.Transfer == engine.TransferQueue || auto; d.Separate() != want {
			t.Errorf("Separate %v with %+v", d.Separate(), opt)
		}
		for _, n := range []int{4, 1000, 64 << 10, 64<<10 + 4, 3<<20 + 12} {
			a, b := pattern(n, 1), pattern(n, 7)
			ba, err := d.NewBuffer(int64(n) + 256)
			if err != nil {
				t.Fatal(err)
			}
			bb, err := d.NewBuffer(int64(n))
			if err != nil {
				t.Fatal(err)
			}
			seq, _ := d.NewSequence()
			seq.Upload(ba, 256, a)
			seq.Upload(bb, 0, b)
			seq.Copy(ba, bb, 0, 0, 4) // a device-side step between the copies
			gotA, gotB := make([]byte, n), make([]byte, n)
			seq.Download(ba, 256, gotA)
			seq.Download(bb, 0, gotB)
			if _, err := seq.Run(context.Background()); err != nil {
				t.Fatal(err)
			}
			seq.Release()
			if !bytes.Equal(gotA, a) || !bytes.Equal(gotB, b) {
				t.Fatalf("%d bytes: round trip changed the data", n)
			}
			// A second sequence over the same buffers: the ring is reused.
			seq, _ = d.NewSequence()
			seq.UploadFrom(bb, 0, int64(n), func(p []byte, at int64) error {
				copy(p, a[at:])
				return nil
			})
			seq.Download(bb, 0, gotB)
			if _, err := seq.Run(context.Background()); err != nil {
				t.Fatal(err)
			}
			seq.Release()
			ba.Release()
			bb.Release()
			if !bytes.Equal(gotB, a) {
				t.Fatalf("%d bytes: UploadFrom round trip changed the data", n)
			}
		}
	})
}

// TestUploadFromError: a failing fill (a file truncated mid-stream, say)
// fails the sequence with its error and leaves the device usable.
func TestUploadFromError(t *testing.T) {
	openModes(t, func(t *testing.T, d *engine.Device, _ engine.DeviceOptions) {
		b, err := d.NewBuffer(1 << 20)
		if err != nil {
			t.Fatal(err)
		}
		defer b.Release()
		boom := errors.New("truncated mid-stream")
		seq, _ := d.NewSequence()
		seq.UploadFrom(b, 0, 1<<20, func(p []byte, at int64) error {
			if at+int64(len(p)) > 1<<19 {
				return boom
			}
			return nil
		})
		if _, err := seq.Run(context.Background()); !errors.Is(err, boom) {
			t.Errorf("want the fill's error, got %v", err)
		}
		seq.Release()
		seq, _ = d.NewSequence()
		seq.Upload(b, 0, pattern(1<<20, 3))
		got := make([]byte, 1<<20)
		seq.Download(b, 0, got)
		if _, err := seq.Run(context.Background()); err != nil {
			t.Fatal(err)
		}
		seq.Release()
		if !bytes.Equal(got, pattern(1<<20, 3)) {
			t.Error("device unusable after a failed upload")
		}
	})
}

// openFirst opens the first device with opt, with validation, and closes
// it (failing t on validation messages) when t ends.
func openFirst(t *testing.T, opt engine.DeviceOptions) *engine.Device {
	t.Helper()
	in, err := engine.NewInstance(engine.Options{Validate: true})
	if err != nil {
		t.Skipf("no Vulkan: %v", err)
	}
	d, err := in.OpenWith(0, opt)
	if err != nil {
		in.Close()
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := d.Close(); err != nil {
			t.Error(err)
		}
		in.Close()
	})
	return d
}

// TestBudget: buffers past the budget fail with ErrBudget, ChunkItems plans
// within it, and released memory is available again.
func TestBudget(t *testing.T) {
	d := openFirst(t, engine.DeviceOptions{Budget: 16 << 20, Discrete: true})
	if d.Budget() != 16<<20 || d.Available() != 16<<20 {
		t.Fatalf("budget %d available %d", d.Budget(), d.Available())
	}
	a, err := d.NewBuffer(10 << 20)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := d.NewBuffer(10 << 20); !errors.Is(err, engine.ErrBudget) {
		t.Errorf("second 10 MiB in a 16 MiB budget: want ErrBudget, got %v", err)
	}
	n, err := d.ChunkItems(1<<30, []int64{4, 4}, 0, 64)
	if err != nil || n <= 0 || int64(n)*8 > d.Available() || n%64 != 0 {
		t.Errorf("ChunkItems = %d, %v with %d available", n, err, d.Available())
	}
	if _, err := d.ChunkItems(10, []int64{64 << 20}, 0, 1); !errors.Is(err, engine.ErrNoFit) {
		t.Errorf("an item of 64 MiB: want ErrNoFit, got %v", err)
	}
	a.Release()
	if d.Available() != 16<<20 {
		t.Errorf("after release: available %d", d.Available())
	}
	small, err := d.Buffers(100, 200, 0)
	if err != nil {
		t.Fatal(err)
	}
	engine.ReleaseAll(small)
}

func TestParseSize(t *testing.T) {
	for s, want := range map[string]int64{"512MiB": 512 << 20, "2G": 2 << 30, "1048576": 1 << 20, "32 mb": 32 << 20, "1.5GiB": 3 << 29, "64K": 64 << 10} {
		if got, err := engine.ParseSize(s); err != nil || got != want {
			t.Errorf("ParseSize(%q) = %d, %v; want %d", s, got, err, want)
		}
	}
	for _, s := range []string{"", "-1G", "0", "lots", "nan", "1e30T"} {
		if _, err := engine.ParseSize(s); !errors.Is(err, engine.ErrBadOption) {
			t.Errorf("ParseSize(%q): want ErrBadOption, got %v", s, err)
		}
	}
}
