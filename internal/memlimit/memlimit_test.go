package memlimit

import (
	"math"
	"runtime"
	"runtime/debug"
	"testing"
)

// restoreLimit puts the process's memory limit back after the test.
func restoreLimit(t *testing.T) {
	before := debug.SetMemoryLimit(-1)
	t.Cleanup(func() { debug.SetMemoryLimit(before) })
}

func TestApplyRespectsTheEnvironment(t *testing.T) {
	cases := []struct {
		env  map[string]string
		want bool
	}{
		{env: nil, want: true},
		{env: map[string]string{"GOMEMLIMIT": "1GiB"}, want: false},
		{env: map[string]string{"GOGC": "50"}, want: false},
		{env: map[string]string{"GOGC": "off"}, want: false},
	}
	for _, c := range cases {
		restoreLimit(t)
		debug.SetMemoryLimit(math.MaxInt64)
		const limit = 1 << 40 // far above the live heap: the watch keeps it
		got := Apply(func(k string) string { return c.env[k] }, limit)
		if got != c.want {
			t.Errorf("env %v: applied %v, want %v", c.env, got, c.want)
		}
		want := int64(math.MaxInt64)
		if c.want {
			want = limit
		}
		if l := debug.SetMemoryLimit(-1); l != want {
			t.Errorf("env %v: limit %d, want %d", c.env, l, want)
		}
	}
}

// keep holds the live heap of TestApplyGivesWayToTheLiveHeap.
var keep [][]byte

// TestApplyGivesWayToTheLiveHeap: the limit stays while the live heap is
// small, gives way to GOGC=50 once it would leave less than a fifth of
// the live heap as room (a limit kept until four fifths of it were live
// made a run with two thirds of it live collect again and again; one
// lifted for good let a compare's heap double), and is back when the heap
// shrinks.
func TestApplyGivesWayToTheLiveHeap(t *testing.T) {
	restoreLimit(t)
	defer debug.SetGCPercent(debug.SetGCPercent(100))
	const limit = 64 << 20
	if !Apply(func(string) string { return "" }, limit) {
		t.Fatal("not applied")
	}
	// settle collects until the setting is as wanted, or 50 times.
	settle := func(limit int64, gogc int) (int64, int) {
		var l int64
		var g int
		for range 50 {
			runtime.GC()
			runtime.Gosched()
			l = debug.SetMemoryLimit(-1)
			g = debug.SetGCPercent(100)
			debug.SetGCPercent(g)
			if l == limit && g == gogc {
				break
			}
		}
		return l, g
	}
	for _, c := range []struct {
		what  string
		keep  int64 // bytes kept live
		limit int64
		gogc  int
	}{
		{what: "a quarter of the limit live", keep: limit / 4, limit: limit, gogc: 100},
		{what: "five eighths of the limit live", keep: limit * 5 / 8, limit: limit, gogc: 100},
		{what: "seven eighths of the limit live", keep: limit * 7 / 8, limit: math.MaxInt64, gogc: 50},
		{what: "three times the limit live", keep: limit * 3, limit: math.MaxInt64, gogc: 50},
		{what: "the heap freed", keep: 0, limit: limit, gogc: 100},
	} {
		keep = nil
		if c.keep > 0 {
			keep = append(keep, make([]byte, c.keep))
		}
		if l, gogc := settle(c.limit, c.gogc); l != c.limit || gogc != c.gogc {
			t.Errorf("%s: limit %d, GOGC %d; want %d, %d", c.what, l, gogc, c.limit, c.gogc)
		}
	}
	keep = nil
}
