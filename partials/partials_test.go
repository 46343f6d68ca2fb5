package partials

import (
	"context"
	"errors"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vkstat/vkstat/formats"
	"github.com/vkstat/vkstat/pipelines/reduce"
	"github.com/vkstat/vkstat/tensor"
)

// write writes p's partial with settings into dir.
func write(t *testing.T, dir string, p *reduce.Partial, settings map[string]string) {
	t.Helper()
	h, arrays := Reduce(p, reduce.Options{})
	for k, v := range settings {
		h.Settings[k] = v
	}
	if err := Write(context.Background(), dir, "reduce", h, arrays); err != nil {
		t.Fatal(err)
	}
}

// TestWriteReadCheck: a partial written and read back is the same
// partial; shards of other settings are a SettingsError naming the
// setting, a folder given twice and a header of another format are
// refused, and so is an array that is not float64.
func TestWriteReadCheck(t *testing.T) {
	root := t.TempDir()
	p, err := reduce.CPUPartial(tensor.FromF64([]float64{1, 2, 3, 4, 5, 6}, 3, 2), reduce.Options{Axes: reduce.Axes{0}})
	if err != nil {
		t.Fatal(err)
	}
	a, b := filepath.Join(root, "a"), filepath.Join(root, "b")
	write(t, a, p, map[string]string{"stat": "mean"})
	write(t, b, p, map[string]string{"stat": "std"})
	sa, err := Read(filepath.Join(a, HeaderName))
	if err != nil {
		t.Fatal(err)
	}
	q, err := ReducePartial(sa)
	if err != nil {
		t.Fatal(err)
	}
	if q.Rows != 3 || !tensor.SameShape(q.OutShape, []int{2}) || q.Sum[1] != 12 || q.M2[0] != 8 || q.DType != tensor.F64 {
		t.Fatalf("read back rows %d shape %v sum %v M2 %v %s", q.Rows, q.OutShape, q.Sum, q.M2, q.DType)
	}
	sb, err := Read(b)
	if err != nil {
		t.Fatal(err)
	}
	var se *SettingsError
	if err := Check([]*Shard{sa, sb}); !errors.As(err, &se) || se.Key != "stat" || !strings.Contains(err.Error(), "stat mean in "+a) {
		t.Errorf("other settings: %v", err)
	}
	if err := Check([]*Shard{sa, sa}); err == nil || !strings.Contains(err.Error(), "given twice") {
		t.Errorf("a folder twice: %v", err)
	}
	hb, _ := os.ReadFile(filepath.Join(b, HeaderName))
	if err := os.WriteFile(filepath.Join(b, HeaderName), []byte(strings.Replace(string(hb), Format, "vkstat-partial/0", 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Read(b); err == nil || !strings.Contains(err.Error(), "format") {
		t.Errorf("another format: %v", err)
	}
	if err := formats.WriteNPY(filepath.Join(a, "sum.npy"), tensor.FromF32([]float32{1, 2}, 2)); err != nil {
		t.Fatal(err)
	}
	if _, err := Read(a); err == nil || !strings.Contains(err.Error(), "float64") {
		t.Errorf("a float32 array: %v", err)
	}
	if _, err := Read(root); err == nil || !strings.Contains(err.Error(), "not the folder of a partial") {
		t.Errorf("no header: %v", err)
	}
}

// TestMergeReduce: columns [1 3 5] and [2 4 6] cut into shards of 2 and 1
// rows merge to the statistics the settings name, with their ddof: mean
// 3 and 4, var (ddof 1) 4 and 4, by hand; a ddof that is no integer is
// refused naming the shard.
func TestMergeReduce(t *testing.T) {
	root := t.TempDir()
	var shards []*Shard
	for i, rows := range [][]float64{{1, 2, 3, 4}, {5, 6}} {
		p, err := reduce.CPUPartial(tensor.FromF64(rows, len(rows)/2, 2), reduce.Options{Axes: reduce.Axes{0}})
		if err != nil {
			t.Fatal(err)
		}
		dir := filepath.Join(root, string(rune('a'+i)))
		write(t, dir, p, map[string]string{"stat": "mean,var", "ddof": "1"})
		s, err := Read(dir)
		if err != nil {
			t.Fatal(err)
		}
		shards = append(shards, s)
	}
	m, stats, out, err := MergeReduce(shards)
	if err != nil {
		t.Fatal(err)
	}
	if m.Rows != 3 || len(stats) != 2 || stats[0] != reduce.Mean || stats[1] != reduce.Var {
		t.Fatalf("rows %d, stats %v", m.Rows, stats)
	}
	for st, want := range map[reduce.Stat][]float64{reduce.Mean: {3, 4}, reduce.Var: {4, 4}} {
		if got := out[st].F64; len(got) != 2 || math.Abs(got[0]-want[0]) > 1e-15 || math.Abs(got[1]-want[1]) > 1e-15 {
			t.Errorf("%s: %v, want %v", st, got, want)
		}
	}
	shards[0].Header.Settings["ddof"] = "one"
	if _, _, _, err := MergeReduce(shards); err == nil || !strings.Contains(err.Error(), shards[0].Dir+": ddof \"one\"") {
		t.Errorf("ddof one: %v", err)
	}
}
