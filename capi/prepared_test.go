package capi

import (
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
	rep := testing.AllocsPerRun(20, func() { CallPrepared(h, 0, id, []unsafe.Pointer{ptrOf(x)}, outs) })
	req := `{"params":{"stats":["mean","max"],"axis":null,"ddof":0},"arrays":{"a":{"dtype":"float64","shape":[1000],"nbytes":8000,"ptr":0}}}`
	js := testing.AllocsPerRun(20, func() { CallHandle(h, 0, "reduce", []byte(req), []unsafe.Pointer{ptrOf(x)}, nil) })
	if rep >= js/2 {
		t.Errorf("a repeat allocates %v times, the JSON call %v: want less than half", rep, js)
	}
	t.Logf("allocations: repeat %v, JSON call %v", rep, js)

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
