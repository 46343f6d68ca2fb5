package formats

// Inputs that are not regular files, or are gzip-compressed, must be read
// within bounds: these tests lower MaxStreamBytes and measure what a read
// allocates (runtime.MemStats.TotalAlloc; no test in this package runs in
// parallel, so the process-wide count is the read's).

import (
	"bytes"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/vkstat/vkstat/internal/checks"

	"github.com/vkstat/vkstat/tensor"
)

// setStreamLimit sets MaxStreamBytes for the test.
func setStreamLimit(t *testing.T, n int64) {
	t.Helper()
	old := MaxStreamBytes
	MaxStreamBytes = n
	t.Cleanup(func() { MaxStreamBytes = old })
}

// TestReadDevZeroIsBounded: /dev/zero, and links to it named like FITS, NPY
// or text files, give a clear error after reading little.
func TestReadDevZeroIsBounded(t *testing.T) {
	if _, err := os.Stat("/dev/zero"); err != nil {
		t.Skip("no /dev/zero here")
	}
	setStreamLimit(t, 4<<20)
	dir := t.TempDir()
	link := func(name string) string {
		p := filepath.Join(dir, name)
		if err := os.Symlink("/dev/zero", p); err != nil {
			t.Skipf("cannot make a symbolic link: %v", err)
		}
		return p
	}
	array := func(p string) error { _, err := ReadArray(p); return err }
	vector := func(p string) error { _, err := ReadVector(p); return err }
	cases := []struct {
		path string
		read func(string) error
		want string
	}{
		{"/dev/zero", array, "unknown array format"},
		{"/dev/zero", vector, "not a text file"},
		{"/dev/zero", func(p string) error { _, err := ReadFITS(p); return err }, "not a FITS file"},
		{"/dev/zero", func(p string) error { _, err := ReadNPY(p); return err }, "not an NPY file"},
		{link("x.fits"), array, "not a FITS file"},
		{link("x.fits.gz"), array, "not a FITS file"},
		{link("x.npy"), array, "not an NPY file"},
		{link("x"), array, "unknown array format"},
		{link("angles.txt"), vector, "not a text file"},
		{link("angles.fits"), vector, "not a FITS file"},
		{link("angles"), vector, "not a text file"},
	}
	for _, c := range cases {
		alloc, err := checks.AllocDuring(t, c.path, 20*time.Second, func() error { return c.read(c.path) })
		if err == nil || !strings.Contains(err.Error(), c.path) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want one naming the file and saying %q", c.path, err, c.want)
		}
		if alloc > 8<<20 {
			t.Errorf("%s: allocated %d bytes to fail", c.path, alloc)
		}
	}
}

// gzipMembers returns prefix gzip-compressed, followed by zeroMiB MiB of
// zeros as that many gzip members (gzip readers read concatenated members
// as one stream, as gunzip does): a few KiB that decompress to much more.
func gzipMembers(prefix []byte, zeroMiB int) []byte {
	var buf, one bytes.Buffer
	zw := gzip.NewWriter(&buf)
	zw.Write(prefix)
	zw.Close()
	zw = gzip.NewWriter(&one)
	zw.Write(make([]byte, 1<<20))
	zw.Close()
	for range zeroMiB {
		buf.Write(one.Bytes())
	}
	return buf.Bytes()
}

// bombHeader is a FITS header claiming a 1×32768×32768 float32 cube (4 GiB).
func bombHeader() []byte {
	return fitsHeader("SIMPLE", "T", "BITPIX", "-32", "NAXIS", "3", "NAXIS1", "32768", "NAXIS2", "32768", "NAXIS3", "1")
}

// TestReadFITSGzipBomb: a gzipped FITS file is decompressed only as far as
// its header's claims, which are checked against MaxStreamBytes first.
func TestReadFITSGzipBomb(t *testing.T) {
	dir := t.TempDir()

	// 4 GiB claimed, 256 MiB of zeros there, the limit 16 MiB: the claim
	// fails before any data is decompressed.
	setStreamLimit(t, 16<<20)
	bomb := writeFITSBytes(t, dir, "bomb.fits.gz", gzipMembers(bombHeader(), 256))
	alloc, err := checks.AllocDuring(t, bomb, 30*time.Second, func() error { _, err := ReadFITS(bomb); return err })
	var le *StreamLimitError
	if !errors.As(err, &le) || !strings.Contains(err.Error(), bomb) || !strings.Contains(err.Error(), "NAXISn = [32768 32768 1]") ||
		!strings.Contains(err.Error(), "gzip-compressed") {
		t.Errorf("error %v, want a StreamLimitError naming the file and the claimed axes", err)
	}
	if alloc > 4<<20 {
		t.Errorf("allocated %d bytes to refuse the claim", alloc)
	}
	t.Log(err)

	// With a limit above the claim, the data are decompressed as they come,
	// not allocated for the claim: 64 MiB of the 4 GiB are there.
	setStreamLimit(t, 8<<30)
	short := writeFITSBytes(t, dir, "short.fits.gz", gzipMembers(bombHeader(), 64))
	alloc, err = checks.AllocDuring(t, short, 30*time.Second, func() error { _, err := ReadFITS(short); return err })
	if err == nil || !strings.Contains(err.Error(), "truncated data") || !strings.Contains(err.Error(), short) {
		t.Errorf("error %v, want truncated data", err)
	}
	if alloc > 100<<20 {
		t.Errorf("allocated %d bytes for 64 MiB of data", alloc)
	}

	// A small image followed by 256 MiB of zeros: the zeros are never
	// decompressed.
	setStreamLimit(t, 16<<20)
	var img bytes.Buffer
	want := tensor.FromF32([]float32{1, 2, 3, 4, 5, 6}, 2, 3)
	if err := EncodeFITS(&img, want, nil); err != nil {
		t.Fatal(err)
	}
	tail := writeFITSBytes(t, dir, "tail.fits.gz", gzipMembers(img.Bytes(), 256))
	var got *tensor.Tensor
	alloc, err = checks.AllocDuring(t, tail, 30*time.Second, func() (err error) { got, err = ReadArray(tail); return err })
	if err != nil || fmt.Sprint(got.Shape, got.F32) != fmt.Sprint(want.Shape, want.F32) {
		t.Errorf("got %v, %v; want %v", got, err, want.F32)
	}
	if alloc > 4<<20 {
		t.Errorf("allocated %d bytes for a 2×3 image", alloc)
	}
}

// TestStreamSource: the stream source reads on demand, in chunks, and
// refuses to go beyond its limit.
func TestStreamSource(t *testing.T) {
	setStreamLimit(t, 3*streamChunk)
	data := make([]byte, 2*streamChunk+100)
	for i := range data {
		data[i] = byte(i * 7)
	}
	s := newStreamSource(bytes.NewReader(data), "not a regular file")
	if n, err := s.avail(10); n != 10 || err != nil || s.n != 10 {
		t.Fatalf("avail(10) = %d, %v; %d read", n, err, s.n)
	}
	p := make([]byte, streamChunk+50)
	if n, err := s.ReadAt(p, streamChunk-25); n != len(p) || err != nil || !bytes.Equal(p, data[streamChunk-25:2*streamChunk+25]) {
		t.Fatalf("ReadAt across chunks: %d, %v", n, err)
	}
	if n, err := s.ReadAt(p[:200], 2*streamChunk); n != 100 || err == nil || !bytes.Equal(p[:100], data[2*streamChunk:]) {
		t.Fatalf("ReadAt at the end: %d, %v", n, err)
	}
	if n, err := s.avail(3 * streamChunk); n != int64(len(data)) || err != nil {
		t.Fatalf("avail past the end: %d, %v", n, err)
	}
	var le *StreamLimitError
	if _, err := s.avail(3*streamChunk + 1); !errors.As(err, &le) || le.Need != 3*streamChunk+1 {
		t.Fatalf("avail past the limit: %v", err)
	}

	// Past the limit, ReadAt reads a stream that ends sooner like a short
	// file, and one that goes on is an error.
	short := newStreamSource(bytes.NewReader(data[:100]), "not a regular file")
	short.limit = 150
	if n, err := short.ReadAt(p[:200], 0); n != 100 || err != io.EOF {
		t.Errorf("ReadAt past the limit of a short stream: %d, %v", n, err)
	}
	long := newStreamSource(bytes.NewReader(data), "not a regular file")
	long.limit = 150
	if n, err := long.ReadAt(p[:200], 0); n != 150 || !errors.As(err, &le) || le.Need != 0 ||
		!strings.Contains(err.Error(), "not a regular file and larger than 150 bytes") {
		t.Errorf("ReadAt past the limit of a long stream: %d, %v", n, err)
	}
	if n, err := long.ReadAt(p[:50], 100); n != 50 || err != nil || !bytes.Equal(p[:50], data[100:150]) {
		t.Errorf("ReadAt within the limit after that: %d, %v", n, err)
	}
}
