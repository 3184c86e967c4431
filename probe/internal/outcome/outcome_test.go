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

func TestCacheConcurrent(t *testing.T) {
	c := New(4)
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 1000 {
				m := uint((g + i) % 16)
				if r, ok := c.Get(m); ok && r.Score != float64(m) {
					t.Errorf("mask %d: score %v", m, r.Score)
					return
				}
				c.Put(m, probe.Result{Score: float64(m)})
			}
		}()
	}
	wg.Wait()
}
