// Package memlimit gives PromptCanary a soft memory limit when the user
// set none: a statistical compare holds two runs of tens of thousands of
// probe results, and with Go's default GOGC=100 alone its heap grows to
// twice what is live before a collection, which doubles its peak memory
// for garbage.
package memlimit

import (
	"math"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
)

// Default is the soft memory limit Apply sets: it bounds what the Go
// runtime holds (heap, stacks, its own metadata), not the executable's
// pages, which come on top.
const Default = 44 << 20

// Apply sets a soft memory limit of limit bytes (debug.SetMemoryLimit)
// unless GOMEMLIMIT or GOGC is set in the environment getenv reads, and
// reports whether it did.
//
// The limit binds only once more than half of it is live (below that,
// GOGC=100 collects sooner), and then makes the collector run more often
// the closer the live heap comes to it. So that a run larger than the
// limit was chosen for never spends its time collecting, the limit is
// lifted for good after two collections in a row that found more than
// four fifths of it live: from then on GOGC=100 governs alone. (One such
// collection is not enough: what is allocated while a collection runs
// counts as live until the next one.) Up to that point a collection runs
// at most about four times as often as GOGC=100 alone would run it.
func Apply(getenv func(string) string, limit int64) bool {
	if getenv("GOMEMLIMIT") != "" || getenv("GOGC") != "" {
		return false
	}
	debug.SetMemoryLimit(limit)
	watch(watched{limit: limit})
	return true
}

// sentinel is the object whose cleanup runs once a collection has found it
// unreachable; it holds a pointer so that it is never one of the tiny
// objects the allocator packs together.
type sentinel struct{ _ *int }

// watched is what afterGC knows: the limit, and how many collections in a
// row found more than four fifths of it live.
type watched struct {
	limit int64
	over  int
}

// watch arranges for afterGC to run after the next collection.
func watch(w watched) {
	runtime.AddCleanup(&sentinel{}, afterGC, w)
}

// afterGC lifts the limit after the second collection in a row that found
// more than four fifths of it live, and otherwise watches the next one.
func afterGC(w watched) {
	if debug.SetMemoryLimit(-1) != w.limit {
		return // someone set another limit since
	}
	live := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	metrics.Read(live)
	if live[0].Value.Kind() == metrics.KindUint64 && live[0].Value.Uint64() > uint64(w.limit)/5*4 {
		w.over++
	} else {
		w.over = 0
	}
	if w.over == 2 {
		debug.SetMemoryLimit(math.MaxInt64)
		return
	}
	watch(w)
}
