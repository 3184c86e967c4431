package outcome

import (
	"sync"
	"testing"

	"github.com/promptcanary/promptcanary/probe"
)

func TestCache(t *testing.T) {
	tests := []struct {
		name string
		bits int
		nil  bool
	}{
		{"none", 0, false},
		{"some", 3, false},
		{"most", MaxBits, false},
		{"too many", MaxBits + 1, true},
		{"negative", -1, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c := New(tc.bits)
			if (c == nil) != tc.nil {
				t.Fatalf("New(%d) = %v, want nil %v", tc.bits, c, tc.nil)
			}
			mask := uint(1<<max(tc.bits, 0)) - 1
			if _, ok := c.Get(mask); ok {
				t.Fatal("an empty cache returned a result")
			}
			want := probe.Result{Passed: true, Score: 0.5, Details: "d", Metadata: map[string]any{"k": 1}}
			if got := c.Put(mask, want); got.Details != "d" {
				t.Fatalf("Put returned %+v", got)
			}
			got, ok := c.Get(mask)
			if ok == tc.nil {
				t.Fatalf("Get after Put: ok %v, want %v", ok, !tc.nil)
			}
			if ok && (got.Score != 0.5 || got.Details != "d" || got.Metadata["k"] != 1) {
				t.Errorf("Get after Put: got %+v, want %+v", got, want)
			}
		})
	}
}

// concurrently runs step(g, i) for i below 1000 on each of 8 goroutines g
// at once, each stopping at its first failed step.
func concurrently(step func(g, i int) bool) {
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Go(func() {
			for i := range 1000 {
				if !step(g, i) {
					return
				}
			}
		})
	}
	wg.Wait()
}

func TestCacheConcurrent(t *testing.T) {
	c := New(4)
	concurrently(func(g, i int) bool {
		m := uint((g + i) % 16)
		if r, ok := c.Get(m); ok && r.Score != float64(m) {
			t.Errorf("mask %d: score %v", m, r.Score)
			return false
		}
		c.Put(m, probe.Result{Score: float64(m)})
		return true
	})
}

func TestTable(t *testing.T) {
	type key struct {
		expect bool
		min    int
	}
	tab := NewTable[key](2)
	a, b := key{true, 2}, key{false, 2}
	if _, ok := tab.Get(0, a); ok {
		t.Fatal("an empty table returned a result")
	}
	tab.Put(0, a, probe.Result{Details: "a0"})
	tab.Put(1, a, probe.Result{Details: "a1"})
	tab.Put(2, a, probe.Result{Details: "out of range"})
	tab.Put(-1, a, probe.Result{Details: "out of range"})
	for _, tc := range []struct {
		slot int
		key  key
		want string // "" for a miss
	}{
		{0, a, "a0"}, {1, a, "a1"}, {0, b, ""}, {2, a, ""}, {-1, a, ""},
	} {
		got, ok := tab.Get(tc.slot, tc.key)
		if ok != (tc.want != "") || got.Details != tc.want {
			t.Errorf("Get(%d, %v): got %q, %v, want %q", tc.slot, tc.key, got.Details, ok, tc.want)
		}
	}
	// Another key replaces the slot's result.
	tab.Put(0, b, probe.Result{Details: "b0"})
	if got, ok := tab.Get(0, a); ok {
		t.Errorf("Get(0, a) after Put(0, b): got %q, want a miss", got.Details)
	}
	if got, _ := tab.Get(0, b); got.Details != "b0" {
		t.Errorf("Get(0, b): got %q, want b0", got.Details)
	}
	var none *Table[key]
	if _, ok := none.Get(0, a); ok || none.Put(0, a, probe.Result{Details: "x"}).Details != "x" {
		t.Error("a nil table cached a result")
	}
}

func TestMemo(t *testing.T) {
	var none *Memo
	if _, ok := none.Get([]byte("k")); ok {
		t.Error("a nil Memo answered")
	}
	none.Put([]byte("k"), probe.Result{}) // caches nothing, does not panic

	m := NewMemo(1) // one slot: every key shares it
	a := probe.Result{Passed: true, Score: 1, Details: "a"}
	key := []byte("shape a")
	if got := m.Put(key, a); got.Details != "a" {
		t.Errorf("Put returned %+v", got)
	}
	key[0] = 'S' // the memo keeps its own copy of the key
	if _, ok := m.Get([]byte("shape a")); !ok {
		t.Error("a kept result was not found after the caller's key changed")
	}
	if _, ok := m.Get([]byte("shape b")); ok {
		t.Error("a result answered for another key in its slot")
	}
	m.Put([]byte("shape b"), probe.Result{Details: "b"})
	if got, ok := m.Get([]byte("shape b")); !ok || got.Details != "b" {
		t.Errorf("the slot's new key: %+v, %v", got, ok)
	}
	if _, ok := m.Get([]byte("shape a")); ok {
		t.Error("a replaced result still answered")
	}
	long := make([]byte, MaxMemoKey+1)
	m.Put(long, a)
	if _, ok := m.Get(long); ok {
		t.Error("a key longer than MaxMemoKey was kept")
	}

	defer func() {
		if recover() == nil {
			t.Error("NewMemo(3) did not panic")
		}
	}()
	NewMemo(3)
}

func TestMemoConcurrent(t *testing.T) {
	m := NewMemo(4)
	concurrently(func(g, i int) bool {
		key := []byte{byte(i % 16)}
		want := probe.Result{Score: float64(i%16) / 16}
		if got, ok := m.Get(key); ok && got.Score != want.Score {
			t.Errorf("goroutine %d: key %v gave score %v, want %v", g, key, got.Score, want.Score)
			return false
		}
		m.Put(key, want)
		return true
	})
}
