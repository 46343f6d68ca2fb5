package cli

import (
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"runtime"
	"sort"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/vkstat/vkstat/formats"
	"github.com/vkstat/vkstat/tensor"
)

// assertDir checks that dir holds exactly the named files (no temporaries).
func assertDir(t *testing.T, dir string, want []string) {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	got := []string{}
	for _, e := range ents {
		got = append(got, e.Name())
	}
	sort.Strings(got)
	if want == nil {
		want = []string{}
	}
	sort.Strings(want)
	if !reflect.DeepEqual(got, want) {
		t.Errorf("%s holds %q, want %q", dir, got, want)
	}
}

func writeString(s string) func(io.Writer) error {
	return func(w io.Writer) error { _, err := io.WriteString(w, s); return err }
}

func TestAtomicWrite(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "out.txt")
	if err := formats.AtomicWrite(p, writeString("hello")); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(p); string(b) != "hello" {
		t.Errorf("wrote %q", b)
	}
	if st, _ := os.Stat(p); st.Mode().Perm() != 0o644 {
		t.Errorf("mode %v, want 0644", st.Mode().Perm())
	}

	// A writer that fails halfway leaves the old file untouched, no temp.
	boom := errors.New("boom")
	err := formats.AtomicWrite(p, func(w io.Writer) error {
		io.WriteString(w, strings.Repeat("partial ", 1<<18)) // more than the buffer
		return boom
	})
	if !errors.Is(err, boom) || !strings.Contains(err.Error(), p) {
		t.Errorf("got %v, want boom naming %s", err, p)
	}
	if b, _ := os.ReadFile(p); string(b) != "hello" {
		t.Errorf("old file changed to %d bytes", len(b))
	}
	assertDir(t, dir, []string{"out.txt"})

	// A failing writer and no old file: nothing at all.
	q := filepath.Join(dir, "new.txt")
	if err := formats.AtomicWrite(q, func(io.Writer) error { return boom }); !errors.Is(err, boom) {
		t.Errorf("got %v", err)
	}
	assertDir(t, dir, []string{"out.txt"})

	// Missing directory.
	r := filepath.Join(dir, "no", "such", "x.txt")
	if err := formats.AtomicWrite(r, writeString("x")); err == nil || !strings.Contains(err.Error(), "does not exist") {
		t.Errorf("missing directory: got %v", err)
	}
	assertDir(t, dir, []string{"out.txt"})

	// Replacing keeps the old file's mode.
	os.Chmod(p, 0o600)
	if err := formats.AtomicWrite(p, writeString("again")); err != nil {
		t.Fatal(err)
	}
	if st, _ := os.Stat(p); st.Mode().Perm() != 0o600 {
		t.Errorf("mode %v after replace, want 0600", st.Mode().Perm())
	}
}

func TestOutputs(t *testing.T) {
	dir := t.TempDir()
	a, b, c := filepath.Join(dir, "a"), filepath.Join(dir, "b"), filepath.Join(dir, "c")

	// All succeed: nothing visible before Commit, everything after.
	var o formats.Outputs
	if err := o.Add(a, writeString("A")); err != nil {
		t.Fatal(err)
	}
	if err := o.Add(b, writeString("B")); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(a); err == nil {
		t.Error("a visible before Commit")
	}
	if err := o.Commit(); err != nil {
		t.Fatal(err)
	}
	o.Abort() // harmless after Commit
	assertDir(t, dir, []string{"a", "b"})

	// One fails: Commit refuses, nothing changes, no temps.
	boom := errors.New("boom")
	var o2 formats.Outputs
	o2.Add(a, writeString("A2"))
	if err := o2.Add(c, func(io.Writer) error { return boom }); !errors.Is(err, boom) {
		t.Errorf("Add: got %v", err)
	}
	o2.Add(b, writeString("B2"))
	if err := o2.Commit(); !errors.Is(err, boom) || !strings.Contains(err.Error(), c) {
		t.Errorf("Commit: got %v, want boom naming %s", err, c)
	}
	assertDir(t, dir, []string{"a", "b"})
	if x, _ := os.ReadFile(a); string(x) != "A" {
		t.Errorf("a changed to %q", x)
	}

	// Abort without Commit removes the temps.
	var o3 formats.Outputs
	o3.Add(c, writeString("C"))
	o3.Abort()
	assertDir(t, dir, []string{"a", "b"})

	// The same path twice is an error.
	var o4 formats.Outputs
	defer o4.Abort()
	o4.Add(c, writeString("C"))
	if err := o4.Add(filepath.Join(dir, ".", "c"), writeString("C")); err == nil || !strings.Contains(err.Error(), "twice") {
		t.Errorf("duplicate: got %v", err)
	}
	if err := o4.Commit(); err == nil {
		t.Error("Commit after a failed Add: no error")
	}
	assertDir(t, dir, []string{"a", "b"})

	// A rename onto a directory fails; no temps stay.
	os.Mkdir(c, 0o755)
	var o5 formats.Outputs
	o5.Add(c, writeString("C"))
	if err := o5.Commit(); err == nil {
		t.Error("rename onto a directory: no error")
	}
	assertDir(t, dir, []string{"a", "b", "c"})
}

func TestEnsureDir(t *testing.T) {
	dir := t.TempDir()
	d := filepath.Join(dir, "x", "y")
	if err := formats.EnsureDir(d); err != nil {
		t.Fatal(err)
	}
	if err := formats.EnsureDir(d); err != nil {
		t.Fatal(err)
	}
	if st, err := os.Stat(d); err != nil || !st.IsDir() {
		t.Fatalf("%s not created: %v", d, err)
	}
	f := filepath.Join(dir, "file")
	os.WriteFile(f, nil, 0o644)
	if err := formats.EnsureDir(f); err == nil || !strings.Contains(err.Error(), "not a directory") || !strings.Contains(err.Error(), f) {
		t.Errorf("file in the way: got %v", err)
	}
	if err := formats.EnsureDir(filepath.Join(f, "sub")); err == nil || !strings.Contains(err.Error(), "output directory") {
		t.Errorf("file in the path: got %v", err)
	}
}

// TestCommitChecksFirst: a destination that cannot take its file (it became
// a directory after Add) stops Commit before any output is renamed.
func TestCommitChecksFirst(t *testing.T) {
	dir := t.TempDir()
	a, b := filepath.Join(dir, "a"), filepath.Join(dir, "b")
	var o formats.Outputs
	o.Add(a, writeString("A"))
	o.Add(b, writeString("B"))
	os.Mkdir(b, 0o755)
	if err := o.Commit(); err == nil || !strings.Contains(err.Error(), b) {
		t.Errorf("Commit: got %v, want an error naming %s", err, b)
	}
	assertDir(t, dir, []string{"b"})

	// A declared directory is created at Commit only, with every file.
	out := filepath.Join(dir, "new", "out")
	var o2 formats.Outputs
	o2.CreateDir(out)
	o2.Add(filepath.Join(out, "x"), writeString("X"))
	o2.Add(filepath.Join(out, "y"), writeString("Y"))
	if _, err := os.Stat(filepath.Join(dir, "new")); err == nil {
		t.Error("directory visible before Commit")
	}
	if err := o2.Commit(); err != nil {
		t.Fatal(err)
	}
	assertDir(t, out, []string{"x", "y"})
	assertDir(t, dir, []string{"b", "new"})

	// Aborted: no directory, no temporary.
	var o3 formats.Outputs
	o3.CreateDir(filepath.Join(dir, "gone"))
	o3.Add(filepath.Join(dir, "gone", "x"), writeString("X"))
	o3.Abort()
	assertDir(t, dir, []string{"b", "new"})
}

// failWriter fails every write, as a full disk does.
type failWriter struct{}

func (failWriter) Write([]byte) (int, error) { return 0, syscall.ENOSPC }

// Issue 25, item 7: a command whose standard output cannot be written
// fails, saying so on stderr, instead of exiting 0 with its result lost.
func TestStdoutWriteError(t *testing.T) {
	dir := t.TempDir()
	in := writeNPY(t, dir, "a.npy", tensor.FromF64(ramp(12), 3, 4))
	for _, args := range [][]string{
		{"devices"},
		{"devices", "--json"},
		{"--help"},
		{"--device", "cpu", "reduce", "--in", in, "--axis", "0", "--out-dir", filepath.Join(dir, "r")},
	} {
		var stderr bytes.Buffer
		code := Main(context.Background(), append([]string{"vkstat"}, args...), failWriter{}, &stderr)
		if code != ExitError || !strings.Contains(stderr.String(), "no space left on device") {
			t.Errorf("%v to a full disk: exit %d, stderr %q; want %d and the write error", args, code, stderr.String(), ExitError)
		}
	}
	if _, err := os.Stat("/bin/sh"); err != nil || runtime.GOOS != "linux" {
		return
	}
	// Closed (>&-): Go's runtime puts /dev/null there, read-write, after
	// cmd/vkstat has looked.
	cmd := exec.Command("/bin/sh", "-c", `"$0" devices --json >&-`, buildVkstat(t))
	out, err := cmd.CombinedOutput()
	if err == nil || !strings.Contains(string(out), "standard output is closed") {
		t.Errorf("devices --json >&-: %v, %q; want a failure naming the closed standard output", err, out)
	}
	// /dev/null given by the parent, write-only (a shell's >) or
	// read-write (1<>, Python's subprocess.DEVNULL), is a standard output.
	for _, redir := range []string{">/dev/null", "1<>/dev/null"} {
		cmd = exec.Command("/bin/sh", "-c", `"$0" devices --json `+redir, buildVkstat(t))
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Errorf("devices --json %s: %v, %q; want success", redir, err, out)
		}
	}
}

// Issue 25, item 14: an output folder describes one run. latent run again
// into the same --out with fewer --stats used to leave the first run's
// corr files beside the new summary; the next run removes the outputs of
// the one before that it does not write again, and nothing else.
func TestOutputFolderOneRun(t *testing.T) {
	dir := t.TempDir()
	lat := writeNPY(t, dir, "lat.npy", tensor.FromF64(ramp(2*3*4*4), 1, 2, 3, 4, 4))
	out := filepath.Join(dir, "out")
	if code, _, stderr := run(t, "--device", "cpu", "latent", "--in", lat, "--stat", "moments,corr", "--out-dir", out); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	mine := filepath.Join(out, "notes.txt") // not vkstat's: stays
	if err := os.WriteFile(mine, []byte("mine"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(out, "corr.npy")); err != nil {
		t.Fatal(err)
	}
	if code, _, stderr := run(t, "--device", "cpu", "latent", "--in", lat, "--stat", "moments", "--out-dir", out); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	assertDir(t, out, []string{"mean.npy", "var.npy", "std.npy", "min.npy", "max.npy", "skew.npy", "kurt.npy",
		"summary.json", "summary.txt", "notes.txt", formats.OutputsList})

	// reduce the same way: --stat max after --stat mean,std.
	a := writeNPY(t, dir, "a.npy", tensor.FromF64(ramp(12), 3, 4))
	rout := filepath.Join(dir, "r")
	for _, stat := range []string{"mean,std", "max"} {
		if code, _, stderr := run(t, "--device", "cpu", "reduce", "--in", a, "--axis", "0", "--stat", stat, "--out-dir", rout); code != 0 {
			t.Fatalf("exit %d: %s", code, stderr)
		}
	}
	assertDir(t, rout, []string{"max.npy", formats.OutputsList})

	// A list naming what is not a plain file of the folder removes nothing.
	if err := os.WriteFile(filepath.Join(rout, formats.OutputsList), []byte("../a.npy\nsub\n/etc/passwd\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(filepath.Join(rout, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	if code, _, stderr := run(t, "--device", "cpu", "reduce", "--in", a, "--axis", "0", "--stat", "min", "--out-dir", rout); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	assertDir(t, rout, []string{"max.npy", "min.npy", "sub", formats.OutputsList})
	if _, err := os.Stat(a); err != nil {
		t.Errorf("%s removed: %v", a, err)
	}
}

// Issue 34, defect 1: a folder's list of outputs removes only the outputs
// the last run of the same command wrote there and nobody changed since:
// not a user's file a forged list names, not a user's file copied over an
// earlier output, not an input of the running command (the cube of a synth
// paco folder that paco writes into, a stack's dates, reduce's --in), not
// through a list that is a link to another folder's. On main each of these
// files was removed, the command exiting 0.
func TestOutputFolderKeepsWhatIsNotItsOwn(t *testing.T) {
	a := writeNPY(t, t.TempDir(), "a.npy", tensor.FromF64(ramp(12), 3, 4))
	reduce := func(dir, in, stat string) {
		t.Helper()
		if code, _, stderr := run(t, "--device", "cpu", "reduce", "--in", in, "--axis", "0", "--stat", stat, "--out-dir", dir); code != 0 {
			t.Fatalf("reduce --stat %s: exit %d: %s", stat, code, stderr)
		}
	}
	// A forged list, and an old list of bare names: nothing checks them.
	d := t.TempDir()
	os.WriteFile(filepath.Join(d, "notes.txt"), []byte("mine"), 0o644)
	os.WriteFile(filepath.Join(d, formats.OutputsList), []byte("notes.txt\n"), 0o644)
	reduce(d, a, "mean")
	assertDir(t, d, []string{"notes.txt", "mean.npy", formats.OutputsList})

	// A user's file copied over an earlier output.
	reduce(d, a, "mean,std")
	os.WriteFile(filepath.Join(d, "std.npy"), []byte("my own std"), 0o644)
	reduce(d, a, "mean")
	assertDir(t, d, []string{"notes.txt", "mean.npy", "std.npy", formats.OutputsList})

	// An input of the command: reduce --in D/mean.npy --out-dir D.
	reduce(d, filepath.Join(d, "mean.npy"), "max")
	assertDir(t, d, []string{"notes.txt", "mean.npy", "std.npy", "max.npy", formats.OutputsList})

	// paco writing into the folder synth paco made keeps synth's files.
	w := filepath.Join(t.TempDir(), "work")
	if code, _, stderr := run(t, "synth", "paco", "--size", "24", "--frames", "8", "--out-dir", w); code != 0 {
		t.Fatalf("synth paco: exit %d: %s", code, stderr)
	}
	synth := dirNames(t, w)
	if code, _, stderr := run(t, "--device", "cpu", "paco", "--cube", filepath.Join(w, "cube.fits"), "--angles", filepath.Join(w, "angles.fits"),
		"--psf", filepath.Join(w, "psf.fits"), "--radius", "2", "--format", "npy", "--out-dir", w); code != 0 {
		t.Fatalf("paco: exit %d: %s", code, stderr)
	}
	for _, n := range synth {
		if _, err := os.Stat(filepath.Join(w, n)); err != nil {
			t.Errorf("paco into synth paco's folder removed %s", n)
		}
	}

	// A list that links to another folder's list: here a copy of d made
	// of hard links, which d's list names exactly.
	reduce(d, a, "min,var")
	g := t.TempDir()
	for _, n := range []string{"min.npy", "var.npy"} {
		if err := os.Link(filepath.Join(d, n), filepath.Join(g, n)); err != nil {
			t.Skipf("no hard links: %v", err)
		}
	}
	os.Symlink(filepath.Join(d, formats.OutputsList), filepath.Join(g, formats.OutputsList))
	reduce(g, a, "sum")
	assertDir(t, g, []string{"min.npy", "var.npy", "sum.npy", formats.OutputsList})
}

// Issue 34, defect 1: stack into the folder synth stack made keeps the dates
// it read (on main: removed, exit 0).
func TestStackIntoSynthFolderKeepsDates(t *testing.T) {
	d := t.TempDir()
	synthStack(t, d, "--dates", "3", "--shape", "16,16")
	before := dirNames(t, d)
	if code, _, stderr := run(t, "--device", "cpu", "stack", "--format", "npy", "--stat", "mean", "--out-dir", d, "@"+filepath.Join(d, "dates.txt")); code != 0 {
		t.Fatalf("stack: exit %d: %s", code, stderr)
	}
	for _, n := range before {
		if _, err := os.Stat(filepath.Join(d, n)); err != nil {
			t.Errorf("stack into synth stack's folder removed %s", n)
		}
	}
}

// Issue 34, defect 2: a list that is a FIFO, a link to /dev/zero or a
// 64 GiB sparse file neither stops nor sinks the command (on main: a hang,
// memory without bound, death out of memory leaving .mean.npy.tmp-*).
func TestOutputFolderListBounded(t *testing.T) {
	a := writeNPY(t, t.TempDir(), "a.npy", tensor.FromF64(ramp(12), 3, 4))
	for name, mk := range map[string]func(string) error{
		"fifo": func(p string) error { return syscall.Mkfifo(p, 0o600) },
		"zero": func(p string) error { return os.Symlink("/dev/zero", p) },
		"64GiB": func(p string) error {
			f, err := os.Create(p)
			f.Close()
			return errors.Join(err, os.Truncate(p, 64<<30))
		},
	} {
		t.Run(name, func(t *testing.T) {
			d := t.TempDir()
			if err := mk(filepath.Join(d, formats.OutputsList)); err != nil {
				t.Skip(err)
			}
			done := make(chan int, 1)
			go func() {
				code, _, _ := run(t, "--device", "cpu", "reduce", "--in", a, "--axis", "0", "--stat", "mean", "--out-dir", d)
				done <- code
			}()
			select {
			case code := <-done:
				if code != 0 {
					t.Errorf("exit %d", code)
				}
			case <-time.After(20 * time.Second):
				t.Fatal("reduce still runs after 20 s")
			}
			assertDir(t, d, []string{"mean.npy", formats.OutputsList})
		})
	}
}

// dirNames lists dir.
func dirNames(t *testing.T, dir string) []string {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range ents {
		names = append(names, e.Name())
	}
	return names
}
