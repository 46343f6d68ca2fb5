package stack

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/vkstat/vkstat/device/testdev"
	"github.com/vkstat/vkstat/engine"
	"github.com/vkstat/vkstat/internal/checks"
)

// shardedRun runs the dates as k random shards (dates split at random,
// k from 1 to 4), on dev or the CPU, and merges their partials in a
// shuffled order.
func shardedRun(rng *rand.Rand, dev *engine.Device) impl {
	return func(ctx context.Context, p *Plan, dates []Date) (*Result, error) {
		parts, err := shards(ctx, rng, dev, p, dates)
		if err != nil {
			return nil, err
		}
		m, err := Merge(parts...)
		if err != nil {
			return nil, err
		}
		return m.Finish(p.Ddof), nil
	}
}

func shards(ctx context.Context, rng *rand.Rand, dev *engine.Device, p *Plan, dates []Date) ([]*Partial, error) {
	var parts []*Partial
	for len(dates) > 0 {
		n := 1 + rng.IntN(max(1, len(dates)/2+1))
		pt, err := RunPartial(ctx, dev, dates[:n], Options{Plan: p})
		if err != nil {
			return nil, err
		}
		parts = append(parts, pt)
		dates = dates[n:]
	}
	rng.Shuffle(len(parts), func(i, j int) { parts[i], parts[j] = parts[j], parts[i] })
	return parts, nil
}

// TestPartialMergeCPU: the NumPy-written cases, their dates sharded at
// random and the partials merged in a shuffled order, give NumPy's
// statistics; and the merged float64 state equals the one-pass state to
// 1e-12 relative (count exactly).
func TestPartialMergeCPU(t *testing.T) {
	rng := rand.New(rand.NewPCG(43, 3))
	for range 3 {
		runSuite(t, shardedRun(rng, nil))
	}
	ctx := context.Background()
	for _, c := range loadCases(t) {
		for trial := range 5 {
			one, err := RunPartial(ctx, nil, c.dates, Options{Plan: c.plan})
			if err != nil {
				t.Fatal(err)
			}
			parts, err := shards(ctx, rng, nil, c.plan, c.dates)
			if err != nil {
				t.Fatal(err)
			}
			m, err := Merge(parts...)
			if err != nil {
				t.Fatal(err)
			}
			what := fmt.Sprintf("%s trial %d (%d shards)", c.Name, trial, len(parts))
			if m.Dates != c.Dates {
				t.Fatalf("%s: %d dates merged, want %d", what, m.Dates, c.Dates)
			}
			for _, s := range []struct {
				name      string
				got, want []float64
			}{{"count", m.Count, one.Count}, {"mean", m.Mean, one.Mean}, {"M2", m.M2, one.M2}, {"min", m.Min, one.Min}, {"max", m.Max, one.Max}} {
				var got, want []float64 // the pixels with a value
				for i, w := range s.want {
					if one.Count[i] > 0 {
						got, want = append(got, s.got[i]), append(want, w)
					}
				}
				if !checks.Within(t, what+": "+s.name+" merged against one pass", got, want, 1e-12) {
					t.FailNow()
				}
			}
		}
	}
}

// TestPartialMergeVulkan: the same sharding on each device against NumPy.
func TestPartialMergeVulkan(t *testing.T) {
	rng := rand.New(rand.NewPCG(43, 4))
	for _, dev := range testdev.Devices(t) {
		t.Run(dev.Info.Name, func(t *testing.T) { runSuite(t, shardedRun(rng, dev)) })
	}
}

// TestMergeRefusesOtherGrids: partials of other output sizes do not merge.
func TestMergeRefusesOtherGrids(t *testing.T) {
	a := &Partial{H: 1, W: 2, Count: make([]float64, 2), Mean: make([]float64, 2), M2: make([]float64, 2), Min: make([]float64, 2), Max: make([]float64, 2)}
	b := &Partial{H: 2, W: 1, Count: make([]float64, 2), Mean: make([]float64, 2), M2: make([]float64, 2), Min: make([]float64, 2), Max: make([]float64, 2)}
	if _, err := Merge(a, b); err == nil {
		t.Error("a 1×2 and a 2×1 partial merged")
	}
}
