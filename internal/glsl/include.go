package glsl

// #include resolution, called by libshaderc for every #include it meets
// (through vksInclude, callback.go). glslang's preprocessor has no limit of
// its own: a file that includes itself is expanded until memory runs out.
// So the includer keeps the chain of files being included and refuses a
// chain deeper than maxIncludeDepth, naming the cycle in it when there is
// one, and more than maxIncludes #includes in one compilation (a file that
// includes itself twice doubles at each level). A file may come back on
// the chain: headers that include each other behind include guards are
// legal, and the guard ends the chain on the second visit.

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"
)

// maxIncludeDepth is the deepest chain of #includes accepted, and
// maxIncludes the most #includes resolved in one compilation.
const (
	maxIncludeDepth = 32
	maxIncludes     = 4096
)

// MaxSourceBytes is the most read of a shader source or an included file.
const MaxSourceBytes = 16 << 20

// includer resolves the #includes of one compilation.
type includer struct {
	dirs []string // --include folders, in order
	read func(path string) ([]byte, error)

	chain   []link            // the files being included, the shader first
	count   int               // #includes resolved so far
	err     error             // the first cycle or depth error: Compile returns it
	last    [3]string         // the last refused #include: requested, requesting, depth
	lastErr error             // and why
	sources map[string][]byte // what was read, by name, for the diagnostics' columns
}

// link is a file on the include chain: the name the compiler knows it by,
// and what identifies it (its real path, or its name when not on disk).
type link struct{ name, id string }

// errNotFound says a candidate file does not exist.
var errNotFound = errors.New("not found")

func newIncluder(file string, dirs []string, read func(string) ([]byte, error)) *includer {
	if read == nil {
		read = readSource
	}
	in := &includer{dirs: dirs, read: read, sources: map[string][]byte{}}
	in.chain = []link{{name: file, id: fileID(file)}}
	return in
}

// fileID identifies a file on disk by its real path (symbolic links
// followed), so that two names of one file are one link; a name that is
// not a file on disk is its own identity.
func fileID(name string) string {
	if strings.HasPrefix(name, builtinPrefix) {
		return name
	}
	if p, err := filepath.EvalSymlinks(name); err == nil {
		name = p
	}
	if p, err := filepath.Abs(name); err == nil {
		name = p
	}
	return name
}

// resolve finds requested, #included from requesting at depth (1 for the
// shader's own #includes): "x" next to the including file first, then in
// the include folders, then among vkstat's built-in includes; <x> in the
// folders and the built-ins only. It returns the file's name and content,
// or an error message for the compiler to report.
func (in *includer) resolve(requested string, relative bool, requesting string, depth int) (string, []byte, error) {
	// glslang asks again as <x> when "x" fails: the answer stays the cycle.
	call := [3]string{requested, requesting, fmt.Sprint(depth)}
	if in.lastErr != nil && call == in.last {
		return "", nil, in.lastErr
	}
	if depth >= 1 && depth <= len(in.chain) {
		in.chain = in.chain[:depth] // the includes of finished files are off the chain
	}
	if top := in.chain[len(in.chain)-1]; top.name != requesting {
		// Not the file the chain ends with (a compiler that calls in another
		// order): start the chain again from it, still bounded by depth.
		in.chain = append(in.chain, link{name: requesting, id: fileID(requesting)})
	}
	name, content, err := in.find(requested, relative, requesting)
	if err != nil {
		return "", nil, err
	}
	id := fileID(name)
	in.count++
	var err2 error
	switch {
	case len(in.chain) > maxIncludeDepth:
		if cyc := in.cycle(); cyc != "" {
			err2 = fmt.Errorf("#include cycle that no include guard ends (%d files deep): %s", maxIncludeDepth, cyc)
		} else {
			err2 = fmt.Errorf("#include nested deeper than %d files: %s", maxIncludeDepth, in.show(in.chain, name))
		}
	case in.count > maxIncludes:
		err2 = fmt.Errorf("more than %d #includes in one compilation (the last %s from %s): a file included several times over without include guards?", maxIncludes, requested, requesting)
	}
	if err2 != nil {
		in.fail(err2, call)
		return "", nil, err2
	}
	in.chain = append(in.chain, link{name: name, id: id})
	in.sources[name] = content
	return name, content, nil
}

// cycle writes the first cycle on the chain, "a.glsl → b.glsl → a.glsl",
// or "" when no file is on it twice.
func (in *includer) cycle() string {
	for j, l := range in.chain {
		for i := range j {
			if in.chain[i].id == l.id {
				return in.show(in.chain[i:j], l.name)
			}
		}
	}
	return ""
}

func (in *includer) fail(err error, call [3]string) {
	if in.err == nil {
		in.err = err
	}
	in.last, in.lastErr = call, err
}

// show writes a chain ending in name: "a.comp → b.glsl → a.comp".
func (in *includer) show(chain []link, name string) string {
	var b strings.Builder
	for _, l := range chain {
		b.WriteString(l.name)
		b.WriteString(" → ")
	}
	b.WriteString(name)
	return b.String()
}

// find looks for requested where resolve says.
func (in *includer) find(requested string, relative bool, requesting string) (string, []byte, error) {
	var tried []string
	try := func(p string) (string, []byte, error) {
		b, err := in.read(p)
		if err != nil {
			tried = append(tried, p)
		}
		return p, b, err
	}
	if filepath.IsAbs(requested) {
		if p, b, err := try(requested); !errors.Is(err, errNotFound) {
			return p, b, err
		}
	} else {
		if relative {
			var p string
			var b []byte
			var err error
			if rel, ok := strings.CutPrefix(requesting, builtinPrefix); ok {
				p, b, err = readBuiltin(path.Join(path.Dir(rel), requested))
			} else {
				p, b, err = try(filepath.Join(filepath.Dir(requesting), requested))
			}
			if !errors.Is(err, errNotFound) {
				return p, b, err
			}
		}
		for _, d := range in.dirs {
			if p, b, err := try(filepath.Join(d, requested)); !errors.Is(err, errNotFound) {
				return p, b, err
			}
		}
		for _, p := range []string{requested, path.Join("include", requested)} {
			if p, b, err := readBuiltin(p); err == nil {
				return p, b, nil
			}
		}
	}
	return "", nil, fmt.Errorf("cannot find %q next to %s or in the include directories (those given, then vkstat's shaders/include)", requested, requesting)
}

// builtinPrefix names vkstat's built-in includes (shaders/include,
// embedded in the binary): "<vkstat>/include/common.glsl".
const builtinPrefix = "<vkstat>/"

// readBuiltin reads a built-in include by its path in shaders' file system
// (include/NAME.glsl).
func readBuiltin(name string) (string, []byte, error) {
	name = path.Clean(name)
	if !fs.ValidPath(name) || !strings.HasPrefix(name, "include/") {
		return "", nil, errNotFound
	}
	b, err := fs.ReadFile(builtinFS(), name)
	if err != nil {
		return "", nil, errNotFound
	}
	return builtinPrefix + name, b, nil
}

// readSource reads a shader source: at most MaxSourceBytes, from a file (a
// folder or a missing file is errNotFound).
func readSource(p string) ([]byte, error) {
	f, err := os.Open(p)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, errNotFound
		}
		return nil, err
	}
	defer f.Close()
	if st, err := f.Stat(); err != nil || st.IsDir() {
		return nil, errNotFound
	}
	b, err := io.ReadAll(io.LimitReader(f, MaxSourceBytes+1))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", p, err)
	}
	if len(b) > MaxSourceBytes {
		return nil, fmt.Errorf("%s: larger than %d bytes, the most read of a shader source", p, MaxSourceBytes)
	}
	return b, nil
}
