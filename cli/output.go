package cli

// Writing output files so that a failed or interrupted command never leaves a
// half-written file behind: each output is written to a temporary file in the
// destination directory, flushed to disk, and renamed over the final name
// only when everything succeeded.

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
)

// Outputs stages several output files and publishes them together: Add
// writes each one to a temporary file beside its destination; Commit renames
// them all into place only if every Add succeeded; Abort removes the
// temporary files. Use it as
//
//	var out Outputs
//	defer out.Abort()
//	out.Add("a.npy", func(w io.Writer) error { return EncodeNPY(w, a) })
//	out.Add("b.npy", func(w io.Writer) error { return EncodeNPY(w, b) })
//	if err := out.Commit(); err != nil { ... }
//
// The zero value is ready to use. New files get mode 0644; a replaced file
// keeps its mode.
type Outputs struct {
	staged []stagedFile
	err    error // first Add error
	done   bool  // Commit was called
}

type stagedFile struct{ tmp, path string }

// Add writes one output, through write, to a temporary file beside path. The
// writer given to write is buffered. On error the temporary file is removed,
// the error (naming path) is returned and remembered, and Commit will refuse.
func (o *Outputs) Add(path string, write func(w io.Writer) error) error {
	err := o.add(path, write)
	if err != nil && o.err == nil {
		o.err = err
	}
	return err
}

func (o *Outputs) add(path string, write func(w io.Writer) error) error {
	if o.done {
		return fmt.Errorf("write %s: outputs already committed", path)
	}
	for _, s := range o.staged {
		if filepath.Clean(s.path) == filepath.Clean(path) {
			return fmt.Errorf("write %s: the same output file is given twice", path)
		}
	}
	dir, base := filepath.Dir(path), filepath.Base(path)
	f, err := os.CreateTemp(dir, "."+base+".tmp-*")
	if errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("write %s: directory %s does not exist", path, dir)
	}
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	tmp := f.Name()
	mode := os.FileMode(0o644)
	if st, err := os.Stat(path); err == nil && st.Mode().IsRegular() {
		mode = st.Mode().Perm()
	}
	bw := bufio.NewWriterSize(f, 1<<20)
	err = write(bw)
	if err == nil {
		err = bw.Flush()
	}
	if err == nil {
		err = f.Chmod(mode)
	}
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(tmp)
		return fmt.Errorf("write %s: %w", path, err)
	}
	o.staged = append(o.staged, stagedFile{tmp: tmp, path: path})
	return nil
}

// Commit renames every staged file to its destination, if every Add
// succeeded; otherwise it removes them and returns the first Add error.
// A rename that fails (rare: the destination is a directory, say) stops
// the commit: outputs already renamed stay, the rest are removed.
func (o *Outputs) Commit() error {
	if o.done {
		return errors.New("outputs already committed")
	}
	if o.err != nil {
		o.Abort()
		return o.err
	}
	o.done = true
	dirs := map[string]bool{}
	for i, s := range o.staged {
		if err := os.Rename(s.tmp, s.path); err != nil {
			for _, r := range o.staged[i:] {
				os.Remove(r.tmp)
			}
			o.staged = nil
			return fmt.Errorf("write %s: %w", s.path, err)
		}
		dirs[filepath.Dir(s.path)] = true
	}
	o.staged = nil
	for d := range dirs {
		syncDir(d)
	}
	return nil
}

// Abort removes the staged temporary files. It does nothing after Commit, so
// it can always be deferred.
func (o *Outputs) Abort() {
	for _, s := range o.staged {
		os.Remove(s.tmp)
	}
	o.staged = nil
}

// syncDir makes renames in dir durable where the system allows it (best
// effort: not every platform can sync a directory).
func syncDir(dir string) {
	if d, err := os.Open(dir); err == nil {
		d.Sync()
		d.Close()
	}
}

// AtomicWrite writes one file atomically: write's output goes to a temporary
// file in the same directory, which is synced and renamed to path only if
// write and every step after it succeeded; on error it is removed and path is
// left as it was.
func AtomicWrite(path string, write func(w io.Writer) error) error {
	var o Outputs
	defer o.Abort()
	if err := o.Add(path, write); err != nil {
		return err
	}
	return o.Commit()
}

// EnsureDir creates the output directory dir (and its parents) if needed,
// with an error that names it when it cannot, or when dir exists but is not a
// directory.
func EnsureDir(dir string) error {
	if st, err := os.Stat(dir); err == nil {
		if !st.IsDir() {
			return fmt.Errorf("output directory %s: exists and is not a directory", dir)
		}
		return nil
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("create output directory %s: %w", dir, err)
	}
	return nil
}
