//go:build !unix

package formats

import (
	"errors"
	"io/fs"
	"os"
)

// keyOf: no device and inode here, so no output list names a file that a
// later run may remove.
func keyOf(fs.FileInfo) (fileKey, bool) { return fileKey{}, false }

// processAlive: unknown here, so no stale temporary is removed.
func processAlive(int) bool { return true }

// openRegular opens path for reading if it is a regular file, not a
// symbolic link.
func openRegular(path string) (*os.File, error) {
	if st, err := os.Lstat(path); err != nil || !st.Mode().IsRegular() {
		return nil, errors.New("not a regular file")
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	if st, err := f.Stat(); err != nil || !st.Mode().IsRegular() {
		f.Close()
		return nil, errors.New("not a regular file")
	}
	return f, nil
}
