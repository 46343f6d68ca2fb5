package formats

import (
	"bytes"
	"fmt"
	"io"
)

// Whole small files (a survey manifest or shard, a verify report, a shader
// source) read as the array readers read their inputs: through openInput,
// so that a pipe or device (/dev/zero, /dev/stdin) is read no further than
// a limit, and a regular file is checked against it by its size before
// anything is read.

// MaxTextBytes is the most ReadText and ReadFileLimit keep of a file by
// default: 256 MiB, far above any manifest, report or shader source. Tests
// lower it.
var MaxTextBytes int64 = 256 << 20

// TooLargeError is a file refused by ReadFileLimit or ReadText for holding
// more than the limit.
type TooLargeError struct {
	Path  string
	What  string // what the file was read as: "a survey manifest", ...
	Size  int64  // a regular file's size; 0 for a stream, read only up to Limit
	Limit int64
}

func (e *TooLargeError) Error() string {
	if e.Size > 0 {
		return fmt.Sprintf("%s: %d bytes, more than the %d read as %s", e.Path, e.Size, e.Limit, e.What)
	}
	return fmt.Sprintf("%s: not a regular file and longer than %d bytes, the most read as %s", e.Path, e.Limit, e.What)
}

// ReadFileLimit reads the whole of path, which must hold at most limit
// bytes (limit <= 0: MaxTextBytes; a stream never more than MaxStreamBytes
// either); what names the file's role in the error for a larger one. A
// regular file larger than limit is refused before it is read; a stream is
// refused as soon as it passes limit, having kept at most limit+1 bytes.
func ReadFileLimit(path string, limit int64, what string) ([]byte, error) {
	return readLimit(path, limit, what, false)
}

// ReadText is ReadFileLimit for a text file: a NUL byte (binary data,
// /dev/zero) is refused where it is read, without reading further.
func ReadText(path string, limit int64, what string) ([]byte, error) {
	return readLimit(path, limit, what, true)
}

func readLimit(path string, limit int64, what string, text bool) ([]byte, error) {
	if limit <= 0 {
		limit = MaxTextBytes
	}
	in, err := openInput(path)
	if err != nil {
		return nil, err
	}
	defer in.Close()
	return readInputLimit(in, limit, what, text)
}

// readInputLimit is readLimit on an open input (limit > 0).
func readInputLimit(in *inputFile, limit int64, what string, text bool) ([]byte, error) {
	path := in.path
	if in.regular() {
		if in.size > limit {
			return nil, &TooLargeError{Path: path, What: what, Size: in.size, Limit: limit}
		}
	} else {
		limit = min(limit, MaxStreamBytes)
	}
	var b []byte
	if in.regular() {
		b = make([]byte, 0, in.size+1) // +1: a file that grows is read into the limit's check
	}
	var r io.Reader = in.f // not a section: a regular file that grew since Stat is read to the limit
	if !in.regular() {
		r = in.reader()
	}
	for empty := 0; ; {
		if len(b) == cap(b) {
			b = append(b, 0)[:len(b)]
		}
		want := min(int64(cap(b)-len(b)), limit+1-int64(len(b)))
		k, err := r.Read(b[len(b) : int64(len(b))+want])
		if text && bytes.IndexByte(b[len(b):len(b)+k], 0) >= 0 {
			return nil, fmt.Errorf("%s: not a text file (it holds binary data: a NUL byte at byte %d), so not %s",
				path, len(b)+bytes.IndexByte(b[len(b):len(b)+k], 0), what)
		}
		b = b[:len(b)+k]
		if int64(len(b)) > limit {
			e := &TooLargeError{Path: path, What: what, Limit: limit}
			if in.regular() {
				e.Size = int64(len(b)) // at least
			}
			return nil, e
		}
		if k == 0 && err == nil {
			if empty++; empty > 100 {
				err = io.ErrNoProgress
			}
		} else {
			empty = 0
		}
		if err == io.EOF {
			return b, nil
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
	}
}
