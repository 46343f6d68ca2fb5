package cli

import (
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vkstat/vkstat/formats"
	"github.com/vkstat/vkstat/pipelines/reduce"
	"github.com/vkstat/vkstat/pipelines/stack"
	"github.com/vkstat/vkstat/tensor"
)

// TestReducePartialMerge: an array cut along the reduced axis into three
// files (4, 1 and 4 rows), each reduced with --partial, merged in another
// order, gives the files one reduce of the whole array gives, to 1e-12
// relative, and the float64 Reference's values; the json summary names
// the partial.
func TestReducePartialMerge(t *testing.T) {
	dir := t.TempDir()
	rng := rand.New(rand.NewPCG(43, 6))
	x := make([]float64, 9*4*3)
	for i := range x {
		x[i] = 2 + rng.NormFloat64()
	}
	x[7] = math.NaN()
	whole := writeNPY(t, dir, "x.npy", tensor.FromF64(x, 9, 4, 3))
	var parts []string
	for i, r := range [][2]int{{0, 4}, {4, 5}, {5, 9}} {
		f := writeNPY(t, dir, fmt.Sprintf("x%d.npy", i), tensor.FromF64(x[r[0]*12:r[1]*12], r[1]-r[0], 4, 3))
		p := filepath.Join(dir, fmt.Sprintf("p%d", i))
		code, stdout, stderr := run(t, "--device", "cpu", "reduce", "--in", f, "--axis", "0", "--stat", "all", "--ddof", "1", "--skip-nan", "--partial", "--json", "--out-dir", p)
		if code != 0 || !strings.Contains(stdout, "partial.json") {
			t.Fatalf("reduce --partial: exit %d, stdout %s, stderr %s", code, stdout, stderr)
		}
		parts = append(parts, p)
	}
	one, merged := filepath.Join(dir, "one"), filepath.Join(dir, "merged")
	if code, _, stderr := run(t, "--device", "cpu", "reduce", "--in", whole, "--axis", "0", "--stat", "all", "--ddof", "1", "--skip-nan", "--out-dir", one); code != 0 {
		t.Fatalf("reduce: exit %d: %s", code, stderr)
	}
	if code, _, stderr := run(t, "merge", "--out-dir", merged, parts[2], parts[0], parts[1]); code != 0 {
		t.Fatalf("merge: exit %d: %s", code, stderr)
	}
	ref, err := reduce.Reference(x, []int{9, 4, 3}, reduce.Options{Axes: reduce.Axes{0}, DDof: 1, SkipNaN: true})
	if err != nil {
		t.Fatal(err)
	}
	for _, st := range reduce.AllStats() {
		a, err := formats.ReadNPY(filepath.Join(merged, st.String()+".npy"))
		if err != nil {
			t.Fatal(err)
		}
		b, _ := formats.ReadNPY(filepath.Join(one, st.String()+".npy"))
		if !tensor.SameShape(a.Shape, []int{4, 3}) {
			t.Fatalf("%s: shape %v", st, a.Shape)
		}
		for i, w := range b.F64 {
			for _, want := range []float64{w, ref[st][i]} {
				if math.Abs(a.F64[i]-want) > 1e-12*math.Abs(want) {
					t.Fatalf("%s[%d]: merged %v, want %v", st, i, a.F64[i], want)
				}
			}
		}
	}
}

// TestMergeRefuses: partials of other settings, a folder given twice, and
// a folder without a partial are refused with a message that says so, and
// nothing is written.
func TestMergeRefuses(t *testing.T) {
	dir := t.TempDir()
	f := writeNPY(t, dir, "x.npy", tensor.FromF64(ramp(12), 4, 3))
	mk := func(name string, extra ...string) string {
		p := filepath.Join(dir, name)
		args := append([]string{"--device", "cpu", "reduce", "--in", f, "--partial", "--out-dir", p}, extra...)
		if code, _, stderr := run(t, args...); code != 0 {
			t.Fatalf("%v: exit %d: %s", args, code, stderr)
		}
		return p
	}
	a, b := mk("a"), mk("b", "--skip-nan")
	out := filepath.Join(dir, "out")
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{a, b}, "--skip-nan"},
		{[]string{a, a}, "given twice"},
		{[]string{a, dir}, "not the folder of a partial"},
		{nil, "give the folders"},
	} {
		code, _, stderr := run(t, append([]string{"merge", "--out-dir", out}, c.args...)...)
		if code == 0 || !strings.Contains(stderr, c.want) {
			t.Errorf("merge %v: exit %d, stderr %q; want an error saying %q", c.args, code, stderr, c.want)
		}
		if _, err := os.Stat(out); err == nil {
			t.Fatalf("merge %v wrote %s", c.args, out)
		}
	}
}

// TestStackPartialMerge: five NPY dates as two shards (--partial), merged,
// give the files one stack run over the five writes, and the same set
// of dates twice is refused.
func TestStackPartialMerge(t *testing.T) {
	dir := t.TempDir()
	rng := rand.New(rand.NewPCG(43, 7))
	var dates []string
	for d := range 5 {
		v := make([]float32, 8*6)
		for i := range v {
			v[i] = float32(1 + rng.ExpFloat64())
		}
		v[d] = float32(math.NaN())
		dates = append(dates, writeNPY(t, dir, fmt.Sprintf("d%d.npy", d), tensor.FromF32(v, 8, 6)))
	}
	flags := []string{"--looks", "2x1", "--filter", "boxcar", "--filter-size", "3", "--ddof", "1", "--format", "npy"}
	shard := func(name string, files ...string) string {
		p := filepath.Join(dir, name)
		args := append(append([]string{"--device", "cpu", "stack", "--partial", "--out-dir", p}, flags...), files...)
		if code, _, stderr := run(t, args...); code != 0 {
			t.Fatalf("%v: exit %d: %s", args, code, stderr)
		}
		return p
	}
	p1, p2 := shard("p1", dates[3], dates[0]), shard("p2", dates[1], dates[2], dates[4])
	one, merged := filepath.Join(dir, "one"), filepath.Join(dir, "merged")
	if code, _, stderr := run(t, append(append([]string{"--device", "cpu", "stack", "--out-dir", one}, flags...), dates...)...); code != 0 {
		t.Fatalf("stack: exit %d: %s", code, stderr)
	}
	if code, _, stderr := run(t, "merge", "--out-dir", merged, p2, p1); code != 0 {
		t.Fatalf("merge: exit %d: %s", code, stderr)
	}
	for _, st := range stack.Stats {
		a, err := formats.ReadNPY(filepath.Join(merged, st+".npy"))
		if err != nil {
			t.Fatal(err)
		}
		b, _ := formats.ReadNPY(filepath.Join(one, st+".npy"))
		checkStat(t, st, a.Float64s(), b.Float64s(), 1e-6)
	}
	p3 := shard("p3", dates[0])
	if code, _, stderr := run(t, "merge", "--out-dir", filepath.Join(dir, "bad"), p1, p3); code == 0 || !strings.Contains(stderr, "in two partials") {
		t.Errorf("a date in two shards: exit %d, stderr %q", code, stderr)
	}
	p4 := filepath.Join(dir, "p4")
	if code, _, stderr := run(t, "--device", "cpu", "stack", "--partial", "--format", "npy", "--out-dir", p4, dates[1]); code != 0 {
		t.Fatal(stderr)
	}
	if code, _, stderr := run(t, "merge", "--out-dir", filepath.Join(dir, "bad"), p3, p4); code == 0 || !strings.Contains(stderr, "different settings") {
		t.Errorf("shards of other looks: exit %d, stderr %q", code, stderr)
	}
}

// TestLatentPartialMerge: a latent file's samples as three shards
// (--samples, --partial), merged in another order, give every array one
// latent run over all the samples writes (to 1e-12 relative to each
// array's largest value), and the same notes in summary.json; shards that
// overlap are refused.
func TestLatentPartialMerge(t *testing.T) {
	dir := t.TempDir()
	lat := filepath.Join(dir, "lat.npy")
	if code, _, stderr := run(t, "synth", "latent", "--shape", "7,3,4,8,8", "--dtype", "f64", "--out", lat); code != 0 {
		t.Fatal(stderr)
	}
	flags := []string{"--stat", "all", "--axes", "0,3,4", "--ddof", "1"}
	one := filepath.Join(dir, "one")
	if code, _, stderr := run(t, append([]string{"--device", "cpu", "latent", "--in", lat, "--out-dir", one}, flags...)...); code != 0 {
		t.Fatal(stderr)
	}
	shard := func(name, samples string) string {
		p := filepath.Join(dir, name)
		args := append([]string{"--device", "cpu", "latent", "--in", lat, "--samples", samples, "--partial", "--out-dir", p}, flags...)
		if code, _, stderr := run(t, args...); code != 0 {
			t.Fatalf("%v: exit %d: %s", args, code, stderr)
		}
		return p
	}
	p1, p2, p3 := shard("p1", "0:3"), shard("p2", "3:4"), shard("p3", "4:7")
	merged := filepath.Join(dir, "merged")
	if code, _, stderr := run(t, "merge", "--out-dir", merged, p3, p1, p2); code != 0 {
		t.Fatalf("merge: exit %d: %s", code, stderr)
	}
	names, _ := filepath.Glob(filepath.Join(one, "*.npy"))
	if len(names) < 15 {
		t.Fatalf("one run wrote %d arrays: %v", len(names), names)
	}
	for _, n := range names {
		a, err := formats.ReadNPY(filepath.Join(merged, filepath.Base(n)))
		if err != nil {
			t.Fatal(err)
		}
		b, _ := formats.ReadNPY(n)
		if !tensor.SameShape(a.Shape, b.Shape) {
			t.Fatalf("%s: shape %v, want %v", filepath.Base(n), a.Shape, b.Shape)
		}
		checkStat(t, filepath.Base(n), a.Float64s(), b.Float64s(), 1e-12)
	}
	notes := func(d string) string {
		b, err := os.ReadFile(filepath.Join(d, "summary.json"))
		if err != nil {
			t.Fatal(err)
		}
		i := strings.Index(string(b), `"notes"`)
		if i < 0 {
			return ""
		}
		return string(b[i : i+strings.Index(string(b[i:]), "]")])
	}
	if a, b := notes(merged), notes(one); a != b {
		t.Errorf("notes %s, want %s", a, b)
	}
	p4 := shard("p4", "2:4")
	if code, _, stderr := run(t, "merge", "--out-dir", filepath.Join(dir, "bad"), p1, p4, p3); code == 0 || !strings.Contains(stderr, "exactly one") {
		t.Errorf("overlapping shards: exit %d, stderr %q", code, stderr)
	}
}
