package tune

import (
	"context"
	"fmt"
	"math"
	"slices"
	"strings"
	"time"
)

// Tuner is what `vkstat bench --tune` searches for one pipeline on one
// device: candidate parameter sets (the built-in choice first, from the
// pipeline's tune.go) and cases (representative sizes, from the pipeline's
// operation in package suite, which builds the Tuner) to time them on.
type Tuner struct {
	Pipeline   string
	Candidates []map[string]any
	Cases      []string
	// Run runs the candidate that ctx carries (WithOverride) once on case
	// c and returns its time. With check it first compares the output with
	// the float64 reference and returns an error when it is wrong, so that
	// a wrong but fast variant never wins.
	Run func(ctx context.Context, c int, check bool) (time.Duration, error)
	// Hard names cases that every candidate must get right before it is
	// timed, and Check runs one of them against the float64 reference:
	// long sets, large means, nearly constant data, 16-bit storage, where
	// a fast variant can lose accuracy that the timed cases do not show.
	// The pipelines' test suites hold every candidate to the same cases,
	// so a tuned cache cannot fail them.
	Hard  []string
	Check func(ctx context.Context, h int) error
}

// Row is one candidate's times, one per case, or the error that put it out.
type Row struct {
	Candidate map[string]any
	Times     []time.Duration
	Err       error
	// Score is the geometric mean over cases of time / the case's best
	// time: 1 for a candidate fastest everywhere.
	Score float64
}

// Result is a search's table and its winner (an index into Rows, -1 when
// every candidate failed).
type Result struct {
	Pipeline string
	Cases    []string
	Rows     []Row
	Winner   int
}

// margin is how much faster than the built-in choice (candidate 0) another
// candidate must be to win: timings on a shared machine wander by a few
// per cent, and a change of kernel should rest on a clear difference.
const margin = 0.05

// Search times every candidate of t on every case: each candidate is run
// once and checked, then the candidates take turns, repeat rounds, so that
// a machine whose load drifts slows them alike; each time is the median of
// its rounds. A context cancelled stops it with ctx's error.
func Search(ctx context.Context, t Tuner, repeat int) (Result, error) {
	res := Result{Pipeline: t.Pipeline, Cases: t.Cases, Winner: -1}
	ctxs := make([]context.Context, len(t.Candidates))
	for i, cand := range t.Candidates {
		res.Rows = append(res.Rows, Row{Candidate: cand, Times: make([]time.Duration, len(t.Cases))})
		ctxs[i] = WithOverride(ctx, t.Pipeline, cand)
	}
	for h := range t.Hard {
		for i := range res.Rows {
			if r := &res.Rows[i]; r.Err == nil {
				if err := t.Check(ctxs[i], h); err != nil {
					r.Err = fmt.Errorf("%s: %w", t.Hard[h], err)
				}
			}
			if ctx.Err() != nil {
				return res, ctx.Err()
			}
		}
	}
	for c := range t.Cases {
		for i := range res.Rows {
			if r := &res.Rows[i]; r.Err == nil {
				if _, err := t.Run(ctxs[i], c, true); err != nil {
					r.Err = fmt.Errorf("%s: %w", t.Cases[c], err)
				}
			}
			if ctx.Err() != nil {
				return res, ctx.Err()
			}
		}
		times := make([][]time.Duration, len(res.Rows))
		for round := 0; round < repeat; round++ {
			for k := range res.Rows {
				i := (k + round) % len(res.Rows) // each round starts elsewhere
				if res.Rows[i].Err != nil {
					continue
				}
				d, err := t.Run(ctxs[i], c, false)
				if ctx.Err() != nil {
					return res, ctx.Err()
				}
				if err != nil {
					res.Rows[i].Err = fmt.Errorf("%s: %w", t.Cases[c], err)
					continue
				}
				times[i] = append(times[i], d)
			}
		}
		for i, ts := range times {
			if len(ts) > 0 {
				slices.Sort(ts)
				res.Rows[i].Times[c] = ts[len(ts)/2]
			}
		}
	}
	best := make([]time.Duration, len(t.Cases))
	for _, r := range res.Rows {
		if r.Err != nil {
			continue
		}
		for c, d := range r.Times {
			if best[c] == 0 || d < best[c] {
				best[c] = d
			}
		}
	}
	for i := range res.Rows {
		r := &res.Rows[i]
		if r.Err != nil {
			continue
		}
		s := 0.0
		for c, d := range r.Times {
			s += math.Log(float64(max(d, 1)) / float64(max(best[c], 1)))
		}
		r.Score = math.Exp(s / float64(len(r.Times)))
		if res.Winner < 0 || r.Score < res.Rows[res.Winner].Score {
			res.Winner = i
		}
	}
	if w := res.Winner; w > 0 && res.Rows[0].Err == nil && res.Rows[w].Score > res.Rows[0].Score*(1-margin) {
		res.Winner = 0
	}
	return res, nil
}

// Format writes a candidate as "k=v k=v", keys sorted.
func Format(cand map[string]any) string {
	var b strings.Builder
	for i, k := range keys(cand) {
		if i > 0 {
			b.WriteByte(' ')
		}
		fmt.Fprintf(&b, "%s=%v", k, cand[k])
	}
	return b.String()
}

// Table is the result as Markdown rows: candidate, one time per case
// (milliseconds), score, and the winner marked.
func (r Result) Table() []string {
	head := "| " + r.Pipeline + " candidate | " + strings.Join(r.Cases, " | ") + " | score |"
	sep := "|---|" + strings.Repeat("---:|", len(r.Cases)+1)
	lines := []string{head, sep}
	for i, row := range r.Rows {
		name := Format(row.Candidate)
		if i == r.Winner {
			name = "**" + name + "** (chosen)"
		}
		if row.Err != nil {
			lines = append(lines, fmt.Sprintf("| %s | out: %v |", name, row.Err))
			continue
		}
		cells := make([]string, len(row.Times))
		for c, d := range row.Times {
			cells[c] = fmt.Sprintf("%.3f ms", float64(d)/1e6)
		}
		lines = append(lines, fmt.Sprintf("| %s | %s | %.2f |", name, strings.Join(cells, " | "), row.Score))
	}
	return lines
}
