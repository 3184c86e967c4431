// Package outcome caches the result of each outcome of a probe whose
// result depends only on its configuration and on a few yes-or-no facts
// about the response (which keywords occur, which patterns match): the
// facts as the bits of a mask, the result built the first time a mask is
// seen and shared, details and metadata, by every later response with the
// same mask. A probe.Result's metadata is read-only, so sharing it is safe.
package outcome

import (
	"hash/maphash"
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

// Memo caches results by a key of bytes that encodes everything a result
// depends on (for a tool call: the names, argument keys and type checks
// the probe read, and where it read them), in a fixed number of slots
// chosen by the key's hash: a slot answers only for its own key, and a
// result for another key may replace it, so a Memo never grows. Answers of
// one feature share a few shapes (the same function called with the same
// argument keys), so most are judged by a lookup. It is safe for
// concurrent use; a nil *Memo caches nothing. Each key may be kept in
// one of two slots, so two keys rarely push each other out.
type Memo struct {
	seed  maphash.Seed
	slots []atomic.Pointer[memoEntry]
}

type memoEntry struct {
	key string
	res probe.Result
}

// MaxMemoKey is the longest key a Memo keeps: a result of a longer one is
// not cached, so the keys it holds stay small.
const MaxMemoKey = 1 << 10

// NewMemo returns a memo of n slots, n a power of two.
func NewMemo(n int) *Memo {
	if n <= 0 || n&(n-1) != 0 {
		panic("outcome.NewMemo: the number of slots must be a power of two")
	}
	return &Memo{seed: maphash.MakeSeed(), slots: make([]atomic.Pointer[memoEntry], n)}
}

// slots2 returns the two slots key may be kept in.
func (m *Memo) slots2(key []byte) (*atomic.Pointer[memoEntry], *atomic.Pointer[memoEntry]) {
	h := maphash.Bytes(m.seed, key)
	mask := uint64(len(m.slots) - 1)
	return &m.slots[h&mask], &m.slots[(h>>32)&mask]
}

// Get returns the result kept for key.
func (m *Memo) Get(key []byte) (probe.Result, bool) {
	if m == nil || len(key) > MaxMemoKey {
		return probe.Result{}, false
	}
	a, b := m.slots2(key)
	if e := a.Load(); e != nil && e.key == string(key) {
		return e.res, true
	}
	if e := b.Load(); e != nil && e.key == string(key) {
		return e.res, true
	}
	return probe.Result{}, false
}

// Put keeps r for key (a copy of it) and returns r: in the first of its
// two slots when that one is free, else in the second when that one is
// free, else in the first.
func (m *Memo) Put(key []byte, r probe.Result) probe.Result {
	if m == nil || len(key) > MaxMemoKey {
		return r
	}
	e := &memoEntry{key: string(key), res: r}
	a, b := m.slots2(key)
	if a.Load() != nil && b.Load() == nil {
		b.Store(e)
	} else {
		a.Store(e)
	}
	return r
}
