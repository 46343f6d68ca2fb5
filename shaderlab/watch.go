package shaderlab

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// SourceFiles are the files a shader's source may read: the shader, and
// the .glsl and .comp files beside it and in the include folders.
func SourceFiles(path string, includes []string) []string {
	files := []string{path}
	for _, d := range append([]string{filepath.Dir(path)}, includes...) {
		for _, pat := range []string{"*.glsl", "*.comp"} {
			m, _ := filepath.Glob(filepath.Join(d, pat))
			files = append(files, m...)
		}
	}
	return files
}

// stamp is what a change of the files changes: their sizes, modification
// times and existence.
func stamp(files []string) string {
	var b strings.Builder
	for _, f := range files {
		if st, err := os.Stat(f); err == nil {
			fmt.Fprintf(&b, "%s %d %d\n", f, st.Size(), st.ModTime().UnixNano())
		} else {
			fmt.Fprintf(&b, "%s missing\n", f)
		}
	}
	return b.String()
}

// Watch calls run at once, then whenever one of files() changes, looking
// every interval (files is called each time: a new include counts),
// until run returns false (Watch returns nil) or ctx ends (Watch returns
// its error). A save by rename counts as a change.
func Watch(ctx context.Context, files func() []string, interval time.Duration, run func() bool) error {
	if interval <= 0 {
		return fmt.Errorf("watch interval %v: want a positive one", interval)
	}
	tick := time.NewTicker(interval)
	defer tick.Stop()
	last := ""
	for {
		if s := stamp(files()); s != last {
			last = s
			if !run() {
				return nil
			}
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-tick.C:
		}
	}
}
