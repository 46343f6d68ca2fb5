package formats

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
)

// AtomicWrite writes one file atomically: write's output goes to a temporary
// file in the same directory, which is renamed to path only if write and
// every step after it succeeded; on error it is removed and path is left as
// it was. Like np.save, it does not sync the file to disk: a crash of the
// machine itself (power loss) soon after may lose the file. (Commands that
// write several files publish them all or none through their own
// machinery; this is for library callers.)
func AtomicWrite(path string, write func(w io.Writer) error) (err error) {
	dir := filepath.Dir(path)
	if st, err := os.Stat(dir); err != nil {
		return fmt.Errorf("write %s: directory %s does not exist", path, dir)
	} else if !st.IsDir() {
		return fmt.Errorf("write %s: %s is not a directory", path, dir)
	}
	f, err := os.CreateTemp(dir, "."+filepath.Base(path)+".tmp*")
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	tmp := f.Name()
	defer func() {
		if err != nil {
			f.Close()
			os.Remove(tmp)
		}
	}()
	if err = write(f); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	if err = f.Close(); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	if err = os.Rename(tmp, path); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	return nil
}
