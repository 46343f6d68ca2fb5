package cli

// One check for the files of every command: the outputs a command line
// names (--out, --out-*, --json, --time-json, and the files written inside
// --out-dir) can be written, and never name one file twice, nor a file the
// command reads. hardenCommands runs checkFiles before every command's
// action (the files and folders the flags name, before any work), and
// puts an output guard in the command's context that every write through
// formats (Outputs, AtomicWriteContext) passes, so that the files a
// command names inside --out-dir are checked as they are written. Every
// string flag of every command has a role in flagRoles
// (TestEveryFileFlagHasARole): a new output flag cannot miss the check.

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"

	ucli "github.com/urfave/cli/v2"

	"github.com/vkstat/vkstat/formats"
	"github.com/vkstat/vkstat/survey"
)

// fileRole is what a string flag's value names.
type fileRole uint8

const (
	notFile fileRole = iota + 1
	inFile           // a file the command reads
	inPair           // NAME=FILE, a file read (FILE when it exists)
	inDir            // a folder the command reads
	outFile          // a file the command writes
	outPair          // NAME=FILE, a file written
	outDir           // a folder the command writes its files into
)

// flagRoles is the role of each string flag by its name; commandRoles
// overrides it for one command (its path, as "synth latent").
var flagRoles = map[string]fileRole{
	"in": inFile, "x": inFile, "y": inFile, "cube": inFile, "angles": inFile, "psf": inFile,
	"solve": inFile, "truth": inFile, "against": inFile, "expect": inPair, "bind": inPair, "case": inFile,
	"include": inDir, "shader-dir": inDir,

	"out": outFile, "out-l": outFile, "out-inverse": outFile, "out-logdet": outFile, "out-x": outFile,
	"out-quad": outFile, "out-info": outFile, "out-cov": outFile, "out-mean": outFile, "out-rho": outFile,
	"out-locations": outFile, "json": outFile, "time-json": outFile, "png": outFile,
	"out-dir": outDir,

	// Names, numbers and lists.
	"device": notFile, "precision": notFile, "device-memory": notFile, "disable": notFile, "plot-format": notFile,
	"suite": notFile, "size": notFile, "estimator": notFile, "tensor": notFile, "stat": notFile, "axes": notFile,
	"nan": notFile, "axis": notFile, "psf-norm": notFile, "center": notFile, "compat": notFile,
	"psf-placement": notFile, "format": notFile, "define": notFile, "target-env": notFile, "push": notFile,
	"spec": notFile, "groups": notFile, "global": notFile, "looks": notFile, "window": notFile, "crop": notFile,
	"quantity": notFile, "filter": notFile, "plot": notFile, "shard": notFile, "shape": notFile, "dtype": notFile,
	"dist": notFile, "star": notFile, "samples": notFile, "type": notFile, "op": notFile, "plant-error": notFile,
	"uniform": notFile, "atol": notFile, "rtol": notFile, "reference": notFile,
}

// commandRoles are the roles a command gives a flag name otherwise.
var commandRoles = map[string]map[string]fileRole{
	"synth latent": {"truth": outFile},
	"shader run":   {"out": outPair},
	"shader check": {"out": outPair},
	"shader watch": {"out": outPair},
}

func init() {
	for _, c := range survey.Columns { // survey run's defaults for its targets
		if _, ok := flagRoles[c.Name]; !ok && !c.Bool {
			flagRoles[c.Name] = notFile
		}
	}
}

// roleOf is the role of flag name in the command at path; 0 for none.
func roleOf(path, name string) fileRole {
	if r, ok := commandRoles[path][name]; ok {
		return r
	}
	return flagRoles[name]
}

// namedFile is a file or folder and what named it ("--out", "an argument").
type namedFile struct{ by, path string }

// runFiles are one command run's files: those its command line names and
// those written so far.
type runFiles struct {
	mu      sync.Mutex
	inputs  []namedFile
	outputs []namedFile // files the flags name
	dirs    []namedFile // --out-dir
	written []namedFile
	late    error // an output written after the command's results (--time-json) that failed
}

type runFilesKey struct{}

// filesOf is the runFiles of the command c runs, nil outside hardenCommands.
func filesOf(c *ucli.Context) *runFiles {
	if c == nil || c.Context == nil {
		return nil
	}
	f, _ := c.Context.Value(runFilesKey{}).(*runFiles)
	return f
}

// noteLate keeps err, the failure of an output written after the command's
// own (--time-json), for the command's exit; false outside hardenCommands.
func noteLate(c *ucli.Context, err error) bool {
	f := filesOf(c)
	if f == nil {
		return false
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.late == nil {
		f.late = err
	}
	return true
}

// checkFiles collects the files of c's command line, refuses an output
// that cannot be written (checkOutputFile, checkOutputDir), named twice or
// naming an input, and returns c's context with the guard every output of
// the run then passes.
func checkFiles(c *ucli.Context, path string) error {
	f := &runFiles{}
	add := func(role fileRole, by, v string) {
		if v == "" {
			return
		}
		switch role {
		case inPair, outPair:
			_, file, ok := strings.Cut(v, "=")
			if !ok {
				return
			}
			v = file
			role = map[fileRole]fileRole{inPair: inFile, outPair: outFile}[role]
		}
		n := namedFile{by, v}
		switch role {
		case inFile:
			f.inputs = append(f.inputs, n)
		case outFile:
			f.outputs = append(f.outputs, n)
		case outDir:
			f.dirs = append(f.dirs, n)
		}
	}
	for _, fl := range c.Command.Flags {
		name := fl.Names()[0]
		role := roleOf(path, name)
		switch fl.(type) {
		case *ucli.StringFlag:
			if role == outDir && c.IsSet(name) {
				if err := checkOutputDir(name, c.String(name)); err != nil {
					return err
				}
			}
			add(role, "--"+name, c.String(name))
		case *ucli.StringSliceFlag:
			for _, v := range c.StringSlice(name) {
				add(role, "--"+name, v)
			}
		}
	}
	if takesArgs[path] && path != "completion" { // the others' arguments are files they read
		for _, a := range c.Args().Slice() {
			if !strings.HasPrefix(a, "@") { // stack's @LIST.txt is read too
				add(inFile, "an argument", a)
			} else {
				add(inFile, "an argument", a[1:])
			}
		}
	}
	for i, o := range f.outputs { // f.dirs is complete: every flag was read
		if formats.IsCharDevice(o.path) {
			continue
		}
		if err := f.checkWritable(o); err != nil {
			return err
		}
		for _, p := range f.outputs[:i] {
			if formats.SameFile(o.path, p.path) {
				return usagef("%s %s and %s %s: the same output file is given twice; give each output its own name", p.by, p.path, o.by, o.path)
			}
		}
		for _, in := range f.inputs {
			if formats.SameFile(o.path, in.path) {
				return usagef("%s %s: is an input of the command (%s); an output never replaces an input, give another name", o.by, o.path, in.by)
			}
		}
	}
	c.Context = formats.WithOutputGuard(c.Context, f.guard)
	errw := c.App.ErrWriter
	c.Context = formats.WithFIFONotice(c.Context, func(path string) {
		fmt.Fprintf(errw, "vkstat: %s is a FIFO: waiting for a reader to open it (as a FIFO input waits for its writer; Ctrl-C stops)\n", path)
	})
	c.Context = context.WithValue(c.Context, runFilesKey{}, f)
	return nil
}

// checkWritable is checkOutputFile, or checkOutputDir for the folder of a
// file inside an --out-dir, which the command creates.
func (f *runFiles) checkWritable(o namedFile) error {
	flag := strings.TrimPrefix(o.by, "--")
	for _, d := range f.dirs {
		if formats.InDir(d.path, o.path) {
			if st, err := os.Stat(o.path); err == nil && st.IsDir() {
				return checkOutputFile(flag, o.path)
			}
			return checkOutputDir(flag, filepath.Dir(o.path))
		}
	}
	return checkOutputFile(flag, o.path)
}

// guard is the formats.OutputGuard of a run: path is refused when the run
// has written it already or reads it.
func (f *runFiles) guard(path string) error {
	if formats.IsCharDevice(path) {
		return nil
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	by := f.namer(path)
	for _, w := range f.written {
		if formats.SameFile(path, w.path) {
			return fmt.Errorf("the same output file is given twice (named by %s); give each output its own name", by)
		}
	}
	for _, in := range f.inputs {
		if formats.SameFile(path, in.path) {
			return fmt.Errorf("%s names an input of the command (%s); an output never replaces an input, give another name", by, in.by)
		}
	}
	f.written = append(f.written, namedFile{by, path})
	return nil
}

// newRound begins another round of a command that writes its outputs
// anew on every round (shader watch, on every save): the files the rounds
// before wrote may be written again; within a round, as within any run, a
// file is written once and never over an input.
func newRound(c *ucli.Context) {
	if f := filesOf(c); f != nil {
		f.mu.Lock()
		defer f.mu.Unlock()
		f.written = nil
	}
}

// namer words what names path: the flags that name it and the --out-dir
// it lies in, else "the command".
func (f *runFiles) namer(path string) string {
	var by []string
	for _, o := range f.outputs {
		if formats.SameFile(path, o.path) {
			by = append(by, o.by)
		}
	}
	for _, d := range f.dirs {
		if formats.SameFile(filepath.Dir(path), d.path) {
			by = append(by, d.by+" "+d.path)
		}
	}
	if len(by) == 0 {
		return "the command"
	}
	return strings.Join(by, " and ")
}
