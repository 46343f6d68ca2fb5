// Package smallfile reads and writes the files vkstat keeps for itself
// (the pipeline cache, VkFFT's plans, the tune cache). Read reads one
// whole, only when it is a regular file no larger than a limit, so that a
// cache replaced by a FIFO, a link to /dev/zero or a huge sparse file
// neither hangs nor sinks the program; Write replaces one atomically;
// CacheDir says where they live; Seal and Unseal frame what must reach a
// driver or VkFFT whole and only for what made it. (Package formats reads
// and writes users' files, streams included, with its own bounds.)
package smallfile

import (
	"fmt"
	"io"
	"os"
)

// Read reads path whole if it is a regular file of at most limit bytes.
// A missing file's error wraps os.ErrNotExist.
func Read(path string, limit int64) ([]byte, error) {
	if st, err := os.Stat(path); err != nil {
		return nil, err
	} else if !st.Mode().IsRegular() {
		return nil, fmt.Errorf("%s: not a regular file", path)
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	switch {
	case err != nil:
		return nil, err
	case !st.Mode().IsRegular(): // replaced since
		return nil, fmt.Errorf("%s: not a regular file", path)
	case st.Size() > limit:
		return nil, fmt.Errorf("%s: %d bytes, more than the %d expected", path, st.Size(), limit)
	}
	b, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err == nil && int64(len(b)) > limit {
		err = fmt.Errorf("%s: more than the %d bytes expected", path, limit)
	}
	if err != nil {
		return nil, err
	}
	return b, nil
}
