// Package glsl compiles GLSL compute shaders to SPIR-V in process, with
// libshaderc (loaded at run time, so that vkstat runs without it on
// machines that only run SPIR-V): #include resolved next to the including
// file, then in the include directories and vkstat's own shaders/include,
// -D macros, and a choice of Vulkan target environment. Compile errors come
// back as diagnostics with file, line and, where the message quotes the
// offending token, column.
package glsl

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/vkstat/vkstat/shaders"
)

// ErrNoCompiler reports that libshaderc cannot be loaded.
var ErrNoCompiler = errors.New("no GLSL compiler")

// Options shape one compilation.
type Options struct {
	// Includes are searched, in order, for #include files not found next
	// to the including file; vkstat's built-in shaders/include follows
	// them (as "include/NAME.glsl" and "NAME.glsl").
	Includes []string
	// Defines are NAME or NAME=VALUE macros.
	Defines []string
	// TargetEnv is vulkan1.0, vulkan1.1 (the default), vulkan1.2 or vulkan1.3.
	TargetEnv string
	// Optimize runs the performance optimiser, as make shaders does
	// (glslc -O0, then spirv-opt -O: the names stay).
	Optimize bool

	// readFile reads an included file (tests: files in memory); nil reads
	// from disk.
	readFile func(path string) ([]byte, error)
	// preprocessOnly makes Compile stop after the preprocessor (fuzzing the
	// includes): Result.SPIRV is then the preprocessed text.
	preprocessOnly bool
}

// Diagnostic is one compiler message.
type Diagnostic struct {
	File     string `json:"file"`
	Line     int    `json:"line"`
	Col      int    `json:"col,omitempty"` // 0 when unknown
	Severity string `json:"severity"`      // error or warning
	Message  string `json:"message"`
	// Source is the line of an error, as written; Hint names the
	// all-capitals words on it that no #define or -D defines (an
	// undefined macro gives only "syntax error, unexpected IDENTIFIER").
	Source string `json:"source,omitempty"`
	Hint   string `json:"hint,omitempty"`
}

func (d Diagnostic) String() string {
	pos := d.File
	if d.Line > 0 {
		pos += ":" + strconv.Itoa(d.Line)
		if d.Col > 0 {
			pos += ":" + strconv.Itoa(d.Col)
		}
	}
	s := fmt.Sprintf("%s: %s: %s", pos, d.Severity, d.Message)
	if d.Source != "" {
		s += fmt.Sprintf("\n  %5d | %s", d.Line, d.Source)
	}
	if d.Hint != "" {
		s += "\n  hint: " + d.Hint
	}
	return s
}

// CompileError is a shader that does not compile.
type CompileError struct {
	File        string
	Diagnostics []Diagnostic
	Log         string // the compiler's text, for what did not parse as a diagnostic
	Include     error  // an #include cycle, or a chain too deep
}

func (e *CompileError) Error() string {
	var errs []string
	for _, d := range e.Diagnostics {
		if d.Severity == "error" {
			errs = append(errs, d.String())
		}
	}
	if e.Include != nil && !strings.Contains(strings.Join(errs, "\n"), e.Include.Error()) {
		errs = append([]string{e.Include.Error()}, errs...)
	}
	if len(errs) == 0 {
		return fmt.Sprintf("%s does not compile: %s", e.File, strings.TrimSpace(e.Log))
	}
	return fmt.Sprintf("%s does not compile:\n%s", e.File, strings.Join(errs, "\n"))
}

var envs = map[string]uint32{
	"vulkan1.0": 1 << 22, "vulkan1.1": 1<<22 | 1<<12, "vulkan1.2": 1<<22 | 2<<12, "vulkan1.3": 1<<22 | 3<<12,
}

// Result is compiled SPIR-V with the compiler's warnings.
type Result struct {
	SPIRV    []byte
	Warnings []Diagnostic
}

// CompileFile compiles the GLSL compute shader in path (at most
// MaxSourceBytes).
func CompileFile(path string, opt Options) (*Result, error) {
	src, err := readSource(path)
	if errors.Is(err, errNotFound) {
		_, err = os.Stat(path) // the error naming the file
		if err == nil {
			err = fmt.Errorf("%s: is a directory, not a shader", path)
		}
	}
	if err != nil {
		return nil, err
	}
	return Compile(src, path, opt)
}

// Compile compiles src; file names it in messages and anchors relative
// #includes.
func Compile(src []byte, file string, opt Options) (*Result, error) {
	envName := opt.TargetEnv
	if envName == "" {
		envName = "vulkan1.1"
	}
	env, ok := envs[envName]
	if !ok {
		return nil, fmt.Errorf("target environment %q: want vulkan1.0, vulkan1.1, vulkan1.2 or vulkan1.3", opt.TargetEnv)
	}
	for _, d := range opt.Defines {
		name, _, _ := strings.Cut(d, "=")
		if !macroName().MatchString(name) {
			return nil, fmt.Errorf("-D %q: %q is not a macro name", d, name)
		}
	}
	inc := newIncluder(file, opt.Includes, opt.readFile)
	spv, log, ok, err := compile(src, file, inc, opt.Defines, env, opt.Optimize, opt.preprocessOnly)
	if err != nil {
		return nil, err
	}
	inc.sources[file] = src
	diags := parseLog(log, inc.sources)
	hintMacros(diags, inc.sources, opt.Defines)
	if !ok || inc.err != nil {
		if inc.err != nil {
			// The rest is the consequence of the cycle (a file pasted into
			// itself 32 times over): keep the diagnostic that names it.
			var keep []Diagnostic
			for _, d := range diags {
				if strings.Contains(d.Message, inc.err.Error()) {
					keep = append(keep, d)
					break
				}
			}
			diags = keep
		}
		return nil, &CompileError{File: file, Diagnostics: diags, Log: log, Include: inc.err}
	}
	return &Result{SPIRV: spv, Warnings: diags}, nil
}

var macroName = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`) })

// glslang: "FILE:LINE: error: 'TOKEN' : message"
var diagLine = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^(.*?):(\d+): (error|warning): (.*)$`) })
var quoted = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^'([^']+)'`) })

// parseLog splits the compiler's text into diagnostics, finding the column
// of the quoted token on the source line (in sources, by file name) where
// there is one.
func parseLog(log string, sources map[string][]byte) []Diagnostic {
	var out []Diagnostic
	lines := map[string][]string{}
	for _, l := range strings.Split(log, "\n") {
		m := diagLine().FindStringSubmatch(strings.TrimSpace(l))
		if m == nil {
			continue
		}
		n, _ := strconv.Atoi(m[2])
		d := Diagnostic{File: m[1], Line: n, Severity: m[3], Message: m[4]}
		if q := quoted().FindStringSubmatch(d.Message); q != nil && strings.TrimSpace(q[1]) != "" {
			src, seen := lines[d.File]
			if !seen {
				if b, ok := sources[d.File]; ok {
					src = strings.Split(string(b), "\n")
				}
				lines[d.File] = src
			}
			if d.Line >= 1 && d.Line <= len(src) {
				if i := strings.Index(src[d.Line-1], strings.TrimSpace(q[1])); i >= 0 {
					d.Col = len([]rune(src[d.Line-1][:i])) + 1
				}
			}
		}
		out = append(out, d)
	}
	return out
}

var capsWord = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`\b_*[A-Z][A-Z0-9_]*\b`) })

// hintMacros gives each error its source line and, where the line holds
// all-capitals words (the way macros are named) that no #define in the
// sources and no -D defines, a hint to define them.
func hintMacros(diags []Diagnostic, sources map[string][]byte, defines []string) {
	defined := map[string]bool{}
	for _, d := range defines {
		name, _, _ := strings.Cut(d, "=")
		defined[name] = true
	}
	// Macros, and the names the code declares in capitals: blocks,
	// structs and constants.
	def := regexp.MustCompile(`(?m)^\s*#\s*define\s+([A-Za-z_][A-Za-z0-9_]*)|\b(?:buffer|uniform|struct)\s+([A-Za-z_][A-Za-z0-9_]*)|\bconst\s+\w+\s+([A-Za-z_][A-Za-z0-9_]*)`)
	for _, src := range sources {
		for _, m := range def.FindAllSubmatch(src, -1) {
			for _, g := range m[1:] {
				defined[string(g)] = true
			}
		}
	}
	for i := range diags {
		d := &diags[i]
		src, ok := sources[d.File]
		if d.Severity != "error" || !ok || d.Line < 1 {
			continue
		}
		lines := strings.Split(string(src), "\n")
		if d.Line > len(lines) {
			continue
		}
		line := strings.TrimRight(lines[d.Line-1], " \t\r")
		d.Source = strings.TrimLeft(line, " \t")
		var undefined []string
		for _, w := range capsWord().FindAllString(line, -1) {
			if !defined[w] && !strings.HasPrefix(w, "GL_") && !slices.Contains(undefined, w) {
				undefined = append(undefined, w)
			}
		}
		if len(undefined) == 0 {
			continue
		}
		ex := make([]string, len(undefined))
		for j, w := range undefined {
			ex[j] = "-D " + w + "=..."
		}
		d.Hint = fmt.Sprintf("%s defined nowhere (no #define, no -D): if a macro, give it: %s", strings.Join(undefined, ", "), strings.Join(ex, " "))
		if len(undefined) == 1 {
			d.Hint = strings.Replace(d.Hint, " defined nowhere", " is defined nowhere", 1)
		} else {
			d.Hint = strings.Replace(strings.Replace(d.Hint, " defined nowhere", " are defined nowhere", 1), "give it:", "give them:", 1)
		}
	}
}

// builtinFS holds vkstat's shaders/include, the built-in includes.
func builtinFS() fs.FS { return shaders.Includes() }
