package formats

import (
	"bytes"
	"encoding/binary"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestENVIReader: the Go ENVI reader (what nogdal builds read) on files
// written by hand: complex float32 big-endian, int16 and float64, with a
// header offset, whole and in windows; and its errors.
func TestENVIReader(t *testing.T) {
	dir := t.TempDir()
	const w, h = 5, 3
	write := func(name string, enviType int, order binary.ByteOrder, bo string, off int, data any) string {
		var buf bytes.Buffer
		buf.Write(make([]byte, off))
		if err := binary.Write(&buf, order, data); err != nil {
			t.Fatal(err)
		}
		p := filepath.Join(dir, name+".bin")
		os.WriteFile(p, buf.Bytes(), 0o644)
		hdr := "ENVI\nsamples = 5\nlines = 3\nbands = 1\nheader offset = " + itoa(off) + "\ndata type = " + itoa(enviType) +
			"\ninterleave = bsq\nbyte order = " + bo + "\n"
		os.WriteFile(filepath.Join(dir, name+".hdr"), []byte(hdr), 0o644)
		return p
	}
	cf := make([]float32, 2*w*h)
	i16 := make([]int16, w*h)
	f64 := make([]float64, w*h)
	for i := range cf {
		cf[i] = float32(i)*0.5 - 3
	}
	for i := range i16 {
		i16[i], f64[i] = int16(i*100-700), float64(i)/3
	}
	pc := write("c", 6, binary.BigEndian, "1", 16, cf)
	e, err := openENVI(pc)
	if err != nil {
		t.Fatal(err)
	}
	if e.width != w || e.height != h || !e.cplx || e.typ != "CFloat32" {
		t.Fatalf("header: %+v", e)
	}
	got := make([]float32, 2*2*2)
	if err := e.read(1, 3, 1, 2, 2, 2, got); err != nil {
		t.Fatal(err)
	}
	for y := 0; y < 2; y++ {
		for x := 0; x < 2; x++ {
			for k := 0; k < 2; k++ {
				if want := cf[2*((1+y)*w+3+x)+k]; got[2*(y*2+x)+k] != want {
					t.Fatalf("complex window (%d,%d,%d): %v, want %v", y, x, k, got[2*(y*2+x)+k], want)
				}
			}
		}
	}
	e.f.Close()
	for _, c := range []struct {
		p    string
		want func(i int) float32
	}{
		{write("i", 2, binary.LittleEndian, "0", 0, i16), func(i int) float32 { return float32(i16[i]) }},
		{write("d", 5, binary.LittleEndian, "0", 0, f64), func(i int) float32 { return float32(f64[i]) }},
	} {
		e, err := openENVI(c.p)
		if err != nil {
			t.Fatal(err)
		}
		all := make([]float32, 2*w*h)
		if err := e.read(1, 0, 0, w, h, 2, all); err != nil {
			t.Fatal(err)
		}
		for i := 0; i < w*h; i++ {
			if all[2*i] != c.want(i) || all[2*i+1] != 0 {
				t.Fatalf("%s: sample %d = %v, %v", c.p, i, all[2*i], all[2*i+1])
			}
		}
		e.f.Close()
	}
	// Errors: no header, truncated data, an unknown type.
	bare := filepath.Join(dir, "bare.bin")
	os.WriteFile(bare, make([]byte, 8), 0o644)
	if _, err := openENVI(bare); err == nil || !strings.Contains(err.Error(), "no ENVI header") {
		t.Errorf("no header: %v", err)
	}
	short := write("short", 4, binary.LittleEndian, "0", 0, make([]float32, 3))
	if _, err := openENVI(short); err == nil || !strings.Contains(err.Error(), "header describes") {
		t.Errorf("truncated: %v", err)
	}
	odd := write("odd", 14, binary.LittleEndian, "0", 0, make([]int64, w*h))
	if _, err := openENVI(odd); err == nil || !strings.Contains(err.Error(), "data type 14") {
		t.Errorf("type 14: %v", err)
	}
}

func itoa(n int) string { return strconv.Itoa(n) }

// TestEncodeENVI: what EncodeENVI writes, the ENVI reader reads back.
func TestEncodeENVI(t *testing.T) {
	dir := t.TempDir()
	data := []float32{1, -2, 3.5, 4, 5, 6, -7, 8, 9, 10, 11, 12}
	var buf bytes.Buffer
	g := Georef{Transform: [6]float64{100, 10, 0, 200, 0, -10}, HasTransform: true}
	hdr, err := EncodeENVI(&buf, RasterSpec{Type: "CFloat32", Width: 3, Height: 2, Georef: g}, RasterBand{Data: data})
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(dir, "x.bin"), buf.Bytes(), 0o644)
	os.WriteFile(filepath.Join(dir, "x.hdr"), hdr, 0o644)
	if !strings.Contains(string(hdr), "map info = {Arbitrary, 1, 1, 100, 200, 10, 10") {
		t.Errorf("header:\n%s", hdr)
	}
	e, err := openENVI(filepath.Join(dir, "x.bin"))
	if err != nil {
		t.Fatal(err)
	}
	defer e.f.Close()
	got := make([]float32, len(data))
	if err := e.read(1, 0, 0, 3, 2, 2, got); err != nil {
		t.Fatal(err)
	}
	for i := range data {
		if got[i] != data[i] {
			t.Fatalf("sample %d: %v, want %v", i, got[i], data[i])
		}
	}
	if _, err := EncodeENVI(&buf, RasterSpec{Type: "CInt16", Width: 1, Height: 1}, RasterBand{Data: []float32{1, 2}}); err == nil {
		t.Error("CInt16 accepted")
	}
}
