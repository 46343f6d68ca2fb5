package capi

import (
	"encoding/json"
	"math"
	"strconv"
	"strings"
	"testing"
	"unsafe"
)

// prepareReduce sends a mean of n float64s as the C ABI's JSON call with
// Prepare, and returns the session's handle and the prepared call's id.
func prepareReduce(t testing.TB, x []float64) (int64, int64) {
	s, err := Open("cpu", OpenOptions{})
	if err != nil {
		t.Fatal(err)
	}
	h := sessions.Put(s)
	t.Cleanup(func() { CloseHandle(h) })
	req := `{"prepare":true,"params":{"stats":["mean","max"],"axis":null,"ddof":0},"arrays":{"a":{"dtype":"float64","shape":[` +
		strconv.Itoa(len(x)) + `],"nbytes":` + strconv.Itoa(8*len(x)) + `,"ptr":0}}}`
	desc, _, err := CallHandle(h, 0, "reduce", []byte(req), []unsafe.Pointer{ptrOf(x)}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(desc), `"prepared":1`) {
		t.Fatalf("no prepared call in %s", desc)
	}
	return h, 1
}

// TestPreparedRepeat: a repeat of a prepared call decodes and encodes no
// JSON, writes into the memory it is given, allocates less than the JSON
// call, and refuses what does not fit the prepared call.
func TestPreparedRepeat(t *testing.T) {
	x := make([]float64, 1000)
	for i := range x {
		x[i] = float64(i)
	}
	h, id := prepareReduce(t, x)
	mean, max := []float64{0}, []float64{0}
	outs := []unsafe.Pointer{ptrOf(mean), ptrOf(max)}
	before := JSONCodings()
	for k := 1; k <= 3; k++ {
		for i := range x {
			x[i] = float64(i * k)
		}
		wall, st, err := CallPrepared(h, 0, id, []unsafe.Pointer{ptrOf(x)}, outs)
		if err != nil || st != StatusOK {
			t.Fatal(st, err)
		}
		if mean[0] != 499.5*float64(k) || max[0] != 999*float64(k) {
			t.Errorf("repeat %d: mean %g max %g, want %g and %g", k, mean[0], max[0], 499.5*float64(k), 999*float64(k))
		}
		if wall <= 0 || math.IsNaN(wall) {
			t.Errorf("wall %g ms", wall)
		}
	}
	if n := JSONCodings() - before; n != 0 {
		t.Errorf("3 repeats coded %d JSON documents, want 0", n)
	}
	// planned (reduce.CPUPlan): no Call, no Result, no plan made again;
	// before the plans a repeat allocated 35 times
	ptrs := []unsafe.Pointer{ptrOf(x)}
	if rep := testing.AllocsPerRun(20, func() { CallPrepared(h, 0, id, ptrs, outs) }); rep != 0 {
		t.Errorf("a repeat allocates %v times, want 0", rep)
	}

	for _, c := range []struct {
		ptrs, outs []unsafe.Pointer
		id         int64
		want       string
	}{
		{[]unsafe.Pointer{ptrOf(x)}, outs[:1], id, "1 outputs given, it takes 1 and 2"},
		{[]unsafe.Pointer{ptrOf(x)}, []unsafe.Pointer{ptrOf(mean), nil}, id, "output max: the caller gave no memory"},
		{[]unsafe.Pointer{ptrOf(x)}, outs, 99, "no prepared call 99"},
	} {
		_, st, err := CallPrepared(h, 0, c.id, c.ptrs, c.outs)
		if st != StatusValue || err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("got %d %v, want status 1 and %q", st, err, c.want)
		}
	}
	Forget(h, id)
	if _, _, err := CallPrepared(h, 0, id, []unsafe.Pointer{ptrOf(x)}, outs); err == nil {
		t.Error("a forgotten call ran")
	}
}

// prepare sends op's call with params and float64 arrays (name, shape,
// data) as the C ABI's JSON with Prepare, and returns the session's
// handle, the prepared call's id and the outputs' memory it asked for.
func prepare(t testing.TB, op, params string, arrays ...struct {
	name  string
	shape []int
	data  []float64
}) (int64, int64, [][]float64) {
	s, err := Open("cpu", OpenOptions{})
	if err != nil {
		t.Fatal(err)
	}
	h := sessions.Put(s)
	t.Cleanup(func() { CloseHandle(h) })
	var specs []string
	var ptrs []unsafe.Pointer
	for i, a := range arrays {
		js, _ := json.Marshal(ArraySpec{DType: "float64", Shape: a.shape, NBytes: 8 * int64(len(a.data)), Ptr: i})
		specs = append(specs, strconv.Quote(a.name)+":"+string(js))
		ptrs = append(ptrs, ptrOf(a.data))
	}
	var outs [][]float64
	alloc := func(_, _ string, _ []int, nbytes int64) unsafe.Pointer {
		outs = append(outs, make([]float64, nbytes/8))
		return ptrOf(outs[len(outs)-1])
	}
	desc, _, err := CallHandle(h, 0, op, []byte(`{"prepare":true,"params":`+params+`,"arrays":{`+strings.Join(specs, ",")+`}}`), ptrs, alloc)
	if err != nil {
		t.Fatal(err)
	}
	var r Result
	if err := json.Unmarshal(desc, &r); err != nil || r.Prepared == 0 {
		t.Fatalf("no prepared call in %s (%v)", desc, err)
	}
	return h, r.Prepared, outs
}

// TestPreparedRepeatCosts: repeats of map, cov and chol write the values
// derived by hand for new inputs into new memory and allocate at most
// what their pipelines do (map and reduce are planned: no Call, Result
// or outputs made; before the plans a map repeat allocated 18 times).
func TestPreparedRepeatCosts(t *testing.T) {
	type arr = struct {
		name  string
		shape []int
		data  []float64
	}
	x, y := make([]float64, 1000), make([]float64, 1000)
	h, id, outs := prepare(t, "map", `{"a":3.5,"b":2.8,"c":10}`, arr{"x", []int{1000}, x}, arr{"y", []int{1000}, y})
	z := make([]float64, 1000)
	for k := 1; k <= 2; k++ {
		for i := range x {
			x[i], y[i] = float64(k*i), float64(i)/4
		}
		if _, _, err := CallPrepared(h, 0, id, []unsafe.Pointer{ptrOf(x), ptrOf(y)}, []unsafe.Pointer{ptrOf(z)}); err != nil {
			t.Fatal(err)
		}
		for i, v := range z {
			// 3.5·(ki)² + 2.8·i/4 + 10: 0.7·i is not exact, the rest is
			if want := 3.5*float64(k*k*i*i) + 0.7*float64(i) + 10; math.Abs(v-want) > 1e-12*want {
				t.Fatalf("repeat %d: z[%d] = %v, want %v", k, i, v, want)
			}
		}
	}
	if len(outs) != 1 {
		t.Fatalf("map asked for %d outputs", len(outs))
	}
	ptrs, zs := []unsafe.Pointer{ptrOf(x), ptrOf(y)}, []unsafe.Pointer{ptrOf(z)}
	if n := testing.AllocsPerRun(20, func() { CallPrepared(h, 0, id, ptrs, zs) }); n > 2 {
		t.Errorf("a map repeat allocates %v times, want at most 2 (mapx.Run's result and timing)", n)
	}

	// chol of 2·I, then of 8·I (8×8, a batch of 4): L = 2√2·I
	a := make([]float64, 4*64)
	diag := func(v float64) {
		for i := range a {
			if i%64%9 == 0 {
				a[i] = v
			}
		}
	}
	diag(2)
	h, id, outs = prepare(t, "chol", `{"l":true}`, arr{"a", []int{4, 8, 8}, a})
	diag(8)
	got := make([][]float64, len(outs))
	ptrs = make([]unsafe.Pointer, len(outs))
	for i, o := range outs {
		got[i] = make([]float64, len(o))
		ptrs[i] = ptrOf(got[i])
	}
	as := []unsafe.Pointer{ptrOf(a)}
	if _, _, err := CallPrepared(h, 0, id, as, ptrs); err != nil {
		t.Fatal(err)
	}
	for i, v := range got[0] {
		want := 0.0
		if i%64%9 == 0 {
			want = 2 * math.Sqrt2
		}
		if math.Abs(v-want) > 1e-15 {
			t.Fatalf("chol: L[%d] = %v, want %v", i, v, want)
		}
	}
	if n := testing.AllocsPerRun(20, func() { CallPrepared(h, 0, id, as, ptrs) }); n > cholAllocs {
		t.Errorf("a chol repeat allocates %v times, want at most %d (chol.Run's)", n, cholAllocs)
	}

	// cov of sets of 4 samples k·(±1, ±1), ddof 0: means 0, covariances k²·I
	xs := make([]float64, 3*4*2)
	samples := func(k float64) {
		for i := range xs {
			xs[i] = k * float64(1-2*((i/2+i%2*(i/4))%2)) // (1,1) (−1,−1) (1,−1) (−1,1)
		}
	}
	samples(1)
	h, id, outs = prepare(t, "cov", `{"estimator":"none","ddof":0}`, arr{"x", []int{3, 4, 2}, xs})
	samples(3)
	got, ptrs = got[:0], ptrs[:0]
	for _, o := range outs {
		got = append(got, make([]float64, len(o)))
		ptrs = append(ptrs, ptrOf(got[len(got)-1]))
	}
	xp := []unsafe.Pointer{ptrOf(xs)}
	if _, _, err := CallPrepared(h, 0, id, xp, ptrs); err != nil {
		t.Fatal(err)
	}
	if len(got) < 2 || len(got[0]) != 3*2 || len(got[1]) != 3*4 {
		t.Fatalf("cov's outputs: %v", got)
	}
	for i, v := range got[0] {
		if v != 0 {
			t.Fatalf("cov: mean[%d] = %v, want 0", i, v)
		}
	}
	for i, v := range got[1] {
		if want := 9 * float64(1-min(1, i%4%3)); v != want {
			t.Fatalf("cov: cov[%d] = %v, want %v", i, v, want)
		}
	}
	if n := testing.AllocsPerRun(20, func() { CallPrepared(h, 0, id, xp, ptrs) }); n > covAllocs {
		t.Errorf("a cov repeat allocates %v times, want at most %d (cov.Run's)", n, covAllocs)
	}
}

// cholAllocs and covAllocs bound what a repeat of chol and cov allocates:
// their pipelines' own (workers, results); the call allocated 43 and 46
// before the plans.
const cholAllocs, covAllocs = 20, 20

// TestPreparedTimingOnDemand: the last call's timing is reported when
// asked, not encoded on each call.
func TestPreparedTimingOnDemand(t *testing.T) {
	x := make([]float64, 100)
	h, id := prepareReduce(t, x)
	if _, _, err := CallPrepared(h, 0, id, []unsafe.Pointer{ptrOf(x)}, []unsafe.Pointer{ptrOf(make([]float64, 1)), ptrOf(make([]float64, 1))}); err != nil {
		t.Fatal(err)
	}
	b, _, err := LastTimingJSON(h)
	if err != nil || !strings.Contains(string(b), `"wall_ms"`) || !strings.Contains(string(b), `"compute"`) {
		t.Fatalf("%s %v", b, err)
	}
}

// BenchmarkCallPrepared is a repeated 1,000-element mean and max through
// the C ABI's Go side: what a call costs besides its pipeline.
func BenchmarkCallPrepared(b *testing.B) {
	x := make([]float64, 1000)
	h, id := prepareReduce(b, x)
	outs := []unsafe.Pointer{ptrOf(make([]float64, 1)), ptrOf(make([]float64, 1))}
	ptrs := []unsafe.Pointer{ptrOf(x)}
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		if _, _, err := CallPrepared(h, 0, id, ptrs, outs); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkCallPreparedLinalg is a repeated cov of (3, 32, 8) and chol of
// (15, 8, 8), callcost.py's 1,000-element calls, through the C ABI's Go
// side; lib-ns/op is the library's own wall as it reports it, the rest
// of ns/op what the call costs besides its pipeline.
func BenchmarkCallPreparedLinalg(b *testing.B) {
	type arr = struct {
		name  string
		shape []int
		data  []float64
	}
	xs, a := make([]float64, 3*32*8), make([]float64, 15*64)
	for i := range xs {
		xs[i] = float64(i%7) - float64(i%5)
	}
	for i := range a {
		if i%64%9 == 0 {
			a[i] = 4
		}
	}
	for _, c := range []struct {
		op, params string
		in         arr
	}{
		{"cov", `{"estimator":"none","ddof":0}`, arr{"x", []int{3, 32, 8}, xs}},
		{"chol", `{"l":true}`, arr{"a", []int{15, 8, 8}, a}},
	} {
		b.Run(c.op, func(b *testing.B) {
			h, id, outs := prepare(b, c.op, c.params, c.in)
			ptrs := make([]unsafe.Pointer, len(outs))
			for i, o := range outs {
				ptrs[i] = ptrOf(make([]float64, len(o)+1))
			}
			in := []unsafe.Pointer{ptrOf(c.in.data)}
			lib := 0.0
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				ms, _, err := CallPrepared(h, 0, id, in, ptrs)
				if err != nil {
					b.Fatal(err)
				}
				lib += ms
			}
			b.ReportMetric(lib*1e6/float64(b.N), "lib-ns/op")
		})
	}
}
