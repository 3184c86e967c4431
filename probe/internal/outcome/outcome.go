// Package outcome caches the result of each outcome of a probe whose
// result depends only on its configuration and on a few yes-or-no facts
// about the response (which keywords occur, which patterns match): the
// facts as the bits of a mask, the result built the first time a mask is
// seen and shared, details and metadata, by every later response with the
// same mask. A probe.Result's metadata is read-only, so sharing it is safe.
package outcome

import (
	"sync/atomic"

	"github.com/promptcanary/promptcanary/probe"
)

// MaxBits is the most facts a Cache keys on: it holds 1<<MaxBits results
// at most.
const MaxBits = 8

// Cache holds the results of the outcomes of one probe. It is safe for
// concurrent use; a nil *Cache caches nothing.
type Cache struct {
	results []atomic.Pointer[probe.Result]
}

// New returns a cache for outcomes of bits facts, or nil when there are
// more than MaxBits.
func New(bits int) *Cache {
	if bits < 0 || bits > MaxBits {
		return nil
	}
	return &Cache{results: make([]atomic.Pointer[probe.Result], 1<<bits)}
}

// Get returns the result cached for mask.
func (c *Cache) Get(mask uint) (probe.Result, bool) {
	if c == nil {
		return probe.Result{}, false
	}
	if r := c.results[mask].Load(); r != nil {
		return *r, true
	}
	return probe.Result{}, false
}

// Put caches r as the result of mask and returns it.
func (c *Cache) Put(mask uint, r probe.Result) probe.Result {
	if c != nil {
		c.results[mask].Store(&r)
	}
	return r
}
