//go:build linux || darwin

package formats

import (
	"bytes"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/vkstat/vkstat/internal/checks"
	"github.com/vkstat/vkstat/tensor"
)

// commitOwned writes each name into dir as one run of the command by
// would (Outputs.OwnDir), its content naming the run.
func commitOwned(t *testing.T, dir, by string, names ...string) {
	t.Helper()
	o := Outputs{}
	defer o.Abort()
	o.OwnDir(dir, by)
	for _, n := range names {
		if err := o.Add(filepath.Join(dir, n), func(w io.Writer) error { _, err := io.WriteString(w, by+": "+n); return err }); err != nil {
			t.Fatal(err)
		}
	}
	if err := o.Commit(); err != nil {
		t.Fatal(err)
	}
}

// Issue 34, defect 1: the output list removes only what the last run of the
// same command wrote and nobody changed since, never an input of this
// process, never through a symbolic link; other commands' outputs and the
// user's files stay. (On main the list held bare names, and each of the
// files kept here was removed.)
func TestOutputListRemovesOnlyItsOwn(t *testing.T) {
	d := t.TempDir()
	commitOwned(t, d, "reduce", "mean.npy", "std.npy", "max.npy", "min.npy")
	commitOwned(t, d, "synth", "truth.json", "cube.npy")
	// The user copies a file of their own over an earlier output.
	if err := os.WriteFile(filepath.Join(d, "std.npy"), []byte("mine, longer than reduce's"), 0o644); err != nil {
		t.Fatal(err)
	}
	// This process reads an earlier output: an input of this run.
	if _, err := ReadText(filepath.Join(d, "min.npy"), 0, "an input"); err != nil {
		t.Fatal(err)
	}
	commitOwned(t, d, "reduce", "var.npy")
	// max.npy and mean.npy were reduce's and unchanged: gone; std.npy is the
	// user's now, min.npy an input, truth.json and cube.npy synth's.
	assertDir(t, d, []string{"var.npy", "std.npy", "min.npy", "truth.json", "cube.npy", OutputsList})
	// synth run again without cube.npy removes its own.
	commitOwned(t, d, "synth", "truth.json")
	assertDir(t, d, []string{"var.npy", "std.npy", "min.npy", "truth.json", OutputsList})

	// A list of bare names (the old format, or forged) removes nothing.
	f := t.TempDir()
	for _, n := range []string{"notes.txt", "mean.npy"} {
		os.WriteFile(filepath.Join(f, n), []byte("mine"), 0o644)
	}
	os.WriteFile(filepath.Join(f, OutputsList), []byte("notes.txt\nmean.npy\r\n"), 0o644)
	commitOwned(t, f, "reduce", "max.npy")
	assertDir(t, f, []string{"notes.txt", "mean.npy", "max.npy", OutputsList})

	// A list that is a symbolic link to another folder's is not read: here
	// a copy of d made of hard links, which d's list names exactly.
	g := t.TempDir()
	commitOwned(t, d, "reduce", "a.npy", "b.npy")
	for _, n := range []string{"a.npy", "b.npy"} {
		if err := os.Link(filepath.Join(d, n), filepath.Join(g, n)); err != nil {
			t.Skipf("no hard links here: %v", err)
		}
	}
	os.Symlink(filepath.Join(d, OutputsList), filepath.Join(g, OutputsList))
	commitOwned(t, g, "reduce", "c.npy")
	assertDir(t, g, []string{"a.npy", "b.npy", "c.npy", OutputsList})
	if st, err := os.Lstat(filepath.Join(g, OutputsList)); err != nil || !st.Mode().IsRegular() {
		t.Errorf("the symbolic link %s is not replaced by a list: %v", OutputsList, st.Mode())
	}
	assertDir(t, d, []string{"std.npy", "min.npy", "truth.json", "a.npy", "b.npy", OutputsList}) // var.npy: reduce's, not written again
}

// The list's lines survive an editor's CRLF and name any file name: one
// with a newline, quotes, non-ASCII letters, bytes that are not UTF-8. A
// list naming itself removes nothing.
func TestOutputListNames(t *testing.T) {
	d := t.TempDir()
	odd := []string{"données été.npy", "a\nb.npy", `q"uote.npy`, "\xff\xfe.npy", " lead space", "x.npy"}
	commitOwned(t, d, "latent", odd...)
	list := filepath.Join(d, OutputsList)
	b, err := os.ReadFile(list)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(list, bytes.ReplaceAll(b, []byte("\n"), []byte("\r\n")), 0o644); err != nil {
		t.Fatal(err)
	}
	commitOwned(t, d, "latent", "x.npy")
	assertDir(t, d, []string{"x.npy", OutputsList})

	// A line naming the list itself, with its identity: nothing removed.
	st, _ := os.Lstat(list)
	id, _ := idOf(st)
	self := listEntry{by: "latent", id: id, name: OutputsList}.String()
	if err := os.WriteFile(list, []byte(self), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, ok := parseListEntry(strings.TrimSuffix(self, "\n")); ok {
		t.Errorf("a line naming the list itself is read: %q", self)
	}
	commitOwned(t, d, "latent", "y.npy")
	assertDir(t, d, []string{"x.npy", "y.npy", OutputsList})
}

// Issue 34, defect 2: the list is read only when it is a regular file, and
// no further than its bound: a FIFO with no writer, a link to /dev/zero or
// a 64 GiB sparse file neither stops nor sinks the command, and leaves no
// temporary behind. (On main the first hung, the second grew without
// bound, the third died out of memory leaving .x.npy.tmp-*.)
func TestOutputListReadBounded(t *testing.T) {
	cases := map[string]func(list string) error{
		"fifo":  func(list string) error { return syscall.Mkfifo(list, 0o600) },
		"zero":  func(list string) error { return os.Symlink("/dev/zero", list) },
		"64GiB": func(list string) error { return os.WriteFile(list, nil, 0o644) },
	}
	for name, make := range cases {
		t.Run(name, func(t *testing.T) {
			d := t.TempDir()
			list := filepath.Join(d, OutputsList)
			if err := make(list); err != nil {
				t.Skip(err)
			}
			if name == "64GiB" {
				if err := os.Truncate(list, 64<<30); err != nil {
					t.Skip(err)
				}
			}
			_, err := checks.AllocDuring(t, name, 10*time.Second, func() error {
				o := Outputs{}
				defer o.Abort()
				o.OwnDir(d, "reduce")
				o.Add(filepath.Join(d, "x.npy"), func(w io.Writer) error { _, err := io.WriteString(w, "x"); return err })
				return o.Commit()
			})
			if err != nil {
				t.Fatal(err)
			}
			assertDir(t, d, []string{"x.npy", OutputsList})
			if st, err := os.Lstat(list); err != nil || !st.Mode().IsRegular() || st.Size() > 4096 {
				t.Errorf("the list is not replaced by a small regular file: %v %v", st.Mode(), err)
			}
		})
	}
}

// Issue 34, defect 5: an output path that is a device or a FIFO is written
// into, never replaced by a regular file (as root, --json /dev/null
// replaced the system's /dev/null); the output list stays a regular file.
func TestOutputIntoDeviceOrFIFO(t *testing.T) {
	d := t.TempDir()
	// A link to /dev/null, and a device node where this user may make one.
	null := filepath.Join(d, "null")
	if err := os.Symlink("/dev/null", null); err != nil {
		t.Fatal(err)
	}
	nodes := []string{null}
	if err := syscall.Mknod(filepath.Join(d, "node"), syscall.S_IFCHR|0o666, 1<<8|3); err == nil {
		nodes = append(nodes, filepath.Join(d, "node"))
	} else {
		t.Logf("no device node of our own (%v): /dev/null through a link only", err)
	}
	for _, p := range nodes {
		if err := AtomicWrite(p, func(w io.Writer) error { _, err := io.WriteString(w, "{}"); return err }); err != nil {
			t.Errorf("%s: %v", p, err)
		}
		if st, err := os.Stat(p); err != nil || st.Mode()&os.ModeCharDevice == 0 {
			t.Errorf("%s is no longer a device: %v %v", p, st.Mode(), err)
		}
	}
	if st, _ := os.Lstat(null); st.Mode()&os.ModeSymlink == 0 {
		t.Errorf("%s: the link was replaced", null)
	}

	// A FIFO gets the bytes; a reader reads them.
	fifoPath := filepath.Join(d, "out.npy")
	if err := syscall.Mkfifo(fifoPath, 0o600); err != nil {
		t.Skip(err)
	}
	got := make(chan []byte)
	go func() {
		b, _ := os.ReadFile(fifoPath)
		got <- b
	}()
	want := npyBytes(t, tensor.FromF64([]float64{1, 2, 3}, 3))
	o := Outputs{}
	o.OwnDir(d, "map")
	if err := o.Add(fifoPath, func(w io.Writer) error { return EncodeNPY(w, tensor.FromF64([]float64{1, 2, 3}, 3)) }); err != nil {
		t.Fatal(err)
	}
	if err := o.Commit(); err != nil {
		t.Fatal(err)
	}
	select {
	case b := <-got:
		if !bytes.Equal(b, want) {
			t.Errorf("the FIFO's reader got %d bytes, want the %d of the NPY file", len(b), len(want))
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the FIFO's reader got nothing in 10 s")
	}
	if st, err := os.Lstat(fifoPath); err != nil || st.Mode()&os.ModeNamedPipe == 0 {
		t.Errorf("%s is no longer a FIFO: %v %v", fifoPath, st.Mode(), err)
	}
	b, _ := os.ReadFile(filepath.Join(d, OutputsList))
	if strings.Contains(string(b), "out.npy") {
		t.Errorf("the list names the FIFO:\n%s", b)
	}
}

// A killed run's temporaries (a file's, a missing folder's) are removed by
// the next run writing the same output, if their process is gone; those of
// live processes, of other hosts and names not of that form stay.
func TestStaleTemporariesRemoved(t *testing.T) {
	cmd := exec.Command("true")
	if err := cmd.Run(); err != nil {
		t.Skip(err)
	}
	dead, live, host := cmd.Process.Pid, os.Getppid(), hostTag()
	if processAlive(dead) {
		t.Skipf("pid %d is in use again", dead)
	}
	d := t.TempDir()
	mk := func(name string, dir bool) {
		p := filepath.Join(d, name)
		if dir {
			os.MkdirAll(filepath.Join(p, "inner"), 0o755)
			return
		}
		os.WriteFile(p, []byte("partial"), 0o644)
	}
	stale := []string{
		".mean.npy.tmp-" + strconv.Itoa(dead) + "@" + host + "-123",
		".S.tmp-" + strconv.Itoa(dead) + "@" + host + "-456",
	}
	kept := []string{
		".mean.npy.tmp-" + strconv.Itoa(live) + "@" + host + "-789", // alive
		".mean.npy.tmp-" + strconv.Itoa(dead) + "@elsewhere-12",     // another host's
		".mean.npy.tmp-12345", // before pids were named
		".std.npy.tmp-" + strconv.Itoa(dead) + "@" + host + "-1",       // not written by this run
		".mean.npy.tmp-" + strconv.Itoa(dead) + "@" + host + "-1x",     // not of the form
		"mean.npy.tmp-" + strconv.Itoa(dead) + "@" + host + "-1",       // not hidden
		".S.tmp-" + strconv.Itoa(dead) + "@" + host + "-456.notes.txt", // not of the form
	}
	mk(stale[0], false)
	mk(stale[1], true)
	for _, k := range kept {
		mk(k, false)
	}
	o := Outputs{}
	defer o.Abort()
	o.CreateDir(filepath.Join(d, "S"))
	for _, p := range []string{filepath.Join(d, "mean.npy"), filepath.Join(d, "S", "x.npy")} {
		if err := o.Add(p, func(w io.Writer) error { _, err := io.WriteString(w, "x"); return err }); err != nil {
			t.Fatal(err)
		}
	}
	if err := o.Commit(); err != nil {
		t.Fatal(err)
	}
	assertDir(t, d, append(kept, "mean.npy", "S"))
}
