package tensor

import (
	"fmt"

	"github.com/vkstat/vkstat/internal/par"
)

// Source is a row-major array that need not be in memory: a file read in
// pieces as a device consumes it, say. Fill writes bytes [off, off+len(p))
// of the array's data (native little-endian elements of DType) into p; it
// may be called from several goroutines at once for disjoint ranges.
type Source struct {
	Shape []int
	DType DType
	Fill  func(p []byte, off int64) error
	// Name describes where the data comes from, for errors.
	Name string
	// Raw is the data itself when it lies in memory (SourceOf), so that a
	// device holding it (engine.Device.Hold) need not be sent it again;
	// nil for a file.
	Raw []byte
}

// Len is the number of elements.
func (s Source) Len() int { return NumElements(s.Shape) }

// Bytes is the size of the data in bytes.
func (s Source) Bytes() int64 { return int64(s.Len()) * int64(s.DType.Size()) }

// SourceOf serves t's memory as a Source.
func SourceOf(t *Tensor) Source {
	raw := t.Raw()
	return Source{Shape: t.Shape, DType: t.DType, Name: "memory", Raw: raw, Fill: func(p []byte, off int64) error {
		if off < 0 || off+int64(len(p)) > int64(len(raw)) {
			return fmt.Errorf("tensor: read of %d bytes at %d outside %d", len(p), off, len(raw))
		}
		par.Copy(p, raw[off:])
		return nil
	}}
}

// Load reads the whole source into a tensor.
func (s Source) Load() (*Tensor, error) {
	t := New(s.DType, s.Shape...)
	if err := s.Fill(t.Raw(), 0); err != nil {
		return nil, err
	}
	return t, nil
}
