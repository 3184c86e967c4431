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

// Table caches results in a few numbered slots, each result with the key
// it was built for (the probe's configuration, say): a slot answers only
// for the same key, and a result for another key replaces it. A Table may
// thus be shared by every probe of a type, which usually has one
// configuration in a suite. It is safe for concurrent use; a nil *Table
// caches nothing.
type Table[K comparable] struct {
	slots []atomic.Pointer[entry[K]]
}

type entry[K comparable] struct {
	key K
	res probe.Result
}

// NewTable returns a table of n slots.
func NewTable[K comparable](n int) *Table[K] {
	return &Table[K]{slots: make([]atomic.Pointer[entry[K]], n)}
}

// Get returns the result in slot i when it was built for key; a slot out
// of range holds nothing.
func (t *Table[K]) Get(i int, key K) (probe.Result, bool) {
	if t == nil || uint(i) >= uint(len(t.slots)) {
		return probe.Result{}, false
	}
	if e := t.slots[i].Load(); e != nil && e.key == key {
		return e.res, true
	}
	return probe.Result{}, false
}

// Put keeps r in slot i for key, when i is in range, and returns r.
func (t *Table[K]) Put(i int, key K, r probe.Result) probe.Result {
	if t != nil && uint(i) < uint(len(t.slots)) {
		t.slots[i].Store(&entry[K]{key: key, res: r})
	}
	return r
}
