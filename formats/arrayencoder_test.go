package formats

import (
	"bytes"
	"testing"

	"github.com/vkstat/vkstat/tensor"
)

// The name chooses the format: NPY's magic for .npy (any case), a FITS
// header with the cards given for .fits, .fit and .fts, none for others.
func TestArrayEncoder(t *testing.T) {
	a := tensor.FromF64([]float64{1, 2, 3}, 3)
	for name, magic := range map[string]string{"a.NPY": "\x93NUMPY", "b.fits": "SIMPLE  =", "c.fit": "SIMPLE  =", "d.fts": "SIMPLE  ="} {
		enc, ok := ArrayEncoder(name, FITSCard{Key: "CREATOR", Value: "test", Comment: "software"})
		if !ok {
			t.Errorf("%s: no encoder", name)
			continue
		}
		var b bytes.Buffer
		if err := enc(&b, a); err != nil || !bytes.HasPrefix(b.Bytes(), []byte(magic)) {
			t.Errorf("%s: %v, %.12q; want %q first", name, err, b.Bytes(), magic)
		}
		if magic != "\x93NUMPY" && !bytes.Contains(b.Bytes(), []byte("CREATOR = 'test")) {
			t.Errorf("%s: no CREATOR card", name)
		}
	}
	for _, name := range []string{"e.txt", "f.fits.gz", "g"} {
		if _, ok := ArrayEncoder(name); ok {
			t.Errorf("%s: an encoder, want none", name)
		}
	}
}
