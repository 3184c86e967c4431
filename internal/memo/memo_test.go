package memo

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

func TestEvictsLeastRecentlyUsed(t *testing.T) {
	m := New[string, int](2)
	m.Put("a", 1)
	m.Put("b", 2)
	if v, ok := m.Get("a"); !ok || v != 1 { // a is now the most recent
		t.Fatalf("Get(a): got %v %v, want 1 true", v, ok)
	}
	m.Put("c", 3)
	if _, ok := m.Get("b"); ok {
		t.Error("b was kept, want it evicted as the least recently used")
	}
	for k, want := range map[string]int{"a": 1, "c": 3} {
		if v, ok := m.Get(k); !ok || v != want {
			t.Errorf("Get(%s): got %v %v, want %d true", k, v, ok, want)
		}
	}
	if m.Len() != 2 {
		t.Errorf("Len: got %d, want 2", m.Len())
	}
}

// TestDoComputesOnce: many goroutines asking for one key at once compute
// it once, and all get the value.
func TestDoComputesOnce(t *testing.T) {
	m := New[string, int](10)
	var calls atomic.Int32
	release := make(chan struct{})
	var wg sync.WaitGroup
	var shared atomic.Int32
	for range 20 {
		wg.Go(func() {
			v, sh, err := m.Do(context.Background(), "k", func() (int, bool, error) {
				calls.Add(1)
				<-release
				return 42, true, nil
			})
			if err != nil || v != 42 {
				t.Errorf("got %v %v, want 42 nil", v, err)
			}
			if sh {
				shared.Add(1)
			}
		})
	}
	time.Sleep(10 * time.Millisecond) // let the goroutines pile up; the test passes without it too
	close(release)
	wg.Wait()
	if calls.Load() != 1 {
		t.Errorf("computed %d times, want 1", calls.Load())
	}
	if shared.Load() != 19 {
		t.Errorf("%d calls shared the value, want 19", shared.Load())
	}
}

// TestFailureIsNotKept: a failed computation reaches its waiters but is
// not stored, so the next caller computes again.
func TestFailureIsNotKept(t *testing.T) {
	m := New[string, int](10)
	boom := errors.New("boom")
	_, _, err := m.Do(context.Background(), "k", func() (int, bool, error) { return 0, true, boom })
	if !errors.Is(err, boom) {
		t.Fatalf("got %v, want boom", err)
	}
	v, shared, err := m.Do(context.Background(), "k", func() (int, bool, error) { return 7, true, nil })
	if err != nil || v != 7 || shared {
		t.Errorf("got %v %v %v, want 7 computed anew", v, shared, err)
	}
	// keep false: the value reaches the caller but is not stored.
	m.Do(context.Background(), "x", func() (int, bool, error) { return 1, false, nil })
	if _, ok := m.Get("x"); ok {
		t.Error("a value not to keep was stored")
	}
}

// TestWaiterHonoursItsContext: a waiter stops waiting when its context
// ends, and the computation goes on for its owner.
func TestWaiterHonoursItsContext(t *testing.T) {
	m := New[string, int](10)
	s := m.Begin("k")
	if !s.Mine() {
		t.Fatal("first Begin is not Mine")
	}
	w := m.Begin("k")
	if w.Mine() || w.Stored {
		t.Fatal("second Begin is not a waiter")
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := w.Wait(ctx); !errors.Is(err, context.Canceled) {
		t.Errorf("got %v, want context.Canceled", err)
	}
	m.End("k", 5, true, nil)
	if v, err := w.Wait(context.Background()); err != nil || v != 5 {
		t.Errorf("after End: got %v %v, want 5", v, err)
	}
	if v, ok := m.Get("k"); !ok || v != 5 {
		t.Errorf("Get: got %v %v, want 5 true", v, ok)
	}
}

// TestCancelledOwnerDoesNotFailWaiters: when the goroutine computing a
// key was cancelled, a waiter whose context is alive computes it itself.
func TestCancelledOwnerDoesNotFailWaiters(t *testing.T) {
	m := New[string, int](10)
	owner := m.Begin("k")
	done := make(chan int)
	go func() {
		v, _, _ := m.Do(context.Background(), "k", func() (int, bool, error) { return 9, true, nil })
		done <- v
	}()
	time.Sleep(5 * time.Millisecond)
	if !owner.Mine() {
		t.Fatal("owner is not Mine")
	}
	m.End("k", 0, false, context.Canceled)
	if v := <-done; v != 9 {
		t.Errorf("waiter got %d, want 9 computed itself", v)
	}
}
