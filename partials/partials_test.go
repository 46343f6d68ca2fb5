package partials

import (
	"errors"
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
	h, arrays := Reduce(p)
	for k, v := range settings {
		h.Settings[k] = v
	}
	var outs formats.Outputs
	outs.CreateDir(dir)
	Write(&outs, dir, h, arrays)
	if err := outs.Commit(); err != nil {
		t.Fatal(err)
	}
}

// TestWriteReadCheck: a partial written and read back is the same
// partial; shards of other settings are a SettingsError naming the
// setting, a folder given twice and a header of another format are
// refused, and so is an array that is not float64.
func TestWriteReadCheck(t *testing.T) {
	root := t.TempDir()
	p, err := reduce.CPUPartial(tensor.FromF64([]float64{1, 2, 3, 4, 5, 6}, 3, 2), reduce.Options{})
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
