package formats

import (
	"os"
	"path/filepath"
	"strings"
)

// SameFile reports whether a and b name one file: the same path, the same
// existing file (links), or the same name in one folder (a file not
// written yet).
func SameFile(a, b string) bool {
	if a == "" || b == "" {
		return false
	}
	if absClean(a) == absClean(b) {
		return true
	}
	sa, ea := os.Stat(a)
	sb, eb := os.Stat(b)
	if ea == nil && eb == nil {
		return os.SameFile(sa, sb)
	}
	if filepath.Base(a) != filepath.Base(b) {
		return false
	}
	da, ea := os.Stat(filepath.Dir(a))
	db, eb := os.Stat(filepath.Dir(b))
	return ea == nil && eb == nil && os.SameFile(da, db)
}

// InDir reports whether path lies in folder dir or in a folder inside it,
// by their names.
func InDir(dir, path string) bool {
	rel, err := filepath.Rel(absClean(dir), absClean(filepath.Dir(path)))
	return err == nil && rel != ".." && !strings.HasPrefix(rel, "../")
}

// MissingTop is the top-most missing folder of dir's path, whose parent
// exists (or is the root): where creating dir begins.
func MissingTop(dir string) string {
	top := dir
	for {
		parent := filepath.Dir(top)
		if _, err := os.Stat(parent); err == nil || parent == top {
			return top
		}
		top = parent
	}
}

// IsCharDevice reports whether path is a character device (/dev/null,
// /dev/stdout on a terminal): written into, not replaced, so writing it
// twice harms nothing.
func IsCharDevice(path string) bool {
	st, err := os.Stat(path)
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}

func absClean(p string) string {
	if a, err := filepath.Abs(p); err == nil {
		return a
	}
	return filepath.Clean(p)
}
