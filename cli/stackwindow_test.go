package cli

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vkstat/vkstat/formats"
)

// TestStackWindowOrder: stack follows GDAL's order, x first. --window
// X,Y,W,H cuts columns X..X+W and rows Y..Y+H, so its mean is that slice
// of the whole image's mean; the lines printed say columns×rows, as
// gdalinfo's "Size is W, H" does for the same file; the earlier --crop
// Y,X,H,W (rows first) cuts the same window with a note naming --window.
func TestStackWindowOrder(t *testing.T) {
	dir := t.TempDir()
	slc := filepath.Join(dir, "slc")
	synthStack(t, slc, "--dates", "2", "--shape", "12,10") // 12 rows, 10 columns
	dates := "@" + filepath.Join(slc, "dates.txt")
	stackRun := func(out string, args ...string) (string, string) {
		t.Helper()
		code, stdout, stderr := run(t, append(append([]string{"--device", "cpu", "stack", "--stat", "mean", "--format", "tif,npy", "--out-dir", out}, args...), dates)...)
		if code != 0 {
			t.Fatalf("stack %v: exit %d: %s", args, code, stderr)
		}
		return stdout, stderr
	}
	stackRun(filepath.Join(dir, "all"))
	whole, err := formats.ReadNPY(filepath.Join(dir, "all", "mean.npy"))
	if err != nil {
		t.Fatal(err)
	}
	const x, y, w, h = 2, 1, 3, 4
	win := filepath.Join(dir, "window")
	stdout, _ := stackRun(win, "--window", "2,1,3,4")
	if !strings.Contains(stdout, "mean.tif\t3×4 (columns×rows)") {
		t.Errorf("stdout %q: want the window's size as columns×rows, 3×4", stdout)
	}
	cut, err := formats.ReadNPY(filepath.Join(win, "mean.npy"))
	if err != nil {
		t.Fatal(err)
	}
	if len(cut.Shape) != 2 || cut.Shape[0] != h || cut.Shape[1] != w {
		t.Fatalf("--window 2,1,3,4: mean.npy has shape %v, want (rows %d, columns %d)", cut.Shape, h, w)
	}
	for r := range h {
		for c := range w {
			if got, want := cut.F32[r*w+c], whole.F32[(y+r)*10+x+c]; got != want {
				t.Errorf("window (row %d, column %d) = %g, want the whole image's (row %d, column %d) %g", r, c, got, y+r, x+c, want)
			}
		}
	}
	if gi, err := exec.LookPath("gdalinfo"); err == nil {
		info, err := exec.Command(gi, filepath.Join(win, "mean.tif")).CombinedOutput()
		if err != nil || !strings.Contains(string(info), "Size is 3, 4") {
			t.Errorf("gdalinfo says %v:\n%s\nwant Size is 3, 4 as vkstat printed", err, info)
		}
	} else if os.Getenv("CI") == "true" {
		t.Fatal("gdalinfo missing under CI (scripts/deps.sh test installs gdal-bin)")
	}
	crop := filepath.Join(dir, "crop")
	_, stderr := stackRun(crop, "--crop", "1,2,4,3")
	if !strings.Contains(stderr, "--window 2,1,3,4") {
		t.Errorf("--crop 1,2,4,3: stderr %q, want a note naming --window 2,1,3,4", stderr)
	}
	old, err := formats.ReadNPY(filepath.Join(crop, "mean.npy"))
	if err != nil || len(old.F32) != len(cut.F32) {
		t.Fatalf("--crop: %v, %v", err, old)
	}
	for i := range old.F32 {
		if old.F32[i] != cut.F32[i] {
			t.Fatalf("--crop 1,2,4,3 and --window 2,1,3,4 differ at %d", i)
		}
	}
}
