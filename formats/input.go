package formats

// Input files as the readers see them. A regular file has a size, known
// before anything is read, that every size a header claims is checked
// against. A stream (a pipe or FIFO, a device such as /dev/stdin or
// /dev/zero, or the decompressed contents of a .fits.gz) has no size until it
// has been read to its end, which may never come: it is read on demand into
// memory, only as far as the header's claims need, and never beyond
// MaxStreamBytes.

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
)

// MaxStreamBytes is the most the readers (ReadFITS, ReadNPY, ReadArray,
// ReadVector) keep in memory from an input that is not a regular file: a
// pipe, a device, or the decompressed data of a gzip-compressed FITS file.
// Such an input has no size to check a header against, so a header that
// claims more than this, or a text stream longer than this, is an error
// ("not a regular file and larger than N bytes") before the memory is
// taken. The default is half the machine's physical memory where that is
// known (Linux), at most 64 GiB, and 64 GiB elsewhere: what such a stream
// holds is kept twice for a moment (its bytes and the array). Programs that
// know better set it before reading; tests lower it.
var MaxStreamBytes int64 = defaultMaxStreamBytes()

// maxStreamDefault caps the default MaxStreamBytes.
const maxStreamDefault = 64 << 30

func defaultMaxStreamBytes() int64 {
	if m := physicalMemory(); m > 0 {
		return min(m/2, maxStreamDefault)
	}
	return maxStreamDefault
}

// StreamLimitError is the error for an input that is not a regular file
// (or is gzip-compressed) and needs more than MaxStreamBytes.
type StreamLimitError struct {
	What  string // "not a regular file" or "gzip-compressed"
	Need  int64  // the bytes a header's claims need; 0 when only the stream is known to be longer than Limit
	Limit int64
}

func (e *StreamLimitError) Error() string {
	if e.Need > 0 {
		return fmt.Sprintf("%s and would need %d bytes, more than the %d read from such a file (cli.MaxStreamBytes)",
			e.What, e.Need, e.Limit)
	}
	return fmt.Sprintf("%s and larger than %d bytes, the most read from such a file (cli.MaxStreamBytes)", e.What, e.Limit)
}

// inputFile is an open input file.
type inputFile struct {
	path string
	f    *os.File
	size int64         // a regular file's size
	br   *bufio.Reader // a stream's reader, which head peeks into; nil for a regular file
}

// openInput opens path for reading. Directories are refused.
func openInput(path string) (*inputFile, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err // "open x.npy: no such file or directory"
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, err
	}
	if st.IsDir() {
		f.Close()
		return nil, fmt.Errorf("%s: is a directory, not a file", path)
	}
	noteInput(st)
	return newInputFile(path, f, st), nil
}

// newInputFile is the input f, which os.Stat described as st.
func newInputFile(path string, f *os.File, st os.FileInfo) *inputFile {
	in := &inputFile{path: path, f: f, size: st.Size()}
	if !st.Mode().IsRegular() {
		in.br = bufio.NewReaderSize(f, 64<<10)
	}
	return in
}

func (in *inputFile) Close() error { return in.f.Close() }

// regular reports whether the input is a regular file.
func (in *inputFile) regular() bool { return in.br == nil }

// head returns up to n of the first bytes, fewer when the input is shorter.
// It consumes nothing: reader and source still start at the beginning.
func (in *inputFile) head(n int) []byte {
	b := make([]byte, n)
	if in.regular() {
		k, _ := in.f.ReadAt(b, 0)
		return b[:k]
	}
	p, _ := in.br.Peek(n)
	return append(b[:0], p...)
}

// reader reads the input from its start.
func (in *inputFile) reader() io.Reader {
	if in.regular() {
		return io.NewSectionReader(in.f, 0, in.size)
	}
	return in.br
}

// source is the input's bytes, for a decoder: the file itself when it is
// regular, else a stream bounded by MaxStreamBytes.
func (in *inputFile) source() *source {
	if in.regular() {
		return &source{ra: in.f, size: in.size}
	}
	return newStreamSource(in.br, "not a regular file")
}

// source gives a decoder random access to an input's bytes, and tells how
// many there are up to a point. For a regular file it is the file; for a
// stream, what has been read of it, kept in memory in chunks (so that
// growing copies nothing), read further only when asked for and never
// beyond its limit.
type source struct {
	ra   io.ReaderAt // a regular file; nil for a stream
	size int64       // the regular file's size

	r      io.Reader // the stream
	what   string    // what the stream is, for StreamLimitError
	limit  int64
	chunk  int64    // the chunk size: streamChunk (smaller in tests)
	chunks [][]byte // the bytes read so far: chunk i holds [i·chunk, (i+1)·chunk)
	n      int64    // how many
	err    error    // the stream's read error; io.EOF once it has ended
	freed  int64    // the bytes below this offset have been given back (drain)
}

// streamChunk is the size of a stream's chunks in memory (the first grows
// up to it, so small streams stay small).
const streamChunk = 1 << 20

func newStreamSource(r io.Reader, what string) *source {
	return &source{r: r, what: what, limit: MaxStreamBytes, chunk: streamChunk}
}

// bytesSource is a source over bytes in memory (fuzz targets use it).
func bytesSource(b []byte) *source {
	return &source{ra: bytesReaderAt(b), size: int64(len(b))}
}

type bytesReaderAt []byte

func (b bytesReaderAt) ReadAt(p []byte, off int64) (int, error) {
	if off >= int64(len(b)) {
		return 0, io.EOF
	}
	n := copy(p, b[off:])
	if n < len(p) {
		return n, io.EOF
	}
	return n, nil
}

// avail returns how many of the first n bytes exist: n, or the input's size
// when it is shorter. A stream is read until it has n bytes or ends; asking
// a stream for more than its limit is a *StreamLimitError (with Need = n),
// and a stream that fails to read gives its error.
func (s *source) avail(n int64) (int64, error) {
	if s.r == nil {
		return max(min(n, s.size), 0), nil
	}
	if n > s.limit {
		return s.n, &StreamLimitError{What: s.what, Need: n, Limit: s.limit}
	}
	s.fill(n)
	switch {
	case s.n >= n:
		return n, nil
	case s.err == io.EOF:
		return s.n, nil
	}
	return s.n, s.err
}

// fill reads the stream until it holds n bytes or has ended.
func (s *source) fill(n int64) {
	empty := 0
	for s.n < n && s.err == nil {
		i := int(s.n / s.chunk)
		if i == len(s.chunks) {
			c := s.chunk
			if i == 0 {
				c = min(max(n, 4096), s.chunk)
			}
			s.chunks = append(s.chunks, make([]byte, 0, c))
		}
		c := s.chunks[i]
		if len(c) == cap(c) { // only the first chunk, still growing
			g := make([]byte, len(c), min(2*int64(cap(c)), s.chunk))
			copy(g, c)
			c = g
		}
		want := min(int64(cap(c)-len(c)), n-s.n)
		k, err := s.r.Read(c[len(c) : len(c)+int(want)])
		s.chunks[i] = c[:len(c)+k]
		s.n += int64(k)
		if err != nil {
			s.err = err
		} else if k == 0 {
			if empty++; empty > 100 {
				s.err = io.ErrNoProgress
			}
		}
	}
}

// ReadAt reads len(p) bytes at off, as io.ReaderAt does: fewer only with an
// error (io.EOF at the end of the input). Unlike avail, it reads a stream
// that ends before its limit like a short file, even when asked for bytes
// past the limit; a stream that goes on past it is a *StreamLimitError.
func (s *source) ReadAt(p []byte, off int64) (int, error) {
	if off < 0 {
		return 0, errors.New("negative offset")
	}
	if s.r == nil {
		return s.ra.ReadAt(p, off)
	}
	want := off + int64(len(p))
	end, err := s.avail(min(want, s.limit))
	if err == nil && want > s.limit && s.n == s.limit {
		if s.probe(); s.err != io.EOF {
			err = s.err
		}
	}
	if off < s.freed && off < end {
		return 0, errors.New("reading bytes of a stream that were read once and given back")
	}
	n := 0
	for pos := off; pos < end; {
		c := s.chunks[pos/s.chunk]
		k := copy(p[n:], c[pos%s.chunk:]) // up to end: p ends there, or c does
		n += k
		pos += int64(k)
	}
	if n < len(p) {
		if err == nil {
			err = io.EOF
		}
		return n, err
	}
	return n, nil
}

// probe finds out whether a stream that has been read up to its limit goes
// on: if it does, the stream's error becomes a *StreamLimitError (the byte
// read to find out is not kept: nothing past the limit is ever read).
func (s *source) probe() {
	var b [1]byte
	for range 100 {
		if s.err != nil {
			return
		}
		k, err := s.r.Read(b[:])
		switch {
		case k > 0:
			s.err = &StreamLimitError{What: s.what, Limit: s.limit}
		case err != nil:
			s.err = err
		}
	}
	if s.err == nil {
		s.err = io.ErrNoProgress
	}
}

// section is a reader of the n bytes at off.
func (s *source) section(off, n int64) io.Reader {
	return io.NewSectionReader(s, off, n)
}

// drain is a reader of the n bytes at off that a decoder reads once, to
// its end: a stream's chunks are given back to the system as it passes
// them (the bytes before off too), so that decoding a stream into an array
// holds the stream's bytes and the array's only where they overlap, not
// both whole. The source cannot read them again.
func (s *source) drain(off, n int64) io.Reader {
	if s.r == nil {
		return s.section(off, n)
	}
	return &drainReader{s: s, r: s.section(off, n), pos: off}
}

type drainReader struct {
	s   *source
	r   io.Reader
	pos int64
}

func (d *drainReader) Read(p []byte) (int, error) {
	k, err := d.r.Read(p[:min(len(p), int(d.s.chunk))]) // a chunk at a time, each given back once copied
	d.pos += int64(k)
	s := d.s
	for i := s.freed / s.chunk; (i+1)*s.chunk <= d.pos && int(i) < len(s.chunks); i++ {
		releaseMemory(s.chunks[i][:cap(s.chunks[i])])
		s.chunks[i] = nil
		s.freed = (i + 1) * s.chunk
	}
	return k, err
}

// errLimitedReader reads at most n bytes from r and fails with err when r
// holds more (where io.LimitReader would end quietly, truncating).
type errLimitedReader struct {
	r   io.Reader
	n   int64
	err error
}

func (l *errLimitedReader) Read(p []byte) (int, error) {
	if l.n < 0 {
		return 0, l.err
	}
	if int64(len(p)) > l.n+1 {
		p = p[:l.n+1]
	}
	k, err := l.r.Read(p)
	l.n -= int64(k)
	if l.n < 0 {
		return k + int(l.n), l.err // the byte past the limit is not passed on
	}
	return k, err
}
