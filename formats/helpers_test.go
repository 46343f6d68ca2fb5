package formats

import (
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"testing"

	"github.com/vkstat/vkstat/tensor"
)

func writeNPY(t *testing.T, dir, name string, tt *tensor.Tensor) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := WriteNPY(p, tt); err != nil {
		t.Fatal(err)
	}
	return p
}

func ramp(n int) []float64 {
	v := make([]float64, n)
	for i := range v {
		v[i] = float64(i%17) - 3.5
	}
	return v
}

// assertDir checks that dir holds exactly the named files (no temporaries).
func assertDir(t *testing.T, dir string, want []string) {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	got := []string{}
	for _, e := range ents {
		got = append(got, e.Name())
	}
	sort.Strings(got)
	if want == nil {
		want = []string{}
	}
	sort.Strings(want)
	if !reflect.DeepEqual(got, want) {
		t.Errorf("%s holds %q, want %q", dir, got, want)
	}
}
