package formats

// Writing output files so that a failed or interrupted command never leaves a
// half-written file behind: each output is written to a temporary file in the
// destination directory and renamed over the final name only when everything
// succeeded. Files are not synced to disk (no fsync), as np.save, cp and
// GDAL do not: other programs see a whole file or none, but after a crash
// of the machine itself (power loss) a file written just before may be
// missing or empty; run sync(1) after vkstat where that matters. An fsync
// costs as much as writing the file several times over on some disks (20
// to 50 ms for 40 MB on the 2-core development machine), most of a small
// command's time.

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Outputs stages several output files and publishes them together: Add
// writes each one to a temporary file beside its destination; Commit checks
// every destination and then renames them all into place, only if every Add
// succeeded; Abort removes the temporary files. Use it as
//
//	out := Outputs{Ctx: ctx}
//	defer out.Abort()
//	out.CreateDir(dir) // created at Commit, if missing
//	out.Add(filepath.Join(dir, "a.npy"), func(w io.Writer) error { return EncodeNPY(w, a) })
//	out.Add(filepath.Join(dir, "b.npy"), func(w io.Writer) error { return EncodeNPY(w, b) })
//	if err := out.Commit(); err != nil { ... }
//
// The zero value is ready to use. New files get mode 0644; a replaced file
// keeps its mode.
type Outputs struct {
	// Ctx, when set, stops writes once it is done (an interrupted command
	// leaves no temporary file).
	Ctx context.Context

	staged  []stagedFile
	created map[string]bool     // directories CreateDir declared
	owned   []ownedDir          // directories OwnDir declared
	dirs    []stagedDir         // missing directories, staged hidden
	err     error               // first Add error
	done    bool                // Commit was called
	swept   map[string]bool     // dir/base whose stale temporaries sweep removed
	names   map[string][]string // the names in each directory sweep looked at
}

// OutputGuard is called with the path of every output written with a
// context that carries it (WithOutputGuard), before anything is written;
// an error refuses the output. The command line checks there that a run
// writes no file twice and none that it reads.
type OutputGuard func(path string) error

type guardKey struct{}

// WithOutputGuard returns ctx carrying g, for Outputs.Ctx and
// AtomicWriteContext.
func WithOutputGuard(ctx context.Context, g OutputGuard) context.Context {
	return context.WithValue(ctx, guardKey{}, g)
}

// FIFONotice is told that writing the output path, a FIFO, waits for a
// reader to open it (writing a FIFO begins when one does): called once,
// from another goroutine, when the open has waited half a second.
type FIFONotice func(path string)

type fifoKey struct{}

// WithFIFONotice returns ctx carrying n, for Outputs.Ctx and
// AtomicWriteContext.
func WithFIFONotice(ctx context.Context, n FIFONotice) context.Context {
	return context.WithValue(ctx, fifoKey{}, n)
}

// stagedFile is one output: tmp is renamed to path at Commit, unless it lies
// in a staged directory, which is renamed as a whole, or was written
// straight into path (a device or FIFO).
type stagedFile struct {
	tmp, path string
	inDir     bool
	direct    bool
	id        fileID // tmp's identity, which the rename keeps
	hasID     bool
}

// ownedDir is a folder OwnDir declared, and the command that writes it.
type ownedDir struct{ dir, by string }

// stagedDir is a missing output directory path, built as the hidden
// directory tmp beside it and renamed into place at Commit.
type stagedDir struct{ tmp, path string }

// CreateDir declares dir an output directory: when it (or some of its
// parents) is missing, files added under it are staged in a hidden directory
// that Commit renames into place, so that a failed or interrupted command
// leaves no new directory behind.
func (o *Outputs) CreateDir(dir string) {
	if o.created == nil {
		o.created = map[string]bool{}
	}
	o.created[filepath.Clean(dir)] = true
}

// OwnDir declares dir (as CreateDir does) a folder that holds the outputs
// of one run of the command by ("reduce", "synth paco"): Commit lists this
// run's outputs in dir/.vkstat-outputs and removes those of the command's
// run before (listed there) that this one did not write, so that the
// folder never mixes two runs' files. Only files still as that run wrote
// them are removed, never one this process read; other files, and other
// commands' outputs, are left alone (see OutputsList).
func (o *Outputs) OwnDir(dir, by string) {
	o.CreateDir(dir)
	d := ownedDir{filepath.Clean(dir), by}
	if !slices.ContainsFunc(o.owned, func(x ownedDir) bool { return x.dir == d.dir }) {
		o.owned = append(o.owned, d)
	}
}

// Add writes one output, through write, to a temporary file beside path. The
// writer given to write is buffered. On error the temporary file is removed,
// the error (naming path) is returned and remembered, and Commit will refuse.
// A path that is a device or a FIFO (/dev/null, a pipe's reader) is not
// replaced: write writes into it at once, and what it wrote stays written
// whatever happens after.
func (o *Outputs) Add(path string, write func(w io.Writer) error) error {
	err := o.add(path, write, false)
	if err != nil && o.err == nil {
		o.err = err
	}
	return err
}

// stageDir returns where files of the missing directory dir are written:
// inside the hidden copy of its top-most missing ancestor.
func (o *Outputs) stageDir(dir string) (string, error) {
	top := MissingTop(dir)
	if err := CheckDirWritable(filepath.Dir(top)); err != nil {
		return "", fmt.Errorf("directory %s: %w", dir, err)
	}
	var tmp string
	for _, d := range o.dirs {
		if d.path == top {
			tmp = d.tmp
		}
	}
	if tmp == "" {
		o.sweep(filepath.Dir(top), filepath.Base(top))
		t, err := os.MkdirTemp(filepath.Dir(top), tempPattern(filepath.Base(top)))
		if err != nil {
			return "", fmt.Errorf("directory %s: %w", dir, err)
		}
		os.Chmod(t, 0o755)
		trackTemp(t, true)
		tmp = t
		o.dirs = append(o.dirs, stagedDir{tmp: tmp, path: top})
	}
	rel, err := filepath.Rel(top, dir)
	if err != nil {
		return "", err
	}
	inner := filepath.Join(tmp, rel)
	if err := os.MkdirAll(inner, 0o755); err != nil {
		return "", fmt.Errorf("directory %s: %w", dir, err)
	}
	return inner, nil
}

// declared reports whether dir lies in a directory CreateDir declared.
func (o *Outputs) declared(dir string) bool {
	for d := filepath.Clean(dir); ; d = filepath.Dir(d) {
		if o.created[d] {
			return true
		}
		if filepath.Dir(d) == d {
			return false
		}
	}
}

// add is Add; with replace, a path that is not a regular file (but a
// device, a FIFO) is replaced all the same (the output list).
func (o *Outputs) add(path string, write func(w io.Writer) error, replace bool) error {
	if o.done {
		return fmt.Errorf("write %s: outputs already committed", path)
	}
	for _, s := range o.staged {
		if filepath.Clean(s.path) == filepath.Clean(path) && !IsCharDevice(path) {
			return fmt.Errorf("write %s: the same output file is given twice", path)
		}
	}
	if o.Ctx != nil {
		if err := o.Ctx.Err(); err != nil {
			return fmt.Errorf("write %s: %w", path, err)
		}
		if g, ok := o.Ctx.Value(guardKey{}).(OutputGuard); ok {
			if err := g(path); err != nil {
				return fmt.Errorf("write %s: %w", path, err)
			}
		}
	}
	dir, base := filepath.Dir(path), filepath.Base(path)
	if st, err := os.Stat(path); err == nil && st.IsDir() {
		return fmt.Errorf("write %s: it is a directory", path)
	} else if err == nil && !st.Mode().IsRegular() && !replace {
		if err := o.writeInto(path, write); err != nil {
			return fmt.Errorf("write %s: %w", path, err)
		}
		o.staged = append(o.staged, stagedFile{path: path, direct: true})
		return nil
	}
	o.sweep(dir, base)
	var f *os.File
	var err error
	inDir := false
	if _, serr := os.Stat(dir); errors.Is(serr, fs.ErrNotExist) && o.declared(dir) {
		inner, err := o.stageDir(dir)
		if err != nil {
			return fmt.Errorf("write %s: %w", path, err)
		}
		f, err = os.OpenFile(filepath.Join(inner, base), os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o600)
		if err != nil {
			return fmt.Errorf("write %s: %w", path, err)
		}
		inDir = true
	} else {
		f, err = os.CreateTemp(dir, tempPattern(base))
		if errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("write %s: directory %s does not exist", path, dir)
		}
		if err != nil {
			return fmt.Errorf("write %s: %w", path, err)
		}
		trackTemp(f.Name(), false)
	}
	tmp := f.Name()
	mode := os.FileMode(0o644)
	if st, err := os.Stat(path); err == nil && st.Mode().IsRegular() {
		mode = st.Mode().Perm()
	}
	var dst io.Writer = f
	if o.Ctx != nil {
		dst = ctxWriter{o.Ctx, f}
	}
	bw := bufio.NewWriterSize(dst, 64<<10)
	err = write(outFile{bw, f})
	if err == nil {
		err = bw.Flush()
	}
	if err == nil {
		err = f.Chmod(mode)
	}
	var st fs.FileInfo
	if err == nil {
		st, err = f.Stat()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		removeTemp(tmp)
		return fmt.Errorf("write %s: %w", path, err)
	}
	id, hasID := idOf(st)
	o.staged = append(o.staged, stagedFile{tmp: tmp, path: path, inDir: inDir, id: id, hasID: hasID})
	return nil
}

// writeInto writes an output straight into path, a device or a FIFO. A
// FIFO's open waits for a reader (o.Ctx's FIFONotice is told when it
// waits).
func (o *Outputs) writeInto(path string, write func(w io.Writer) error) error {
	if st, err := os.Stat(path); err == nil && st.Mode()&fs.ModeNamedPipe != 0 && o.Ctx != nil {
		if n, ok := o.Ctx.Value(fifoKey{}).(FIFONotice); ok {
			t := time.AfterFunc(500*time.Millisecond, func() { n(path) })
			defer t.Stop()
		}
	}
	f, err := os.OpenFile(path, os.O_WRONLY, 0)
	if err != nil {
		return err
	}
	var dst io.Writer = f
	if o.Ctx != nil {
		dst = ctxWriter{o.Ctx, f}
	}
	bw := bufio.NewWriterSize(dst, 64<<10)
	err = write(bw)
	if err == nil {
		err = bw.Flush()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// outFile is the writer an output's encoder gets: buffered, and told the
// size of what is coming by encoders that know it (Allocate, which
// formats.EncodeNPY calls), so that the file system reserves it at once.
type outFile struct {
	*bufio.Writer
	f *os.File
}

// Allocate reserves room for what is buffered and the n bytes coming
// (formats.Preallocate).
func (o outFile) Allocate(n int64) { Preallocate(o.f, int64(o.Buffered())+n) }

// ctxWriter fails writes once its context is done.
type ctxWriter struct {
	ctx context.Context
	w   io.Writer
}

func (c ctxWriter) Write(p []byte) (int, error) {
	if err := c.ctx.Err(); err != nil {
		return 0, err
	}
	return c.w.Write(p)
}

// check verifies, before anything is renamed, that every destination can
// take its file: a staged directory's place is still free, a file's
// directory is still a directory and the file is not one.
func (o *Outputs) check() error {
	for _, d := range o.dirs {
		if _, err := os.Lstat(d.path); err == nil {
			return fmt.Errorf("create directory %s: it appeared while the outputs were written", d.path)
		}
	}
	for _, s := range o.staged {
		if s.inDir || s.direct {
			continue
		}
		if st, err := os.Lstat(s.path); err == nil && st.IsDir() {
			return fmt.Errorf("write %s: it is a directory", s.path)
		}
		if st, err := os.Stat(filepath.Dir(s.path)); err != nil || !st.IsDir() {
			return fmt.Errorf("write %s: directory %s is gone", s.path, filepath.Dir(s.path))
		}
	}
	return nil
}

// Commit publishes every staged output, if every Add succeeded and every
// destination can take its file; otherwise it removes them all and returns
// the error, leaving every destination as it was. Only a rename failing
// after those checks (a race with another program) can publish part of the
// outputs.
func (o *Outputs) Commit() error {
	if o.done {
		return errors.New("outputs already committed")
	}
	if o.err == nil && o.Ctx != nil {
		o.err = o.Ctx.Err()
	}
	var stale map[string][]listEntry
	if o.err == nil {
		stale, o.err = o.listOwned()
	}
	if o.err == nil {
		o.err = o.check()
	}
	if o.err != nil {
		o.Abort()
		return o.err
	}
	o.done = true
	fail := func(path string, err error) error {
		o.Abort()
		return fmt.Errorf("write %s: %w", path, err)
	}
	for len(o.dirs) > 0 {
		d := o.dirs[0]
		if err := os.Rename(d.tmp, d.path); err != nil {
			return fail(d.path, err)
		}
		untrackTemp(d.tmp)
		o.dirs = o.dirs[1:]
	}
	for len(o.staged) > 0 {
		s := o.staged[0]
		if !s.inDir && !s.direct {
			if err := os.Rename(s.tmp, s.path); err != nil {
				return fail(s.path, err)
			}
			untrackTemp(s.tmp)
		}
		o.staged = o.staged[1:]
	}
	for dir, list := range stale {
		removeStale(dir, list)
	}
	return nil
}

// Abort removes the staged temporary files and directories. It does
// nothing after a successful Commit, so it can always be deferred.
func (o *Outputs) Abort() {
	for _, s := range o.staged {
		if !s.inDir && !s.direct {
			removeTemp(s.tmp)
		}
	}
	o.staged = nil
	for _, d := range o.dirs {
		removeTemp(d.tmp)
	}
	o.dirs = nil
}

// A temporary's name says which process made it, ".NAME.tmp-PID@HOST-N",
// so that a later run may remove what a killed one left (sweep).
func tempPattern(base string) string {
	return fmt.Sprintf(".%s.tmp-%d@%s-*", base, os.Getpid(), hostTag())
}

// hostTag is the host's name as it goes into a temporary's name.
var hostTag = sync.OnceValue(func() string {
	h, _ := os.Hostname()
	return strings.Map(func(r rune) rune {
		if r == '/' || r == '*' || r == '-' || r == '@' || r == os.PathSeparator {
			return '_'
		}
		return r
	}, h)
})

// sweep removes the temporaries of base in dir (files and staged
// directories) that processes of this host left when they were killed:
// only names of tempPattern's form, only of processes no longer running.
func (o *Outputs) sweep(dir, base string) {
	if o.swept == nil {
		o.swept, o.names = map[string]bool{}, map[string][]string{}
	}
	key := filepath.Join(dir, base)
	if o.swept[key] {
		return
	}
	o.swept[key] = true
	names, ok := o.names[dir]
	if !ok {
		ents, _ := os.ReadDir(dir)
		for _, e := range ents {
			if strings.Contains(e.Name(), ".tmp-") {
				names = append(names, e.Name())
			}
		}
		o.names[dir] = names
	}
	prefix := "." + base + ".tmp-"
	for _, n := range names {
		rest, ok := strings.CutPrefix(n, prefix)
		if !ok {
			continue
		}
		owner, random, ok := cutLast(rest, "-")
		pidText, host, ok2 := strings.Cut(owner, "@")
		pid, err := strconv.Atoi(pidText)
		if !ok || !ok2 || err != nil || pid <= 0 || host != hostTag() || strings.Trim(random, "0123456789") != "" ||
			pid == os.Getpid() || processAlive(pid) {
			continue
		}
		os.RemoveAll(filepath.Join(dir, n))
	}
}

func cutLast(s, sep string) (before, after string, found bool) {
	if i := strings.LastIndex(s, sep); i >= 0 {
		return s[:i], s[i+len(sep):], true
	}
	return s, "", false
}

// Temporaries in flight, so that an interrupted process that cannot wait
// for its command to return still removes them (RemoveTemporaries).
var temps = struct {
	sync.Mutex
	m map[string]bool // path → is a directory
}{m: map[string]bool{}}

func trackTemp(path string, dir bool) {
	temps.Lock()
	temps.m[path] = dir
	temps.Unlock()
}

func untrackTemp(path string) {
	temps.Lock()
	delete(temps.m, path)
	temps.Unlock()
}

func removeTemp(path string) {
	os.RemoveAll(path)
	untrackTemp(path)
}

// RemoveTemporaries removes every temporary output file and directory not
// yet committed or removed. cmd/vkstat calls it when it must exit before the
// command returns (a second interrupt, or a command that does not stop).
func RemoveTemporaries() {
	temps.Lock()
	defer temps.Unlock()
	for p := range temps.m {
		os.RemoveAll(p)
		delete(temps.m, p)
	}
}

// CheckDirWritable reports whether dir is an existing directory this
// process can create files in.
func CheckDirWritable(dir string) error {
	st, err := os.Stat(dir)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("directory %s does not exist", dir)
		}
		return err
	}
	if !st.IsDir() {
		return fmt.Errorf("%s is not a directory", dir)
	}
	// Creating a file is the test that covers permissions, ACLs and
	// read-only file systems alike.
	f, err := os.CreateTemp(dir, ".vkstat-probe-*")
	if err != nil {
		return fmt.Errorf("directory %s is not writable: %w", dir, err)
	}
	f.Close()
	os.Remove(f.Name())
	return nil
}

// AtomicWrite writes one file atomically: write's output goes to a temporary
// file in the same directory, which is renamed to path only if
// write and every step after it succeeded; on error it is removed and path is
// left as it was.
func AtomicWrite(path string, write func(w io.Writer) error) error {
	return AtomicWriteContext(context.Background(), path, write)
}

// AtomicWriteContext is AtomicWrite that stops writing once ctx is done.
func AtomicWriteContext(ctx context.Context, path string, write func(w io.Writer) error) error {
	o := Outputs{Ctx: ctx}
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
