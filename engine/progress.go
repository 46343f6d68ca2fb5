package engine

import "context"

// Progress hears how far a long call is: the stage that runs, in the
// pipeline's words ("statistics", "date 3/6"), and how much of it is done,
// from 0 to 1. Every pipeline's Run tells the Progress its context carries
// (WithProgress); it may be called from several goroutines at once.
type Progress func(stage string, frac float64)

type progressKey struct{}

// WithProgress returns ctx carrying p, which the pipelines' Run calls under
// it tell how far they are.
func WithProgress(ctx context.Context, p Progress) context.Context {
	return context.WithValue(ctx, progressKey{}, p)
}

// ProgressOf is the Progress ctx carries (WithProgress), or one that hears
// nothing: callers may call it without looking.
func ProgressOf(ctx context.Context) Progress {
	if p, ok := ctx.Value(progressKey{}).(Progress); ok && p != nil {
		return p
	}
	return func(string, float64) {}
}
