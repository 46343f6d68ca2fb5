package formats

// Reading input arrays whatever their format: FITS, NPY, and for vectors
// (parallactic angles, say) plain text.

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/vkstat/vkstat/tensor"
)

// arrayFormat is a file's format, from its name or, failing that, its first
// bytes.
type arrayFormat int

const (
	formatUnknown arrayFormat = iota
	formatFITS
	formatNPY
	formatText
)

// fitsExts are the names FITS files go by (also with .gz).
var fitsExts = []string{".fits", ".fit", ".fts"}

// formatOf guesses the format of an input from its name, then its first
// bytes (which it peeks at without consuming them, so that a pipe is read
// once).
func formatOf(in *inputFile) arrayFormat {
	name := strings.ToLower(filepath.Base(in.path))
	trimmed := strings.TrimSuffix(name, ".gz")
	for _, e := range fitsExts {
		if strings.HasSuffix(trimmed, e) {
			return formatFITS
		}
	}
	switch {
	case strings.HasSuffix(name, ".npy"):
		return formatNPY
	case strings.HasSuffix(name, ".txt"), strings.HasSuffix(name, ".csv"),
		strings.HasSuffix(name, ".dat"), strings.HasSuffix(name, ".tsv"):
		return formatText
	}
	b := in.head(10)
	switch {
	case len(b) >= 6 && string(b[:6]) == npyMagic:
		return formatNPY
	case string(b) == "SIMPLE  = ", len(b) >= 2 && b[0] == 0x1f && b[1] == 0x8b:
		return formatFITS
	}
	return formatUnknown
}

// ReadArray reads an array from a FITS (.fits, .fit, .fts, optionally
// gzipped: .fits.gz) or NumPy (.npy) file, see ReadFITS and ReadNPY, or
// from a real raster GDAL reads (.tif, .tiff, .img, .envi, .vrt), see
// ReadRaster. Other
// names are recognised by their first bytes. Pipes and devices are read
// once, never beyond MaxStreamBytes.
func ReadArray(path string) (*tensor.Tensor, error) {
	if isRasterName(path) {
		return ReadRaster(path)
	}
	in, err := openInput(path)
	if err != nil {
		return nil, err
	}
	defer in.Close()
	return readArrayInput(in, formatOf(in))
}

// readArrayInput reads an array of a known format from an open file.
func readArrayInput(in *inputFile, format arrayFormat) (*tensor.Tensor, error) {
	switch format {
	case formatFITS:
		t, _, err := readFITSInput(in)
		return t, err
	case formatNPY:
		return readNPYInput(in)
	}
	return nil, fmt.Errorf("%s: unknown array format: want a FITS (.fits, .fit, .fts, .fits.gz) or NumPy (.npy) file", in.path)
}

// maxTextVector bounds the text files ReadVector reads (they hold angles,
// one number per frame); for pipes and devices, MaxStreamBytes does too.
const maxTextVector = 1 << 30

// ReadVector reads a vector of numbers (T parallactic angles, say) from a
// FITS or NPY file holding a 1-d array, or an array with a single axis longer
// than 1 (shape (1, T) or (T, 1) is read as T values), or from a text file of
// numbers separated by spaces, tabs, commas, semicolons or newlines, where '#'
// starts a comment that runs to the end of the line. Text numbers are parsed
// by strconv.ParseFloat (so "nan" and "inf" are accepted; callers that
// cannot use them check). Text files are read up to 1 GiB, pipes and
// devices up to MaxStreamBytes too: a longer file is an error. Errors name
// the file, and for text the line and the token.
func ReadVector(path string) ([]float64, error) {
	return ReadVectorMax(path, 0)
}

// ReadVectorMax is ReadVector for a vector of at most max numbers (max > 0):
// a longer one is an error, and a text file, pipe or device is read no
// further than its number max+1 (yes 1.0 | ... ends there).
func ReadVectorMax(path string, max int) ([]float64, error) {
	in, err := openInput(path)
	if err != nil {
		return nil, err
	}
	defer in.Close()
	format := formatOf(in)
	if format == formatFITS || format == formatNPY {
		t, err := readArrayInput(in, format)
		if err != nil {
			return nil, err
		}
		long := 0
		for _, s := range t.Shape {
			if s != 1 {
				long++
			}
		}
		if long > 1 {
			return nil, fmt.Errorf("%s: want a vector (a 1-d array), got shape %s", path, tensor.ShapeString(t.Shape))
		}
		if t.Len() == 0 {
			return nil, fmt.Errorf("%s: the vector is empty (shape %s)", path, tensor.ShapeString(t.Shape))
		}
		if max > 0 && t.Len() > max {
			return nil, fmt.Errorf("%s: %d numbers, more than %d", path, t.Len(), max)
		}
		return append([]float64(nil), t.Float64s()...), nil
	}
	limit := int64(maxTextVector)
	tooLong := fmt.Errorf("larger than %d bytes, the most read from a text file of numbers", limit)
	if !in.regular() && MaxStreamBytes < limit {
		limit = MaxStreamBytes
		tooLong = &StreamLimitError{What: "not a regular file", Limit: limit}
	}
	v, err := parseTextVector(&errLimitedReader{r: in.reader(), n: limit, err: tooLong}, int(limit), max)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return v, nil
}

// parseTextVector parses numbers separated by white space, commas or
// semicolons, with '#' comments, from lines of at most maxLine bytes; with
// max > 0, number max+1 is an error, where it is read.
func parseTextVector(r io.Reader, maxLine, max int) ([]float64, error) {
	// Binary data (/dev/zero, say) is refused from its first bytes, before
	// a line of it is looked for.
	br := bufio.NewReader(r)
	if head, _ := br.Peek(512); bytes.IndexByte(head, 0) >= 0 || !isText(bytes.ReplaceAll(head, []byte("\n"), nil)) {
		return nil, errNotText
	}
	var out []float64
	sc := bufio.NewScanner(br)
	sc.Buffer(make([]byte, 0, min(64<<10, maxLine)), maxLine)
	sep := func(c rune) bool {
		return c == ' ' || c == '\t' || c == ',' || c == ';' || c == '\r' || c == '\f' || c == '\v'
	}
	for line := 1; sc.Scan(); line++ {
		text := sc.Bytes()
		if line == 1 {
			text = bytes.TrimPrefix(text, []byte("\xef\xbb\xbf")) // a UTF-8 byte-order mark
			if bytes.IndexByte(text, 0) >= 0 || !isText(text) {
				return nil, errNotText
			}
		}
		if i := bytes.IndexByte(text, '#'); i >= 0 {
			text = text[:i]
		}
		for _, tok := range strings.FieldsFunc(string(text), sep) {
			v, err := strconv.ParseFloat(tok, 64)
			if err != nil {
				show := tok
				if len(show) > 40 {
					show = show[:40] + "..."
				}
				return nil, fmt.Errorf("line %d: %q is not a number", line, show)
			}
			if max > 0 && len(out) == max {
				return nil, fmt.Errorf("more than %d numbers (number %d is on line %d)", max, max+1, line)
			}
			out = append(out, v)
		}
	}
	if err := sc.Err(); err != nil {
		if err == bufio.ErrTooLong {
			return nil, fmt.Errorf("a line is longer than %d bytes", maxLine)
		}
		return nil, err
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("no numbers in the file")
	}
	return out, nil
}

var errNotText = errors.New("not a text file of numbers (it starts with binary data); " +
	"want numbers separated by spaces, commas or newlines, or a FITS or NPY file")

// isText reports whether b looks like text (no control characters other
// than white space).
func isText(b []byte) bool {
	for _, c := range b {
		if c < 32 && c != '\t' && c != '\r' && c != '\f' && c != '\v' {
			return false
		}
	}
	return true
}

// ArrayEncoder is how an array is written under the name path: FITS for
// .fits, .fit and .fts (with cards in its header), NPY for .npy. ok is
// false for any other name, rather than NPY bytes under a name that says
// FITS.
func ArrayEncoder(path string, cards ...FITSCard) (encode func(w io.Writer, t *tensor.Tensor) error, ok bool) {
	ext := strings.ToLower(filepath.Ext(path))
	switch {
	case ext == ".npy":
		return EncodeNPY, true
	case slices.Contains(fitsExts, ext):
		return func(w io.Writer, t *tensor.Tensor) error { return EncodeFITS(w, t, cards) }, true
	}
	return nil, false
}
