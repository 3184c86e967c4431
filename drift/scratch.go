package drift

import "sync"

// floatPool recycles the dynamic-programming tables of the exact tests
// (mwLowerTail, permExact): a compare of a statistical run computes
// thousands of them, each up to a megabyte, and would otherwise spend most
// of its allocations and garbage collection on them.
var floatPool = sync.Pool{New: func() any { return new([]float64) }}

// zeroFloats returns a zeroed slice of n floats from the pool; give it
// back with putFloats.
func zeroFloats(n int) *[]float64 {
	p := floatPool.Get().(*[]float64)
	if cap(*p) < n {
		*p = make([]float64, n)
		return p
	}
	*p = (*p)[:n]
	clear(*p)
	return p
}

func putFloats(ps ...*[]float64) {
	for _, p := range ps {
		floatPool.Put(p)
	}
}

// signalScratch is the working memory of the change signals, reused from
// one prompt to the next: the profiles, gram sets and similarity matrices
// of a prompt are dropped once its signals are computed, and a compare of
// a statistical run computes them for hundreds of prompts.
type signalScratch struct {
	pr  profiler
	ids idTable
	u64 arena[uint64]
	i32 arena[int32]
	f64 arena[float64]
	// profiles and seen are the memory of newResponseGroups.
	profiles []textProfile
	seen     map[string]int
}

// reset makes everything taken so far free for the next prompt.
func (sc *signalScratch) reset() {
	sc.u64.reset()
	sc.i32.reset()
	sc.f64.reset()
}

// arena hands out zeroed slices from a reused chunk. What it handed out
// before reset must no longer be used after it.
type arena[T any] struct {
	chunk []T
	used  int
}

// take returns a zeroed slice of n elements (a new one when a is nil).
func (a *arena[T]) take(n int) []T {
	if a == nil {
		return make([]T, n)
	}
	if a.used+n > len(a.chunk) {
		a.chunk, a.used = make([]T, max(2*len(a.chunk), n, 4096)), 0
	}
	s := a.chunk[a.used : a.used+n : a.used+n]
	a.used += n
	clear(s)
	return s
}

func (a *arena[T]) reset() { a.used = 0 }
