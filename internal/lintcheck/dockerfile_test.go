package lintcheck

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// instruction is one Dockerfile instruction, continuation lines joined.
type instruction struct {
	line int
	cmd  string // FROM, RUN, ...
	args string
}

// parseDockerfile splits a Dockerfile into instructions, refusing a word
// that is not one.
func parseDockerfile(t *testing.T, text string) []instruction {
	known := []string{"FROM", "RUN", "COPY", "ADD", "WORKDIR", "ARG", "ENV", "ENTRYPOINT", "CMD", "LABEL", "USER",
		"EXPOSE", "VOLUME", "SHELL", "HEALTHCHECK", "STOPSIGNAL", "ONBUILD"}
	var out []instruction
	var cur *instruction
	for i, l := range strings.Split(text, "\n") {
		trim := strings.TrimSpace(l)
		if cur == nil && (trim == "" || strings.HasPrefix(trim, "#")) {
			continue
		}
		if cur == nil {
			cmd, args, _ := strings.Cut(trim, " ")
			if !slices.Contains(known, cmd) {
				t.Errorf("Dockerfile:%d: %q is not an instruction", i+1, cmd)
			}
			out = append(out, instruction{line: i + 1, cmd: cmd})
			cur = &out[len(out)-1]
			trim = args
		} else if strings.HasPrefix(trim, "#") {
			continue // a comment inside a continued instruction
		}
		more := strings.HasSuffix(trim, "\\")
		cur.args = strings.TrimSpace(cur.args + " " + strings.TrimSuffix(trim, "\\"))
		if !more {
			cur = nil
		}
	}
	if cur != nil {
		t.Errorf("Dockerfile:%d: the last instruction ends in a continuation", cur.line)
	}
	return out
}

// TestDockerfile checks what can be checked of the image without Docker:
// the Dockerfile parses; each stage starts FROM an image, COPY --from names
// an earlier stage, the other COPY sources exist and are not left out by
// .dockerignore, and they cover every folder of the module that `go build
// ./cmd/vkstat` compiles; the Go image is at least go.mod's Go; the build
// stage installs scripts/deps.sh's build headers, the runtime stage the
// Vulkan loader; the exec forms are JSON; and the image deploy/k8s runs is
// the one its usage builds.
func TestDockerfile(t *testing.T) {
	root := repoRoot(t)
	read := func(name string) string { return readRepoFile(t, root, name) }
	text := read("Dockerfile")
	ins := parseDockerfile(t, text)
	ignored := map[string]bool{}
	for _, l := range strings.Split(read(".dockerignore"), "\n") {
		if l = strings.TrimSpace(l); l != "" && !strings.HasPrefix(l, "#") {
			ignored[l] = true
		}
	}
	var stages []string
	var stageRuns []string // each stage's RUN lines, joined
	copied := map[string]bool{}
	for _, in := range ins {
		switch in.cmd {
		case "FROM":
			f := strings.Fields(in.args)
			if len(f) != 1 && !(len(f) == 3 && strings.EqualFold(f[1], "AS")) {
				t.Errorf("Dockerfile:%d: FROM %s: want IMAGE [AS NAME]", in.line, in.args)
				continue
			}
			name := ""
			if len(f) == 3 {
				name = f[2]
			}
			stages, stageRuns = append(stages, name), append(stageRuns, "")
		case "RUN":
			if len(stages) > 0 {
				stageRuns[len(stages)-1] += " " + in.args
			}
		case "COPY", "ADD":
			f := strings.Fields(in.args)
			if len(f) < 2 {
				t.Errorf("Dockerfile:%d: %s %s: want sources and a destination", in.line, in.cmd, in.args)
				continue
			}
			if from, ok := strings.CutPrefix(f[0], "--from="); ok {
				if !slices.Contains(stages[:len(stages)-1], from) {
					t.Errorf("Dockerfile:%d: COPY --from=%s names no earlier stage (%v)", in.line, from, stages)
				}
				continue
			}
			for _, src := range f[:len(f)-1] {
				if strings.HasPrefix(src, "--") {
					continue
				}
				src = filepath.Clean(src)
				if _, err := os.Stat(filepath.Join(root, src)); err != nil {
					t.Errorf("Dockerfile:%d: COPY %s: %v", in.line, src, err)
				}
				if ignored[strings.Split(src, "/")[0]] {
					t.Errorf("Dockerfile:%d: COPY %s, which .dockerignore leaves out", in.line, src)
				}
				copied[strings.Split(src, "/")[0]] = true
			}
		case "ENTRYPOINT", "CMD":
			var v []string
			if err := json.Unmarshal([]byte(in.args), &v); err != nil {
				t.Errorf("Dockerfile:%d: %s %s: not a JSON array: %v", in.line, in.cmd, in.args, err)
			}
		}
	}
	if len(ins) == 0 || ins[0].cmd != "FROM" || len(stages) < 2 {
		t.Fatalf("Dockerfile: want a build stage and a runtime stage, got stages %v", stages)
	}

	// The Go image is at least go.mod's Go.
	m := regexp.MustCompile(`(?m)^FROM golang:(\d+)\.(\d+)`).FindStringSubmatch(text)
	g := regexp.MustCompile(`(?m)^go (\d+)\.(\d+)`).FindStringSubmatch(read("go.mod"))
	if m == nil || g == nil {
		t.Fatalf("no golang:X.Y image (%v) or go directive (%v)", m, g)
	}
	num := func(s []string) int { a, _ := strconv.Atoi(s[1]); b, _ := strconv.Atoi(s[2]); return a*1000 + b }
	if num(m) < num(g) {
		t.Errorf("Dockerfile builds with Go %s.%s, go.mod wants %s.%s", m[1], m[2], g[1], g[2])
	}

	// The build stage installs deps.sh's build headers; the runtime, the loader.
	pk := regexp.MustCompile(`(?m)^pkgs=\(([^)]*)\)`).FindStringSubmatch(read("scripts/deps.sh"))
	if pk == nil {
		t.Fatal("scripts/deps.sh: no pkgs=(...) list")
	}
	for _, p := range strings.Fields(pk[1]) {
		if strings.HasSuffix(p, "-dev") && !slices.Contains(strings.Fields(stageRuns[0]), p) {
			t.Errorf("the build stage does not install %s, which scripts/deps.sh build does", p)
		}
	}
	if !slices.Contains(strings.Fields(stageRuns[len(stageRuns)-1]), "libvulkan1") {
		t.Error("the runtime stage does not install the Vulkan loader (libvulkan1)")
	}

	// What go build compiles lies in the folders copied.
	list := exec.Command("go", "list", "-deps", "-f", "{{if not .Standard}}{{.Dir}}{{end}}", "./cmd/vkstat")
	list.Dir = root
	out, err := list.Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	for _, dir := range strings.Fields(string(out)) {
		rel, err := filepath.Rel(root, dir)
		if err != nil || strings.HasPrefix(rel, "..") {
			continue // a module from the cache
		}
		if top := strings.Split(rel, string(filepath.Separator))[0]; !copied[top] {
			t.Errorf("go build ./cmd/vkstat compiles %s, but the Dockerfile does not copy %s/", rel, top)
		}
	}

	// deploy/k8s runs the image the Dockerfile's usage builds.
	for _, y := range []string{"deploy/k8s/survey-job.yaml", "deploy/k8s/survey-merge.yaml"} {
		im := regexp.MustCompile(`(?m)^\s*image:\s*(\S+)`).FindStringSubmatch(read(y))
		if im == nil || !strings.Contains(text, "-t "+im[1]+" ") {
			t.Errorf("%s runs image %v, which the Dockerfile's usage line does not build", y, im)
		}
	}
}
