package provider

import (
	"context"
	"sync"
)

// Bound is how much of one answer a call keeps, and what it cut. The run
// engine passes one to each call attempt in the context (WithBound); a
// client that reads its answer from a stream (an HTTP body, a command's
// output) cuts every string of it to Max bytes as it reads, so that a
// large answer is never held whole, and records the cut with Record. The
// engine then marks the response (promptcanary.Response.Truncated) and
// cuts whatever a client returned longer than Max.
type Bound struct {
	// Max is the most bytes of a string kept; 0 keeps everything.
	Max int

	mu       sync.Mutex
	cut      bool
	original int64
}

// Record notes that a string of original bytes was cut to Max. It is
// safe for concurrent use, and a nil *Bound records nothing.
func (b *Bound) Record(original int64) {
	if b == nil {
		return
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	b.cut = true
	b.original = max(b.original, original)
}

// Cut reports whether a string was cut and the size in bytes of the
// largest string cut.
func (b *Bound) Cut() (bool, int64) {
	if b == nil {
		return false, 0
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.cut, b.original
}

type boundKey struct{}

// WithBound returns ctx carrying b for the call made with it.
func WithBound(ctx context.Context, b *Bound) context.Context {
	return context.WithValue(ctx, boundKey{}, b)
}

// BoundFrom returns the Bound ctx carries, nil when none.
func BoundFrom(ctx context.Context) *Bound {
	b, _ := ctx.Value(boundKey{}).(*Bound)
	return b
}
