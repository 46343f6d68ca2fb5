package formats

// safetensors files (Hugging Face's format for named tensors): an 8-byte
// little-endian header length N, N bytes of a JSON object
//
//	{"NAME": {"dtype": "F32", "shape": [2, 3], "data_offsets": [BEGIN, END]}, ...,
//	 "__metadata__": {"key": "value", ...}}
//
// (padded with spaces), then the data buffer: each tensor's little-endian,
// C-order elements at bytes [BEGIN, END) of the buffer. The reader is our
// own (a few checks and a JSON decode), so that every size is checked
// against the file before anything is allocated, as the NPY and FITS
// readers do.

import (
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"sort"
	"strings"

	"github.com/vkstat/vkstat/tensor"
)

// maxSafetensorsHeader bounds the JSON header, as the format's reference
// implementation does (100 MB).
const maxSafetensorsHeader = 100_000_000

// safetensorsSupported lists the dtypes ReadSafetensors reads.
const safetensorsSupported = "F16, BF16 (read as float32), F32, F64"

// SafetensorsEntry is one tensor of a safetensors header.
type SafetensorsEntry struct {
	Name  string
	DType string // as the header says: F16, BF16, F32, F64, I8, ...
	Shape []int
	Begin int64 // data_offsets, relative to the start of the data buffer
	End   int64
}

// stEntryJSON is a header entry as JSON has it.
type stEntryJSON struct {
	DType   *string  `json:"dtype"`
	Shape   *[]int64 `json:"shape"`
	Offsets *[]int64 `json:"data_offsets"`
}

// stElemSize is the element size of the dtypes the format defines (0 for
// an unknown one).
func stElemSize(dt string) int {
	switch dt {
	case "BOOL", "U8", "I8", "F8_E5M2", "F8_E4M3", "F8_E8M0":
		return 1
	case "U16", "I16", "F16", "BF16":
		return 2
	case "U32", "I32", "F32":
		return 4
	case "U64", "I64", "F64", "C64":
		return 8
	}
	return 0
}

// readSafetensorsHeader reads and checks a safetensors header: every
// entry's dtype is known, its byte range matches its shape, lies within
// the file and overlaps no other entry's. It returns the entries sorted by
// name, the metadata, and the data buffer's offset in the file.
func readSafetensorsHeader(src *source) ([]SafetensorsEntry, map[string]string, int64, error) {
	size, err := src.avail(8)
	if err != nil {
		return nil, nil, 0, fmt.Errorf("reading safetensors header: %w", err)
	}
	if size < 8 {
		return nil, nil, 0, fmt.Errorf("not a safetensors file: %d bytes, fewer than the 8 of the header length", size)
	}
	var pre [8]byte
	if _, err := src.ReadAt(pre[:], 0); err != nil {
		return nil, nil, 0, fmt.Errorf("reading safetensors header: %w", err)
	}
	n := binary.LittleEndian.Uint64(pre[:])
	if n > maxSafetensorsHeader {
		return nil, nil, 0, fmt.Errorf("not a safetensors file: header length %d is more than %d bytes", n, maxSafetensorsHeader)
	}
	if n < 2 {
		return nil, nil, 0, fmt.Errorf("not a safetensors file: header length %d is too short for a JSON object", n)
	}
	hlen := int64(n)
	if size, err = src.avail(8 + hlen); err != nil {
		return nil, nil, 0, fmt.Errorf("safetensors header of %d bytes: %w", hlen, err)
	}
	if size < 8+hlen {
		return nil, nil, 0, fmt.Errorf("truncated safetensors file: the header is %d bytes, the file has %d after the length", hlen, size-8)
	}
	hdr := make([]byte, hlen)
	if _, err := src.ReadAt(hdr, 8); err != nil {
		return nil, nil, 0, fmt.Errorf("reading safetensors header: %w", err)
	}
	if hdr[0] != '{' {
		return nil, nil, 0, fmt.Errorf("not a safetensors file: the header does not start with '{' (starts %q)", hdr[:min(len(hdr), 16)])
	}
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(hdr, &raw); err != nil {
		return nil, nil, 0, fmt.Errorf("malformed safetensors header (JSON): %v", err)
	}
	var meta map[string]string
	entries := make([]SafetensorsEntry, 0, len(raw))
	keys := make([]string, 0, len(raw))
	for name := range raw {
		keys = append(keys, name)
	}
	sort.Strings(keys) // the first bad entry by name, whatever the map's order
	for _, name := range keys {
		v := raw[name]
		if name == "__metadata__" {
			if err := json.Unmarshal(v, &meta); err != nil {
				return nil, nil, 0, fmt.Errorf("malformed safetensors header: __metadata__ must map strings to strings: %v", err)
			}
			continue
		}
		var e stEntryJSON
		if err := json.Unmarshal(v, &e); err != nil {
			return nil, nil, 0, fmt.Errorf("malformed safetensors header: tensor %q: %v", name, err)
		}
		if e.DType == nil || e.Shape == nil || e.Offsets == nil {
			return nil, nil, 0, fmt.Errorf("malformed safetensors header: tensor %q needs dtype, shape and data_offsets", name)
		}
		es := stElemSize(*e.DType)
		if es == 0 {
			return nil, nil, 0, fmt.Errorf("safetensors tensor %q: unknown dtype %q", name, *e.DType)
		}
		if len(*e.Offsets) != 2 {
			return nil, nil, 0, fmt.Errorf("malformed safetensors header: tensor %q: data_offsets must be [begin, end], got %v", name, *e.Offsets)
		}
		begin, end := (*e.Offsets)[0], (*e.Offsets)[1]
		if begin < 0 || end < begin {
			return nil, nil, 0, fmt.Errorf("safetensors tensor %q: invalid data_offsets [%d, %d]", name, begin, end)
		}
		count := int64(1)
		shape := make([]int, len(*e.Shape))
		for i, s := range *e.Shape {
			if s < 0 {
				return nil, nil, 0, fmt.Errorf("safetensors tensor %q: negative dimension in shape %v", name, *e.Shape)
			}
			if s != 0 && count > math.MaxInt64/int64(es)/s {
				return nil, nil, 0, fmt.Errorf("safetensors tensor %q: shape %v is too large", name, *e.Shape)
			}
			count *= s
			shape[i] = int(s)
		}
		if count*int64(es) != end-begin {
			return nil, nil, 0, fmt.Errorf("safetensors tensor %q: shape %s of %s is %d bytes, but data_offsets [%d, %d] span %d",
				name, tensor.ShapeString(shape), *e.DType, count*int64(es), begin, end, end-begin)
		}
		entries = append(entries, SafetensorsEntry{Name: name, DType: *e.DType, Shape: shape, Begin: begin, End: end})
	}
	// No two tensors share bytes (empty ones take none).
	byOff := slices.Clone(entries)
	sort.Slice(byOff, func(i, j int) bool { return byOff[i].Begin < byOff[j].Begin })
	var last *SafetensorsEntry
	for i := range byOff {
		e := &byOff[i]
		if e.End == e.Begin {
			continue
		}
		if last != nil && e.Begin < last.End {
			return nil, nil, 0, fmt.Errorf("safetensors tensors %q [%d, %d) and %q [%d, %d) overlap",
				last.Name, last.Begin, last.End, e.Name, e.Begin, e.End)
		}
		last = e
	}
	sort.Slice(entries, func(i, j int) bool { return entries[i].Name < entries[j].Name })
	return entries, meta, 8 + hlen, nil
}

// safetensorsNames lists names for an error message (the first 20).
func safetensorsNames(entries []SafetensorsEntry) string {
	var names []string
	for i, e := range entries {
		if i == 20 {
			names = append(names, fmt.Sprintf("... (%d in all)", len(entries)))
			break
		}
		names = append(names, fmt.Sprintf("%q %s %s", e.Name, e.DType, tensor.ShapeString(e.Shape)))
	}
	if len(names) == 0 {
		return "none"
	}
	return strings.Join(names, ", ")
}

// decodeSafetensors reads the tensor called name (the only one when name
// is empty and the file holds one).
func decodeSafetensors(src *source, name string) (*tensor.Tensor, SafetensorsEntry, error) {
	return decodeSafetensorsAs(src, name, false)
}

// decodeSafetensorsAs is decodeSafetensors; with keep16 F16 and BF16
// tensors keep their 16-bit type (tensor.F16, tensor.BF16).
func decodeSafetensorsAs(src *source, name string, keep16 bool) (*tensor.Tensor, SafetensorsEntry, error) {
	entries, _, base, err := readSafetensorsHeader(src)
	if err != nil {
		return nil, SafetensorsEntry{}, err
	}
	var e SafetensorsEntry
	found := false
	switch {
	case name == "" && len(entries) == 1:
		e, found = entries[0], true
	case name == "":
		return nil, e, fmt.Errorf("the file holds %d tensors: name one (%s)", len(entries), safetensorsNames(entries))
	default:
		for _, x := range entries {
			if x.Name == name {
				e, found = x, true
			}
		}
		if !found {
			return nil, e, fmt.Errorf("no tensor %q in the file; it holds %s", name, safetensorsNames(entries))
		}
	}
	var dt tensor.DType
	var conv func(b []byte, t *tensor.Tensor, at int)
	switch e.DType {
	case "F32":
		dt = tensor.F32
		conv = func(b []byte, t *tensor.Tensor, at int) {
			for i := range len(b) / 4 {
				t.F32[at+i] = math.Float32frombits(binary.LittleEndian.Uint32(b[4*i:]))
			}
		}
	case "F16", "BF16":
		if keep16 {
			dt = map[string]tensor.DType{"F16": tensor.F16, "BF16": tensor.BF16}[e.DType]
			conv = func(b []byte, t *tensor.Tensor, at int) {
				for i := range len(b) / 2 {
					t.U16[at+i] = binary.LittleEndian.Uint16(b[2*i:])
				}
			}
			break
		}
		dt = tensor.F32
		cv := halfToFloat32
		if e.DType == "BF16" {
			cv = BFloat16ToFloat32
		}
		conv = func(b []byte, t *tensor.Tensor, at int) {
			for i := range len(b) / 2 {
				t.F32[at+i] = cv(binary.LittleEndian.Uint16(b[2*i:]))
			}
		}
	case "F64":
		dt = tensor.F64
		conv = func(b []byte, t *tensor.Tensor, at int) {
			for i := range len(b) / 8 {
				t.F64[at+i] = math.Float64frombits(binary.LittleEndian.Uint64(b[8*i:]))
			}
		}
	default:
		return nil, e, fmt.Errorf("tensor %q has dtype %s; supported: %s", e.Name, e.DType, safetensorsSupported)
	}
	end := base + e.End
	have, err := src.avail(end)
	if err != nil {
		return nil, e, fmt.Errorf("tensor %q (%d bytes): %w", e.Name, e.End-e.Begin, err)
	}
	if have < end {
		return nil, e, fmt.Errorf("truncated safetensors file: tensor %q needs bytes up to %d of the data buffer, the file has %d",
			e.Name, e.End, max(have-base, 0))
	}
	t := tensor.New(dt, e.Shape...)
	es := stElemSize(e.DType)
	const chunk = 1 << 16 // elements
	buf := make([]byte, min(t.Len(), chunk)*es)
	for done := 0; done < t.Len(); {
		k := min(t.Len()-done, chunk)
		b := buf[:k*es]
		if _, err := src.ReadAt(b, base+e.Begin+int64(done*es)); err != nil {
			if errors.Is(err, io.EOF) {
				err = io.ErrUnexpectedEOF
			}
			return nil, e, fmt.Errorf("reading tensor %q: %w", e.Name, err)
		}
		conv(b, t, done)
		done += k
	}
	return t, e, nil
}

// ReadSafetensors reads the tensor called name from a safetensors file (the
// file's only tensor when name is empty). F32 and F64 keep their type; F16
// and BF16 are read as float32, exactly. Errors name the file: an unknown
// name (listing the file's tensors), an unsupported dtype, a malformed
// header, a tensor whose byte range does not match its shape, overlaps
// another's or runs past the end of the file. Gaps between tensors and
// bytes after the last are tolerated. Pipes are read no further than the
// tensor, and never beyond MaxStreamBytes.
func ReadSafetensors(path, name string) (*tensor.Tensor, SafetensorsEntry, error) {
	in, err := openInput(path)
	if err != nil {
		return nil, SafetensorsEntry{}, err
	}
	defer in.Close()
	t, e, err := decodeSafetensors(in.source(), name)
	if err != nil {
		return nil, e, fmt.Errorf("%s: %w", path, err)
	}
	return t, e, nil
}

// ListSafetensors returns the tensors a safetensors file's header lists,
// sorted by name, and its metadata.
func ListSafetensors(path string) ([]SafetensorsEntry, map[string]string, error) {
	in, err := openInput(path)
	if err != nil {
		return nil, nil, err
	}
	defer in.Close()
	entries, meta, _, err := readSafetensorsHeader(in.source())
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", path, err)
	}
	return entries, meta, nil
}

// SafetensorsTensor is one tensor to write: its name, dtype (F16, BF16,
// F32, F64, ...), shape and little-endian C-order bytes.
type SafetensorsTensor struct {
	Name  string
	DType string
	Shape []int
	Data  []byte
}

// SafetensorsOf is t to write under name: its dtype (F16, BF16, F32 or
// F64), shape and bytes, where they lie.
func SafetensorsOf(name string, t *tensor.Tensor) SafetensorsTensor {
	dt := map[tensor.DType]string{tensor.F16: "F16", tensor.BF16: "BF16", tensor.F32: "F32", tensor.F64: "F64"}[t.DType]
	return SafetensorsTensor{Name: name, DType: dt, Shape: t.Shape, Data: t.Raw()}
}

// EncodeSafetensors writes tensors (in the order given) and meta as a
// safetensors file: the header padded with spaces to a multiple of 8
// bytes, then the data, each tensor's bytes following the previous one's.
func EncodeSafetensors(w io.Writer, tensors []SafetensorsTensor, meta map[string]string) error {
	header := map[string]any{}
	if len(meta) > 0 {
		header["__metadata__"] = meta
	}
	off := int64(0)
	for _, t := range tensors {
		es := stElemSize(t.DType)
		if es == 0 {
			return fmt.Errorf("safetensors: unknown dtype %q", t.DType)
		}
		if _, dup := header[t.Name]; dup || t.Name == "" {
			return fmt.Errorf("safetensors: tensor name %q is empty, reserved or repeated", t.Name)
		}
		if n := int64(tensor.NumElements(t.Shape)) * int64(es); n != int64(len(t.Data)) {
			return fmt.Errorf("safetensors: tensor %q of shape %s %s needs %d bytes, got %d", t.Name, tensor.ShapeString(t.Shape), t.DType, n, len(t.Data))
		}
		shape := append([]int{}, t.Shape...) // [] rather than null for a scalar
		header[t.Name] = map[string]any{"dtype": t.DType, "shape": shape, "data_offsets": []int64{off, off + int64(len(t.Data))}}
		off += int64(len(t.Data))
	}
	h, err := json.Marshal(header)
	if err != nil {
		return err
	}
	for len(h)%8 != 0 {
		h = append(h, ' ')
	}
	if _, err := w.Write(binary.LittleEndian.AppendUint64(nil, uint64(len(h)))); err != nil {
		return err
	}
	if _, err := w.Write(h); err != nil {
		return err
	}
	for _, t := range tensors {
		if _, err := w.Write(t.Data); err != nil {
			return err
		}
	}
	return nil
}
