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
		const limit = 1 << 40 // never reached: the watch never lifts it
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

// keep holds the live heap of TestApplyLiftsTheLimit.
var keep [][]byte

// TestApplyLiftsTheLimit: once a collection finds more than four fifths of
// the limit live, the limit is lifted; below that it stays.
func TestApplyLiftsTheLimit(t *testing.T) {
	restoreLimit(t)
	const limit = 64 << 20
	if !Apply(func(string) string { return "" }, limit) {
		t.Fatal("not applied")
	}
	collect := func(n int) {
		for range n {
			runtime.GC()
			runtime.Gosched()
		}
	}
	keep = append(keep, make([]byte, limit/2+limit/8)) // 5/8 live: kept
	collect(5)
	if l := debug.SetMemoryLimit(-1); l != limit {
		t.Fatalf("with 5/8 of the limit live: limit %d, want %d", l, limit)
	}
	keep = append(keep, make([]byte, limit/4)) // 7/8 live: lifted
	for i := 0; i < 100 && debug.SetMemoryLimit(-1) == limit; i++ {
		collect(1)
	}
	if l := debug.SetMemoryLimit(-1); l != math.MaxInt64 {
		t.Errorf("with 7/8 of the limit live: limit %d, want it lifted", l)
	}
	keep = nil
}
