package cli

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/vkstat/vkstat/formats"
)

// checkOutputFile checks, before any work, that the output file path of
// flag can be written: its directory exists and is writable, and path is
// not a directory. A device or FIFO (/dev/null, a pipe's reader) is written
// into, not replaced, so its directory need not be writable.
func checkOutputFile(flag, path string) error {
	if path == "" {
		return nil
	}
	if st, err := os.Stat(path); err == nil && st.IsDir() {
		return usagef("--%s %s: is a directory; give a file name", flag, path)
	} else if err == nil && !st.Mode().IsRegular() {
		return nil
	}
	if err := formats.CheckDirWritable(filepath.Dir(path)); err != nil {
		return fmt.Errorf("--%s %s: %w", flag, path, err)
	}
	return nil
}

// checkOutputDir checks, before any work, that the output directory of flag
// is a writable directory or can be created: its nearest existing ancestor
// is a writable directory.
func checkOutputDir(flag, dir string) error {
	if dir == "" {
		return usagef("--%s: empty; give a folder (. for the current one)", flag)
	}
	if st, err := os.Stat(dir); err == nil {
		if !st.IsDir() {
			return fmt.Errorf("--%s %s: exists and is not a directory", flag, dir)
		}
		if err := formats.CheckDirWritable(dir); err != nil {
			return fmt.Errorf("--%s: %w", flag, err)
		}
		return nil
	}
	if err := formats.CheckDirWritable(filepath.Dir(formats.MissingTop(dir))); err != nil {
		return fmt.Errorf("--%s %s: cannot be created: %w", flag, dir, err)
	}
	return nil
}
