package formats

// Fuzz targets for the stream paths (gzipped FITS; pipes and devices, which
// are streams too) and for ReadVector (angles, PSFs). scripts/fuzz.sh (make
// fuzz) runs every fuzz target of the repository for a few seconds each.

import (
	"bytes"
	"compress/gzip"
	"errors"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/vkstat/vkstat/tensor"
)

// fuzzStreamLimit is MaxStreamBytes in the stream fuzz targets: small, so
// that inputs reach it.
const fuzzStreamLimit = 64 << 10

// sameTensor reports whether a and b have the same type, shape and bits.
func sameTensor(a, b *tensor.Tensor) bool {
	if a.DType != b.DType || !tensor.SameShape(a.Shape, b.Shape) || a.Len() != b.Len() {
		return false
	}
	x, y := a.Float64s(), b.Float64s()
	for i := range x {
		if math.Float64bits(x[i]) != math.Float64bits(y[i]) {
			return false
		}
	}
	return true
}

// checkStream holds what a stream read (got, err) against what reading the
// same size bytes from memory gave (want, werr): the same result, unless
// the stream hit its limit, which only input larger than the limit may do.
// A stream's errors must name the file when path is not empty.
func checkStream(t *testing.T, path string, size int, got *tensor.Tensor, err error, want *tensor.Tensor, werr error) {
	t.Helper()
	var le *StreamLimitError
	switch {
	case err != nil && path != "" && !strings.HasPrefix(err.Error(), path+": "):
		t.Fatalf("error %q does not name the file", err)
	case errors.As(err, &le):
		if le.Limit != MaxStreamBytes || (le.Need != 0 && le.Need <= le.Limit) {
			t.Fatalf("limit error with Need %d, Limit %d (MaxStreamBytes %d): %v", le.Need, le.Limit, MaxStreamBytes, err)
		}
		if int64(size) <= le.Limit && werr == nil {
			t.Fatalf("%d bytes, within the limit: the stream read fails (%v), the same bytes in memory read well", size, err)
		}
	case (err == nil) != (werr == nil):
		t.Fatalf("stream read: %v; the same bytes in memory: %v", err, werr)
	case err == nil && !sameTensor(got, want):
		t.Fatalf("stream read %v %v, in memory %v %v", got.DType, got.Shape, want.DType, want.Shape)
	}
}

// setFuzzStreamLimit lowers MaxStreamBytes for a fuzz target.
func setFuzzStreamLimit(f *testing.F) {
	old := MaxStreamBytes
	MaxStreamBytes = fuzzStreamLimit
	f.Cleanup(func() { MaxStreamBytes = old })
}

// FuzzReadFITSGzip reads b followed by tailKiB KiB of zeros, gzipped, as a
// .fits.gz file: it must never panic, and must read what the same bytes
// uncompressed give, or fail on MaxStreamBytes when they are larger.
func FuzzReadFITSGzip(f *testing.F) {
	for _, s := range fitsFuzzSeeds() {
		f.Add(s, uint8(0))
	}
	f.Add(bombHeader(), uint8(255))
	f.Add(bombHeader(), uint8(1))
	f.Add(fitsPrimary(nil, "BITPIX", "8", "NAXIS", "1", "NAXIS1", "70000"), uint8(80))
	var img bytes.Buffer
	EncodeFITS(&img, tensor.FromF32([]float32{1, 2, 3, 4, 5, 6}, 2, 3), nil)
	f.Add(img.Bytes(), uint8(255))
	f.Add([]byte{}, uint8(3))
	f.Add([]byte{0x1f, 0x8b}, uint8(0))
	for _, name := range []string{"example.fits", "astropy_ext.fits", "astropy_scaled_i16.fits"} {
		if b, err := os.ReadFile(filepath.Join("..", "testdata", "fits", name)); err == nil && len(b) < 1<<16 {
			f.Add(b, uint8(0))
		}
	}
	setFuzzStreamLimit(f)
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, b []byte, tailKiB uint8) {
		content := append(b[:len(b):len(b)], make([]byte, int(tailKiB)<<10)...)
		var gz bytes.Buffer
		zw := gzip.NewWriter(&gz)
		zw.Write(content)
		zw.Close()
		p := filepath.Join(dir, "fuzz.fits.gz")
		if err := os.WriteFile(p, gz.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		got, err := ReadFITS(p)
		want, _, werr := decodeFITS(bytesSource(content))
		checkStream(t, p, len(content), got, err, want, werr)
	})
}

// FuzzReadStream reads b as a pipe delivers it (a few bytes per read, into
// chunks of chunk+1 bytes, under a limit of limit+1 KiB) as FITS, NPY and
// text: it must never panic, and must read what the same bytes in memory
// give, or fail on the limit when there are more.
func FuzzReadStream(f *testing.F) {
	for _, s := range fitsFuzzSeeds() {
		f.Add(s, uint8(7), uint8(3))
	}
	f.Add(bombHeader(), uint8(0), uint8(0))
	f.Add(append(bombHeader(), make([]byte, 3000)...), uint8(255), uint8(1))
	f.Add(npyFile(npyDict("<f4", false, "(32768, 32768)"), make([]byte, 100)), uint8(10), uint8(0))
	f.Add(npyFile(npyDict("<f8", false, "(3,)"), make([]byte, 24)), uint8(2), uint8(0))
	f.Add(npyFile(npyDict(">i2", true, "(2, 2)"), make([]byte, 8)), uint8(5), uint8(0))
	f.Add([]byte(strings.Repeat("0 1 2\n", 300)), uint8(16), uint8(0))
	f.Add([]byte("\xef\xbb\xbf# angles\n0, 0.25\r\n30\t-1e-3 # last\n"), uint8(3), uint8(0))
	f.Add(make([]byte, 1000), uint8(1), uint8(0))
	setFuzzStreamLimit(f)
	f.Fuzz(func(t *testing.T, b []byte, chunk, limitKiB uint8) {
		stream := func() *source {
			s := newStreamSource(iotest.HalfReader(bytes.NewReader(b)), "not a regular file")
			s.chunk, s.limit = int64(chunk)+1, (int64(limitKiB)+1)<<10
			MaxStreamBytes = s.limit // for checkStream
			return s
		}
		got, _, err := decodeFITS(stream())
		want, _, werr := decodeFITS(bytesSource(b))
		checkStream(t, "", len(b), got, err, want, werr)

		got, err = decodeNPY(stream())
		want, werr = decodeNPY(bytesSource(b))
		checkStream(t, "", len(b), got, err, want, werr)

		limit := (int64(limitKiB) + 1) << 10
		v, err := parseTextVector(&errLimitedReader{r: iotest.HalfReader(bytes.NewReader(b)), n: limit,
			err: &StreamLimitError{What: "not a regular file", Limit: limit}}, int(limit), 0)
		w, werr := parseTextVector(bytes.NewReader(b), int(limit), 0)
		var le *StreamLimitError
		switch {
		case int64(len(b)) > limit:
			if err == nil {
				t.Fatalf("%d bytes of text read under a %d-byte limit", len(b), limit)
			}
		case errors.As(err, &le):
			t.Fatalf("%d bytes of text, within the %d-byte limit: %v", len(b), limit, err)
		case (err == nil) != (werr == nil):
			t.Fatalf("text from a stream: %v; from memory: %v", err, werr)
		case err == nil && !sameTensor(tensor.FromF64(v, len(v)), tensor.FromF64(w, len(w))):
			t.Fatalf("text from a stream: %v; from memory: %v", v, w)
		}
	})
}

// FuzzReadVector writes b to a file named like an angles or PSF file
// (.txt, .fits, .npy, or no extension: then its first bytes tell) and reads
// it with ReadVector: it must never panic, its errors must name the file,
// and a vector it returns is not empty and holds no more numbers than bytes.
func FuzzReadVector(f *testing.F) {
	f.Add([]byte("0 1 2\n3,4;5\t6 # comment\n"), uint8(0))
	f.Add([]byte("\xef\xbb\xbf1e-3\r\nnan inf -inf\n"), uint8(3))
	f.Add([]byte("1 2\n3 x4 5\n"), uint8(0))
	f.Add([]byte("# nothing\n\n"), uint8(3))
	f.Add(make([]byte, 600), uint8(0))
	f.Add(make([]byte, 600), uint8(3))
	f.Add([]byte(strings.Repeat("7 ", 2000)), uint8(0))
	f.Add(npyFile(npyDict("<f8", false, "(1, 3)"), make([]byte, 24)), uint8(2))
	f.Add(npyFile(npyDict("<f4", false, "(2, 2)"), make([]byte, 16)), uint8(3))
	f.Add(npyFile(npyDict("<f4", false, "(32768, 32768)"), nil), uint8(2))
	f.Add(fitsPrimary(make([]byte, 24), "BITPIX", "-64", "NAXIS", "1", "NAXIS1", "3"), uint8(1))
	f.Add(fitsPrimary(make([]byte, 24), "BITPIX", "-64", "NAXIS", "2", "NAXIS1", "1", "NAXIS2", "3"), uint8(3))
	f.Add(bombHeader(), uint8(1))
	for _, s := range fitsFuzzSeeds() {
		f.Add(s, uint8(1))
	}
	dir := f.TempDir()
	exts := []string{".txt", ".fits", ".npy", ""}
	f.Fuzz(func(t *testing.T, b []byte, ext uint8) {
		p := filepath.Join(dir, "vector"+exts[int(ext)%len(exts)])
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
		v, err := ReadVector(p)
		if err != nil {
			if !strings.Contains(err.Error(), p) {
				t.Fatalf("error %q does not name the file", err)
			}
			return
		}
		if len(v) == 0 || len(v) > len(b) {
			t.Fatalf("%d numbers from %d bytes", len(v), len(b))
		}
	})
}
