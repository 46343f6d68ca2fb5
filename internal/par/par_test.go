package par

import (
	"runtime"
	"sync/atomic"
	"testing"
)

func TestRangeCoversOnce(t *testing.T) {
	for _, n := range []int{0, 1, 7, 100, 1001} {
		for _, grain := range []int{0, 1, 3, 64, 5000} {
			seen := make([]atomic.Int32, n)
			Range(n, grain, func(lo, hi int) {
				for i := lo; i < hi; i++ {
					seen[i].Add(1)
				}
			})
			for i := range seen {
				if c := seen[i].Load(); c != 1 {
					t.Fatalf("n=%d grain=%d: index %d done %d times", n, grain, i, c)
				}
			}
		}
	}
}

func TestEachScratchNotShared(t *testing.T) {
	var made atomic.Int32
	var busy atomic.Int32
	Each(10000, 8, func() *int { made.Add(1); return new(int) }, func(s *int, i int) {
		if *s != 0 {
			busy.Add(1) // another goroutine is using this scratch
		}
		*s = i + 1
		*s = 0
	})
	if busy.Load() != 0 {
		t.Errorf("scratch used by two goroutines at once %d times", busy.Load())
	}
	if made.Load() == 0 {
		t.Error("no scratch made")
	}
}

// A Pool's scratch outlives a call: rounds of Each make no more of it
// than the goroutines of one, and every index runs once.
func TestPoolKeepsScratch(t *testing.T) {
	var made atomic.Int64
	p := &Pool[*[]int]{New: func() *[]int { made.Add(1); return new([]int) }}
	seen := make([]atomic.Int64, 100)
	for range 10 {
		p.Each(100, 1, func(s *[]int, i int) {
			*s = append(*s, i)
			seen[i].Add(1)
		})
	}
	if n := made.Load(); n < 1 || n > int64(runtime.GOMAXPROCS(0)) {
		t.Errorf("10 rounds made %d scratches, want 1 to %d", n, runtime.GOMAXPROCS(0))
	}
	for i := range seen {
		if seen[i].Load() != 10 {
			t.Errorf("index %d ran %d times in 10 rounds", i, seen[i].Load())
		}
	}
}
