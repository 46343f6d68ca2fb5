package cli

import (
	"bufio"
	"encoding/binary"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"github.com/vkstat/vkstat/device/testdev"
	"github.com/vkstat/vkstat/formats"
	"github.com/vkstat/vkstat/pipelines/reduce"
	"github.com/vkstat/vkstat/tensor"
)

// writeRamp writes a (T, H, W) float32 NPY file whose pixel (h, w) holds
// t + c(h, w) at frame t, row by row (never whole in memory). Its mean over
// axis 0 is (T-1)/2 + c and its population variance (T²-1)/12, by hand.
func writeRamp(t *testing.T, path string, T, H, W int) {
	t.Helper()
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	w := bufio.NewWriterSize(f, 1<<20)
	dict := "{'descr': '<f4', 'fortran_order': False, 'shape': (" + itoa(T) + ", " + itoa(H) + ", " + itoa(W) + "), }"
	pad := 64 - (10+len(dict)+1)%64
	dict += strings.Repeat(" ", pad) + "\n"
	w.WriteString("\x93NUMPY\x01\x00")
	binary.Write(w, binary.LittleEndian, uint16(len(dict)))
	w.WriteString(dict)
	row := make([]byte, 4*W)
	for k := 0; k < T; k++ {
		for h := 0; h < H; h++ {
			for x := 0; x < W; x++ {
				binary.LittleEndian.PutUint32(row[4*x:], math.Float32bits(float32(k+(h*W+x)%7)))
			}
			w.Write(row)
		}
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
}

func itoa(n int) string { return strconv.Itoa(n) }

// TestReduceStreamsLargeFile: a 160 MiB stack — more than lavapipe binds at
// once (128 MiB) and five times a 32 MiB budget — reduced over time on
// lavapipe taken as a discrete GPU (staging ring, transfer-queue path),
// with validation on. The statistics match the hand-derived ones, and the
// Go heap grows by far less than the file: it is streamed, not loaded.
func TestReduceStreamsLargeFile(t *testing.T) {
	if testing.Short() {
		t.Skip("160 MiB file")
	}
	dev := vulkanUnderTest(t)
	t.Setenv("VKSTAT_DISCRETE", "1")
	t.Setenv("VKSTAT_TRANSFER", "queue")
	dir := t.TempDir()
	const T, H, W = 40, 1024, 1024
	in := filepath.Join(dir, "stack.npy")
	writeRamp(t, in, T, H, W)
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	code, _, errOut := run(t, "--validate", "--device", dev, "--device-memory", "32MiB", "reduce",
		"--in", in, "--axis", "0", "--stat", "mean,var", "--out-dir", filepath.Join(dir, "out"))
	runtime.ReadMemStats(&after)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	// Outputs are 2 × 4 MiB float32 plus float64 accumulators (6 × 8 MiB).
	if grew := after.TotalAlloc - before.TotalAlloc; grew > 100<<20 {
		t.Errorf("the Go heap allocated %d MiB for a %d MiB file: it was not streamed", grew>>20, T*H*W*4>>20)
	}
	mean, err := formats.ReadNPY(filepath.Join(dir, "out", "mean.npy"))
	if err != nil {
		t.Fatal(err)
	}
	vr, err := formats.ReadNPY(filepath.Join(dir, "out", "var.npy"))
	if err != nil {
		t.Fatal(err)
	}
	wantVar := float32((T*T - 1) / 12.0)
	for i := range mean.F32 {
		wantMean := float32(T-1)/2 + float32(i%7)
		if mean.F32[i] != wantMean || math.Abs(float64(vr.F32[i]-wantVar)) > 1e-5*float64(wantVar) {
			t.Fatalf("pixel %d: mean %v var %v, want %v and %v", i, mean.F32[i], vr.F32[i], wantMean, wantVar)
		}
	}
}

// TestReduceTruncatedMidStream: a file cut short after its header was
// checked fails the reduction with an error naming it, on every path.
func TestReduceTruncatedMidStream(t *testing.T) {
	devs := testdev.Devices(t)
	dir := t.TempDir()
	path := filepath.Join(dir, "cut.npy")
	writeRamp(t, path, 8, 256, 256)
	src, f, err := formats.OpenSource(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := os.Truncate(path, 1<<20); err != nil {
		t.Fatal(err)
	}
	for _, d := range devs {
		_, err := reduce.RunSource(t.Context(), d, src, reduce.Options{Stats: []reduce.Stat{reduce.Mean}})
		if err == nil || !strings.Contains(err.Error(), "truncated") || !strings.Contains(err.Error(), "cut.npy") {
			t.Errorf("%s: want a truncation error naming the file, got %v", d.Info.Name, err)
		}
	}
}

// TestReduceBudgetTooSmall: a budget that cannot hold one unit of work is
// a clear error with advice, and nothing is written.
func TestReduceBudgetTooSmall(t *testing.T) {
	dev := vulkanUnderTest(t)
	dir := t.TempDir()
	in := filepath.Join(dir, "x.npy")
	writeRamp(t, in, 4, 64, 64)
	out := filepath.Join(dir, "out")
	code, _, errOut := run(t, "--device", dev, "--device-memory", "1K", "reduce", "--in", in, "--out-dir", out)
	if code != ExitError || !strings.Contains(errOut, "--device-memory") || !strings.Contains(errOut, "budget") {
		t.Errorf("exit %d, stderr %q", code, errOut)
	}
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Errorf("out-dir exists after a failed run: %v", err)
	}
	code, _, errOut = run(t, "--device", dev, "--device-memory", "lots", "reduce", "--in", in, "--out-dir", out)
	if code != ExitUsage || !strings.Contains(errOut, "--device-memory") {
		t.Errorf("bad size: exit %d, stderr %q", code, errOut)
	}
}

// TestSourceMatchesReader: the streamed view of an NPY file holds the same
// values as ReadNPY, and files that need conversion are not streamed.
func TestSourceMatchesReader(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "r.npy")
	writeRamp(t, path, 3, 5, 7)
	src, f, err := formats.OpenSource(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	got, err := src.Load()
	if err != nil {
		t.Fatal(err)
	}
	want, err := formats.ReadNPY(path)
	if err != nil {
		t.Fatal(err)
	}
	if !tensor.SameShape(got.Shape, want.Shape) || got.DType != want.DType {
		t.Fatalf("source %v %v, reader %v %v", got.Shape, got.DType, want.Shape, want.DType)
	}
	for i := range want.F32 {
		if got.F32[i] != want.F32[i] {
			t.Fatalf("element %d: %v != %v", i, got.F32[i], want.F32[i])
		}
	}
	for _, name := range []string{"f8_be_fortran_2x3x4.npy", "i2_3x2.npy", "f2_4.npy"} {
		if _, _, err := formats.OpenSource(filepath.Join("..", "testdata", "npy", name)); err != formats.ErrNotStreamable {
			t.Errorf("%s: want errNotStreamable, got %v", name, err)
		}
	}
}
