package cli

import (
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vkstat/vkstat/formats"
	"github.com/vkstat/vkstat/tensor"
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

// TestStackWindowBeforeLooks (issue 40, item 7): --window is in input
// pixels and the looks start at its corner: --looks 2x2 --window 2,2,6,4
// is the whole image's 2×2-look mean at multilooked rows 1..2, columns
// 1..3; the earliest --crop Y,X,H,W counted multilooked pixels, and its
// note gives the --window in input pixels that cuts the same.
func TestStackWindowBeforeLooks(t *testing.T) {
	dir := t.TempDir()
	slc := filepath.Join(dir, "slc")
	synthStack(t, slc, "--dates", "2", "--shape", "12,10")
	dates := "@" + filepath.Join(slc, "dates.txt")
	mean := func(out string, args ...string) (*tensor.Tensor, string) {
		t.Helper()
		code, _, stderr := run(t, append(append([]string{"--device", "cpu", "stack", "--looks", "2x2", "--stat", "mean", "--format", "npy", "--out-dir", out}, args...), dates)...)
		if code != 0 {
			t.Fatalf("stack %v: exit %d: %s", args, code, stderr)
		}
		m, err := formats.ReadNPY(filepath.Join(out, "mean.npy"))
		if err != nil {
			t.Fatal(err)
		}
		return m, stderr
	}
	whole, _ := mean(filepath.Join(dir, "all")) // (6, 5)
	cut, _ := mean(filepath.Join(dir, "win"), "--window", "2,2,6,4")
	if tensor.ShapeString(cut.Shape) != "(2, 3)" {
		t.Fatalf("--window 2,2,6,4 with 2×2 looks: shape %v, want (2, 3)", cut.Shape)
	}
	for r := range 2 {
		for c := range 3 {
			if got, want := cut.F32[r*3+c], whole.F32[(1+r)*5+1+c]; got != want {
				t.Errorf("(%d, %d) = %g, want %g", r, c, got, want)
			}
		}
	}
	old, stderr := mean(filepath.Join(dir, "crop"), "--crop", "1,1,2,3")
	if !strings.Contains(stderr, "--window 2,2,6,4") || tensor.ShapeString(old.Shape) != "(2, 3)" || old.F32[4] != cut.F32[4] {
		t.Errorf("--crop 1,1,2,3: %q, %v; want the note naming --window 2,2,6,4 and the same means", stderr, old.Shape)
	}
}

// TestStackDBAndIntegerCount (issue 40, item 8): --db writes mean, min and
// max as 10·log10 of the intensity (20·log10 of an amplitude), std and cv
// as they are; count is written as whole numbers, int32 NPY.
func TestStackDBAndIntegerCount(t *testing.T) {
	dir := t.TempDir()
	slc := filepath.Join(dir, "slc")
	synthStack(t, slc, "--dates", "3", "--shape", "8,6")
	dates := "@" + filepath.Join(slc, "dates.txt")
	for _, q := range []string{"intensity", "amplitude"} {
		lin, db := filepath.Join(dir, q+"lin"), filepath.Join(dir, q+"db")
		for _, c := range []struct {
			out  string
			more []string
		}{{lin, nil}, {db, []string{"--db"}}} {
			args := append([]string{"--device", "cpu", "stack", "--quantity", q, "--stat", "mean,std,count", "--format", "npy", "--out-dir", c.out}, c.more...)
			if code, _, stderr := run(t, append(args, dates)...); code != 0 {
				t.Fatalf("stack %v: exit %d: %s", args, code, stderr)
			}
		}
		k := map[string]float64{"intensity": 10, "amplitude": 20}[q]
		for _, st := range []string{"mean", "std"} {
			a, err1 := formats.ReadNPY(filepath.Join(lin, st+".npy"))
			b, err2 := formats.ReadNPY(filepath.Join(db, st+".npy"))
			if err1 != nil || err2 != nil {
				t.Fatal(err1, err2)
			}
			for i, v := range a.F32 {
				want := float64(v)
				if st == "mean" {
					want = k * math.Log10(want)
				}
				if math.Abs(float64(b.F32[i])-want) > 1e-5*math.Max(1, math.Abs(want)) {
					t.Fatalf("%s --db %s[%d] = %g, want %g", q, st, i, b.F32[i], want)
				}
			}
		}
		raw, err := os.ReadFile(filepath.Join(db, "count.npy"))
		if err != nil || !strings.Contains(string(raw[:128]), "'<i4'") {
			t.Errorf("count.npy: %v, header %q; want int32 ('<i4')", err, raw[:min(len(raw), 128)])
		}
		cnt, err := formats.ReadNPY(filepath.Join(db, "count.npy"))
		if err != nil || cnt.Float64s()[0] != 3 {
			t.Errorf("count.npy: %v %v; want 3 dates", err, cnt)
		}
	}
}
