package engine_test

import (
	"context"
	"encoding/binary"
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/vkstat/vkstat/device/testdev"
	"github.com/vkstat/vkstat/engine"
	"github.com/vkstat/vkstat/shaders"
)

func TestMain(m *testing.M) { testdev.Main(m) }

func TestMissingLoader(t *testing.T) {
	_, err := engine.NewInstance(engine.Options{LibPath: "/nonexistent/libvulkan.so.1"})
	if !errors.Is(err, engine.ErrNoLoader) {
		t.Fatalf("want ErrNoLoader, got %v", err)
	}
	if !strings.Contains(err.Error(), "libvulkan1") {
		t.Errorf("message should name the package to install: %v", err)
	}
}

func TestDeviceReport(t *testing.T) {
	for _, d := range testdev.Devices(t) {
		in := d.Info
		if in.Name == "" || in.APIVersion == "" || in.MaxStorageBufferRange == 0 || in.MaxWorkgroupInvocation == 0 || len(in.Heaps) == 0 {
			t.Errorf("incomplete report: %+v", in)
		}
		if in.IsLavapipe() && in.SubgroupSize == 0 {
			t.Errorf("%s: subgroup size not fetched through Properties2", in.Name)
		}
	}
}

// mapPush is map.comp's push constants: z = a·x² + b·y + c over n.
type mapPush struct {
	A, B, C float64
	N       int
}

// TestRoundTrip uploads, runs a kernel over a range offset into a buffer
// and downloads, checking the bytes that the kernel must not touch too.
func TestRoundTrip(t *testing.T) {
	code, err := shaders.Code("map_f32")
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range testdev.Devices(t) {
		k, err := d.Kernel(engine.KernelSpec{Name: "map_f32", Code: code, Push: mapPush{}, Spec: []uint32{64}})
		if err != nil {
			t.Fatal(err)
		}
		const n = 1000
		in := make([]byte, 4*n)
		for i := 0; i < n; i++ {
			binary.LittleEndian.PutUint32(in[4*i:], math.Float32bits(float32(i)))
		}
		bx, _ := d.NewBuffer(4 * n)
		bz, _ := d.NewBuffer(4 * n)
		seq, err := d.NewSequence()
		if err != nil {
			t.Fatal(err)
		}
		seq.Upload(bx, 0, in)
		seq.Upload(bz, 0, make([]byte, 4*n))
		// z[256+i] = 1*x[256+i]^2 + 1*x[256+i] + 0.5 for i < 300.
		p := mapPush{A: 1, B: 1, C: 0.5, N: 300}
		b := engine.Binding{Buf: bx, Offset: 1024, Size: 1200}
		seq.Dispatch(k, d.Groups(5), p, b, b, engine.Binding{Buf: bz, Offset: 1024, Size: 1200})
		out := make([]byte, 4*n)
		seq.Download(bz, 0, out)
		tm, err := seq.Run(context.Background())
		seq.Release()
		bx.Release()
		bz.Release()
		if err != nil {
			t.Fatal(err)
		}
		for i := 0; i < n; i++ {
			got := math.Float32frombits(binary.LittleEndian.Uint32(out[4*i:]))
			want := float32(0)
			if i >= 256 && i < 556 {
				x := float32(i)
				want = x*x + x + 0.5
			}
			if got != want {
				t.Fatalf("%s: z[%d] = %g, want %g", d.Info.Name, i, got, want)
			}
		}
		if d.Info.Timestamps && !tm.GPUTimed {
			t.Errorf("device has timestamps but the timing did not use them")
		}
	}
}

func TestGroupsFold(t *testing.T) {
	for _, d := range testdev.Devices(t) {
		for _, n := range []int{1, 65535, 65536, 200000, 1 << 22} {
			g := d.Groups(n)
			if g[0] > 65535 || g[1] > 65535 || int(g[0])*int(g[1]) < n {
				t.Errorf("Groups(%d) = %v", n, g)
			}
		}
	}
}

// TestValidationCatches plants a misaligned binding: the validation layer
// must report it and Run must turn the report into ErrValidation.
func TestValidationCatches(t *testing.T) {
	code, err := shaders.Code("map_f32")
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range testdev.Devices(t) {
		k, err := d.Kernel(engine.KernelSpec{Name: "map_f32", Code: code, Push: mapPush{}, Spec: []uint32{64}})
		if err != nil {
			t.Fatal(err)
		}
		b, _ := d.NewBuffer(4096)
		seq, _ := d.NewSequence()
		p := mapPush{A: 1, B: 1, C: 1, N: 4}
		bad := engine.Binding{Buf: b, Offset: 4, Size: 16} // not a multiple of minStorageBufferOffsetAlignment
		seq.Dispatch(k, d.Groups(1), p, bad, bad, bad)
		_, err = seq.Run(context.Background())
		seq.Release()
		b.Release()
		if !errors.Is(err, engine.ErrValidation) {
			t.Fatalf("%s: want a validation error, got %v", d.Info.Name, err)
		}
		t.Logf("caught: %.120s", err)
		d.Validation() // drop anything left over
	}
}

// TestSequenceOrdering: on every device a second upload to a buffer that a
// recorded command already read lands after that command (staged on UMA
// devices too), and using a buffer after downloading it is refused.
func TestSequenceOrdering(t *testing.T) {
	code, err := shaders.Code("map_f32")
	if err != nil {
		t.Fatal(err)
	}
	f32s := func(vs ...float32) []byte {
		b := make([]byte, 4*len(vs))
		for i, v := range vs {
			binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(v))
		}
		return b
	}
	for _, d := range testdev.Devices(t) {
		k, err := d.Kernel(engine.KernelSpec{Name: "map_f32", Code: code, Push: mapPush{}, Spec: []uint32{64}})
		if err != nil {
			t.Fatal(err)
		}
		x, _ := d.NewBuffer(16)
		z1, _ := d.NewBuffer(16)
		z2, _ := d.NewBuffer(16)
		seq, _ := d.NewSequence()
		p := mapPush{B: 1, N: 4} // z = y
		seq.Upload(x, 0, f32s(1, 2, 3, 4))
		seq.Dispatch(k, d.Groups(1), p, engine.Bind(x), engine.Bind(x), engine.Bind(z1))
		seq.Upload(x, 0, f32s(5, 6, 7, 8))
		seq.Dispatch(k, d.Groups(1), p, engine.Bind(x), engine.Bind(x), engine.Bind(z2))
		out1, out2 := make([]byte, 16), make([]byte, 16)
		seq.Download(z1, 0, out1)
		seq.Download(z2, 0, out2)
		_, err = seq.Run(context.Background())
		seq.Release()
		if err != nil {
			t.Fatal(err)
		}
		if string(out1) != string(f32s(1, 2, 3, 4)) || string(out2) != string(f32s(5, 6, 7, 8)) {
			t.Errorf("%s: the second upload overtook the first dispatch: %v %v", d.Info.Name, out1, out2)
		}
		seq, _ = d.NewSequence()
		seq.Download(z1, 0, out1)
		if err := seq.Dispatch(k, d.Groups(1), p, engine.Bind(x), engine.Bind(x), engine.Bind(z1)); err == nil && d.UMA() {
			t.Errorf("%s: writing a buffer after downloading it was accepted", d.Info.Name)
		}
		seq.Release()
		x.Release()
		z1.Release()
		z2.Release()
		d.Validation()
	}
}
