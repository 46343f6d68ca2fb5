package stack

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"testing"

	"github.com/vkstat/vkstat/engine"
)

// TestRunTellsProgress: Run tells the Progress its context carries of each
// date done, in the pipeline's words, ending at 1.
func TestRunTellsProgress(t *testing.T) {
	g := Grid{Width: 4, Height: 4}
	dates, err := MemoryDates(make([]float32, 3*16), 3, g, nil)
	if err != nil {
		t.Fatal(err)
	}
	p, err := NewPlan(Config{LooksAz: 2, LooksRg: 2}, g)
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var heard []string
	ctx := engine.WithProgress(context.Background(), func(stage string, frac float64) {
		mu.Lock()
		defer mu.Unlock()
		heard = append(heard, fmt.Sprintf("%s %.2f", stage, frac))
	})
	if _, err := Run(ctx, nil, dates, Options{Plan: p}); err != nil {
		t.Fatal(err)
	}
	want := []string{"date 1/3 0.33", "date 2/3 0.67", "date 3/3 1.00"}
	if !slices.Equal(heard, want) {
		t.Errorf("heard %q, want %q", heard, want)
	}
}
