package par

import "context"

// EachContext is Each that stops handing out indices once ctx is done:
// the indices begun finish, none is begun after, and ctx's error is
// returned. A cancelled call of a CPU path so stops within one index of
// each goroutine, and writes nothing into its outputs once it has
// returned.
func EachContext[S any](ctx context.Context, n, batch int, newScratch func() S, fn func(s S, i int)) error {
	done := ctx.Done()
	if done == nil {
		Each(n, batch, newScratch, fn)
		return nil
	}
	Each(n, batch, newScratch, func(s S, i int) {
		select {
		case <-done:
		default:
			fn(s, i)
		}
	})
	return ctx.Err()
}
