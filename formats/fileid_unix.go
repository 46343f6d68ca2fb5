//go:build unix

package formats

import (
	"errors"
	"io/fs"
	"os"
	"syscall"
)

// keyOf is the device and inode of a file, as fs.FileInfo from os.Stat,
// os.Lstat or (*os.File).Stat gives them.
func keyOf(fi fs.FileInfo) (fileKey, bool) {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return fileKey{}, false
	}
	return fileKey{dev: uint64(st.Dev), ino: st.Ino}, true
}

// processAlive reports whether a process pid runs on this machine (one
// this process may not signal runs too).
func processAlive(pid int) bool {
	err := syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}

// openRegular opens path for reading if it is a regular file, not through
// a symbolic link and without waiting for a FIFO's writer.
func openRegular(path string) (*os.File, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, err
	}
	if st, err := f.Stat(); err != nil || !st.Mode().IsRegular() {
		f.Close()
		return nil, errors.New("not a regular file")
	}
	return f, nil
}
