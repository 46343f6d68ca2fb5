package formats

import (
	"bytes"
	"compress/gzip"
	"encoding/binary"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/astrogo/fitsio"

	"github.com/vkstat/vkstat/tensor"
)

// fitsCardLine formats one header card: KEY = value, padded to 80 columns.
func fitsCardLine(key, value string) string {
	var s string
	if value == "" {
		s = key
	} else {
		s = fmt.Sprintf("%-8s= %20s", key, value)
	}
	return fmt.Sprintf("%-80s", s)
}

// fitsHeader builds a header (cards + END, padded to a block) from
// alternating key, value strings.
func fitsHeader(kv ...string) []byte {
	var b strings.Builder
	for i := 0; i < len(kv); i += 2 {
		b.WriteString(fitsCardLine(kv[i], kv[i+1]))
	}
	b.WriteString(fitsCardLine("END", ""))
	for b.Len()%fitsBlock != 0 {
		b.WriteByte(' ')
	}
	return []byte(b.String())
}

// fitsPad pads data with zeros to a whole block.
func fitsPad(data []byte) []byte {
	for len(data)%fitsBlock != 0 {
		data = append(data, 0)
	}
	return data
}

// fitsPrimary builds a single-HDU file: header cards then padded data.
func fitsPrimary(data []byte, kv ...string) []byte {
	return append(fitsHeader(append([]string{"SIMPLE", "T"}, kv...)...), fitsPad(data)...)
}

func writeFITSBytes(t *testing.T, dir, name string, b []byte) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestReadFITSBitpix: every BITPIX, with and without BSCALE/BZERO, in files
// written byte by byte from the standard.
func TestReadFITSBitpix(t *testing.T) {
	raw := []int64{0, 1, -2, 100, -100, 127}
	be := binary.BigEndian
	cases := []struct {
		bitpix       int
		bscale, bzer string // "" for absent
		wantF32      bool
	}{
		{8, "", "", false}, {8, "0.5", "-128", false},
		{16, "", "", false}, {16, "1", "32768", false}, {16, "2.5", "10.0", false},
		{32, "", "", false}, {32, "1.0E-3", "-7", false},
		{64, "", "", false}, {64, "3", "0.25", false},
		{-32, "", "", true}, {-32, "1.0", "0.0", true}, {-32, "2.0", "1.5", false},
		{-64, "", "", false}, {-64, "0.5", "1.0D2", false},
	}
	dir := t.TempDir()
	for _, c := range cases {
		name := fmt.Sprintf("bitpix%d_%s_%s", c.bitpix, c.bscale, c.bzer)
		t.Run(name, func(t *testing.T) {
			var data []byte
			for _, v := range raw {
				switch c.bitpix {
				case 8:
					data = append(data, byte(v+128)) // stored unsigned
				case 16:
					data = be.AppendUint16(data, uint16(int16(v)))
				case 32:
					data = be.AppendUint32(data, uint32(int32(v)))
				case 64:
					data = be.AppendUint64(data, uint64(v))
				case -32:
					data = be.AppendUint32(data, math.Float32bits(float32(v)/4))
				case -64:
					data = be.AppendUint64(data, math.Float64bits(float64(v)/4))
				}
			}
			kv := []string{"BITPIX", fmt.Sprint(c.bitpix), "NAXIS", "2", "NAXIS1", "3", "NAXIS2", "2"}
			if c.bscale != "" {
				kv = append(kv, "BSCALE", c.bscale, "BZERO", c.bzer)
			}
			p := writeFITSBytes(t, dir, name+".fits", fitsPrimary(data, kv...))
			got, err := ReadFITS(p)
			if err != nil {
				t.Fatal(err)
			}
			if !tensor.SameShape(got.Shape, []int{2, 3}) {
				t.Fatalf("shape %v, want (2, 3)", got.Shape)
			}
			if (got.DType == tensor.F32) != c.wantF32 {
				t.Fatalf("dtype %v", got.DType)
			}
			scale, zero := 1.0, 0.0
			if c.bscale != "" {
				fmt.Sscan(strings.Replace(c.bscale, "D", "E", 1), &scale)
				fmt.Sscan(strings.Replace(c.bzer, "D", "E", 1), &zero)
			}
			for i, v := range got.Float64s() {
				stored := float64(raw[i])
				switch c.bitpix {
				case 8:
					stored += 128
				case -32, -64:
					stored /= 4
				}
				want := zero + scale*stored
				if v != want {
					t.Errorf("element %d = %v, want %v", i, v, want)
				}
			}
		})
	}
}

func TestReadFITSBlank(t *testing.T) {
	data := binary.BigEndian.AppendUint16(nil, 5)
	data = binary.BigEndian.AppendUint16(data, 0x8000) // -32768: BLANK
	data = binary.BigEndian.AppendUint16(data, 7)
	p := writeFITSBytes(t, t.TempDir(), "b.fits",
		fitsPrimary(data, "BITPIX", "16", "NAXIS", "1", "NAXIS1", "3", "BLANK", "-32768", "BZERO", "32768"))
	got, err := ReadFITS(p)
	if err != nil {
		t.Fatal(err)
	}
	if got.F64[0] != 32773 || !math.IsNaN(got.F64[1]) || got.F64[2] != 32775 {
		t.Fatalf("got %v, want [32773 NaN 32775]", got.F64)
	}
}

// TestReadFITSCubeOrder: a cube written by fitsio (NAXIS1 = W, NAXIS2 = H,
// NAXIS3 = T) is read as (T, H, W) with element [t, y, x] in place.
func TestReadFITSCubeOrder(t *testing.T) {
	const T, H, W = 3, 4, 5
	pix := make([]float32, 0, T*H*W)
	for tt := 0; tt < T; tt++ {
		for y := 0; y < H; y++ {
			for x := 0; x < W; x++ {
				pix = append(pix, float32(100*tt+10*y+x))
			}
		}
	}
	var buf bytes.Buffer
	f, err := fitsio.Create(&buf)
	if err != nil {
		t.Fatal(err)
	}
	img := fitsio.NewImage(-32, []int{W, H, T})
	if err := img.Write(pix); err != nil {
		t.Fatal(err)
	}
	phdu, err := fitsio.NewPrimaryHDU(img.Header())
	if err != nil {
		t.Fatal(err)
	}
	if err := phdu.Write(pix); err != nil {
		t.Fatal(err)
	}
	if err := f.Write(phdu); err != nil {
		t.Fatal(err)
	}
	p := writeFITSBytes(t, t.TempDir(), "cube.fits", buf.Bytes())
	got, err := ReadFITS(p)
	if err != nil {
		t.Fatal(err)
	}
	if !tensor.SameShape(got.Shape, []int{T, H, W}) || got.DType != tensor.F32 {
		t.Fatalf("shape %v %v, want (3, 4, 5) float32", got.Shape, got.DType)
	}
	for tt := 0; tt < T; tt++ {
		for y := 0; y < H; y++ {
			for x := 0; x < W; x++ {
				if v := got.F32[(tt*H+y)*W+x]; v != float32(100*tt+10*y+x) {
					t.Fatalf("[%d,%d,%d] = %v", tt, y, x, v)
				}
			}
		}
	}
}

// TestFITSRoundTrip: WriteFITS then ReadFITSHeader gives back the array and
// the cards, and the header is laid out as the standard says.
func TestFITSRoundTrip(t *testing.T) {
	dir := t.TempDir()
	long := strings.Repeat("a long path/", 12) + "cube.fits"
	cards := []FITSCard{
		{Key: "FWHM", Value: 4.25, Comment: "PSF FWHM in pixels"},
		{Key: "THIRD", Value: 1.0 / 3},
		{Key: "TINY", Value: float32(1e-30)},
		{Key: "NFRAMES", Value: 252},
		{Key: "SEED", Value: uint32(7)},
		{Key: "FLAG", Value: true},
		{Key: "INPUT", Value: long, Comment: "a string longer than one card"},
		{Key: "QUOTE", Value: "it's"},
		{Key: "UNICODE", Value: "données", Comment: "été"},
		{Key: "LONGQ", Value: strings.Repeat("it's ", 20) + "end"},
		{Key: "HISTORY", Comment: "written by a test"},
	}
	for _, shape := range [][]int{{7}, {3, 4}, {2, 3, 4}, {1, 2, 1, 3}} {
		for _, dt := range []tensor.DType{tensor.F32, tensor.F64} {
			in := tensor.New(dt, shape...)
			for i := 0; i < in.Len(); i++ {
				v := math.Sin(float64(i)) * 1e3
				if dt == tensor.F32 {
					in.F32[i] = float32(v)
				} else {
					in.F64[i] = v
				}
			}
			if in.Len() > 2 {
				if dt == tensor.F32 {
					in.F32[1] = float32(math.NaN())
				} else {
					in.F64[1] = math.Inf(-1)
				}
			}
			p := filepath.Join(dir, fmt.Sprintf("rt-%v-%v.fits", shape, dt))
			if err := WriteFITS(p, in, cards); err != nil {
				t.Fatal(err)
			}
			b, _ := os.ReadFile(p)
			if len(b)%fitsBlock != 0 {
				t.Errorf("%s: file size %d is not a multiple of 2880", p, len(b))
			}
			wantStart := fitsCardLine("SIMPLE", "T")[:30] + " / primary HDU"
			if !strings.HasPrefix(string(b), wantStart) {
				t.Errorf("file starts %q, want %q", b[:50], wantStart)
			}
			got, hdr, err := ReadFITSHeader(p)
			if err != nil {
				t.Fatal(err)
			}
			if !tensor.SameShape(got.Shape, shape) || got.DType != dt {
				t.Fatalf("read back shape %v %v, want %v %v", got.Shape, got.DType, shape, dt)
			}
			a, g := in.Float64s(), got.Float64s()
			for i := range a {
				if a[i] != g[i] && !(math.IsNaN(a[i]) && math.IsNaN(g[i])) {
					t.Fatalf("element %d: %v, want %v", i, g[i], a[i])
				}
			}
			m := map[string]FITSCard{}
			for _, c := range hdr {
				m[c.Key] = c
			}
			bitpix := -32
			if dt == tensor.F64 {
				bitpix = -64
			}
			if m["BITPIX"].Value != bitpix || m["NAXIS"].Value != len(shape) || m["NAXIS1"].Value != shape[len(shape)-1] {
				t.Errorf("structural cards %v %v %v", m["BITPIX"], m["NAXIS"], m["NAXIS1"])
			}
			for _, c := range cards {
				if c.Key == "HISTORY" {
					continue
				}
				want := c.Value
				switch v := want.(type) {
				case float32:
					want = float64(v)
				case uint32:
					want = int(v)
				}
				comment := c.Comment
				switch c.Key {
				case "INPUT":
					comment = "" // fitsio writes the comment of a long string as a COMMENT card
				case "UNICODE":
					want, comment = "donn?es", "?t?"
				case "LONGQ":
					want = strings.Repeat(`it"s `, 20) + "end"
				}
				if got := m[c.Key]; got.Value != want || got.Comment != comment {
					t.Errorf("card %s = %#v / %q, want %#v / %q", c.Key, got.Value, got.Comment, want, c.Comment)
				}
			}
		}
	}
}

func TestReadFITSExtension(t *testing.T) {
	dir := t.TempDir()
	img := binary.BigEndian.AppendUint64(nil, math.Float64bits(2.5))
	img = binary.BigEndian.AppendUint64(img, math.Float64bits(-1))
	primary := fitsHeader("SIMPLE", "T", "BITPIX", "8", "NAXIS", "0", "EXTEND", "T")
	table := append(fitsHeader("XTENSION", "'BINTABLE'", "BITPIX", "8", "NAXIS", "2", "NAXIS1", "4", "NAXIS2", "3",
		"PCOUNT", "0", "GCOUNT", "1", "TFIELDS", "1", "TFORM1", "'J       '", "TTYPE1", "'A       '"), fitsPad(make([]byte, 12))...)
	ext := fitsHeader("XTENSION", "'IMAGE   '", "BITPIX", "-64", "NAXIS", "2", "NAXIS1", "2", "NAXIS2", "1",
		"PCOUNT", "0", "GCOUNT", "1", "EXTNAME", "'SCI'")
	check := func(name string, b []byte) {
		t.Helper()
		got, err := ReadFITS(writeFITSBytes(t, dir, name, b))
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if !tensor.SameShape(got.Shape, []int{1, 2}) || got.F64[0] != 2.5 || got.F64[1] != -1 {
			t.Fatalf("%s: got %v %v", name, got.Shape, got.F64)
		}
	}
	join := func(parts ...[]byte) []byte { return bytes.Join(parts, nil) }
	check("ext.fits", join(primary, ext, fitsPad(img)))
	check("table-then-image.fits", join(primary, table, ext, fitsPad(img)))
	check("unpadded.fits", join(primary, ext, img))                                               // last block not padded
	check("trailing.fits", join(primary, ext, fitsPad(img), []byte("trailing junk, not an HDU"))) // ignored
}

func TestReadFITSFiles(t *testing.T) {
	dir := filepath.Join("..", "testdata", "fits")
	got, err := ReadFITS(filepath.Join(dir, "example.fits"))
	if err != nil {
		t.Fatal(err)
	}
	want := []float64{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 0, 1}
	if !tensor.SameShape(got.Shape, []int{4, 3}) || fmt.Sprint(got.F64) != fmt.Sprint(want) {
		t.Errorf("example.fits: %v %v", got.Shape, got.F64)
	}
	for name, msg := range map[string]string{
		"file001.fits":     "no image HDU",
		"swp06542llg.fits": "HDU 1 is a BINTABLE",
		"issue-38.fits":    "zero-size axes",
	} {
		_, err := ReadFITS(filepath.Join(dir, name))
		if err == nil || !strings.Contains(err.Error(), msg) || !strings.Contains(err.Error(), name) {
			t.Errorf("%s: error %v, want one naming the file and saying %q", name, err, msg)
		}
	}
}

// TestReadFITSAstropy: files written by astropy (testdata/fits/make_astropy.py)
// read as the values astropy means: unsigned and signed-byte conventions,
// scaled integers, BLANK, int64, an image extension after a table, gzip.
func TestReadFITSAstropy(t *testing.T) {
	dir := filepath.Join("..", "testdata", "fits")
	wantF32 := map[string]bool{"astropy_ext.fits": true}
	files, _ := filepath.Glob(filepath.Join(dir, "astropy_*.fits*"))
	n := 0
	for _, p := range files {
		if strings.HasSuffix(p, ".npy") {
			continue
		}
		n++
		want, err := ReadNPY(strings.TrimSuffix(p, ".fits") + ".npy")
		if strings.HasSuffix(p, ".gz") {
			want, err = ReadNPY(p + ".npy")
		}
		if err != nil {
			t.Fatal(err)
		}
		got, err := ReadArray(p)
		if err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		name := filepath.Base(p)
		if !tensor.SameShape(got.Shape, want.Shape) || (got.DType == tensor.F32) != wantF32[name] {
			t.Errorf("%s: shape %v %v, want %v", name, got.Shape, got.DType, want.Shape)
			continue
		}
		g, w := got.Float64s(), want.F64
		for i := range w {
			if g[i] != w[i] && !(math.IsNaN(g[i]) && math.IsNaN(w[i])) {
				t.Errorf("%s: element %d = %v, want %v", name, i, g[i], w[i])
				break
			}
		}
	}
	if n != 7 {
		t.Errorf("found %d astropy files, want 7", n)
	}
}

// TestAstropyReadsWriteFITS checks, where Python and astropy are installed
// (Debian: python3-astropy), that astropy reads what WriteFITS writes, header
// cards included, and that the files pass astropy's verification.
func TestAstropyReadsWriteFITS(t *testing.T) {
	py := ""
	for _, c := range []string{"python3", "/usr/bin/python3"} {
		if p, err := exec.LookPath(c); err == nil && exec.Command(p, "-c", "import astropy.io.fits").Run() == nil {
			py = p
			break
		}
	}
	if py == "" {
		t.Skip("no python3 with astropy")
	}
	dir := t.TempDir()
	cube := tensor.New(tensor.F32, 3, 4, 5)
	for i := range cube.F32 {
		cube.F32[i] = float32(i) - 0.5
	}
	cards := []FITSCard{{Key: "FWHM", Value: 1.0 / 3, Comment: "pixels"}, {Key: "NAME", Value: "it's " + strings.Repeat("x", 30)},
		{Key: "LONG", Value: strings.Repeat("abc/", 40)}, {Key: "SEED", Value: 12345678901}, {Key: "OK", Value: false}}
	if err := WriteFITS(filepath.Join(dir, "cube.fits"), cube, cards); err != nil {
		t.Fatal(err)
	}
	if err := WriteFITS(filepath.Join(dir, "v.fits"), tensor.FromF64([]float64{math.NaN(), 1e-300, -2}, 3), nil); err != nil {
		t.Fatal(err)
	}
	script := `
import sys, math, numpy as np
from astropy.io import fits
d = sys.argv[1]
with fits.open(d + "/cube.fits") as h:
    h.verify("exception")
    a, hdr = h[0].data, h[0].header
    assert a.dtype == np.dtype(">f4") and a.shape == (3, 4, 5), (a.dtype, a.shape)
    assert (a.ravel() == np.arange(60) - 0.5).all()
    assert hdr["FWHM"] == 1/3 and hdr.comments["FWHM"] == "pixels", repr(hdr["FWHM"])
    assert hdr["NAME"] == "it's " + "x" * 30, hdr["NAME"]
    assert hdr["LONG"] == "abc/" * 40, hdr["LONG"]
    assert hdr["SEED"] == 12345678901 and hdr["OK"] is False
with fits.open(d + "/v.fits") as h:
    h.verify("exception")
    v = h[0].data
    assert v.dtype == np.dtype(">f8") and math.isnan(v[0]) and v[1] == 1e-300 and v[2] == -2
`
	out, err := exec.Command(py, "-c", script, dir).CombinedOutput()
	if err != nil {
		t.Fatalf("astropy could not read WriteFITS's files: %v\n%s", err, out)
	}
}

func TestReadFITSGzip(t *testing.T) {
	dir := t.TempDir()
	in := tensor.FromF32([]float32{1, 2, 3, 4, 5, 6}, 2, 3)
	var plain, gz bytes.Buffer
	if err := EncodeFITS(&plain, in, nil); err != nil {
		t.Fatal(err)
	}
	zw := gzip.NewWriter(&gz)
	zw.Write(plain.Bytes())
	zw.Close()
	p := writeFITSBytes(t, dir, "a.fits.gz", gz.Bytes())
	got, err := ReadArray(p)
	if err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(got.F32) != fmt.Sprint(in.F32) {
		t.Fatalf("got %v", got.F32)
	}
}

// TestReadFITSErrors: each corrupt file gives an error that names the file
// and says what is wrong.
func TestReadFITSErrors(t *testing.T) {
	dir := t.TempDir()
	img := fitsPrimary(make([]byte, 4*6), "BITPIX", "-32", "NAXIS", "2", "NAXIS1", "3", "NAXIS2", "2")
	npy := new(bytes.Buffer)
	EncodeNPY(npy, tensor.FromF64([]float64{1}, 1))
	cases := []struct {
		name string
		data []byte
		want string
	}{
		{"empty", nil, "not a FITS file"},
		{"garbage", []byte("hello, world: this is not FITS at all"), "not a FITS file"},
		{"npy", npy.Bytes(), "this is an NPY file"},
		{"short-header", img[:1000], "truncated primary header"},
		{"no-end", fitsPrimary(nil, "BITPIX", "8", "NAXIS", "0")[:80*3], "truncated primary header: no END card before the end of the file (240 bytes, not a whole number of 2880-byte blocks)"},
		// Issue 34: whole blocks and no END said "28802880 bytes, not a
		// whole 2880-byte block".
		{"no-end-whole-blocks", []byte(strings.Replace(string(fitsPrimary(make([]byte, 4*6), "BITPIX", "-32", "NAXIS", "2", "NAXIS1", "3", "NAXIS2", "2")),
			fitsCardLine("END", ""), fitsCardLine("COMMENT", ""), 1)),
			"malformed primary header: no END card in the file's 5760 bytes (a FITS header is 80-character cards ending with END)"},
		{"truncated-data", img[:fitsBlock+10], "truncated data"},
		{"no-data", fitsPrimary(nil, "BITPIX", "8", "NAXIS", "0"), "no image HDU"},
		{"bitpix", fitsPrimary(make([]byte, 6), "BITPIX", "24", "NAXIS", "1", "NAXIS1", "2"), "unsupported BITPIX = 24"},
		{"bitpix-text", fitsPrimary(make([]byte, 6), "BITPIX", "'E'", "NAXIS", "1", "NAXIS1", "2"), "unsupported BITPIX = 'E'"},
		{"no-bitpix", fitsPrimary(nil, "NAXIS", "0"), "no BITPIX"},
		{"zero-axis", fitsPrimary(nil, "BITPIX", "16", "NAXIS", "2", "NAXIS1", "0", "NAXIS2", "5"), "zero-size axes"},
		{"negative-axis", fitsPrimary(nil, "BITPIX", "16", "NAXIS", "1", "NAXIS1", "-5"), "NAXIS1 = -5"},
		{"missing-axis", fitsPrimary(nil, "BITPIX", "16", "NAXIS", "2", "NAXIS1", "5"), "no NAXIS2"},
		{"float-naxis", fitsPrimary(nil, "BITPIX", "16", "NAXIS", "1.5"), "NAXIS = 1.5"},
		{"huge", fitsPrimary(nil, "BITPIX", "-64", "NAXIS", "3", "NAXIS1", "2000000000", "NAXIS2", "2000000000", "NAXIS3", "2000000000"), "far more data than the file"},
		{"big", fitsPrimary(nil, "BITPIX", "-64", "NAXIS", "2", "NAXIS1", "100000", "NAXIS2", "100000"), "truncated data"},
		{"duplicate", fitsPrimary(make([]byte, 8), "BITPIX", "8", "NAXIS", "1", "NAXIS1", "4", "NAXIS1", "8"), "appears twice"},
		{"hierarch", fitsPrimary(make([]byte, 8), "BITPIX", "8", "NAXIS", "1", "NAXIS1", "4", "HIERARCH NAXIS1", "99999999"), "HIERARCH"},
		{"bscale-zero", fitsPrimary(make([]byte, 8), "BITPIX", "8", "NAXIS", "1", "NAXIS1", "4", "BSCALE", "0"), "BSCALE = 0"},
		{"bscale-text", fitsPrimary(make([]byte, 8), "BITPIX", "8", "NAXIS", "1", "NAXIS1", "4", "BSCALE", "'x'"), "BSCALE = x"},
		{"continue-first", fitsPrimary(make([]byte, 8), "CONTINUE  'x'", "", "BITPIX", "8", "NAXIS", "1", "NAXIS1", "4"), "malformed"},
		{"bad-xtension", append(fitsPrimary(nil, "BITPIX", "8", "NAXIS", "0"),
			fitsHeader("XTENSION", "5", "BITPIX", "8", "NAXIS", "0")...), "XTENSION = 5"},
		{"ext-truncated", append(fitsPrimary(nil, "BITPIX", "8", "NAXIS", "0"),
			fitsHeader("XTENSION", "'IMAGE'", "BITPIX", "8", "NAXIS", "1", "NAXIS1", "10000")...), "truncated data"},
		{"ext-pcount", append(fitsPrimary(nil, "BITPIX", "8", "NAXIS", "0"), append(
			fitsHeader("XTENSION", "'IMAGE'", "BITPIX", "8", "NAXIS", "1", "NAXIS1", "10", "PCOUNT", "2", "GCOUNT", "1"),
			fitsPad(make([]byte, 12))...)...), "PCOUNT = 0"},
		{"groups", fitsPrimary(make([]byte, 16), "BITPIX", "8", "NAXIS", "2", "NAXIS1", "0", "NAXIS2", "4",
			"GROUPS", "T", "PCOUNT", "0", "GCOUNT", "4"), "random groups"},
	}
	for _, c := range cases {
		p := writeFITSBytes(t, dir, c.name+".fits", c.data)
		_, err := ReadFITS(p)
		if err == nil {
			t.Errorf("%s: no error", c.name)
			continue
		}
		if !strings.Contains(err.Error(), p) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %q, want one naming %s and saying %q", c.name, err, p, c.want)
		}
	}
	if _, err := ReadFITS(filepath.Join(dir, "missing.fits")); err == nil || !strings.Contains(err.Error(), "missing.fits") {
		t.Errorf("missing file: %v", err)
	}
}

// Issue 34: numbers with a lower-case or no decimal point exponent, which
// the standard writes 1.5E2 but writers write 1e2 and 1.5d2, are read: 1e2
// was read as no value (CRPIX2 missing), 1.5d2 failed the file with
// "strconv.ParseFloat: parsing "1.5d2"".
func TestReadFITSExponents(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct {
		v    string
		want float64
	}{{"1e2", 100}, {"15e1", 150}, {"1.5d2", 150}, {"-2.5d-1", -0.25}, {"1.5e2", 150}, {"1.5D+02", 150}, {"150", 150}} {
		p := writeFITSBytes(t, dir, "e.fits", fitsPrimary(make([]byte, 4*6), "BITPIX", "-32", "NAXIS", "2", "NAXIS1", "3", "NAXIS2", "2",
			"CRPIX2", c.v, "OBJECT", "'1e2'"))
		_, cards, err := ReadFITSHeader(p)
		if err != nil {
			t.Errorf("CRPIX2 = %s: %v", c.v, err)
			continue
		}
		if got, ok := CardFloat(cards, "CRPIX2"); !ok || got != c.want {
			t.Errorf("CRPIX2 = %s: read %v, %v; want %v", c.v, got, ok, c.want)
		}
		for _, k := range cards {
			if k.Key == "OBJECT" && k.Value != "1e2" {
				t.Errorf("the string '1e2' read as %v", k.Value)
			}
		}
	}
}

func TestWriteFITSErrors(t *testing.T) {
	dir := t.TempDir()
	ok := tensor.FromF32([]float32{1, 2}, 2)
	cases := []struct {
		name  string
		t     *tensor.Tensor
		cards []FITSCard
		want  string
	}{
		{"nil", nil, nil, "no tensor"},
		{"scalar", tensor.New(tensor.F32), nil, "0-d"},
		{"empty", tensor.New(tensor.F64, 3, 0), nil, "at least one element"},
		{"short", &tensor.Tensor{Shape: []int{3}, DType: tensor.F64, F64: []float64{1}}, nil, "want 3"},
		{"lowercase", ok, []FITSCard{{Key: "fwhm", Value: 1}}, "A-Z"},
		{"long-key", ok, []FITSCard{{Key: "TOOLONGKEY", Value: 1}}, "A-Z"},
		{"reserved", ok, []FITSCard{{Key: "NAXIS2", Value: 1}}, "writer itself"},
		{"bscale", ok, []FITSCard{{Key: "BSCALE", Value: 2.0}}, "writer itself"},
		{"twice", ok, []FITSCard{{Key: "A", Value: 1}, {Key: "A", Value: 2}}, "twice"},
		{"nan", ok, []FITSCard{{Key: "A", Value: math.NaN()}}, "NaN"},
		{"type", ok, []FITSCard{{Key: "A", Value: []int{1}}}, "unsupported value type"},
		{"uint64", ok, []FITSCard{{Key: "A", Value: uint64(1)}}, "unsupported value type"},
		{"history-value", ok, []FITSCard{{Key: "HISTORY", Value: "x"}}, "comment"},
	}
	for _, c := range cases {
		p := filepath.Join(dir, c.name+".fits")
		err := WriteFITS(p, c.t, c.cards)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want one saying %q", c.name, err, c.want)
		}
		if _, err := os.Stat(p); err == nil {
			t.Errorf("%s: a file was left behind", c.name)
		}
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 0 {
		t.Errorf("left in the directory: %v", entries)
	}
	if err := WriteFITS(filepath.Join(dir, "no", "such", "dir.fits"), ok, nil); err == nil {
		t.Error("no error writing into a missing directory")
	}
}

func TestReadArrayAndVector(t *testing.T) {
	dir := t.TempDir()
	vec := []float64{0, 0.25, 30, -1e-3}
	fitsPath := filepath.Join(dir, "angles.fits")
	if err := WriteFITS(fitsPath, tensor.FromF64(vec, 4), nil); err != nil {
		t.Fatal(err)
	}
	npyRow := writeNPY(t, dir, "angles.npy", tensor.FromF64(vec, 1, 4))
	npyCol := writeNPY(t, dir, "col.npy", tensor.FromF32([]float32{0, 0.25, 30, -1e-3}, 4, 1))
	noExt := filepath.Join(dir, "angles-no-extension")
	if err := WriteFITS(noExt, tensor.FromF64(vec, 4), nil); err != nil {
		t.Fatal(err)
	}
	text := writeFITSBytes(t, dir, "angles.txt", []byte("\xef\xbb\xbf# parallactic angles\n0, 0.25\r\n\n30\t-1e-3 # last\n"))
	textNoExt := writeFITSBytes(t, dir, "angles", []byte("0 0.25 30 -1e-3"))
	for _, p := range []string{fitsPath, npyRow, noExt, text, textNoExt} {
		got, err := ReadVector(p)
		if err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		if fmt.Sprint(got) != fmt.Sprint(vec) {
			t.Errorf("%s: got %v, want %v", p, got, vec)
		}
	}
	if got, err := ReadVector(npyCol); err != nil || len(got) != 4 || got[2] != 30 {
		t.Errorf("%s: %v %v", npyCol, got, err)
	}
	if a, err := ReadArray(noExt); err != nil || !tensor.SameShape(a.Shape, []int{4}) {
		t.Errorf("ReadArray sniffing FITS: %v %v", a, err)
	}
	if a, err := ReadArray(npyRow); err != nil || !tensor.SameShape(a.Shape, []int{1, 4}) {
		t.Errorf("ReadArray of NPY: %v %v", a, err)
	}

	matrix := writeNPY(t, dir, "m.npy", tensor.FromF64(make([]float64, 6), 2, 3))
	bad := []struct{ path, want string }{
		{matrix, "want a vector"},
		{writeFITSBytes(t, dir, "bad.txt", []byte("1 2\n3 x4 5\n")), `line 2: "x4" is not a number`},
		{writeFITSBytes(t, dir, "empty.txt", []byte("# nothing\n\n")), "no numbers"},
		{writeFITSBytes(t, dir, "binary.dat", []byte("\x00\x01\x02\x03")), "not a text file"},
		{writeFITSBytes(t, dir, "bad.fits", []byte("not fits")), "not a FITS file"},
		{filepath.Join(dir, "missing.txt"), "no such file"},
	}
	for _, b := range bad {
		_, err := ReadVector(b.path)
		if err == nil || !strings.Contains(err.Error(), b.want) || !strings.Contains(err.Error(), b.path) {
			t.Errorf("%s: error %v, want one naming the file and saying %q", b.path, err, b.want)
		}
	}
	if _, err := ReadArray(writeFITSBytes(t, dir, "x.bin", []byte("0123456789abc"))); err == nil || !strings.Contains(err.Error(), "unknown array format") {
		t.Errorf("unknown format: %v", err)
	}
}

// fitsFuzzSeeds are valid and nearly valid files for FuzzReadFITS.
func fitsFuzzSeeds() [][]byte {
	var seeds [][]byte
	for _, bp := range []string{"8", "16", "32", "64", "-32", "-64"} {
		seeds = append(seeds, fitsPrimary(make([]byte, 64), "BITPIX", bp, "NAXIS", "2", "NAXIS1", "2", "NAXIS2", "1",
			"BSCALE", "2.0", "BZERO", "1", "BLANK", "0"))
	}
	var buf bytes.Buffer
	EncodeFITS(&buf, tensor.FromF32([]float32{1, 2, 3, 4, 5, 6}, 1, 2, 3), []FITSCard{{Key: "LONG", Value: strings.Repeat("x", 100)}})
	seeds = append(seeds, buf.Bytes())
	ext := append(fitsHeader("SIMPLE", "T", "BITPIX", "8", "NAXIS", "0"),
		fitsHeader("XTENSION", "'IMAGE'", "BITPIX", "16", "NAXIS", "1", "NAXIS1", "3", "PCOUNT", "0", "GCOUNT", "1")...)
	seeds = append(seeds, append(ext, 0, 1, 0, 2, 0, 3))
	return seeds
}

func FuzzReadFITS(f *testing.F) {
	for _, s := range fitsFuzzSeeds() {
		f.Add(s)
	}
	for _, name := range []string{"example.fits", "file001.fits", "issue-38.fits", "astropy_ext.fits", "astropy_i32_blank.fits", "astropy_scaled_i16.fits"} {
		if b, err := os.ReadFile(filepath.Join("..", "testdata", "fits", name)); err == nil {
			f.Add(b)
		}
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		got, _, err := decodeFITS(bytesSource(b))
		if err != nil {
			return
		}
		if got.Len() == 0 || got.Len() > len(b) {
			t.Fatalf("read %d elements of shape %v from %d bytes", got.Len(), got.Shape, len(b))
		}
		if (got.DType == tensor.F32 && len(got.F32) != got.Len()) || (got.DType == tensor.F64 && len(got.F64) != got.Len()) {
			t.Fatalf("data length does not match shape %v", got.Shape)
		}
	})
}
