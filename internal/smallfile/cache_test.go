package smallfile

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// TestWriteWhole: while writers replace a file again and again with one
// of two contents of different lengths, readers see one or the other
// whole, never a part or a mix (Write's temporary file renamed over it);
// no temporary file is left.
func TestWriteWhole(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "sub", "cache.bin")
	contents := [][]byte{bytes.Repeat([]byte("a"), 3<<20), bytes.Repeat([]byte("bc"), 1<<20)}
	if err := Write(path, contents[0]); err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	stop := make(chan struct{})
	for w := range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < 20; i++ {
				if err := Write(path, contents[(w+i)%2]); err != nil {
					t.Error(err)
					return
				}
			}
		}()
	}
	reads := 0
	var rwg sync.WaitGroup
	rwg.Add(1)
	go func() {
		defer rwg.Done()
		for {
			select {
			case <-stop:
				return
			default:
			}
			b, err := Read(path, 4<<20)
			if err != nil {
				t.Errorf("read while writing: %v", err)
				return
			}
			if !bytes.Equal(b, contents[0]) && !bytes.Equal(b, contents[1]) {
				t.Errorf("read %d bytes that are neither content whole", len(b))
				return
			}
			reads++
		}
	}()
	wg.Wait()
	close(stop)
	rwg.Wait()
	if reads == 0 && !t.Failed() {
		t.Error("the reader read nothing")
	}
	entries, err := os.ReadDir(filepath.Dir(path))
	if err != nil || len(entries) != 1 {
		t.Errorf("the folder holds %v (%v), want the file alone", entries, err)
	}
}

// TestWriteFails: a path whose folder cannot be made (a file stands
// there), or that names a folder, is an error that names the path, and
// leaves no temporary file behind.
func TestWriteFails(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "file")
	if err := os.WriteFile(file, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	folder := filepath.Join(dir, "folder")
	if err := os.MkdirAll(filepath.Join(folder, "inside"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, path := range []string{filepath.Join(file, "cache.bin"), folder} {
		err := Write(path, []byte("data"))
		if err == nil || !strings.HasPrefix(err.Error(), path+": ") {
			t.Errorf("Write(%s): %v, want an error naming it", path, err)
		}
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 2 {
		t.Errorf("left behind: %v", entries)
	}
	if b, _ := os.ReadFile(file); string(b) != "x" {
		t.Errorf("the file in the way was changed: %q", b)
	}
}

// TestCacheDir: $env names the folder, "off" none, else vkstat/sub under
// the user cache directory.
func TestCacheDir(t *testing.T) {
	home := t.TempDir()
	t.Setenv("XDG_CACHE_HOME", home)
	t.Setenv("VKSTAT_TEST_CACHE", "")
	if d, want := CacheDir("VKSTAT_TEST_CACHE", "sub"), filepath.Join(home, "vkstat", "sub"); d != want {
		t.Errorf("default: %q, want %q", d, want)
	}
	t.Setenv("VKSTAT_TEST_CACHE", "/some/where")
	if d := CacheDir("VKSTAT_TEST_CACHE", "sub"); d != "/some/where" {
		t.Errorf("$VKSTAT_TEST_CACHE: %q", d)
	}
	t.Setenv("VKSTAT_TEST_CACHE", "off")
	if d := CacheDir("VKSTAT_TEST_CACHE", "sub"); d != "" {
		t.Errorf("off: %q", d)
	}
}

// TestSeal: a sealed file gives back its data for its magic, version and
// key, and nothing for any other, nor when it is torn, longer, or has a
// bit flipped anywhere in its header, key or data.
func TestSeal(t *testing.T) {
	const magic, key = "vkstatxx", "device 1\nplan 2\n"
	data := []byte("some driver data")
	file := Seal(magic, 3, key, data)
	if got, err := Unseal(file, magic, 3, key); err != nil || !bytes.Equal(got, data) {
		t.Fatalf("a good file: %q, %v", got, err)
	}
	if got, err := Unseal(Seal(magic, 3, "", nil), magic, 3, ""); err != nil || len(got) != 0 {
		t.Errorf("empty key and data: %q, %v", got, err)
	}
	bad := map[string][]byte{
		"empty":           nil,
		"torn":            file[:len(file)-1],
		"longer":          append(bytes.Clone(file), 0),
		"another key":     Seal(magic, 3, key+" ", data),
		"another version": Seal(magic, 2, key, data),
		"another magic":   Seal("vkstatyy", 3, key, data),
	}
	for i := range file {
		b := bytes.Clone(file)
		b[i] ^= 0x10
		bad[fmt.Sprintf("a bit flipped at byte %d", i)] = b
	}
	for name, b := range bad {
		if _, err := Unseal(b, magic, 3, key); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
}
