package outputs

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/vkstat/vkstat/formats"
	"github.com/vkstat/vkstat/pipelines/stack"
)

// TestStackFiles: a stack's files are named by statistic and format, the
// counts written as int32 and the others as float32 of the multilooked
// size, the quicklooks after them; Write writes them all into the folder
// and Summary gives the dates' figures.
func TestStackFiles(t *testing.T) {
	g := stack.Grid{Width: 4, Height: 4}
	data := make([]float32, 3*4*4)
	for i := range data {
		data[i] = float32(1 + i%5)
	}
	dates, err := stack.MemoryDates(data, 3, g, nil)
	if err != nil {
		t.Fatal(err)
	}
	cfg := stack.DefaultConfig()
	cfg.LooksAz, cfg.LooksRg = 2, 2
	plan, err := stack.NewPlan(cfg, g)
	if err != nil {
		t.Fatal(err)
	}
	res, err := stack.Run(context.Background(), nil, dates, stack.Options{Plan: plan})
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), "out")
	o := Stack{Dir: dir, Stats: []string{"mean", "count"}, Formats: []string{"npy"}, Plots: []string{"cv"}, Plot: "png",
		Plan: plan, First: formats.DateFile{Path: "d1", Width: 4, Height: 4, Type: "Float32"}, Dates: 3, Device: "cpu"}
	files := o.Files(res)
	var names []string
	for _, f := range files {
		names = append(names, filepath.Base(f.Path))
	}
	if want := []string{"mean.npy", "count.npy", "cv.png"}; !slices.Equal(names, want) {
		t.Fatalf("files %v, want %v", names, want)
	}
	if err := Write(context.Background(), dir, "stack", files); err != nil {
		t.Fatal(err)
	}
	for name, descr := range map[string]string{"mean.npy": "'descr': '<f4'", "count.npy": "'descr': '<i4'"} {
		b, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil || !bytes.Contains(b, []byte(descr)) || !bytes.Contains(b, []byte("'shape': (2, 2)")) {
			t.Errorf("%s: %v; want %s of shape (2, 2) in %.80q", name, err, descr, b)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "cv.png")); err != nil {
		t.Error(err)
	}
	if s := o.Summary(res); s["dates"] != 3 || s["device"] != "cpu" || s["columns"] != 2 || s["empty_pixels"] != 0 {
		t.Errorf("summary %v", s)
	}
}
