package formats

// FITS files: images (2-d frames, 3-d cubes, 1-d vectors) in the primary HDU
// or an IMAGE extension.
//
// Header cards and data are decoded and encoded by github.com/astrogo/fitsio
// (v0.3.0), which is not safe on untrusted input: it reads every HDU of a
// file eagerly, allocates whatever NAXISn claims (a corrupt header can ask
// for terabytes, which is a fatal out-of-memory error, not a recoverable
// panic), and panics on many malformed headers (a non-integer NAXIS or
// BITPIX, a negative axis, a CONTINUE card first, a non-string XTENSION, more
// than 999 axes, ...). So ReadFITS first walks the HDUs itself: it finds each
// header's END card, parses the structural keywords (SIMPLE/XTENSION, BITPIX,
// NAXIS, NAXISn, PCOUNT, GCOUNT) strictly, and checks every data size against
// the file's size before anything is allocated. Only the bytes of the chosen
// image HDU are then handed to fitsio, under recover, and what fitsio parsed
// is cross-checked against the walk. The data bytes are converted to the
// tensor here (BSCALE, BZERO and BLANK applied).

import (
	"bytes"
	"compress/gzip"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"math/big"
	"reflect"
	"strconv"
	"strings"
	"unsafe"

	"github.com/astrogo/fitsio"

	"github.com/vkstat/vkstat/tensor"
)

const (
	fitsBlock = 2880 // FITS files are made of 2880-byte blocks
	fitsCard  = 80   // header cards are 80 characters
)

// FITSCard is one header keyword: Key (at most 8 characters of A-Z, 0-9, '-'
// and '_'), Value (bool, any integer type, float32/float64, string; nil for a
// keyword without value) and an optional Comment. EncodeFITS writes strings
// of any length (over several CONTINUE cards when needed) and replaces
// characters a header cannot hold (other than printable ASCII) by '?'; in
// strings longer than a card, single quotes become double quotes.
type FITSCard struct {
	Key     string
	Value   any
	Comment string
}

// ReadFITS reads the image in a FITS file into a C-order tensor: the primary
// HDU's, or, when the primary HDU has no data (NAXIS = 0), the first IMAGE
// extension's. Axes are reversed into C order, so a cube with NAXIS1 = W,
// NAXIS2 = H, NAXIS3 = T has shape (T, H, W) and its element order is that of
// the file.
//
// BITPIX 8, 16, 32 and 64 (integers) are read as float64 after scaling by
// BSCALE and BZERO, with pixels equal to BLANK set to NaN; BITPIX −64 is read
// as float64, and −32 as float32, or float64 when BSCALE or BZERO change the
// values. gzip-compressed files (.fits.gz), pipes and devices are read as
// streams, no further than the image's data, and never beyond MaxStreamBytes
// (see there); tile-compressed images (.fz) are not supported.
//
// Errors name the file and say what is wrong: not a FITS file, a malformed
// or truncated header, truncated data, no image HDU, an unsupported BITPIX,
// zero-size axes. ReadFITS never allocates more than the file's size
// justifies (for a stream: the bytes it has delivered, at most
// MaxStreamBytes) and never panics, whatever the file holds.
func ReadFITS(path string) (*tensor.Tensor, error) {
	t, _, err := ReadFITSHeader(path)
	return t, err
}

// ReadFITSHeader is ReadFITS that also returns the header cards of the HDU
// the image was read from (without END, COMMENT and HISTORY cards).
func ReadFITSHeader(path string) (*tensor.Tensor, []FITSCard, error) {
	in, err := openInput(path)
	if err != nil {
		return nil, nil, err
	}
	defer in.Close()
	return readFITSInput(in)
}

// readFITSInput is ReadFITSHeader on an open file. A gzip-compressed file
// (or one that is not a regular file) is decompressed (or read) as a stream,
// only as far as the image needs, and never beyond MaxStreamBytes: the
// header is parsed from the stream's first bytes and the size it claims is
// checked against that limit before the data is read.
func readFITSInput(in *inputFile) (*tensor.Tensor, []FITSCard, error) {
	src := in.source()
	if h := in.head(2); len(h) == 2 && h[0] == 0x1f && h[1] == 0x8b {
		zr, err := gzip.NewReader(in.reader())
		if err != nil {
			return nil, nil, fmt.Errorf("%s: gzip: %w", in.path, err)
		}
		src = newStreamSource(zr, "gzip-compressed")
	}
	t, cards, err := decodeFITS(src)
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", in.path, err)
	}
	return t, cards, nil
}

// fitsHDU is what the walk learns about one HDU.
type fitsHDU struct {
	index     int    // 0 for the primary HDU
	start     int64  // offset of the header
	dataStart int64  // offset of the data
	dataSize  int64  // bytes of data, without the padding
	xtension  string // "" for the primary HDU
	bitpix    int
	axes      []int // NAXIS1, NAXIS2, ...
	pcount    int64
	gcount    int64
	zimage    bool // a tile-compressed image stored as a binary table
	groups    bool // a random-groups primary HDU
}

// name describes the HDU in error messages.
func (h *fitsHDU) name() string {
	if h.index == 0 {
		return "primary HDU"
	}
	return fmt.Sprintf("HDU %d (XTENSION '%s')", h.index, h.xtension)
}

// end is the offset just after the HDU's padded data.
func (h *fitsHDU) end() int64 {
	return h.dataStart + (h.dataSize+fitsBlock-1)/fitsBlock*fitsBlock
}

func validBitpix(b int) bool {
	switch b {
	case 8, 16, 32, 64, -32, -64:
		return true
	}
	return false
}

// decodeFITS reads the image of a FITS file.
func decodeFITS(src *source) (*tensor.Tensor, []FITSCard, error) {
	var zeroSize, notImage []string
	for off, index := int64(0), 0; ; index++ {
		if index > 0 {
			var one [1]byte
			if n, err := src.ReadAt(one[:], off); n == 0 {
				if err != nil && err != io.EOF {
					return nil, nil, fmt.Errorf("reading after HDU %d: %w", index-1, err)
				}
				break
			}
		}
		h, err := walkHeader(src, off, index)
		if err != nil {
			return nil, nil, err
		}
		if h == nil { // not an extension: special records or junk after the last HDU
			break
		}
		isImage := h.index == 0 || h.xtension == "IMAGE"
		switch {
		case h.groups:
			notImage = append(notImage, "the primary HDU holds random groups (not supported)")
		case !isImage:
			what := fmt.Sprintf("HDU %d is a %s", h.index, h.xtension)
			if h.zimage {
				what += " holding a tile-compressed image (not supported: uncompress it with funpack first)"
			}
			notImage = append(notImage, what)
		case len(h.axes) == 0:
			// no data: look further
		case h.dataSize == 0:
			zeroSize = append(zeroSize, fmt.Sprintf("%s has zero-size axes (NAXISn = %v)", h.name(), h.axes))
		default:
			return readImageHDU(src, h)
		}
		off = h.end()
	}
	msg := "no image HDU: the primary HDU has no data (NAXIS = 0) and no IMAGE extension has any"
	if len(zeroSize) > 0 {
		msg = "no image data: " + strings.Join(zeroSize, "; ")
	}
	if len(notImage) > 0 {
		msg += " (" + strings.Join(notImage, "; ") + ")"
	}
	return nil, nil, errors.New(msg)
}

// walkHeader reads the header of the HDU at off and checks its data size
// against the file. It returns nil, nil when off holds no extension header
// (only possible after the primary HDU).
func walkHeader(src *source, off int64, index int) (*fitsHDU, error) {
	h := &fitsHDU{index: index, start: off, gcount: 1}
	where := func() string {
		if index == 0 {
			return "primary header"
		}
		return fmt.Sprintf("header of HDU %d (at byte %d)", index, off)
	}
	naxis := -1
	var axes [1000]int64
	var axisSet [1000]bool
	seen := map[string]bool{}
	groups := false
	block := make([]byte, fitsBlock)
	for b := int64(0); ; b++ {
		pos := off + b*fitsBlock
		if b == 0 && index > 0 {
			// After the primary HDU, only an extension header counts; anything
			// else (special records, junk) ends the file.
			var x [10]byte
			if n, err := src.ReadAt(x[:], pos); n < 10 || string(x[:]) != "XTENSION= " {
				if n < 10 && err != nil && err != io.EOF {
					return nil, fmt.Errorf("reading %s: %w", where(), err)
				}
				return nil, nil
			}
		}
		have, err := src.avail(pos + fitsBlock)
		if err != nil {
			return nil, fmt.Errorf("reading %s: %w", where(), err)
		}
		if have < pos+fitsBlock {
			if index == 0 && b == 0 {
				if err := checkFITSMagic(src); err != nil {
					return nil, err
				}
			}
			if have%fitsBlock != 0 {
				return nil, fmt.Errorf("truncated %s: no END card before the end of the file (%d bytes, not a whole number of %d-byte blocks)",
					where(), have, fitsBlock)
			}
			return nil, fmt.Errorf("malformed %s: no END card in the file's %d bytes (a FITS header is 80-character cards ending with END)",
				where(), have)
		}
		if _, err := src.ReadAt(block, pos); err != nil {
			return nil, fmt.Errorf("reading %s: %w", where(), err)
		}
		if b == 0 && index == 0 {
			if err := checkFITSMagic(bytes.NewReader(block)); err != nil {
				return nil, err
			}
		}
		for c := 0; c < fitsBlock/fitsCard; c++ {
			card := block[c*fitsCard : (c+1)*fitsCard]
			if string(card[:8]) == "END     " {
				return finishHeader(h, naxis, axes[:], axisSet[:], groups, pos+fitsBlock, src, where())
			}
			// Keys are found as fitsio finds them, so that it cannot see a
			// structural keyword this walk did not check.
			if string(card[:9]) == "HIERARCH " {
				if eq := bytes.IndexByte(card, '='); eq >= 0 && fitsStructural(strings.TrimSpace(string(card[9:eq]))) {
					return nil, fmt.Errorf("malformed %s: structural keyword %s written as a HIERARCH card",
						where(), strings.TrimSpace(string(card[9:eq])))
				}
				continue
			}
			if string(card[8:10]) != "= " {
				continue
			}
			key := strings.TrimSpace(string(card[:8]))
			if !fitsStructural(key) {
				if key == "ZIMAGE" {
					h.zimage = strings.HasPrefix(strings.TrimSpace(string(card[10:])), "T")
				}
				continue
			}
			if seen[key] {
				return nil, fmt.Errorf("malformed %s: keyword %s appears twice", where(), key)
			}
			seen[key] = true
			bad := func(want string) error {
				return fmt.Errorf("malformed %s: %s = %s (want %s)", where(), key,
					strings.TrimSpace(string(card[10:])), want)
			}
			switch key {
			case "SIMPLE", "GROUPS":
				if key == "GROUPS" {
					groups = strings.HasPrefix(strings.TrimSpace(string(card[10:])), "T")
				}
			case "XTENSION":
				s, ok := fitsString(card[10:])
				if !ok {
					return nil, bad("a quoted string")
				}
				h.xtension = s
			case "BITPIX":
				v, ok := fitsInt(card[10:])
				if !ok || !validBitpix(int(v)) {
					return nil, fmt.Errorf("unsupported BITPIX = %s in the %s (supported: 8, 16, 32, 64, -32, -64)",
						strings.TrimSpace(strings.SplitN(string(card[10:]), "/", 2)[0]), where())
				}
				h.bitpix = int(v)
			case "NAXIS":
				v, ok := fitsInt(card[10:])
				if !ok || v < 0 || v > 999 {
					return nil, bad("an integer from 0 to 999")
				}
				naxis = int(v)
			case "PCOUNT", "GCOUNT":
				v, ok := fitsInt(card[10:])
				if !ok || v < 0 || v > math.MaxInt32 {
					return nil, bad("a non-negative integer")
				}
				if key == "PCOUNT" {
					h.pcount = v
				} else {
					h.gcount = v
				}
			default: // NAXISn
				n, err := strconv.Atoi(key[5:])
				if err != nil || n < 1 || n > 999 {
					continue // some other keyword starting with NAXIS
				}
				v, ok := fitsInt(card[10:])
				if !ok || v < 0 || v > math.MaxInt32 {
					return nil, bad("a non-negative integer")
				}
				axes[n], axisSet[n] = v, true
			}
		}
	}
}

// fitsStructural reports whether key is one of the keywords that shape an
// HDU's data.
func fitsStructural(key string) bool {
	switch key {
	case "SIMPLE", "XTENSION", "BITPIX", "NAXIS", "PCOUNT", "GCOUNT", "GROUPS":
		return true
	}
	return strings.HasPrefix(key, "NAXIS") && len(key) > 5
}

// finishHeader checks the structural keywords and the data size.
func finishHeader(h *fitsHDU, naxis int, axes []int64, axisSet []bool, groups bool, dataStart int64, src *source, where string) (*fitsHDU, error) {
	if h.bitpix == 0 {
		return nil, fmt.Errorf("malformed %s: no BITPIX keyword", where)
	}
	if naxis < 0 {
		return nil, fmt.Errorf("malformed %s: no NAXIS keyword", where)
	}
	h.dataStart = dataStart
	elems := int64(1)
	first := 1
	if h.index == 0 && naxis > 0 && axes[1] == 0 && groups {
		first = 2 // random groups: NAXIS1 = 0 and the groups' sizes follow
		h.groups = true
	}
	for n := 1; n <= naxis; n++ {
		if !axisSet[n] {
			return nil, fmt.Errorf("malformed %s: NAXIS = %d but no NAXIS%d keyword", where, naxis, n)
		}
		h.axes = append(h.axes, int(axes[n]))
	}
	for n := first; n <= naxis; n++ {
		if axes[n] != 0 && elems > math.MaxInt64/8/axes[n] {
			return nil, fmt.Errorf("%s claims NAXISn = %v, far more data than the file holds", where, h.axes)
		}
		elems *= axes[n]
	}
	if naxis == 0 {
		elems = 0
	}
	if h.index > 0 || first == 2 {
		if elems+h.pcount > math.MaxInt64/8/max(h.gcount, 1) {
			return nil, fmt.Errorf("%s claims PCOUNT = %d and GCOUNT = %d, far more data than the file holds", where, h.pcount, h.gcount)
		}
		elems = h.gcount * (elems + h.pcount)
	}
	h.dataSize = elems * int64(abs(h.bitpix)/8)
	end, err := src.avail(dataStart + h.dataSize)
	if err != nil {
		return nil, fmt.Errorf("the %s says NAXISn = %v of BITPIX %d = %d bytes of data: %w",
			where, h.axes, h.bitpix, h.dataSize, err)
	}
	if have := end - dataStart; h.dataSize > have {
		return nil, fmt.Errorf("truncated data: the %s says NAXISn = %v of BITPIX %d = %d bytes, the file has only %d bytes after it",
			where, h.axes, h.bitpix, h.dataSize, max(have, 0))
	}
	return h, nil
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

// checkFITSMagic tells a FITS file from something else.
func checkFITSMagic(r io.ReaderAt) error {
	var b [10]byte
	n, _ := r.ReadAt(b[:], 0)
	if n == 10 && string(b[:]) == "SIMPLE  = " {
		return nil
	}
	if n >= 6 && string(b[:6]) == npyMagic {
		return errors.New("not a FITS file: this is an NPY file")
	}
	return fmt.Errorf("not a FITS file (a FITS file starts with %q, this one with %q)", "SIMPLE  =", b[:n])
}

// fitsInt parses an integer keyword value (the card's columns 11-80).
func fitsInt(v []byte) (int64, bool) {
	s := string(v)
	if i := strings.IndexByte(s, '/'); i >= 0 {
		s = s[:i]
	}
	n, err := strconv.ParseInt(strings.TrimSpace(s), 10, 64)
	return n, err == nil
}

// fitsString parses a quoted string keyword value (a doubled quote is a quote; trailing
// spaces are not significant).
func fitsString(v []byte) (string, bool) {
	s := strings.TrimLeft(string(v), " ")
	if !strings.HasPrefix(s, "'") {
		return "", false
	}
	var b strings.Builder
	for i := 1; i < len(s); i++ {
		if s[i] != '\'' {
			b.WriteByte(s[i])
			continue
		}
		if i+1 < len(s) && s[i+1] == '\'' {
			b.WriteByte('\'')
			i++
			continue
		}
		return strings.TrimRight(b.String(), " "), true
	}
	return "", false
}

// readImageHDU has fitsio decode the HDU h (header and data) and converts
// its data to a tensor.
func readImageHDU(src *source, h *fitsHDU) (*tensor.Tensor, []FITSCard, error) {
	if h.index > 0 && (h.pcount != 0 || h.gcount != 1) {
		return nil, nil, fmt.Errorf("malformed %s: an IMAGE extension needs PCOUNT = 0 and GCOUNT = 1, not %d and %d",
			h.name(), h.pcount, h.gcount)
	}
	for _, a := range h.axes {
		if a == 0 {
			return nil, nil, fmt.Errorf("%s has zero-size axes (NAXISn = %v)", h.name(), h.axes)
		}
	}
	// fitsio reads the header, the data and the padding after it; zeros
	// stand in for the padding, which the last HDU of a file often lacks
	// and a stream may follow with anything. The data are read once, and a
	// stream's copy of them is given back as fitsio reads it.
	header := make([]byte, h.dataStart-h.start)
	if _, err := src.ReadAt(header, h.start); err != nil {
		return nil, nil, fmt.Errorf("reading the %s's header: %w", h.name(), err)
	}
	upperExponents(header)
	img, err := fitsioImage(io.MultiReader(bytes.NewReader(header),
		src.drain(h.dataStart, h.dataSize), bytes.NewReader(make([]byte, h.end()-h.dataStart-h.dataSize))))
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", h.name(), err)
	}
	hdr := img.Header()
	if hdr.Bitpix() != h.bitpix || !reflect.DeepEqual(hdr.Axes(), h.axes) {
		return nil, nil, fmt.Errorf("malformed %s: fitsio reads BITPIX %d and axes %v, the header says %d and %v",
			h.name(), hdr.Bitpix(), hdr.Axes(), h.bitpix, h.axes)
	}
	raw := img.Raw()
	if int64(len(raw)) != h.dataSize {
		return nil, nil, fmt.Errorf("%s: fitsio read %d bytes of data, want %d", h.name(), len(raw), h.dataSize)
	}
	cards := headerCards(hdr)
	sc := fitsScaling{bscale: 1}
	for _, c := range cards {
		switch c.Key {
		case "BSCALE", "BZERO", "BLANK":
			v, ok := cardNumber(c.Value)
			if !ok || (c.Key == "BSCALE" && v == 0) {
				return nil, nil, fmt.Errorf("malformed %s: %s = %v (want a finite, non-zero number)", h.name(), c.Key, c.Value)
			}
			if c.Key == "BLANK" && (v != math.Trunc(v) || math.Abs(v) > 1<<63) {
				return nil, nil, fmt.Errorf("malformed %s: BLANK = %v (want an integer)", h.name(), c.Value)
			}
			switch c.Key {
			case "BSCALE":
				sc.bscale = v
			case "BZERO":
				sc.bzero = v
			case "BLANK":
				sc.blank, sc.hasBlank = int64(v), h.bitpix > 0
			}
		}
	}
	shape := make([]int, len(h.axes))
	for i, a := range h.axes {
		shape[len(h.axes)-1-i] = a
	}
	return decodeFITSData(raw, h.bitpix, shape, sc), cards, nil
}

// upperExponents writes the exponent of every numeric card value of
// header in upper case, as the standard has it (1.5E2, 1.5D2) and fitsio
// reads it: 1.5e2 is read either way, but 1e2 was read as no value (a
// missing CRPIX2) and 1.5d2 failed the whole file.
func upperExponents(header []byte) {
	for c := 0; c+fitsCard <= len(header); c += fitsCard {
		card := header[c : c+fitsCard]
		if string(card[8:10]) != "= " {
			continue
		}
		v := card[10:]
		v = v[len(v)-len(bytes.TrimLeft(v, " ")):]
		if end := bytes.Index(v, []byte(" /")); end >= 0 {
			v = v[:end]
		}
		v = bytes.TrimRight(v, " ")
		if len(v) == 0 || len(bytes.Trim(v, "+-.0123456789eEdD")) > 0 {
			continue
		}
		for i, b := range v {
			if b == 'e' || b == 'd' {
				v[i] = b - 'a' + 'A'
			}
		}
	}
}

// fitsioImage runs fitsio's decoder on one HDU, turning its panics into
// errors.
func fitsioImage(src io.Reader) (img fitsio.Image, err error) {
	defer func() {
		if p := recover(); p != nil {
			img, err = nil, fmt.Errorf("malformed header (fitsio: %v)", p)
		}
	}()
	f, err := fitsio.Open(src)
	if err != nil {
		return nil, fmt.Errorf("malformed HDU: %w", err)
	}
	defer f.Close()
	if len(f.HDUs()) != 1 {
		return nil, fmt.Errorf("fitsio decoded %d HDUs, want 1", len(f.HDUs()))
	}
	img, ok := f.HDU(0).(fitsio.Image)
	if !ok {
		return nil, fmt.Errorf("fitsio decoded a %v HDU, want an image", f.HDU(0).Type())
	}
	return img, nil
}

// headerCards lists the header's keywords (not END, COMMENT or HISTORY).
func headerCards(hdr *fitsio.Header) []FITSCard {
	var cards []FITSCard
	for _, k := range hdr.Keys() {
		c := hdr.Get(k)
		cards = append(cards, FITSCard{Key: c.Name, Value: c.Value, Comment: c.Comment})
	}
	return cards
}

// cardNumber returns a numeric card value as a finite float64.
func cardNumber(v any) (float64, bool) {
	var f float64
	switch x := v.(type) {
	case int:
		f = float64(x)
	case float64:
		f = x
	case big.Int:
		f, _ = new(big.Float).SetInt(&x).Float64()
	default:
		return 0, false
	}
	return f, !math.IsNaN(f) && !math.IsInf(f, 0)
}

// fitsScaling is the value transform of BSCALE, BZERO and BLANK.
type fitsScaling struct {
	bscale, bzero float64
	blank         int64
	hasBlank      bool
}

// decodeFITSData converts big-endian FITS data to a tensor. Where the
// tensor's elements are as wide as the file's (BITPIX -32 unscaled to
// float32, -64 and 64 to float64), they are converted in raw's own memory,
// which the tensor then holds: a large image is in memory once, not twice.
func decodeFITSData(raw []byte, bitpix int, shape []int, sc fitsScaling) *tensor.Tensor {
	scaled := sc.bscale != 1 || sc.bzero != 0
	n := tensor.NumElements(shape)
	inPlace := n > 0 && uintptr(unsafe.Pointer(&raw[0]))%8 == 0
	if bitpix == -32 && !scaled {
		t := &tensor.Tensor{Shape: shape, DType: tensor.F32}
		if inPlace {
			t.F32 = unsafe.Slice((*float32)(unsafe.Pointer(&raw[0])), n)
		} else {
			t.F32 = make([]float32, n)
		}
		for i := range t.F32 {
			t.F32[i] = math.Float32frombits(binary.BigEndian.Uint32(raw[4*i:]))
		}
		return t
	}
	t := &tensor.Tensor{Shape: shape, DType: tensor.F64}
	size := abs(bitpix) / 8
	inPlace = inPlace && size == 8
	if inPlace {
		t.F64 = unsafe.Slice((*float64)(unsafe.Pointer(&raw[0])), n)
	} else {
		t.F64 = make([]float64, n)
	}
	out := t.F64
	be := binary.BigEndian
	var get func(i int) int64
	switch bitpix {
	case 8:
		get = func(i int) int64 { return int64(raw[i]) }
	case 16:
		get = func(i int) int64 { return int64(int16(be.Uint16(raw[2*i:]))) }
	case 32:
		get = func(i int) int64 { return int64(int32(be.Uint32(raw[4*i:]))) }
	case 64:
		get = func(i int) int64 { return int64(be.Uint64(raw[8*i:])) }
	}
	// Block by block; raw's pages are given back behind the conversion
	// when it is not the output, so that a narrower image (int16: 2 bytes
	// an element) is never held whole beside its float64 array (10 bytes an
	// element at the peak, not 8).
	const block = 1 << 17
	for lo := 0; lo < n; lo += block {
		hi := min(lo+block, n)
		switch bitpix {
		case -32:
			for i := lo; i < hi; i++ {
				out[i] = float64(math.Float32frombits(be.Uint32(raw[4*i:])))
			}
		case -64:
			for i := lo; i < hi; i++ {
				out[i] = math.Float64frombits(be.Uint64(raw[8*i:]))
			}
		default:
			for i := lo; i < hi; i++ {
				if v := get(i); sc.hasBlank && v == sc.blank {
					out[i] = math.NaN()
				} else {
					out[i] = float64(v)
				}
			}
		}
		if !inPlace {
			releaseMemory(raw[lo*size : hi*size])
		}
	}
	if bitpix > 0 && !scaled {
		return t
	}
	for i, v := range out {
		out[i] = sc.bzero + sc.bscale*v
	}
	return t
}

// fitsReserved are the keywords EncodeFITS writes itself.
var fitsReserved = map[string]bool{
	"SIMPLE": true, "BITPIX": true, "NAXIS": true, "EXTEND": true, "END": true,
	"BSCALE": true, "BZERO": true, "BLANK": true, "XTENSION": true, "PCOUNT": true, "GCOUNT": true,
}

// checkFITSCards validates header cards for EncodeFITS and converts their
// values to the types fitsio writes.
func checkFITSCards(cards []FITSCard) ([]fitsio.Card, error) {
	seen := map[string]bool{}
	var out []fitsio.Card
	for _, c := range cards {
		k := c.Key
		if k == "" || len(k) > 8 || strings.Trim(k, "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_") != "" {
			return nil, fmt.Errorf("FITS keyword %q: want 1 to 8 characters of A-Z, 0-9, '-' and '_'", k)
		}
		if fitsReserved[k] || (strings.HasPrefix(k, "NAXIS") && len(k) > 5) {
			return nil, fmt.Errorf("FITS keyword %s is written by the writer itself", k)
		}
		if k != "COMMENT" && k != "HISTORY" {
			if seen[k] {
				return nil, fmt.Errorf("FITS keyword %s given twice", k)
			}
			seen[k] = true
		}
		v := c.Value
		switch x := c.Value.(type) {
		case nil, bool:
		case string:
			// A header is printable ASCII. fitsio writes strings as they
			// are, so quotes are doubled here; strings longer than a card
			// it splits over CONTINUE cards at fixed places, which could
			// split a doubled quote, so there quotes become '"'.
			x = asciiOnly(x)
			if len(x) > 67 {
				x = strings.ReplaceAll(x, "'", `"`)
			}
			v = strings.ReplaceAll(x, "'", "''")
		case int, int8, int16, int32, int64, uint8, uint16, uint32:
			v = int(reflect.ValueOf(x).Convert(reflect.TypeOf(int64(0))).Int())
		case float32, float64:
			f := reflect.ValueOf(x).Float()
			if math.IsNaN(f) || math.IsInf(f, 0) {
				return nil, fmt.Errorf("FITS keyword %s: %v cannot be written in a FITS header", k, f)
			}
			v = f
		default:
			return nil, fmt.Errorf("FITS keyword %s: unsupported value type %T (want bool, integer, float or string)", k, x)
		}
		if (k == "COMMENT" || k == "HISTORY") && v != nil {
			return nil, fmt.Errorf("FITS keyword %s takes its text as the comment, not a value", k)
		}
		out = append(out, fitsio.Card{Name: k, Value: v, Comment: asciiOnly(c.Comment)})
	}
	return out, nil
}

// EncodeFITS writes t to w as a FITS file whose primary HDU holds the array
// (BITPIX −32 for float32, −64 for float64; the axes reversed, so a (T, H, W)
// cube has NAXIS1 = W, NAXIS2 = H, NAXIS3 = T) with the given extra header
// cards. It is the writer to give Outputs.Add or AtomicWrite; WriteFITS
// writes one file.
func EncodeFITS(w io.Writer, t *tensor.Tensor, cards []FITSCard) (err error) {
	if t == nil {
		return errors.New("no tensor to write")
	}
	if len(t.Shape) == 0 || len(t.Shape) > 999 {
		return fmt.Errorf("cannot write a %d-d array as a FITS image (1 to 999 axes)", len(t.Shape))
	}
	n := 1
	for _, s := range t.Shape {
		if s <= 0 {
			return fmt.Errorf("cannot write shape %s to FITS: every axis needs at least one element", tensor.ShapeString(t.Shape))
		}
		n *= s
	}
	var data any
	bitpix := -32
	switch t.DType {
	case tensor.F32:
		data = t.F32
		if len(t.F32) != n {
			return fmt.Errorf("tensor of shape %s has %d float32 values, want %d", tensor.ShapeString(t.Shape), len(t.F32), n)
		}
	case tensor.F64:
		bitpix, data = -64, t.F64
		if len(t.F64) != n {
			return fmt.Errorf("tensor of shape %s has %d float64 values, want %d", tensor.ShapeString(t.Shape), len(t.F64), n)
		}
	default:
		return fmt.Errorf("unsupported tensor dtype %d", t.DType)
	}
	fcards, err := checkFITSCards(cards)
	if err != nil {
		return err
	}
	axes := make([]int, len(t.Shape))
	for i, s := range t.Shape {
		axes[len(t.Shape)-1-i] = s
	}
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("fitsio: %v", p)
		}
	}()
	hdr := fitsio.NewHeader(fcards, fitsio.IMAGE_HDU, bitpix, axes)
	phdu, err := fitsio.NewPrimaryHDU(hdr)
	if err != nil {
		return err
	}
	if err := phdu.Write(data); err != nil {
		return err
	}
	f, err := fitsio.Create(w)
	if err != nil {
		return err
	}
	defer f.Close()
	return f.Write(phdu)
}

// WriteFITS writes t to path as a FITS file (see EncodeFITS), atomically:
// either the complete file appears at path or nothing is changed.
func WriteFITS(path string, t *tensor.Tensor, cards []FITSCard) error {
	return AtomicWrite(path, func(w io.Writer) error { return EncodeFITS(w, t, cards) })
}

// asciiOnly replaces what a FITS header cannot hold (printable ASCII only)
// with '?'.
func asciiOnly(s string) string {
	return strings.Map(func(r rune) rune {
		if r < 32 || r > 126 {
			return '?'
		}
		return r
	}, s)
}
