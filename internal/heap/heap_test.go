package heap

import (
	"runtime"
	"runtime/metrics"
	"testing"
)

func read(names ...string) []uint64 {
	s := make([]metrics.Sample, len(names))
	for i, n := range names {
		s[i].Name = n
	}
	metrics.Read(s)
	out := make([]uint64, len(s))
	for i := range s {
		out[i] = s[i].Value.Uint64()
	}
	return out
}

// TestStart holds Start to its word: the ballast live in the heap, the
// huge-page heap free and returned to the kernel (so that the runtime
// hands it out without clearing it), and CollectScratch collecting only
// when the heap beyond the ballast holds more than a quarter of HugeFree.
func TestStart(t *testing.T) {
	t.Setenv("GOGC", "")
	t.Setenv("GOMEMLIMIT", "")
	Start()
	if len(ballast) != Ballast {
		t.Fatalf("ballast of %d bytes, want %d", len(ballast), Ballast)
	}
	m := read("/memory/classes/heap/objects:bytes", "/memory/classes/heap/released:bytes")
	if m[0] < Ballast || m[1] < HugeFree {
		t.Errorf("heap objects %d bytes (want ≥ the ballast's %d), released %d (want ≥ HugeFree, %d)", m[0], Ballast, m[1], HugeFree)
	}
	Start() // once only
	cycles := func() uint64 { return read("/gc/cycles/total:gc-cycles")[0] }
	n := cycles()
	CollectScratch()
	if c := cycles(); c != n {
		t.Errorf("CollectScratch on a heap of the ballast alone: %d collections, want none", c-n)
	}
	garbage := make([][]byte, 48)
	for i := range garbage {
		garbage[i] = make([]byte, 1<<20)
	}
	runtime.KeepAlive(garbage)
	garbage = nil
	n = cycles()
	CollectScratch()
	if c := cycles(); c == n {
		t.Errorf("CollectScratch with 48 MiB beyond the ballast: no collection, want one")
	}
}
