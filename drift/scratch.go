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
