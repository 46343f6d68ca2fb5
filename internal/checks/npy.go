package checks

import (
	"os"
	"testing"

	"github.com/sbinet/npyio"
)

// ReadNPY reads a NumPy-written .npy file of a test's expected values
// (testdata/), as float64 with its shape, failing t when it cannot.
func ReadNPY(t testing.TB, path string) ([]float64, []int) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	r, err := npyio.NewReader(f)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	var v []float64
	if err := r.Read(&v); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return v, r.Header.Descr.Shape
}
