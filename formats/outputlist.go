package formats

// The list of an output folder's outputs (Outputs.OwnDir), so that a
// command run again into its folder removes what its last run wrote and
// this one does not write again. A file is removed only when all of this
// holds: the last run of the same command wrote it (the list says which
// command wrote each file); it is still that file, unchanged (the same
// device, inode, size and modification time); and this process did not read
// it (an input: `reduce --in D/mean.npy --out-dir D`). The list is read only
// when it is a regular file, not a symbolic link, of at most
// maxOutputsList bytes; lines it cannot read (an older list's bare names,
// a user's edits) name nothing to remove.

import (
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
)

// OutputsList is the file in an OwnDir folder that lists the outputs of
// the last run of each command there.
const OutputsList = ".vkstat-outputs"

// maxOutputsList bounds the list read: some 40,000 files.
const maxOutputsList = 4 << 20

const outputsListHeader = `# vkstat-outputs 2: the outputs of the last vkstat run of each command in this
# folder. The next run of that command removes those it does not write again,
# if unchanged since. Each line: command, device, inode, size, modification
# time (ns since 1970), name.
`

// fileKey identifies a file on this machine: its device and inode.
type fileKey struct{ dev, ino uint64 }

// fileID identifies a file as written: its key, size and modification time.
type fileID struct {
	fileKey
	size, mtime int64
}

// idOf is fi's identity; false where the system gives no inode.
func idOf(fi fs.FileInfo) (fileID, bool) {
	k, ok := keyOf(fi)
	return fileID{k, fi.Size(), fi.ModTime().UnixNano()}, ok
}

// inputs are the regular files this process has opened for reading
// (openInput, rasters), as they were then: an output list never removes
// one of them. (The size and time tell a file that reuses the inode of one
// read and removed since.)
var inputs sync.Map // fileID → struct{}

// noteInput records the regular file fi as an input of this process.
func noteInput(fi fs.FileInfo) {
	if id, ok := idOf(fi); ok && fi.Mode().IsRegular() {
		inputs.Store(id, struct{}{})
	}
}

// noteInputPath is noteInput for a file opened by path elsewhere (GDAL).
func noteInputPath(path string) {
	if st, err := os.Stat(path); err == nil {
		noteInput(st)
	}
}

func isInput(id fileID) bool {
	_, ok := inputs.Load(id)
	return ok
}

// listEntry is one line of an output list: a file name of the folder, the
// command that wrote it and the file's identity when written.
type listEntry struct {
	by   string
	id   fileID
	name string
}

func (e listEntry) String() string {
	return fmt.Sprintf("%q %d %d %d %d %q\n", e.by, e.id.dev, e.id.ino, e.id.size, e.id.mtime, e.name)
}

// parseListEntry reads a line that String wrote (a carriage return at its
// end is dropped); false for anything else.
func parseListEntry(line string) (e listEntry, ok bool) {
	line = strings.TrimSuffix(line, "\r")
	q, err := strconv.QuotedPrefix(line)
	if err != nil {
		return e, false
	}
	e.by, _ = strconv.Unquote(q)
	f := strings.SplitN(line[len(q):], " ", 6)
	if len(f) != 6 || f[0] != "" {
		return e, false
	}
	var errs [5]error
	e.id.dev, errs[0] = strconv.ParseUint(f[1], 10, 64)
	e.id.ino, errs[1] = strconv.ParseUint(f[2], 10, 64)
	e.id.size, errs[2] = strconv.ParseInt(f[3], 10, 64)
	e.id.mtime, errs[3] = strconv.ParseInt(f[4], 10, 64)
	e.name, errs[4] = strconv.Unquote(f[5])
	for _, err := range errs {
		if err != nil {
			return e, false
		}
	}
	if e.name == "" || e.name == "." || e.name == ".." || e.name == OutputsList || strings.ContainsAny(e.name, "/\x00") ||
		filepath.Base(e.name) != e.name {
		return e, false
	}
	return e, true
}

// readOutputsList reads dir's list; nothing when there is none, or it is
// not a regular file (a FIFO, a device, a symbolic link), or it is too
// large to be one.
func readOutputsList(dir string) []listEntry {
	path := filepath.Join(dir, OutputsList)
	f, err := openRegular(path)
	if err != nil {
		return nil
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil
	}
	in := newInputFile(path, f, st)
	defer in.Close()
	b, err := readInputLimit(in, maxOutputsList, "a list of outputs", true)
	if err != nil {
		return nil
	}
	var list []listEntry
	for _, line := range strings.Split(string(b), "\n") {
		if e, ok := parseListEntry(line); ok {
			list = append(list, e)
		}
	}
	return list
}

// currentID is the identity of dir/name if it is a regular file.
func currentID(dir, name string) (fileID, bool) {
	st, err := os.Lstat(filepath.Join(dir, name))
	if err != nil || !st.Mode().IsRegular() {
		return fileID{}, false
	}
	return idOf(st)
}

// listOwned stages the new list of every owned folder and returns, per
// folder, the outputs of the previous run of the same command that this
// one does not write again and that may be removed. The new list holds
// this run's outputs and the other commands' that are still as written.
func (o *Outputs) listOwned() (map[string][]listEntry, error) {
	stale := map[string][]listEntry{}
	for _, od := range o.owned {
		dir := od.dir
		var text strings.Builder
		text.WriteString(outputsListHeader)
		written := map[string]bool{OutputsList: true}
		for _, s := range o.staged {
			if filepath.Dir(filepath.Clean(s.path)) != dir || s.direct {
				continue
			}
			name := filepath.Base(s.path)
			written[name] = true
			if s.hasID {
				text.WriteString(listEntry{by: od.by, id: s.id, name: name}.String())
			}
		}
		for _, e := range readOutputsList(dir) {
			if written[e.name] {
				continue
			}
			written[e.name] = true // a name listed twice: the first line counts
			if id, ok := currentID(dir, e.name); !ok || id != e.id || isInput(id) {
				continue // gone, changed, or read by this run: not ours to remove any more
			}
			if e.by == od.by {
				stale[dir] = append(stale[dir], e)
			} else {
				text.WriteString(e.String())
			}
		}
		err := o.add(filepath.Join(dir, OutputsList), func(w io.Writer) error {
			_, err := io.WriteString(w, text.String())
			return err
		}, true)
		if err != nil {
			return nil, err
		}
	}
	return stale, nil
}

// removeStale removes the listed files of dir that are still as listed.
func removeStale(dir string, list []listEntry) {
	for _, e := range list {
		if id, ok := currentID(dir, e.name); ok && id == e.id && !isInput(id) {
			os.Remove(filepath.Join(dir, e.name))
		}
	}
}
