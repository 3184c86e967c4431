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

// following is the GOGC of a run whose live heap outgrew the limit: the
// heap grows by half of what is live between collections.
const following = 50

// Apply sets a soft memory limit of limit bytes (debug.SetMemoryLimit)
// unless GOMEMLIMIT or GOGC is set in the environment getenv reads, and
// reports whether it did.
//
// The limit binds only once more than half of it is live (below that,
// GOGC=100 collects sooner), and then makes the collector run more often
// the closer the live heap comes to it. It gives way to the live heap
// rather than fight it: once a collection finds so much live that the
// limit would let the heap grow by less than a fifth of it before the
// next collection, the limit is lifted and GOGC=50 governs: the heap
// grows by half of what is live, its peak is one and a half times the
// live heap (not twice, as with GOGC=100), and a run larger than the limit
// was chosen for pays about twice GOGC=100's collections, in proportion
// to its size, instead of collecting again and again as its live heap
// nears a fixed limit. Up to that point a collection runs at most about
// five times as often as GOGC=100 alone would run it. Once the live heap
// fits under the limit again with room for half of it, the limit and
// GOGC=100 are back.
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

// watched is what afterGC knows: the limit, and whether it gave way to
// the live heap (GOGC=50, no limit).
type watched struct {
	limit    int64
	followed bool
}

// watch arranges for afterGC to run after the next collection.
func watch(w watched) {
	runtime.AddCleanup(&sentinel{}, afterGC, w)
}

// gcMetrics are the runtime metrics afterGC reads.
var gcMetrics = []string{
	"/gc/gogc:percent",
	"/gc/gomemlimit:bytes",
	"/gc/heap/live:bytes",
	"/gc/heap/goal:bytes",
	"/memory/classes/total:bytes",
	"/memory/classes/heap/released:bytes",
	"/memory/classes/heap/objects:bytes",
}

// afterGC lifts the limit or puts it back as the last collection's live
// heap says (see Apply), and watches the next collection, unless someone
// set another limit or GOGC since.
func afterGC(w watched) {
	samples := make([]metrics.Sample, len(gcMetrics))
	for i, name := range gcMetrics {
		samples[i].Name = name
	}
	metrics.Read(samples)
	var v [7]uint64
	for i, s := range samples {
		if s.Value.Kind() != metrics.KindUint64 {
			return // an unknown metric: leave the limit as it is
		}
		v[i] = s.Value.Uint64()
	}
	gogc, limit, live, goal := v[0], v[1], v[2], v[3]
	var other uint64 // what the runtime holds besides heap objects
	if held := v[4] - v[5]; held > v[6] {
		other = held - v[6]
	}
	switch {
	case w.followed && (gogc != following || limit != math.MaxInt64):
		return // someone changed them since
	case !w.followed && (gogc != 100 || limit != uint64(w.limit)):
		return
	case !w.followed && goal < live+live/5:
		debug.SetMemoryLimit(math.MaxInt64)
		debug.SetGCPercent(following)
		w.followed = true
	case w.followed && live+live/2+other <= uint64(w.limit):
		debug.SetGCPercent(100)
		debug.SetMemoryLimit(w.limit)
		w.followed = false
	}
	watch(w)
}
