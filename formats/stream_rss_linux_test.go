package formats

import (
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/vkstat/vkstat/tensor"
)

// rssBytes is the process's resident memory (VmRSS), or -1.
func rssBytes() int64 {
	b, err := os.ReadFile("/proc/self/statm")
	if err != nil {
		return -1
	}
	f := strings.Fields(string(b))
	if len(f) < 2 {
		return -1
	}
	pages, err := strconv.ParseInt(f[1], 10, 64)
	if err != nil {
		return -1
	}
	return pages * int64(os.Getpagesize())
}

// peakRSSDuring runs f and returns how far the resident memory rose above
// where it started, sampled every millisecond.
func peakRSSDuring(f func()) int64 {
	runtime.GC()
	debug.FreeOSMemory()
	base := rssBytes()
	var peak atomic.Int64
	peak.Store(base)
	stop := make(chan struct{})
	done := make(chan struct{})
	go func() {
		defer close(done)
		tick := time.NewTicker(time.Millisecond)
		defer tick.Stop()
		for {
			if r := rssBytes(); r > peak.Load() {
				peak.Store(r)
			}
			select {
			case <-stop:
				return
			case <-tick.C:
			}
		}
	}()
	f()
	if r := rssBytes(); r > peak.Load() {
		peak.Store(r)
	}
	close(stop)
	<-done
	return peak.Load() - base
}

// Issue 25, item 3: a gzip-compressed FITS image is in memory once while
// it is read, not three times (the decompressed stream, fitsio's copy of
// the data and the converted array).
func TestReadFITSGzipMemory(t *testing.T) {
	if rssBytes() < 0 {
		t.Skip("no /proc/self/statm")
	}
	if raceDetector {
		t.Skip("the race detector's shadow memory counts as resident memory (2-3× what the program holds)")
	}
	const mib = 96
	hdr := fitsHeader("SIMPLE", "T", "BITPIX", "-32", "NAXIS", "2", "NAXIS1", "1024", "NAXIS2", strconv.Itoa(mib*256))
	p := writeFITSBytes(t, t.TempDir(), "zeros.fits.gz", gzipMembers(hdr, mib))
	var err error
	rise := peakRSSDuring(func() {
		var x any
		x, err = ReadFITS(p)
		runtime.KeepAlive(x)
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("resident memory rose by %.0f MiB reading %d MiB of data", float64(rise)/(1<<20), mib)
	if rise > mib<<20*3/2 {
		t.Errorf("resident memory rose by %d MiB reading %d MiB of data; want at most 1.5×", rise>>20, mib)
	}
}

// Issue 25, item 3: a vector of at most max numbers is not read past number
// max+1, whatever the stream offers (yes 1.0 | vkstat paco --angles
// /dev/stdin read on forever).
func TestReadVectorMax(t *testing.T) {
	dir := t.TempDir()
	yes, wrote := fifo(t, dir, "yes", nil, []byte("1.0\n"))
	_, err := ReadVectorMax(yes, 30)
	if err == nil || !strings.Contains(err.Error(), "more than 30 numbers (number 31 is on line 31)") {
		t.Errorf("an endless stream: %v; want an error at number 31", err)
	}
	if n := wrote(); n >= fifoWriterCap {
		t.Errorf("the reader took all %d bytes the writer offered", n)
	}
	p := filepath.Join(dir, "a.txt")
	if err := os.WriteFile(p, []byte("1 2 3\n4\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if v, err := ReadVectorMax(p, 4); err != nil || len(v) != 4 {
		t.Errorf("4 numbers, at most 4: %v, %v", v, err)
	}
	if _, err := ReadVectorMax(p, 3); err == nil || !strings.Contains(err.Error(), "more than 3 numbers (number 4 is on line 2)") {
		t.Errorf("4 numbers, at most 3: %v", err)
	}
	npy := filepath.Join(dir, "a.npy")
	if err := os.WriteFile(npy, npyBytes(t, tensor.FromF64([]float64{1, 2, 3, 4}, 4)), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadVectorMax(npy, 3); err == nil || !strings.Contains(err.Error(), "4 numbers, more than 3") {
		t.Errorf("an NPY vector of 4, at most 3: %v", err)
	}
}

// Issue 34: an integer FITS image was held twice while read, its raw data
// (fitsio's) and its float64 array: 12 bytes an element for BITPIX 32 at
// the peak (96 MiB here), not 8 (64 MiB). The raw pages are given back
// behind the conversion.
func TestReadFITSIntegerMemory(t *testing.T) {
	if rssBytes() < 0 {
		t.Skip("no /proc/self/statm")
	}
	if raceDetector {
		t.Skip("the race detector's shadow memory counts as resident memory (2-3× what the program holds)")
	}
	const n = 8 << 20 // elements: 32 MiB of int32, 64 MiB of float64
	hdr := fitsHeader("SIMPLE", "T", "BITPIX", "32", "NAXIS", "2", "NAXIS1", "1024", "NAXIS2", strconv.Itoa(n/1024))
	p := filepath.Join(t.TempDir(), "int32.fits")
	f, err := os.Create(p)
	if err != nil {
		t.Fatal(err)
	}
	f.Write(hdr)
	f.Truncate(int64(len(hdr) + 4*n)) // zeros
	f.Close()
	var x *tensor.Tensor
	rise := peakRSSDuring(func() { x, err = ReadFITS(p) })
	if err != nil || x.DType != tensor.F64 || x.Len() != n {
		t.Fatalf("%v %v", x, err)
	}
	t.Logf("resident memory rose by %.0f MiB for a 64 MiB float64 array from 32 MiB of int32", float64(rise)/(1<<20))
	if rise > 80<<20 {
		t.Errorf("resident memory rose by %d MiB for a 64 MiB float64 array; want at most 80 (raw data and array at once: 96)", rise>>20)
	}
	runtime.KeepAlive(x)
}
