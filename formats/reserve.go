package formats

import (
	"io"
	"os"
)

// Preallocate reserves the next n bytes of f, from its current offset, for
// what is about to be written there (fallocate with FALLOC_FL_KEEP_SIZE on
// Linux; nothing elsewhere): ext4 then writes into blocks already
// allocated instead of reserving them page by page, about 30 % faster (a
// 40 MB write: 6 ms instead of 9 on the development machine). The file's
// size is unchanged until the bytes are written. It is a hint: errors (a
// file system without fallocate) are ignored.
func Preallocate(f *os.File, n int64) {
	if off, err := f.Seek(0, io.SeekCurrent); err == nil && n > 0 {
		preallocate(f, off, n)
	}
}

// allocator is a writer that can reserve room for the n bytes it is about
// to be given (vkstat's output files: cli.Outputs).
type allocator interface{ Allocate(n int64) }

// reserve tells w, when it is a file or an allocator, that n bytes are
// coming.
func reserve(w io.Writer, n int64) {
	switch v := w.(type) {
	case allocator:
		v.Allocate(n)
	case *os.File:
		Preallocate(v, n)
	}
}
