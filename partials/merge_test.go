package partials

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vkstat/vkstat/formats"
	"github.com/vkstat/vkstat/pipelines/latent"
	"github.com/vkstat/vkstat/pipelines/reduce"
	"github.com/vkstat/vkstat/pipelines/stack"
	"github.com/vkstat/vkstat/tensor"
)

// writeStack writes a one-pixel stack partial of the dates files, each
// date one sample of value v (count, mean, M2 of them), with grid g.
func writeStack(t *testing.T, dir string, files []string, v []float64, g StackGrid) *Shard {
	t.Helper()
	n, mean, m2 := float64(len(v)), 0.0, 0.0
	for _, x := range v {
		mean += x / n
	}
	for _, x := range v {
		m2 += (x - mean) * (x - mean)
	}
	h, arrays, err := Stack(&stack.Partial{H: 1, W: 1, Dates: len(v), Count: []float64{n}, Mean: []float64{mean}, M2: []float64{m2},
		Min: []float64{min(v[0], v[len(v)-1])}, Max: []float64{max(v[0], v[len(v)-1])}, Samples: []float64{n}}, g, files)
	if err != nil {
		t.Fatal(err)
	}
	if err := Write(context.Background(), dir, "stack", h, arrays); err != nil {
		t.Fatal(err)
	}
	s, err := Read(dir)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// TestMergeStack: dates 1, 3 and 8 in shards of two and one merge to
// count 3, mean 4 and M2 26 (9 + 1 + 16), by hand, with the dates in the
// shards' order and the grid the settings recorded; a date in two shards
// is refused naming both.
func TestMergeStack(t *testing.T) {
	root := t.TempDir()
	g := StackGrid{Columns: 4, Rows: 2, Complex: true, Type: "CInt16", Georef: formats.Georef{Projection: "p"}}
	a := writeStack(t, filepath.Join(root, "a"), []string{"d1.tif", "d2.tif"}, []float64{1, 3}, g)
	b := writeStack(t, filepath.Join(root, "b"), []string{"d3.tif"}, []float64{8}, g)
	m, files, got, err := MergeStack([]*Shard{a, b})
	if err != nil {
		t.Fatal(err)
	}
	if m.Dates != 3 || m.Count[0] != 3 || m.Mean[0] != 4 || m.M2[0] != 26 || m.Min[0] != 1 || m.Max[0] != 8 {
		t.Errorf("merged %+v, want 3 dates, count 3, mean 4, M2 26, min 1, max 8", m)
	}
	if strings.Join(files, " ") != "d1.tif d2.tif d3.tif" || got != g {
		t.Errorf("files %v, grid %+v", files, got)
	}
	c := writeStack(t, filepath.Join(root, "c"), []string{"d2.tif"}, []float64{5}, g)
	if _, _, _, err := MergeStack([]*Shard{a, c}); err == nil || !strings.Contains(err.Error(), "date d2.tif is in two partials ("+a.Dir+" and "+c.Dir+")") {
		t.Errorf("a date twice: %v", err)
	}
}

// TestLatentInput: the merge's input is the file and facts the shard of
// the first samples recorded, at the merged shape and work type.
func TestLatentInput(t *testing.T) {
	first := &Shard{Header: Header{Part: map[string]any{"input": "lat.safetensors",
		"info": map[string]any{"Format": "safetensors", "DType": "bfloat16", "Name": "latents"}}}}
	in := LatentInput(first, &latent.Partial{Shape: []int{8, 4, 2, 16, 16}, DType: tensor.BF16})
	want := latent.Input{Path: "lat.safetensors", Format: "safetensors", DType: "bfloat16", Tensor: "latents", Shape: []int{8, 4, 2, 16, 16}, ComputedAs: tensor.BF16}
	if in.Path != want.Path || in.Format != want.Format || in.DType != want.DType || in.Tensor != want.Tensor ||
		!tensor.SameShape(in.Shape, want.Shape) || in.ComputedAs != want.ComputedAs {
		t.Errorf("LatentInput = %+v, want %+v", in, want)
	}
}

// TestFacts: the settings the headers hold of their inputs, which merge's
// refusals word without dashes, are Facts: every setting Stack and Latent
// set, and Reduce's dtype and out-shape (its skip-nan, stat and ddof are
// options'); every fact is set by one of them.
func TestFacts(t *testing.T) {
	rp, err := reduce.CPUPartial(tensor.FromF64([]float64{1, 2, 3, 4}, 2, 2), reduce.Options{})
	if err != nil {
		t.Fatal(err)
	}
	hr, _ := Reduce(rp, reduce.Options{})
	hs, _, err := Stack(&stack.Partial{H: 1, W: 1, Dates: 1, Count: []float64{1}, Mean: []float64{1}, M2: []float64{0}, Min: []float64{1}, Max: []float64{1},
		Samples: []float64{1}}, StackGrid{}, []string{"d.tif"})
	if err != nil {
		t.Fatal(err)
	}
	opt := latent.DefaultOptions()
	if err := opt.Select([]string{"moments"}); err != nil {
		t.Fatal(err)
	}
	lp, err := latent.RunPartial(context.Background(), nil, latent.TensorSource(tensor.FromF64([]float64{1, 3, 0, 8}, 1, 2, 1, 1, 2)), opt)
	if err != nil {
		t.Fatal(err)
	}
	hl, _, err := Latent(lp, latent.Input{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for _, h := range []Header{hr, hs, hl} {
		for k := range h.Settings {
			if !Facts[k] && !(h.Workload == "reduce" && (k == "skip-nan" || k == "stat" || k == "ddof")) {
				t.Errorf("%s's setting %s is no fact", h.Workload, k)
			}
			seen[k] = true
		}
	}
	for k := range Facts {
		if !seen[k] {
			t.Errorf("fact %s is set by no header", k)
		}
	}
}
