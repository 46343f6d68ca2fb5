package formats

// NPY files (NumPy's .npy format, versions 1.0, 2.0 and 3.0).
//
// The header dictionary is parsed by github.com/sbinet/npyio; everything
// around it is done here, because npyio (v0.6.0) is not safe on untrusted
// input: it panics on malformed headers, allocates whatever a header claims,
// reads data with unchecked short reads (so a truncated file silently gives
// zeros), and its writer only writes 1-d and 2-d arrays with misaligned
// version 2.0 headers. So ReadNPY checks the preamble and every size against
// the file size before allocating, runs npyio's header parser under recover on
// a bounded in-memory copy of the header, cross-checks what it parsed, and
// decodes the data itself; WriteNPY writes the format itself.

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	"github.com/vkstat/vkstat/tensor"
)

// npyMagic starts every NPY file.
const npyMagic = "\x93NUMPY"

// npyAlign is the alignment NumPy gives the start of the data.
const npyAlign = 64

// npySupported lists the dtypes ReadNPY accepts, for error messages.
const npySupported = "float32, float64, float16 and bfloat16 (read as float32), " +
	"bool, int8..int64, uint8..uint64 (read as float64), in either byte order; " +
	"bfloat16 as ml_dtypes' arrays are saved: '<V2' (or '|V2', '>V2') or 'bfloat16'"

// ReadNPY reads a NumPy .npy file into a C-order (row-major) tensor.
//
// float32 and float64 arrays keep their type; float16 and bfloat16 arrays
// are read as float32 (exactly: every value of either is a float32 value;
// ReadTensor16 keeps them 16-bit); bool, signed and unsigned integer arrays (8 to 64 bits) are
// converted to float64 (int64 and uint64 values above 2^53 lose precision).
// Little- and big-endian data are both accepted, and Fortran-order arrays are
// transposed into C order. A 0-d array gives shape [] with one element.
// Bytes after the array's data are ignored, as numpy.load does.
//
// Errors name the file and say what is wrong: not an NPY file, a malformed
// header, an unsupported dtype (complex, object, string, structured, datetime
// ...), or truncated data. ReadNPY never allocates more than the file's size
// justifies, whatever its header claims; a pipe or device is read no further
// than the array's data, and never beyond MaxStreamBytes.
func ReadNPY(path string) (*tensor.Tensor, error) {
	in, err := openInput(path)
	if err != nil {
		return nil, err // "open x.npy: no such file or directory"
	}
	defer in.Close()
	return readNPYInput(in)
}

// readNPYInput is ReadNPY on an open file.
func readNPYInput(in *inputFile) (*tensor.Tensor, error) {
	t, err := decodeNPY(in.source())
	if err != nil {
		return nil, fmt.Errorf("%s: %w", in.path, err)
	}
	return t, nil
}

// npyDType is a parsed simple dtype: byte order, kind and item size.
type npyDType struct {
	descr string
	order binary.ByteOrder
	kind  byte // 'f', 'i', 'u', 'b', or 'V' for bfloat16
	size  int  // bytes per element
}

// bf16 reports whether the dtype is bfloat16. ml_dtypes registers its
// bfloat16 with NumPy as kind 'V' (void) and byte order '=', because NumPy
// takes two types of the same kind and size for the same type (and float16
// is 'f' with size 2); so np.save writes such an array with the descr
// '<V2' ('>V2' on a big-endian machine), and np.load gives it back as raw
// 2-byte records that ml_dtypes users .view(bfloat16). A 2-byte void array
// is read as bfloat16 for that reason: no NumPy numeric type saves as V2.
// The descr 'bfloat16' (str(dtype), which some writers put in the header
// by hand so that np.load with ml_dtypes imported restores the type) is
// accepted too.
func (d npyDType) bf16() bool { return d.kind == 'V' && d.size == 2 }

// Name is the dtype's NumPy name: float16, bfloat16, float32, int16, ...
func (d npyDType) name() string {
	switch d.kind {
	case 'f':
		return fmt.Sprintf("float%d", 8*d.size)
	case 'V':
		return "bfloat16"
	case 'i':
		return fmt.Sprintf("int%d", 8*d.size)
	case 'u':
		return fmt.Sprintf("uint%d", 8*d.size)
	}
	return "bool"
}

// out is the tensor type the dtype is read as.
func (d npyDType) out() tensor.DType {
	if (d.kind == 'f' || d.kind == 'V') && d.size <= 4 {
		return tensor.F32
	}
	return tensor.F64
}

// parseNPYDType accepts the simple numeric dtypes listed in npySupported.
func parseNPYDType(descr string) (npyDType, error) {
	unsupported := func(what string) error {
		return fmt.Errorf("unsupported dtype '%s' (%s); supported: %s", descr, what, npySupported)
	}
	if descr == "" {
		return npyDType{}, unsupported("empty")
	}
	d := npyDType{descr: descr}
	if descr == "bfloat16" {
		return npyDType{descr: descr, order: binary.LittleEndian, kind: 'V', size: 2}, nil
	}
	s := descr
	switch s[0] {
	case '<':
		d.order, s = binary.LittleEndian, s[1:]
	case '>':
		d.order, s = binary.BigEndian, s[1:]
	case '=':
		d.order, s = binary.NativeEndian, s[1:]
	case '|':
		d.order, s = binary.LittleEndian, s[1:] // "not applicable": 1-byte types
	default:
		d.order = binary.LittleEndian
	}
	if s == "" {
		return npyDType{}, unsupported("unknown")
	}
	d.kind = s[0]
	d.size, _ = strconv.Atoi(s[1:]) // 0 when absent or invalid, as in "|O"
	n := d.size
	ok := false
	switch d.kind {
	case 'f':
		ok = n == 2 || n == 4 || n == 8
	case 'i', 'u':
		ok = n == 1 || n == 2 || n == 4 || n == 8
	case 'b':
		ok = n == 1
	case 'V':
		ok = n == 2 // bfloat16, see bf16
	}
	if ok {
		return d, nil
	}
	what := map[byte]string{
		'f': "float of that size", 'i': "integer of that size", 'u': "integer of that size",
		'b': "bool of that size", 'c': "complex", 'O': "Python objects", 'S': "byte strings",
		'a': "byte strings", 'U': "unicode strings", 'V': "raw or structured records",
		'M': "datetime", 'm': "timedelta",
	}[d.kind]
	if what == "" {
		what = "unknown"
	}
	return npyDType{}, unsupported(what)
}

// decodeNPY reads an NPY file.
func decodeNPY(src *source) (*tensor.Tensor, error) {
	t, _, err := decodeNPYHeader(src)
	return t, err
}

// decodeNPYHeader reads an NPY file and returns its header too.
func decodeNPYHeader(src *source) (*tensor.Tensor, npyHeader, error) {
	return decodeNPYHeaderAs(src, false)
}

// decodeNPYHeaderAs is decodeNPYHeader; with keep16 float16 and bfloat16
// arrays keep their 16-bit type (tensor.F16, tensor.BF16).
func decodeNPYHeaderAs(src *source, keep16 bool) (*tensor.Tensor, npyHeader, error) {
	h, r, err := readNPYHeader(src)
	if err != nil {
		return nil, h, err
	}
	if src.r == nil { // a regular file: its data is read in parallel where it is stored as kept
		r = &atReader{src.ra, h.dataOff}
	}
	t, err := decodeNPYDataAs(h, r, keep16)
	return t, h, err
}

// atReader is a reader of a file's data from off whose data, when stored
// as kept in memory, readNPYData reads in one parallel ReadAt.
type atReader struct {
	ra  io.ReaderAt
	off int64
}

func (a *atReader) Read(p []byte) (int, error) {
	n, err := a.ra.ReadAt(p, a.off)
	a.off += int64(n)
	if n == len(p) && err == io.EOF {
		err = nil
	}
	return n, err
}

// decodeNPYDataAs reads the data that h describes from r; with keep16
// float16 and bfloat16 keep their 16-bit type.
func decodeNPYDataAs(h npyHeader, r io.Reader, keep16 bool) (*tensor.Tensor, error) {
	shape, dt, fortran, n := h.shape, h.dt, h.fortran, h.n
	out := dt.out()
	if keep16 && dt.size == 2 && (dt.kind == 'f' || dt.kind == 'V') {
		out = tensor.F16
		if dt.bf16() {
			out = tensor.BF16
		}
	}
	t := tensor.New(out, shape...)
	if err := readNPYData(r, dt, t); err != nil {
		return nil, fmt.Errorf("reading data (%d elements of %s): %w", n, dt.descr, err)
	}
	if fortran && len(shape) > 1 {
		switch {
		case t.DType.Is16():
			t.U16 = fortranToC(t.U16, shape)
		case t.DType == tensor.F32:
			t.F32 = fortranToC(t.F32, shape)
		default:
			t.F64 = fortranToC(t.F64, shape)
		}
	}
	return t, nil
}

// npyHeader is what an NPY header says: the array's shape, dtype and
// order, its element count, and where its data starts.
type npyHeader struct {
	shape   []int
	dt      npyDType
	fortran bool
	n       int64 // elements
	dataOff int64 // bytes before the data
}

// readNPYHeader reads the preamble and header of an NPY file, checks the
// data's size against what the file holds, and returns a reader at the
// start of the data.
func readNPYHeader(src *source) (npyHeader, io.Reader, error) {
	var h npyHeader
	// Preamble: magic, version, header length.
	var pre [12]byte
	size, err := src.avail(12) // the size, when less than 12
	if err != nil {
		return h, nil, fmt.Errorf("reading NPY header: %w", err)
	}
	r := src.section(0, math.MaxInt64)
	if size < 10 {
		got, _ := io.ReadFull(r, pre[:min(int(size), 6)])
		if got < 6 || string(pre[:6]) != npyMagic {
			return h, nil, fmt.Errorf("not an NPY file (bad magic: want %q, file starts %q)", npyMagic, pre[:got])
		}
		return h, nil, fmt.Errorf("truncated NPY header (file is only %d bytes)", size)
	}
	if _, err := io.ReadFull(r, pre[:10]); err != nil {
		return h, nil, fmt.Errorf("reading NPY header: %w", err)
	}
	if string(pre[:6]) != npyMagic {
		return h, nil, fmt.Errorf("not an NPY file (bad magic: want %q, file starts %q)", npyMagic, pre[:6])
	}
	major, minor := pre[6], pre[7]
	var hlen, prelen int64
	switch major {
	case 1:
		hlen, prelen = int64(binary.LittleEndian.Uint16(pre[8:10])), 10
	case 2, 3:
		if size < 12 {
			return h, nil, fmt.Errorf("truncated NPY header (file is only %d bytes)", size)
		}
		if _, err := io.ReadFull(r, pre[10:12]); err != nil {
			return h, nil, fmt.Errorf("reading NPY header: %w", err)
		}
		hlen, prelen = int64(binary.LittleEndian.Uint32(pre[8:12])), 12
	default:
		return h, nil, fmt.Errorf("unsupported NPY format version %d.%d (supported: 1.0, 2.0, 3.0)", major, minor)
	}
	if size, err = src.avail(prelen + hlen); err != nil {
		return h, nil, fmt.Errorf("NPY header length %d bytes: %w", hlen, err)
	}
	if prelen+hlen > size {
		return h, nil, fmt.Errorf("truncated NPY header: header length is %d bytes, file has %d bytes after the preamble",
			hlen, size-prelen)
	}
	header := make([]byte, hlen)
	if _, err := io.ReadFull(r, header); err != nil {
		return h, nil, fmt.Errorf("reading NPY header: %w", err)
	}
	shape, dt, fortran, err := parseNPYHeader(header)
	if err != nil {
		return h, nil, err
	}

	// Sizes, checked against the file before allocating anything.
	n := int64(1)
	for _, s := range shape {
		if s < 0 {
			return h, nil, fmt.Errorf("malformed NPY header: negative dimension in shape %s", tensor.ShapeString(shape))
		}
		if s != 0 && n > math.MaxInt64/int64(dt.size)/int64(s) {
			return h, nil, fmt.Errorf("truncated data: header claims shape %s of %s, far more data than the file holds",
				tensor.ShapeString(shape), dt.descr)
		}
		n *= int64(s)
	}
	need := n * int64(dt.size)
	end, err := src.avail(prelen + hlen + need)
	if err != nil {
		return h, nil, fmt.Errorf("header says shape %s of %s = %d bytes: %w", tensor.ShapeString(shape), dt.descr, need, err)
	}
	if have := end - prelen - hlen; need > have {
		return h, nil, fmt.Errorf("truncated data: header says shape %s of %s = %d elements = %d bytes, file has only %d bytes of data",
			tensor.ShapeString(shape), dt.descr, n, need, have)
	}

	h.shape, h.dt, h.fortran, h.n, h.dataOff = shape, dt, fortran, n, prelen+hlen
	return h, r, nil
}

// parseNPYHeader parses the header dictionary as NumPy writes it,
// {'descr': '<f8', 'fortran_order': False, 'shape': (3, 4), }: these keys
// in this order, spaces anywhere between tokens, a comma after the last
// entry or not ('"' quotes and Python 2's 3L taken too). Errors say what
// is wrong in the header's words.
func parseNPYHeader(header []byte) (shape []int, dt npyDType, fortran bool, err error) {
	text := string(header)
	show := strings.TrimSpace(text)
	if len(show) > 200 {
		show = show[:200] + "..."
	}
	bad := func(format string, a ...any) error {
		return fmt.Errorf("malformed NPY header %q: %s (NumPy writes {'descr': '<f8', 'fortran_order': False, 'shape': (3, 4), })",
			show, fmt.Sprintf(format, a...))
	}
	nl := strings.LastIndexByte(text, '\n')
	if nl < 0 {
		return nil, dt, false, bad("no terminating newline")
	}
	p := npyScanner{strings.TrimSpace(text[:nl])}
	if !p.lit("{") {
		return nil, dt, false, bad("not a dictionary {...}")
	}
	if !p.key("descr") {
		return nil, dt, false, bad("want 'descr' first")
	}
	if p.lit("[") {
		return nil, dt, false, fmt.Errorf("unsupported dtype: structured array (header %q); supported: %s", show, npySupported)
	}
	descr, ok := p.quoted()
	if !ok {
		return nil, dt, false, bad("'descr' is not a quoted type such as '<f8'")
	}
	if !p.lit(",") || !p.key("fortran_order") {
		return nil, dt, false, bad("want 'fortran_order' after 'descr'")
	}
	switch w := p.word(); w {
	case "True", "False":
		fortran = w == "True"
	default:
		return nil, dt, false, bad("'fortran_order' is %q; want True or False", w)
	}
	if !p.lit(",") || !p.key("shape") {
		return nil, dt, false, bad("want 'shape' after 'fortran_order'")
	}
	if shape, err = p.shape(); err != nil {
		return nil, dt, false, bad("'shape' %v", err)
	}
	p.lit(",")
	if !p.lit("}") || p.s != "" {
		return nil, dt, false, bad("want } after 'shape', got %q", p.s)
	}
	dt, err = parseNPYDType(descr)
	return shape, dt, fortran, err
}

// npyScanner reads the tokens of an NPY header's dictionary from s.
type npyScanner struct{ s string }

// lit consumes t, after spaces, if s starts with it.
func (p *npyScanner) lit(t string) bool {
	p.s = strings.TrimLeft(p.s, " \t")
	rest, ok := strings.CutPrefix(p.s, t)
	if ok {
		p.s = rest
	}
	return ok
}

// key consumes 'k': (or "k":).
func (p *npyScanner) key(k string) bool {
	return (p.lit("'"+k+"'") || p.lit(`"`+k+`"`)) && p.lit(":")
}

// quoted consumes a quoted string and returns what it holds.
func (p *npyScanner) quoted() (string, bool) {
	for _, q := range []string{"'", `"`} {
		if p.lit(q) {
			v, rest, ok := strings.Cut(p.s, q)
			p.s = rest
			return v, ok
		}
	}
	return "", false
}

// word consumes the letters and digits that come next.
func (p *npyScanner) word() string {
	p.s = strings.TrimLeft(p.s, " \t")
	i := strings.IndexFunc(p.s, func(r rune) bool {
		return !(r == '-' || r == '_' || '0' <= r && r <= '9' || 'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z')
	})
	if i < 0 {
		i = len(p.s)
	}
	w := p.s[:i]
	p.s = p.s[i:]
	return w
}

// shape consumes a tuple of integers: (), (4,), (3, 4).
func (p *npyScanner) shape() ([]int, error) {
	start := p.s
	if !p.lit("(") {
		return nil, fmt.Errorf("is not a tuple of integers such as (3, 4): %.20q", strings.TrimSpace(start))
	}
	shape := []int{}
	for !p.lit(")") {
		w := strings.TrimSuffix(p.word(), "L")
		n, err := strconv.Atoi(w)
		switch {
		case errors.Is(err, strconv.ErrRange):
			return nil, fmt.Errorf("has a dimension too large, %s", w)
		case err != nil:
			return nil, fmt.Errorf("is not a tuple of integers such as (3, 4): %.20q", strings.TrimSpace(start))
		case n < 0:
			return nil, fmt.Errorf("has a negative dimension, %d", n)
		}
		shape = append(shape, n)
		if !p.lit(",") {
			if !p.lit(")") {
				return nil, fmt.Errorf("is not a tuple of integers such as (3, 4): %.20q", strings.TrimSpace(start))
			}
			if len(shape) == 1 {
				return nil, fmt.Errorf("(%d) is a number, not a tuple: a 1-d shape is written (%d,)", n, n)
			}
			break
		}
	}
	return shape, nil
}

// readNPYData decodes len(t) elements of dt from r into t, in chunks.
func readNPYData(r io.Reader, dt npyDType, t *tensor.Tensor) error {
	if (dt.kind == 'f' || t.DType.Is16()) && dt.order == binary.LittleEndian && dt.size == t.DType.Size() {
		// Native layout (tensor memory is little-endian): read straight in.
		if a, ok := r.(*atReader); ok {
			return readParallel(a.ra, t.Raw(), a.off)
		}
		if _, err := io.ReadFull(r, t.Raw()); err != nil {
			if errors.Is(err, io.EOF) {
				err = io.ErrUnexpectedEOF
			}
			return err
		}
		return nil
	}
	const chunkElems = 1 << 15
	total := t.Len()
	buf := make([]byte, min(total, chunkElems)*dt.size)
	for done := 0; done < total; {
		k := min(total-done, chunkElems)
		b := buf[:k*dt.size]
		if _, err := io.ReadFull(r, b); err != nil {
			if errors.Is(err, io.EOF) {
				err = io.ErrUnexpectedEOF
			}
			return err
		}
		switch {
		case t.DType.Is16(): // big-endian 16-bit values, kept as bits
			for i := range k {
				t.U16[done+i] = dt.order.Uint16(b[2*i:])
			}
		case t.DType == tensor.F32:
			decodeF32(t.F32[done:done+k], b, dt)
		default:
			decodeF64(t.F64[done:done+k], b, dt)
		}
		done += k
	}
	return nil
}

func decodeF32(dst []float32, b []byte, dt npyDType) {
	o := dt.order
	switch dt.size {
	case 2:
		if dt.bf16() {
			for i := range dst {
				dst[i] = BFloat16ToFloat32(o.Uint16(b[2*i:]))
			}
			return
		}
		for i := range dst {
			dst[i] = halfToFloat32(o.Uint16(b[2*i:]))
		}
	case 4:
		for i := range dst {
			dst[i] = math.Float32frombits(o.Uint32(b[4*i:]))
		}
	}
}

func decodeF64(dst []float64, b []byte, dt npyDType) {
	o := dt.order
	switch {
	case dt.kind == 'f': // f8
		for i := range dst {
			dst[i] = math.Float64frombits(o.Uint64(b[8*i:]))
		}
	case dt.kind == 'b':
		for i := range dst {
			if b[i] != 0 {
				dst[i] = 1
			} else {
				dst[i] = 0
			}
		}
	case dt.kind == 'i' && dt.size == 1:
		for i := range dst {
			dst[i] = float64(int8(b[i]))
		}
	case dt.kind == 'i' && dt.size == 2:
		for i := range dst {
			dst[i] = float64(int16(o.Uint16(b[2*i:])))
		}
	case dt.kind == 'i' && dt.size == 4:
		for i := range dst {
			dst[i] = float64(int32(o.Uint32(b[4*i:])))
		}
	case dt.kind == 'i' && dt.size == 8:
		for i := range dst {
			dst[i] = float64(int64(o.Uint64(b[8*i:])))
		}
	case dt.kind == 'u' && dt.size == 1:
		for i := range dst {
			dst[i] = float64(b[i])
		}
	case dt.kind == 'u' && dt.size == 2:
		for i := range dst {
			dst[i] = float64(o.Uint16(b[2*i:]))
		}
	case dt.kind == 'u' && dt.size == 4:
		for i := range dst {
			dst[i] = float64(o.Uint32(b[4*i:]))
		}
	case dt.kind == 'u' && dt.size == 8:
		for i := range dst {
			dst[i] = float64(o.Uint64(b[8*i:]))
		}
	}
}

// halfToFloat32 converts IEEE-754 binary16 bits to float32 (exactly).
func halfToFloat32(h uint16) float32 { return tensor.HalfToFloat32(h) }

// fortranToC reorders column-major (first axis fastest) data of the given
// shape into row-major order.
func fortranToC[T any](src []T, shape []int) []T {
	dst := make([]T, len(src))
	nd := len(shape)
	cstride := make([]int, nd)
	s := 1
	for j := nd - 1; j >= 0; j-- {
		cstride[j] = s
		s *= shape[j]
	}
	idx := make([]int, nd)
	off := 0
	for i := range src {
		dst[off] = src[i]
		for j := 0; j < nd; j++ { // advance the Fortran-order index
			idx[j]++
			off += cstride[j]
			if idx[j] < shape[j] {
				break
			}
			off -= cstride[j] * shape[j]
			idx[j] = 0
		}
	}
	return dst
}

// EncodeNPY writes t to w as an NPY (version 1.0, or 2.0 for headers that
// need it) little-endian, C-order float32 or float64 array, or float16
// ('<f2') or bfloat16 as ml_dtypes saves it ('<V2'). It is the
// writer to give Outputs.Add or AtomicWrite; WriteNPY writes one file.
func EncodeNPY(w io.Writer, t *tensor.Tensor) error {
	if t == nil {
		return errors.New("no tensor to write")
	}
	n := 1
	for _, s := range t.Shape {
		if s < 0 {
			return fmt.Errorf("invalid shape %v", t.Shape)
		}
		n *= s
	}
	var descr string
	switch t.DType {
	case tensor.F32:
		descr = "<f4"
		if len(t.F32) != n {
			return fmt.Errorf("tensor of shape %s has %d float32 values, want %d", tensor.ShapeString(t.Shape), len(t.F32), n)
		}
	case tensor.F64:
		descr = "<f8"
		if len(t.F64) != n {
			return fmt.Errorf("tensor of shape %s has %d float64 values, want %d", tensor.ShapeString(t.Shape), len(t.F64), n)
		}
	case tensor.F16, tensor.BF16:
		descr = map[tensor.DType]string{tensor.F16: "<f2", tensor.BF16: "<V2"}[t.DType]
		if len(t.U16) != n {
			return fmt.Errorf("tensor of shape %s has %d 16-bit values, want %d", tensor.ShapeString(t.Shape), len(t.U16), n)
		}
	default:
		return fmt.Errorf("unsupported tensor dtype %d", t.DType)
	}

	// The data as it lies in memory (little-endian, as every platform
	// vkstat supports): one write of the tensor's own bytes, no copy.
	return EncodeRawNPY(w, descr, t.Shape, t.Raw())
}

// writeNPYHeader writes the NPY header of a C-order array of NumPy dtype
// descr and the given shape: version 1.0, or 2.0 for headers that need it.
func writeNPYHeader(bw *bufio.Writer, descr string, shape []int) {
	dict := fmt.Sprintf("{'descr': '%s', 'fortran_order': False, 'shape': %s, }", descr, tensor.ShapeString(shape))
	// Version 1.0 has a 2-byte header length; NumPy pads the header with
	// spaces and a final newline so that the data starts on a multiple of 64.
	major, prelen := byte(1), 10
	if len(dict)+1+npyAlign+prelen > math.MaxUint16 {
		major, prelen = 2, 12
	}
	pad := npyAlign - (prelen+len(dict)+1)%npyAlign
	if pad == npyAlign {
		pad = 0
	}
	hlen := len(dict) + pad + 1
	bw.WriteString(npyMagic)
	bw.Write([]byte{major, 0})
	if major == 1 {
		bw.Write(binary.LittleEndian.AppendUint16(nil, uint16(hlen)))
	} else {
		bw.Write(binary.LittleEndian.AppendUint32(nil, uint32(hlen)))
	}
	bw.WriteString(dict)
	bw.WriteString(strings.Repeat(" ", pad))
	bw.WriteByte('\n')
}

// EncodeRawNPY writes data, the little-endian C-order elements of NumPy
// dtype descr (e.g. "<i4"), as an NPY array of the given shape.
func EncodeRawNPY(w io.Writer, descr string, shape []int, data []byte) error {
	var head bytes.Buffer
	bw := bufio.NewWriterSize(&head, 1<<10)
	writeNPYHeader(bw, descr, shape)
	bw.Flush()
	reserve(w, int64(head.Len()+len(data)))
	if _, err := w.Write(head.Bytes()); err != nil {
		return err
	}
	// When w buffers (Outputs' writer does), the header goes out first, so
	// that the data goes to the file in one write, not through the buffer.
	if f, ok := w.(interface{ Flush() error }); ok {
		if err := f.Flush(); err != nil {
			return err
		}
	}
	_, err := w.Write(data)
	return err
}

// WriteNPY writes t to path as a little-endian C-order NPY file, atomically:
// either the complete file appears at path (replacing any old one) or, on
// error, nothing is changed and no temporary file is left behind.
func WriteNPY(path string, t *tensor.Tensor) error {
	return AtomicWrite(path, func(w io.Writer) error { return EncodeNPY(w, t) })
}

// NPYMagic starts every NPY file; NPYAlign is the alignment NumPy gives the
// start of the data (for writers of other dtypes).
const (
	NPYMagic = npyMagic
	NPYAlign = npyAlign
)

// NPYDType is a parsed simple NPY dtype: its descr string, byte order, kind
// ('f', 'i', 'u' or 'b') and item size in bytes.
type NPYDType struct {
	Descr string
	Order binary.ByteOrder
	Kind  byte
	Size  int
}

// ParseNPYHeader parses an NPY header dictionary (the bytes after the
// preamble): the shape, dtype and Fortran order, checked as ReadNPY checks
// them. For readers of dtypes ReadNPY converts (vkstat shader's raw
// buffers).
func ParseNPYHeader(header []byte) ([]int, NPYDType, bool, error) {
	shape, dt, fortran, err := parseNPYHeader(header)
	return shape, NPYDType{Descr: dt.descr, Order: dt.order, Kind: dt.kind, Size: dt.size}, fortran, err
}

// BFloat16ToFloat32 converts bfloat16 bits (the top half of a float32:
// sign, 8 exponent bits, 7 mantissa bits) to float32, exactly.
func BFloat16ToFloat32(h uint16) float32 { return tensor.BFloat16ToFloat32(h) }

// HalfToFloat32 converts an IEEE-754 binary16 value to float32.
func HalfToFloat32(h uint16) float32 { return halfToFloat32(h) }
