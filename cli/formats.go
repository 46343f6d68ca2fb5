package cli

// Thin wrappers over package formats, where the array readers and writers
// live: the names cli has always had, so that commands (and work in progress
// on them) keep reading as before. Writers publish through AtomicWrite, which
// tracks temporaries for clean interruption.

import (
	"fmt"
	"image"
	"io"

	"github.com/vkstat/vkstat/formats"
	"github.com/vkstat/vkstat/tensor"
)

// FITSCard is formats.FITSCard.
type FITSCard = formats.FITSCard

// Mark is formats.Mark.
type Mark = formats.Mark

// StreamLimitError is formats.StreamLimitError.
type StreamLimitError = formats.StreamLimitError

var errNotStreamable = formats.ErrNotStreamable

// ReadArray reads an array from FITS or NPY (formats.ReadArray).
func ReadArray(path string) (*tensor.Tensor, error) { return formats.ReadArray(path) }

// ReadVector reads a vector from text, FITS or NPY (formats.ReadVector).
func ReadVector(path string) ([]float64, error) { return formats.ReadVector(path) }

// ReadNPY reads a NumPy .npy file (formats.ReadNPY).
func ReadNPY(path string) (*tensor.Tensor, error) { return formats.ReadNPY(path) }

// EncodeNPY writes t in NPY format (formats.EncodeNPY).
func EncodeNPY(w io.Writer, t *tensor.Tensor) error { return formats.EncodeNPY(w, t) }

// WriteNPY writes t to path as NPY, atomically.
func WriteNPY(path string, t *tensor.Tensor) error {
	return AtomicWrite(path, func(w io.Writer) error { return formats.EncodeNPY(w, t) })
}

// ReadFITS reads a FITS image (formats.ReadFITS).
func ReadFITS(path string) (*tensor.Tensor, error) { return formats.ReadFITS(path) }

// ReadFITSHeader reads a FITS image and its header cards (formats.ReadFITSHeader).
func ReadFITSHeader(path string) (*tensor.Tensor, []FITSCard, error) {
	return formats.ReadFITSHeader(path)
}

// EncodeFITS writes t as a FITS image (formats.EncodeFITS).
func EncodeFITS(w io.Writer, t *tensor.Tensor, cards []FITSCard) error {
	return formats.EncodeFITS(w, t, cards)
}

// WriteFITS writes t to path as FITS, atomically.
func WriteFITS(path string, t *tensor.Tensor, cards []FITSCard) error {
	return AtomicWrite(path, func(w io.Writer) error { return formats.EncodeFITS(w, t, cards) })
}

// WriteSNRPNG writes a map as a PNG with a colour bar, atomically.
func WriteSNRPNG(path string, snr *tensor.Tensor, marks []Mark, title string) error {
	img, err := formats.RenderSNR(snr, marks, title)
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return AtomicWrite(path, func(w io.Writer) error { return formats.EncodePNG(w, img) })
}

func renderSNR(snr *tensor.Tensor, marks []Mark, title string) (*image.RGBA, error) {
	return formats.RenderSNR(snr, marks, title)
}

func openSource(path string) (tensor.Source, io.Closer, error) { return formats.OpenSource(path) }
