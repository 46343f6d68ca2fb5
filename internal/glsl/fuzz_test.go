package glsl

import (
	"bytes"
	"errors"
	"fmt"
	"strings"
	"testing"
)

// FuzzIncludes preprocesses a shader whose #includes reach two headers, all
// three taken from the input (split at "\n----\n") and read from memory:
// however they include one another (cycles, self-inclusion, depth, missing
// files, built-ins), glslang's preprocessor through Compile must return, with a result or an error, never
// panic or expand without end; a cycle or a chain too deep is reported as
// such (CompileError.Include), and the chain it names holds only files of
// the set.
func FuzzIncludes(f *testing.F) {
	if load() != nil {
		f.Skip("no GLSL compiler")
	}
	const main = "#version 450\n#extension GL_GOOGLE_include_directive : require\nlayout(local_size_x = 1) in;\n"
	for _, seed := range []string{
		main + "#include \"a.glsl\"\nvoid main() {}\n----\n#include \"b.glsl\"\n----\n// b\n",
		main + "#include \"a.glsl\"\nvoid main() {}\n----\n#include \"b.glsl\"\n----\n#include \"a.glsl\"\n",
		main + "#include \"main.comp\"\nvoid main() {}\n----\n----\n",
		main + "#include <b.glsl>\n#include \"a.glsl\"\nvoid main() {}\n----\n#ifndef A\n#define A\n#include \"a.glsl\"\n#endif\n----\nfloat f() { return 1.0; }\n",
		main + "#include \"include/common.glsl\"\n#include \"missing.glsl\"\nvoid main() {}\n----\n----\n",
		main + "#include \"/mem/b.glsl\"\n#include \"sub/../a.glsl\"\nvoid main() {}\n----\n#include \"b.glsl\"\n#include \"b.glsl\"\n----\n#define X 1\n",
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		parts := bytes.SplitN(in, []byte("\n----\n"), 3)
		for len(parts) < 3 {
			parts = append(parts, nil)
		}
		files := map[string][]byte{"/mem/main.comp": parts[0], "/mem/a.glsl": parts[1], "/mem/b.glsl": parts[2]}
		reads := 0
		read := func(p string) ([]byte, error) {
			reads++
			if reads > 10000 {
				t.Fatalf("more than 10000 files read: the includes are not bounded")
			}
			if b, ok := files[p]; ok {
				return b, nil
			}
			return nil, errNotFound
		}
		_, err := Compile(parts[0], "/mem/main.comp", Options{readFile: read, preprocessOnly: true})
		var ce *CompileError
		if errors.As(err, &ce) && ce.Include != nil {
			msg := ce.Include.Error()
			if strings.HasPrefix(msg, fmt.Sprintf("more than %d #includes", maxIncludes)) {
				return
			}
			_, chain, ok := strings.Cut(msg, ": ")
			if !ok || !strings.HasPrefix(msg, "#include cycle") && !strings.HasPrefix(msg, "#include nested deeper") {
				t.Fatalf("include error %q", msg)
			}
			for _, name := range strings.Split(chain, " → ") {
				if _, ok := files[name]; !ok && !strings.HasPrefix(name, builtinPrefix) {
					t.Fatalf("the chain %q names %q, not a file of the set", chain, name)
				}
			}
		}
	})
}
